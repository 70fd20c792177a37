// The one way server HTML reaches the DOM: doc bodies, rendered markdown,
// anything the service wrote. `{@html}` only ever takes what `sanitizeHtml`
// returned. The policy is stricter than DOMPurify's defaults: HTML only (no
// SVG or MathML, where scripts and odd parsing hide), no styles, no forms, no
// frames, no event handlers, links only to the web or mail (a link to
// anything else keeps its words, as plain text whose title says the link was
// removed), images only from data: or blob: (the CSP blocks remote ones
// anyway; their alt text stays).
// Links open outside the app: target=_blank with rel="noopener noreferrer",
// which Electron's window-open handler hands to the OS browser (http(s) only).
import DOMPurify, { type Config } from 'dompurify'

const FORBID_TAGS = [
  'script',
  'style',
  'link',
  'meta',
  'base',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'option',
  'template',
  'svg',
  'math',
  'noscript',
  'audio',
  'video',
  'source',
  'track',
  'portal',
]

const FORBID_ATTR = ['style', 'srcset', 'action', 'formaction', 'background', 'ping', 'xlink:href', 'autofocus', 'tabindex']

/** Web pages and mail in links; images only from data/blob (the CSP's img-src). */
const SAFE_LINK = /^(?:https?:|mailto:)/i
const SAFE_IMAGE = /^(?:data:image\/(?:png|gif|jpe?g|webp|avif);|blob:)/i

const CONFIG: Config = {
  USE_PROFILES: { html: true },
  FORBID_TAGS,
  FORBID_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  // http(s), mailto, and in-page anchors; never javascript:, data: (links), vbscript:, file:.
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|#)/i,
  // DOMPurify holds the value of every attribute it does not know to be plain text to the URI pattern above, which
  // took a table column's alignment (align="right"), a cell's span and a list's start away: these are plain text.
  ADD_URI_SAFE_ATTR: ['align', 'valign', 'colspan', 'rowspan', 'start', 'scope', 'headers', 'abbr', 'lang', 'dir', 'datetime'],
  KEEP_CONTENT: true,
  WHOLE_DOCUMENT: false,
  RETURN_TRUSTED_TYPE: false,
}

/** What a link whose address was taken away says when hovered. */
const REMOVED_LINK_TITLE = 'Link removed: Outpost only opens web and mail addresses'

let purifier: ReturnType<typeof DOMPurify> | undefined

/** Our own DOMPurify instance, so its hooks never leak into anyone else's. */
function instance(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier
  const p = DOMPurify(window)
  // Links that had an address this policy refuses (javascript:, data:, file:...), seen before DOMPurify drops it.
  const refused = new WeakSet<Element>()
  p.addHook('beforeSanitizeElements', (node) => {
    if (node instanceof Element && node.localName === 'a' && node.hasAttribute('href')) {
      const href = node.getAttribute('href')?.trim() ?? ''
      if (!href.startsWith('#') && !SAFE_LINK.test(href)) refused.add(node)
    }
  })
  p.addHook('uponSanitizeAttribute', (_node, event) => {
    // Belt and braces: any on* attribute is dropped whatever the allow-list says.
    if (/^on/i.test(event.attrName)) event.keepAttr = false
  })
  p.addHook('afterSanitizeAttributes', (node) => {
    const tag = node.tagName.toLowerCase()
    if (tag === 'a') {
      const href = node.getAttribute('href') ?? ''
      if (href.startsWith('#')) {
        node.removeAttribute('target')
        return
      }
      if (!SAFE_LINK.test(href)) {
        // Plain text from now on (an anchor without href is not a link), saying why when hovered.
        node.removeAttribute('href')
        node.removeAttribute('target')
        if (refused.has(node)) {
          node.setAttribute('class', 'removed-link')
          node.setAttribute('title', REMOVED_LINK_TITLE)
        }
        return
      }
      node.setAttribute('target', '_blank')
      node.setAttribute('rel', 'noopener noreferrer')
      return
    }
    if (tag === 'img') {
      const src = node.getAttribute('src') ?? ''
      if (!SAFE_IMAGE.test(src)) {
        // A remote image would be blocked by the CSP and leak a request: keep what it said instead.
        const alt = node.getAttribute('alt')?.trim()
        const note = node.ownerDocument.createElement('span')
        note.className = 'remote-image'
        note.textContent = alt ? `[image: ${alt}]` : '[image]'
        node.replaceWith(note)
      }
      node.removeAttribute('loading')
    }
  })
  return (purifier = p)
}

/** Server HTML made safe for `{@html}`. */
export function sanitizeHtml(dirty: string | null | undefined): string {
  if (!dirty) return ''
  return instance().sanitize(dirty, CONFIG)
}

/** The URL when it is an absolute http(s) address, else undefined: only those open from Outpost. */
export function httpUrlOf(url: string): string | undefined {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined
  } catch {
    return undefined
  }
}
