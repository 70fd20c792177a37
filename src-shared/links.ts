// Links to an epic or a doc that Outpost opens: its own deep links
// (`outpost://<workspace>/epic/<id>`, `outpost://<workspace>/doc/<id>`, which
// the OS hands to the app) and the service's web addresses of the same items
// (an epic's or doc's `app_url`: `https://<app>/<workspace>/epic/<id>[/<name>]`,
// `https://<app>/<workspace>/write/doc/<id>[/<title>]`), pasted into the app.

export const LINK_SCHEME = 'outpost'

export type LinkKind = 'epic' | 'doc'

export interface ItemLink {
  /** The workspace's slug, as the service's URLs name it. */
  workspace: string
  kind: LinkKind
  /** An epic's number, a doc's UUID. */
  id: string
}

const EPIC_ID = /^\d{1,12}$/
const DOC_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const SLUG = /^[a-z0-9][a-z0-9-_]{0,62}$/i

/** Outpost's deep link to an item. */
export function itemLink(workspace: string, kind: LinkKind, id: string | number): string {
  return `${LINK_SCHEME}://${encodeURIComponent(workspace)}/${kind}/${encodeURIComponent(String(id))}`
}

/** The item a pasted or launched link names, or undefined when the text is no such link. */
export function parseItemLink(text: string | null | undefined): ItemLink | undefined {
  const trimmed = (text ?? '').trim()
  if (!trimmed || /\s/.test(trimmed) || trimmed.length > 2048) return undefined
  let url: URL
  try {
    url = new URL(trimmed)
  } catch {
    return undefined
  }
  const parts = url.pathname
    .split('/')
    .filter(Boolean)
    .map((p) => safeDecode(p))
  let found: ItemLink | undefined
  if (url.protocol === `${LINK_SCHEME}:`) {
    // outpost://<workspace>/<kind>/<id>: the workspace is the URL's host.
    const workspace = safeDecode(url.hostname)
    const [kind, id] = parts
    if (parts.length === 2) found = itemOf(workspace, kind, id)
  } else if (url.protocol === 'https:' || url.protocol === 'http:') {
    const [workspace, a, b, c] = parts
    // <workspace>/epic/<id>[/<name>], <workspace>/write/doc/<id>[/<title>], <workspace>/doc/<id>
    if (a === 'write' && b === 'doc') found = itemOf(workspace, 'doc', c)
    else found = itemOf(workspace, a, b)
  }
  return found
}

function itemOf(workspace: string | undefined, kind: string | undefined, id: string | undefined): ItemLink | undefined {
  if (!workspace || !SLUG.test(workspace) || !id) return undefined
  if ((kind === 'epic' || kind === 'epics') && EPIC_ID.test(id)) return { workspace: workspace.toLowerCase(), kind: 'epic', id }
  if ((kind === 'doc' || kind === 'docs') && DOC_ID.test(id)) return { workspace: workspace.toLowerCase(), kind: 'doc', id: id.toLowerCase() }
  return undefined
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}

/** The deep link among a process's arguments (Windows and Linux launch the app with it). */
export function linkInArgv(argv: readonly string[]): string | undefined {
  return argv.find((arg) => arg.startsWith(`${LINK_SCHEME}://`) && parseItemLink(arg) !== undefined)
}
