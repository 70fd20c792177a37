// The HTTPS rule: a token only ever travels over HTTPS, except to this machine
// (loopback), where the local service runs over plain HTTP.
import { isIP } from 'node:net'
import { GatewayError } from './errors.ts'

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host === 'localhost.') return true
  if (isIP(host) === 4) return host.startsWith('127.')
  if (isIP(host) === 6) return host === '::1' || /^::ffff:127\./.test(host)
  return false
}

/** Parses a base URL and applies the HTTPS rule; refuses with `bad-url` or `insecure`. */
export function checkBaseUrl(baseUrl: string): URL {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new GatewayError({ kind: 'bad-url', message: `"${baseUrl}" is not a URL; give one such as https://api.example.com.` })
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new GatewayError({ kind: 'bad-url', message: `The service URL must start with https:// (got ${url.protocol}).` })
  }
  if (url.username || url.password) {
    throw new GatewayError({ kind: 'bad-url', message: 'The service URL must not carry a user name or password; the API token is given separately.' })
  }
  if (url.search || url.hash) {
    throw new GatewayError({ kind: 'bad-url', message: 'The service URL must not carry a query or a fragment.' })
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new GatewayError({
      kind: 'insecure',
      message: `Refusing to send the API token to ${url.host} over plain HTTP: use https://${url.host}${url.pathname === '/' ? '' : url.pathname}.`,
    })
  }
  return url
}

/** The base URL's path without its trailing slash, to prefix /api/... with. */
export function basePath(url: URL): string {
  return url.pathname.replace(/\/+$/, '')
}
