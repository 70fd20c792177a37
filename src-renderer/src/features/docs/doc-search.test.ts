import { describe, expect, it } from 'vitest'
import type { CachedDoc } from '../../data/types.ts'
import { htmlWithoutTitle, markdownWithoutTitle, notInCache, searchDocs, snippetAround } from './doc-search.ts'

const doc = (id: string, title: string, markdown: string, updated = '2024-01-01T00:00:00Z'): CachedDoc => ({
  id,
  title,
  content_markdown: markdown,
  content_html: '',
  archived: false,
  creator_id: null,
  created_at: updated,
  updated_at: updated,
})

describe('finding docs', () => {
  const docs = [
    doc('a', 'Release checklist', '# Release checklist\n\nBump the version, tag, and publish.', '2024-03-01T00:00:00Z'),
    doc('b', 'Architecture', '# Architecture\n\nThe release train leaves every Tuesday.', '2024-02-01T00:00:00Z'),
    doc('c', 'Onboarding', 'Welcome aboard.', '2024-04-01T00:00:00Z'),
  ]

  it('lists every doc without a query, their text without the repeated title', () => {
    const hits = searchDocs(docs, '')
    expect(hits.map((h) => h.doc.id)).toEqual(['a', 'b', 'c'])
    expect(hits[0].snippet).toBe('Bump the version, tag, and publish.')
  })

  it('puts title matches before text matches, and needs every word', () => {
    expect(searchDocs(docs, 'release').map((h) => h.doc.id)).toEqual(['a', 'b'])
    expect(searchDocs(docs, 'release tuesday').map((h) => h.doc.id)).toEqual(['b'])
    expect(searchDocs(docs, 'nothing here')).toEqual([])
  })

  it('adds what the local index found (typos)', () => {
    expect(searchDocs(docs, 'onbaording', new Map([['c', 1]])).map((h) => h.doc.id)).toEqual(['c'])
  })

  it('shows the text around a match deep in a doc', () => {
    const long = `${'word '.repeat(60)}the needle is here ${'more '.repeat(60)}`
    expect(snippetAround(long, ['needle'])).toMatch(/^….*needle is here/)
  })

  it('reads snippets as prose: no space before punctuation where emphasis or code marks were', () => {
    const [hit] = searchDocs(
      [doc('d', 'Notes', '# Notes\n\n**Offline first**: run `npm test`. Then [the guide](javascript:alert\\(1\\)), _twice_!\n\n---\n\n1. Well-known step')],
      '',
    )
    expect(hit.snippet).toBe('Offline first: run npm test. Then the guide, twice! Well-known step')
  })

  it('keeps only the service hits this computer lacks', () => {
    expect(
      notInCache(
        [
          { id: 'a', title: 'A' },
          { id: 'z', title: 'Z' },
        ],
        docs,
      ),
    ).toEqual([{ id: 'z', title: 'Z' }])
  })

  it('drops a leading heading that repeats the title, and only that', () => {
    expect(htmlWithoutTitle('<h1>Q3 <em>roadmap</em></h1><p>x</p>', 'Q3 roadmap')).toBe('<p>x</p>')
    expect(htmlWithoutTitle('<h1>Other</h1><p>x</p>', 'Q3 roadmap')).toBe('<h1>Other</h1><p>x</p>')
    expect(markdownWithoutTitle('# Q3 roadmap\n\nText', 'Q3 roadmap')).toBe('\nText')
    expect(markdownWithoutTitle('## Q3 roadmap\n\nText', 'Q3 roadmap')).toBe('## Q3 roadmap\n\nText')
  })
})
