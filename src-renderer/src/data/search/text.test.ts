import { describe, expect, it } from 'vitest'
import { isBodyTerm, markdownText, normaliseTerm, snippet, terms } from './text.ts'

describe('search text', () => {
  it('splits on anything that is not a letter or a digit, lower-cased, without accents', () => {
    expect(terms('Crème-brûlée: v2.1 `code_span` #42 Zoë!')).toEqual(['creme', 'brulee', 'v2', '1', 'code', 'span', '42', 'zoe'])
    expect(normaliseTerm('x'.repeat(41))).toBeNull()
  })

  it('keeps stop words and single letters out of bodies only', () => {
    expect(isBodyTerm('the')).toBe(false)
    expect(isBodyTerm('s')).toBe(false)
    expect(isBodyTerm('theme')).toBe(true)
  })

  it('reads markdown as text', () => {
    const md = '# Title\n\n> quoted\n\n- **bold** item\n1. [link text](https://example.com/x) ![alt](img.png)\n\n```ts\nconst a = 1\n```'
    const text = markdownText(md)
    expect(text).not.toMatch(/https|img\.png|\*\*|```|^#/m)
    expect(text).toContain('link text')
    expect(text).toContain('bold item')
    expect(text).toContain('const a = 1')
  })

  it('keeps the words of links and images and drops their targets, however they are written', () => {
    const cases: [string, string][] = [
      ['[a](https://x.test/a\\)b) after', 'a after'],
      ['[a](https://x.test/a\\(b) after', 'a after'],
      ['[a](<x y>) after', 'a after'],
      ['[a](<x (y>) after', 'a after'],
      ['[Foo](https://en.wikipedia.org/wiki/Foo_(bar)) after', 'Foo after'],
      ['[Foo](https://x.test/a_(b_(c))) after', 'Foo after'],
      ['[a](https://x.test "A title") after', 'a after'],
      ['[a](https://x.test (a title)) after', 'a after'],
      ['[a]() after', 'a after'],
      ['[see [this] one](https://x.test) after', 'see [this] one after'],
      ['![alt (text)](img_(1).png) after', 'alt (text) after'],
      ['[![alt](img.png)](https://x.test/(a)) after', 'alt after'],
      ['(see [a](https://x.test)) and [b](https://y.test)', '(see a) and b'],
    ]
    for (const [md, text] of cases) expect(markdownText(md), md).toBe(text)
    // Not links: a space in a bare target, an unbalanced parenthesis.
    expect(markdownText('[a](x y) after')).toBe('[a](x y) after')
    expect(markdownText('[a](x(y) after')).toBe('[a](x(y) after')
  })

  it('cuts a snippet around the first matching word', () => {
    const body = `${'lorem '.repeat(40)}the needle sits here ${'ipsum '.repeat(40)}`
    const s = snippet(body, ['needle'])!
    expect(s).toContain('needle sits here')
    expect(s.startsWith('…')).toBe(true)
    expect(s.endsWith('…')).toBe(true)
    expect(s.length).toBeLessThan(200)
    // A word start only: "needle" inside "haystackneedle" does not count.
    expect(snippet(`haystackneedle ${'lorem '.repeat(40)}needle here`, ['needle'])!.startsWith('…')).toBe(true)
    expect(snippet('Short body', ['absent'])).toBe('Short body')
    expect(snippet('', ['x'])).toBeUndefined()
  })
})
