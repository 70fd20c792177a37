// The renderer's Content-Security-Policy, sent as a response header with every
// file of the app. Nothing but the app's own scripts runs; the page talks to
// the network only through the main side (IPC), so `connect-src` is the app's
// own origin, plus the browser host's WebSocket where it is one.

export interface PolicyOptions {
  /** Extra `connect-src` sources (the browser host's `ws://127.0.0.1:PORT`). */
  connect?: string[]
}

export function contentSecurityPolicy(options: PolicyOptions = {}): string {
  const directives: Record<string, string[]> = {
    'default-src': ["'none'"],
    'script-src': ["'self'"],
    // Svelte sets style attributes on elements it creates.
    'style-src': ["'self'", "'unsafe-inline'"],
    // Thumbnails and previews come from the main side as data: or blob: URLs.
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'"],
    'connect-src': ["'self'", ...(options.connect ?? [])],
    'object-src': ["'none'"],
    'frame-src': ["'none'"],
    'worker-src': ["'self'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
    'frame-ancestors': ["'none'"],
  }
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ')
}
