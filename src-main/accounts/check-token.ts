// Asks the service who a token belongs to: v4 tokens (svc_...) with
// GET /api/v4/whoami, v3 tokens with GET /api/v3/member. One small function,
// so it can later go through the gateway instead of its own request.
import { unwrapEntity } from '../../src-shared/api/common.ts'
import { USER_AGENT, authHeaders } from '../../src-shared/api/operations.ts'
import { request, type Dispatcher } from 'undici'
import type { MemberInfoV3 } from '../../src-shared/api/v3/members.ts'
import type { WhoamiV4 } from '../../src-shared/api/v4/members.ts'
import { AccountError } from './account-error.ts'

export type TokenKind = 'v4' | 'v3'

/** Who stands behind a token, and in which workspace. */
export interface TokenOwner {
  tokenKind: TokenKind
  memberId: string
  memberName: string
  workspaceSlug: string
  workspaceName: string
  /** A v4 token's scopes, when whoami says them. */
  scopes?: string[]
}

export type TokenCheck = (baseUrl: string, token: string) => Promise<TokenOwner>

export interface CheckTokenOptions {
  /** Whole request, connect to last byte. */
  timeoutMs?: number
  dispatcher?: Dispatcher
}

/** v4 tokens carry the svc_ prefix (svc_rw_, svc_ro_); anything else is a v3 token. */
export function tokenKindOf(token: string): TokenKind {
  return token.startsWith('svc_') ? 'v4' : 'v3'
}

export async function checkToken(baseUrl: string, token: string, options: CheckTokenOptions = {}): Promise<TokenOwner> {
  const tokenKind = tokenKindOf(token)
  const path = tokenKind === 'v4' ? '/api/v4/whoami' : '/api/v3/member'
  const auth = authHeaders(tokenKind, token, tokenKind)
  const host = new URL(baseUrl).host

  let status: number
  let text: string
  try {
    const res = await request(`${baseUrl}${path}`, {
      method: 'GET',
      headers: { ...auth, accept: 'application/json', 'user-agent': USER_AGENT },
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
      dispatcher: options.dispatcher,
    })
    status = res.statusCode
    text = await res.body.text()
  } catch (error) {
    throw new AccountError('unreachable', unreachableMessage(host, error), undefined, { cause: error })
  }

  if (status === 401) {
    throw new AccountError(
      'bad-token',
      `${host} did not accept this ${tokenKind} token: it is wrong or has been disabled. Create a new API token in your account settings and paste it again.`,
      status,
    )
  }
  if (status !== 200) {
    throw new AccountError('unexpected-answer', `${host} answered ${status} to GET ${path}. Is this the address of the work-tracking service?`, status)
  }
  let body: unknown
  try {
    body = unwrapEntity(JSON.parse(text))
  } catch {
    throw new AccountError('unexpected-answer', `${host} did not answer GET ${path} with JSON. Is this the address of the work-tracking service?`, status)
  }
  const owner = tokenKind === 'v4' ? ownerOfWhoami(body as WhoamiV4) : ownerOfMember(body as MemberInfoV3)
  if (!owner) {
    throw new AccountError('unexpected-answer', `${host} answered GET ${path} without the member and workspace Outpost needs.`, status)
  }
  return owner
}

function ownerOfWhoami(body: WhoamiV4): TokenOwner | null {
  const member = body?.member
  const workspace = body?.workspace as (WhoamiV4['workspace'] & { slug?: unknown }) | undefined
  if (typeof member?.id !== 'string' || typeof workspace?.slug !== 'string') return null
  const scopes: unknown = body.authorization?.scopes
  return {
    tokenKind: 'v4',
    memberId: member.id,
    memberName: typeof member.name === 'string' ? member.name : member.id,
    workspaceSlug: workspace.slug,
    workspaceName: typeof workspace.name === 'string' ? workspace.name : workspace.slug,
    ...(Array.isArray(scopes) && scopes.every((s) => typeof s === 'string') && { scopes: scopes as string[] }),
  }
}

/** v3 tells the workspace only by its slug (MemberInfo.workspace2.url_slug). */
function ownerOfMember(body: MemberInfoV3): TokenOwner | null {
  const slug = body?.workspace2?.url_slug
  if (typeof body?.id !== 'string' || typeof slug !== 'string') return null
  return {
    tokenKind: 'v3',
    memberId: body.id,
    memberName: typeof body.name === 'string' ? body.name : body.id,
    workspaceSlug: slug,
    workspaceName: slug,
  }
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing is listening there (connection refused)',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the name could not be looked up (is the network up?)',
  ECONNRESET: 'the connection was reset',
  ENETUNREACH: 'the network is unreachable',
  EHOSTUNREACH: 'the host is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'the service did not answer in time',
  UND_ERR_BODY_TIMEOUT: 'the service did not finish its answer in time',
  UND_ERR_SOCKET: 'the connection was closed',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its HTTPS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its HTTPS certificate is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its HTTPS certificate is not trusted',
  CERT_HAS_EXPIRED: 'its HTTPS certificate has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its HTTPS certificate is for another name',
}

function unreachableMessage(host: string, error: unknown): string {
  const err = error as { code?: string; name?: string; cause?: { code?: string } }
  const code = err?.code ?? err?.cause?.code
  const reason =
    err?.name === 'TimeoutError' || err?.name === 'AbortError'
      ? 'it did not answer in time'
      : ((code && NETWORK_REASONS[code]) ?? (code ? `network error ${code}` : 'network error'))
  return `Could not reach ${host}: ${reason}. Check the address and your network connection.`
}
