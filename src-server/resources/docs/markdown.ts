// Doc content: markdown is converted to HTML for storage (marked) and HTML back
// to markdown for reading (turndown), with GFM tables, strikethrough and tidy lists.
import { Marked } from 'marked'
import TurndownService from 'turndown'

const marked = new Marked({ gfm: true, async: false })

export function markdownToHtml(markdown: string): string {
  return marked.parse(markdown, { async: false })
}

function cellsOf(row: Element): Element[] {
  return Array.from(row.children).filter((n) => n.nodeName === 'TH' || n.nodeName === 'TD')
}

/** The first row of a table, or a row of a thead: it gets the `| --- |` line after it. */
function isHeadingRow(row: Element): boolean {
  const parent = row.parentNode
  if (!parent) return false
  if (parent.nodeName === 'THEAD') return true
  const table = parent.nodeName === 'TABLE' ? parent : parent.parentNode
  const firstRow = table ? (table as Element).querySelector('tr') : null
  return firstRow === row && cellsOf(row).every((c) => c.nodeName === 'TH')
}

function alignmentOf(cell: Element): string {
  const align = ((cell as Element).getAttribute('align') ?? '').toLowerCase()
  if (align === 'left') return ':---'
  if (align === 'right') return '---:'
  if (align === 'center') return ':---:'
  return '---'
}

function createTurndown(): TurndownService {
  const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*', hr: '---' })
  td.addRule('listItem', {
    filter: 'li',
    replacement: (content, node) => {
      const parent = node.parentNode as Element | null
      let prefix = '- '
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1')
        prefix = `${start + Array.prototype.indexOf.call(parent.children, node)}. `
      }
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n/gm, `\n${' '.repeat(prefix.length)}`)
      return prefix + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '')
    },
  })
  td.addRule('taskListItem', {
    filter: (node) => node.nodeName === 'INPUT' && (node as Element).getAttribute('type') === 'checkbox',
    replacement: (_content, node) => ((node as Element).hasAttribute('checked') ? '[x]' : '[ ]'),
  })
  td.addRule('strikethrough', { filter: ['del', 's'], replacement: (content) => `~~${content}~~` })
  td.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement: (content, node) => {
      const text = content.trim().replace(/\n+/g, ' ').replace(/\|/g, '\\|')
      const row = node.parentNode as Element | null
      const first = row ? cellsOf(row)[0] === node : true
      return `${first ? '| ' : ' '}${text} |`
    },
  })
  td.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const line = `\n${content}`
      if (!isHeadingRow(node)) return line
      return `${line}\n| ${cellsOf(node).map(alignmentOf).join(' | ')} |`
    },
  })
  td.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content })
  td.addRule('table', { filter: 'table', replacement: (content) => `\n\n${content.replace(/\n+/g, '\n').trim()}\n\n` })
  return td
}

const turndown = createTurndown()

export function htmlToMarkdown(html: string): string {
  return turndown.turndown(html)
}
