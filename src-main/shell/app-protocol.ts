// The renderer is served from the packaged files through our own protocol,
// `outpost://app/...`, not `file://` (which would give the page access to every
// file:// URL and no origin of its own) and not a dev server. This module turns
// a request into a file of out/renderer, refusing anything that leaves it, and
// answers with the Content-Security-Policy as a response header.
import { readFile, stat } from 'node:fs/promises'
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path'

export const APP_SCHEME = 'outpost'
export const APP_HOST = 'app'
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`

/**
 * For `protocol.registerSchemesAsPrivileged`: a standard, secure origin that can use fetch, whose
 * scripts V8 keeps compiled between starts (only http(s) get a code cache unless a scheme asks).
 */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true, codeCache: true } as const

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
}

/** A file of the build named by its content's hash (Vite's `assets/[name]-[hash].[ext]`). */
const HASHED_ASSET = /^\/assets\/[^/]+-[\w-]{8}\.[a-z0-9]+$/

/**
 * The Cache-Control of the file at a URL path: the build's chunks and styles are named by their
 * content's hash, so a copy kept by the browser never goes stale and a start takes them (and the
 * code V8 compiled from them) without asking; anything else (index.html) is asked for each time.
 */
export function cacheControlOf(pathname: string): string {
  return HASHED_ASSET.test(pathname) ? 'public, max-age=31536000, immutable' : 'no-cache'
}

export function contentTypeOf(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream'
}

/**
 * The file under `root` that `url` names, or null when the URL is not ours or
 * would leave `root`.
 */
export function resolveAppFile(url: string, root: string): string | null {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return null
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return null
  return resolveRendererFile(parsed.pathname, root)
}

/**
 * The file under `root` that a URL path (still percent-encoded) names, or null
 * when it would leave `root`: `..`, encoded `%2e%2e` or `%2f`, a backslash
 * (`%5c`), NUL. `/` is index.html; a path without an extension is a route of
 * the app and gets index.html too, so a reload on a route still loads the app.
 * Shared with the browser host, which serves the same files over HTTP.
 */
export function resolveRendererFile(pathname: string, root: string): string | null {
  let path: string
  try {
    path = decodeURIComponent(pathname)
  } catch {
    return null
  }
  if (path.includes('\0') || path.includes('\\')) return null
  const segments = path.split('/').filter((s) => s !== '')
  if (segments.some((s) => s === '..' || s === '.')) return null
  if (segments.length === 0 || !extname(segments[segments.length - 1])) segments.splice(0, segments.length, 'index.html')
  const base = resolve(root)
  const file = resolve(join(base, ...segments))
  const inside = relative(base, file)
  if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return null
  return file
}

export interface AppProtocolOptions {
  /** The built renderer (out/renderer). */
  root: string
  /** The Content-Security-Policy header of every answer. */
  contentSecurityPolicy: string
}

/** The `protocol.handle` handler: a fetch-style function, so it runs (and is tested) outside Electron. */
export function appProtocolHandler(options: AppProtocolOptions): (request: Request) => Promise<Response> {
  const headers = (type: string, cacheControl = 'no-cache'): Record<string, string> => ({
    'content-type': type,
    'content-security-policy': options.contentSecurityPolicy,
    'x-content-type-options': 'nosniff',
    'cache-control': cacheControl,
  })
  const refuse = (status: number, text: string) => new Response(text, { status, headers: headers('text/plain; charset=utf-8') })

  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(405, 'Method not allowed')
    const file = resolveAppFile(request.url, options.root)
    if (!file) return refuse(404, 'Not found')
    try {
      const info = await stat(file)
      if (!info.isFile()) return refuse(404, 'Not found')
      const body = request.method === 'HEAD' ? null : new Uint8Array(await readFile(file))
      return new Response(body, { status: 200, headers: headers(contentTypeOf(file), cacheControlOf(new URL(request.url).pathname)) })
    } catch {
      return refuse(404, 'Not found')
    }
  }
}
