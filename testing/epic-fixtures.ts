// What the epic tests need from a started service: member, team and
// objective ids, and the activity the service emits.
import type { Activity } from '../src-server/context.ts'
import type { RunningService } from '../src-server/index.ts'
import { Client, v4 as v4Client, type Answer, type CallOptions } from './service.ts'
import type { MemberRecord } from '../src-server/resources/members/member.ts'

export function memberId(service: RunningService, mention: string): string {
  const m = service.ctx
    .col<MemberRecord>('member')
    .all()
    .find((r) => r.profile.mention_name === mention)
  if (!m) throw new Error(`no member @${mention}`)
  return m.id
}

/** Ids of the seeded teams, or of two made for the test when the seed has none. */
export function teamIds(service: RunningService): string[] {
  const col = service.ctx.col<{ id: string; name: string; mention_name: string; archived: boolean; created_at: string; updated_at: string }>('group')
  if (col.count() < 2) {
    const now = service.ctx.now()
    for (const name of ['Team A', 'Team B'])
      col.insert({ id: service.ctx.uuid(), name, mention_name: name.toLowerCase().replace(' ', '-'), archived: false, created_at: now, updated_at: now })
  }
  return col.all().map((g) => g.id)
}

/** Ids of the seeded objectives, or of two made for the test when the seed has none. */
export function objectiveIds(service: RunningService): number[] {
  const col = service.ctx.col<{ id: number; name: string; created_at: string; updated_at: string }>('objective')
  if (col.count() < 2) {
    const now = service.ctx.now()
    for (const name of ['Objective A', 'Objective B']) col.insert({ id: service.ctx.nextId(), name, created_at: now, updated_at: now })
  }
  return col.all().map((o) => o.id)
}

/** Records the activity the service emits from now on. */
export function recordActivity(service: RunningService): { events: Activity[]; stop: () => void } {
  const events: Activity[] = []
  const listener = (a: Activity) => events.push(a)
  service.ctx.activity.on('activity', listener)
  return { events, stop: () => service.ctx.activity.off('activity', listener) }
}

export const UUID_NOBODY = '00000000-0000-4000-8000-000000000000'

/**
 * A v4 client that reads single entities whether or not the service wraps
 * them as the real one does (`{entity}`), so these tests hold either way.
 */
class EntityClient extends Client {
  override async call<T>(method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
    const answer = await super.call<unknown>(method, path, options)
    const body = answer.body
    if (body && typeof body === 'object' && 'entity' in body && !('entities' in body)) return { ...answer, body: (body as { entity: T }).entity }
    return answer as Answer<T>
  }
}

export function v4(service: RunningService, token?: string): Client {
  const c = v4Client(service, token)
  return new EntityClient(c.baseUrl, c.auth, c.prefix)
}
