// Who is calling: token lookup for v3 and v4, the member behind it, and the
// rules of part 2 §5 (read-only tokens, admin routes, Observers).
import { randomBytes } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import type { ServiceContext } from './context.ts'
import { ApiError } from './errors.ts'
import type { MemberRecord } from './resources/members/member.ts'

/** v4 tokens: svc_rw_ (read-write) and svc_ro_ (read-only). v3 tokens are plain uuids. */
export type TokenKind = 'v4_rw' | 'v4_ro' | 'v3'

export interface TokenRow {
  secret: string
  id: string
  kind: TokenKind
  member_id: string
  description: string
  disabled: number
  created_at: string
  updated_at: string
  last_used_at: string | null
}

export interface Auth {
  api: 'v3' | 'v4' | 'media'
  token: TokenRow
  member: MemberRecord
  readOnly: boolean
}

export class Tokens {
  private readonly stmts

  constructor(private readonly ctx: ServiceContext) {
    const db = ctx.db
    this.stmts = {
      bySecret: db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE secret = ?'),
      byId: db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE id = ?'),
      all: db.prepare<[], TokenRow>('SELECT * FROM tokens ORDER BY created_at, id'),
      insert: db.prepare(
        `INSERT INTO tokens (secret, id, kind, member_id, description, disabled, created_at, updated_at)
         VALUES (@secret, @id, @kind, @member_id, @description, 0, @created_at, @created_at)`,
      ),
      disable: db.prepare<[string, string]>('UPDATE tokens SET disabled = 1, updated_at = ? WHERE id = ?'),
      touch: db.prepare<[string, string]>('UPDATE tokens SET last_used_at = ? WHERE id = ?'),
    }
  }

  create(kind: TokenKind, memberId: string, description: string): TokenRow {
    const secret = kind === 'v3' ? this.ctx.uuid() : `${kind === 'v4_rw' ? 'svc_rw_' : 'svc_ro_'}${randomBytes(24).toString('base64url')}`
    const row = { secret, id: this.ctx.uuid(), kind, member_id: memberId, description, created_at: this.ctx.now() }
    this.stmts.insert.run(row)
    return this.stmts.bySecret.get(secret)!
  }

  find(secret: string): TokenRow | undefined {
    return this.stmts.bySecret.get(secret)
  }
  byId(id: string): TokenRow | undefined {
    return this.stmts.byId.get(id)
  }
  all(): TokenRow[] {
    return this.stmts.all.all()
  }
  disable(id: string): void {
    this.stmts.disable.run(this.ctx.now(), id)
  }

  /** last_used_at is written at most once a minute per token: it is a hint, not a log. */
  touch(token: TokenRow): void {
    const now = this.ctx.clock()
    if (token.last_used_at && now - Date.parse(token.last_used_at) < 60_000) return
    this.stmts.touch.run(new Date(now).toISOString(), token.id)
  }
}

function headerValue(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}

/** The secret a request presents, by the rules of its API generation. */
export function presentedToken(req: FastifyRequest, api: Auth['api']): string | undefined {
  const bearer = () => {
    const h = headerValue(req, 'authorization')
    const m = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null
    return m?.[1]
  }
  if (api === 'v4') return bearer()
  const query = req.query as Record<string, unknown> | undefined
  const fromQuery = typeof query?.token === 'string' ? query.token : undefined
  const v3 = headerValue(req, 'service-token') ?? headerValue(req, 'shortcut-token') ?? fromQuery
  return api === 'media' ? (v3 ?? bearer()) : v3
}

export function authenticate(ctx: ServiceContext, tokens: Tokens, req: FastifyRequest, api: Auth['api']): Auth {
  const secret = presentedToken(req, api)
  if (!secret)
    throw ApiError.unauthorized(
      api === 'v4' ? 'Send your API token as "Authorization: Bearer <token>".' : 'Send your API token in the Shortcut-Token or Service-Token header.',
    )
  const token = tokens.find(secret)
  if (!token || token.disabled) throw ApiError.unauthorized('The API token is invalid or has been disabled.')
  if (api === 'v4' && token.kind === 'v3') throw ApiError.unauthorized('v3 tokens do not work on v4 endpoints: use an svc_ token.')
  const member = ctx.col<MemberRecord>('member').get(token.member_id)
  if (!member || member.disabled) throw ApiError.unauthorized('The member who owns this token is disabled.')
  tokens.touch(token)
  return { api, token, member, readOnly: token.kind === 'v4_ro' }
}

/** Write rules: read-only tokens never write; Observers write only where a route allows it. */
export function checkWrite(auth: Auth, observerMayWrite: boolean): void {
  if (auth.readOnly) {
    throw ApiError.forbidden('This token is read-only (svc_ro_): it cannot create, change or delete anything. Use a read-write token.', 'read_only_token')
  }
  if (auth.member.role === 'observer' && !observerMayWrite) {
    throw ApiError.forbidden('Observers can read this workspace but not change it.', 'observer')
  }
}

export function checkAdmin(auth: Auth): void {
  if (auth.member.role !== 'admin' && auth.member.role !== 'owner') {
    throw ApiError.forbidden('This operation needs the admin role.', 'admin_required')
  }
}

export function checkNotObserver(auth: Auth): void {
  if (auth.member.role === 'observer') {
    throw ApiError.forbidden('Observers cannot manage webhook integrations.', 'observer')
  }
}
