// How a page of the browser host gets the launch secret its bridge needs: in
// the URL fragment (`#outpost-secret=…`, the address `npm run web` prints and
// the tests open), or as a one-time code there (`#outpost-code=…`, the address
// `npm start` hands the browser on a command line other local users can
// read), which the page trades for the secret once, before the app starts.
// Either way it leaves the address bar at once and is kept for reloads of this
// tab only (sessionStorage).
import { HOST_CODE_FRAGMENT, HOST_KEY_PATH, HOST_SECRET_FRAGMENT } from '../../../src-shared/ipc.ts'

const SECRET_STORAGE_KEY = 'outpost-host-secret'

/** Why the page's one-time code got it no secret (the host's words), for the bridge to say. */
let refused: string | undefined

/** Takes `name` out of the fragment without a history entry; answers its value. */
function takeFromFragment(name: string, location: Location, history: History): string | null {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''))
  const value = fragment.get(name)
  if (value === null) return null
  fragment.delete(name)
  const rest = fragment.toString()
  history.replaceState(history.state, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`)
  return value
}

/**
 * The launch secret of the browser host: from the URL fragment on the first
 * load (then taken out of the address bar and kept for reloads of this tab).
 */
export function hostSecretFromPage(location: Location, history: History, storage: Storage): string | undefined {
  const secret = takeFromFragment(HOST_SECRET_FRAGMENT, location, history)
  if (secret) {
    storage.setItem(SECRET_STORAGE_KEY, secret)
    return secret
  }
  return storage.getItem(SECRET_STORAGE_KEY) ?? undefined
}

/**
 * A one-time code in the fragment, traded with the host for the launch secret (kept as above). Nothing to
 * do without one. The code leaves the address bar first, so a reload never offers a spent code again.
 */
export async function takeOneTimeCode(location: Location, history: History, storage: Storage, post: typeof fetch = fetch): Promise<void> {
  const code = takeFromFragment(HOST_CODE_FRAGMENT, location, history)
  if (code === null) return
  try {
    const response = await post(`${location.origin}${HOST_KEY_PATH}`, {
      method: 'POST',
      body: code,
      headers: { 'content-type': 'text/plain' },
      cache: 'no-store',
      credentials: 'omit',
    })
    const answer = (await response.json().catch(() => ({}))) as { secret?: unknown; error?: unknown }
    if (response.ok && typeof answer.secret === 'string') storage.setItem(SECRET_STORAGE_KEY, answer.secret)
    else refused = typeof answer.error === 'string' ? answer.error : `The Outpost host refused this address (${response.status}).`
  } catch {
    refused = 'The Outpost host could not be reached to open this address (is it still running?).'
  }
}

/** The host's refusal of this page's one-time code, if it had one and was refused. */
export function oneTimeCodeRefused(): string | undefined {
  return refused
}
