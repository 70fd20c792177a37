import { describe, expect, it } from 'vitest'
import { AccountError } from './account-error.ts'
import { isLoopbackHost, parseBaseUrl } from './base-url.ts'

function kindOf(input: string): string {
  try {
    parseBaseUrl(input)
    return 'ok'
  } catch (error) {
    return error instanceof AccountError ? error.kind : 'crash'
  }
}

describe('parseBaseUrl', () => {
  it('writes every base URL one way', () => {
    expect(parseBaseUrl(' https://API.Example.com/ ')).toBe('https://api.example.com')
    expect(parseBaseUrl('https://api.example.com:443')).toBe('https://api.example.com')
    expect(parseBaseUrl('https://example.com/tracker/')).toBe('https://example.com/tracker')
    // A pasted API address is taken back to its base.
    expect(parseBaseUrl('https://api.example.com/api/v4/')).toBe('https://api.example.com')
    expect(parseBaseUrl('https://api.example.com/api/v3')).toBe('https://api.example.com')
    expect(parseBaseUrl('http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010')
  })

  it('allows plain http only on this computer', () => {
    expect(kindOf('http://localhost:3000')).toBe('ok')
    expect(kindOf('http://127.0.0.1:3000')).toBe('ok')
    expect(kindOf('http://[::1]:3000')).toBe('ok')
    expect(kindOf('http://example.com')).toBe('insecure-url')
    expect(kindOf('http://10.0.0.5')).toBe('insecure-url')
    expect(kindOf('http://localhost.example.com')).toBe('insecure-url')
    expect(isLoopbackHost('127.8.9.10')).toBe(true)
    expect(isLoopbackHost('128.0.0.1')).toBe(false)
  })

  it('gives a bad address its own message', () => {
    expect(kindOf('')).toBe('bad-url')
    expect(kindOf('not a url')).toBe('bad-url')
    expect(kindOf('api.example.com')).toBe('bad-url')
    expect(kindOf('ftp://api.example.com')).toBe('bad-url')
    expect(kindOf('https://me:secret@api.example.com')).toBe('bad-url')
    expect(kindOf('https://api.example.com/?token=x')).toBe('bad-url')
    expect(() => parseBaseUrl('api.example.com')).toThrow(/starting with https:\/\//)
    expect(() => parseBaseUrl('http://example.com')).toThrow(/only over HTTPS.*https:\/\/example\.com/)
  })
})
