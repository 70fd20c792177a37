// The base URL a person types when adding a workspace, checked and written one
// way: scheme, host, optional path prefix, no trailing slash. HTTPS unless the
// service runs on this very computer.
import { isLoopback } from '../gateway/origin.ts'
import { AccountError } from './account-error.ts'

const EXAMPLE = 'https://api.example.com'

/**
 * Hosts whose traffic never leaves this computer, so plain http:// is fine: the
 * gateway's rule, so an account is accepted exactly when the gateway will talk to it.
 */
export const isLoopbackHost = isLoopback

/**
 * Returns the normalized base URL or throws `bad-url` / `insecure-url`.
 * A pasted API address (`.../api/v4`) is taken back to its base.
 */
export function parseBaseUrl(input: string): string {
  const text = input.trim()
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new AccountError(
      'bad-url',
      text
        ? `"${text}" is not a web address. Enter the full address of the service, starting with https:// (for example ${EXAMPLE}).`
        : `Enter the address of the service, starting with https:// (for example ${EXAMPLE}).`,
    )
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AccountError('bad-url', `"${text}" is not a web address: it must start with https:// (for example ${EXAMPLE}).`)
  }
  if (url.username || url.password) {
    throw new AccountError('bad-url', 'The address must not contain a user name or password: enter only the address, and the API token in its own field.')
  }
  if (url.search || url.hash) {
    throw new AccountError('bad-url', `Enter the address of the service without "?" or "#" parts (for example ${EXAMPLE}).`)
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new AccountError(
      'insecure-url',
      `Outpost connects to remote services only over HTTPS, so your token never crosses the network in clear: use https://${url.host}${url.pathname === '/' ? '' : url.pathname}. Plain http:// is allowed only for a service on this computer (localhost, 127.0.0.1).`,
    )
  }
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api(\/v[34])?$/, '')
  return `${url.protocol}//${url.host}${path}`
}
