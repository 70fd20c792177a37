// Everything a route needs besides its request: storage, clock, ids, the
// workspace and its feature switches, and the activity feed (webhooks, SSE).
import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import type { Db } from './db.ts'
import { collectionOptions, type Kind } from './kinds.ts'
import { Collection, Relation, Sequence, type StoredRecord, type EntityId } from './store.ts'

export type Feature = 'docs' | 'collections' | 'groups' | 'entity_templates'
export const FEATURES: readonly Feature[] = ['docs', 'collections', 'groups', 'entity_templates']

/** One change made through the API: webhooks and doc SSE are fed from these. */
export interface Activity {
  entity_type: string
  action: 'create' | 'update' | 'delete'
  id: EntityId
  name?: string
  member_id: string
  changed_at: string
  /** field -> {old, new} for updates. */
  changes?: Record<string, { old?: unknown; new?: unknown }>
  /** Extra slim references ({id, entity_type, name}) the payload mentions. */
  references?: { id: EntityId; entity_type: string; name: string }[]
}

export interface Workspace {
  id: string
  slug: string
  name: string
  /** When it was made; absent in databases made before it was kept. */
  created_at?: string
}

export class ServiceContext {
  readonly activity = new EventEmitter<{ activity: [Activity] }>()
  private readonly collections = new Map<Kind, Collection<StoredRecord>>()
  private readonly relations = new Map<string, Relation>()
  private readonly sequence: Sequence
  private readonly metaGet
  private readonly metaSet
  /** The workspace is read for nearly every rendered entity (app_url, global_id); it changes only when made. */
  private workspaceCache?: Workspace

  constructor(
    readonly db: Db,
    /** Milliseconds since the epoch; injectable so tests control time. */
    readonly clock: () => number = Date.now,
    /** Uuid source; the seeder swaps in a deterministic one. */
    public uuid: () => string = randomUUID,
  ) {
    this.sequence = new Sequence(db)
    this.metaGet = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?')
    this.metaSet = db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
  }

  col<T extends StoredRecord>(kind: Kind): Collection<T> {
    let c = this.collections.get(kind)
    if (!c) {
      c = new Collection<StoredRecord>(this.db, kind, collectionOptions(kind))
      this.collections.set(kind, c)
    }
    return c as unknown as Collection<T>
  }

  relation(kind: string): Relation {
    let r = this.relations.get(kind)
    if (!r) {
      r = new Relation(this.db, kind)
      this.relations.set(kind, r)
    }
    return r
  }

  /** ISO 8601 UTC timestamp of the service clock. */
  now(): string {
    return new Date(this.clock()).toISOString()
  }

  /** Integer public ids share one sequence across kinds, as the real service's do. */
  nextId(): number {
    return this.sequence.next('public_id')
  }

  /** Runs fn in one SQLite transaction (all or nothing). */
  tx<R>(fn: () => R): R {
    return this.db.transaction(fn)()
  }

  meta(key: string): string | undefined {
    return this.metaGet.get(key)?.value
  }

  setMeta(key: string, value: string): void {
    this.metaSet.run(key, value)
    if (key === 'workspace') this.workspaceCache = undefined
  }

  get workspace(): Workspace {
    if (this.workspaceCache) return this.workspaceCache
    const raw = this.meta('workspace')
    if (!raw) throw new Error('workspace is not initialised')
    this.workspaceCache = JSON.parse(raw) as Workspace
    return this.workspaceCache
  }

  featureEnabled(feature: Feature): boolean {
    return this.meta(`feature:${feature}`) !== 'off'
  }

  setFeature(feature: Feature, enabled: boolean): void {
    this.setMeta(`feature:${feature}`, enabled ? 'on' : 'off')
  }

  emit(activity: Omit<Activity, 'changed_at'> & { changed_at?: string }): void {
    this.activity.emit('activity', { changed_at: this.now(), ...activity })
  }
}
