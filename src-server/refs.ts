// v4 references (part 1 §2.1): uri and app_url of each kind, slim references
// and page<T> wrappers. One Refs per request: it caches what it has read.
import type { PageOf, Slim } from '../src-shared/api/common.ts'
import type { ServiceContext } from './context.ts'
import type { Kind } from './kinds.ts'
import type { EntityId, StoredRecord } from './store.ts'

interface KindV4 {
  type: string
  path: string
  appUrl?: string
}

/** v4 entity_type, uri path and web-app path of each stored kind. */
export const V4_KINDS: Record<Kind, KindV4> = {
  member: { type: 'member', path: 'members' },
  group: { type: 'team', path: 'teams', appUrl: 'settings/team' },
  category: { type: 'category', path: 'categories' },
  objective: { type: 'objective', path: 'objectives', appUrl: 'objective' },
  epic: { type: 'epic', path: 'epics', appUrl: 'epic' },
  epic_state: { type: 'epic-state', path: 'epic-workflow/states' },
  epic_comment: { type: 'threaded-comment', path: 'comments' },
  epic_health: { type: 'health', path: 'healths' },
  doc: { type: 'doc', path: 'documents', appUrl: 'write/doc' },
  collection: { type: 'collection', path: 'collections' },
  file: { type: 'file', path: 'files' },
  linked_file: { type: 'linked-file', path: 'linked-files' },
  label: { type: 'label', path: 'labels', appUrl: 'label' },
  custom_field: { type: 'custom-field', path: 'custom-fields' },
  entity_template: { type: 'entity-template', path: 'entity-templates' },
  story: { type: 'story', path: 'stories', appUrl: 'story' },
  branch: { type: 'branch', path: 'branches' },
  pull_request: { type: 'pull-request', path: 'pull-requests' },
  repository: { type: 'repository', path: 'repositories' },
  project: { type: 'project', path: 'projects', appUrl: 'project' },
  iteration: { type: 'iteration', path: 'iterations', appUrl: 'iteration' },
  workflow: { type: 'workflow', path: 'workflows' },
  workflow_state: { type: 'workflow-state', path: 'workflow-states' },
  webhook: { type: 'integration', path: 'integrations' },
}

type AnyRecord = StoredRecord & Record<string, unknown>

export class Refs {
  readonly api: string
  /** Records read and slims made, by kind and id as text: a page of epics refers to the same few hundreds of times. */
  private readonly records = new Map<Kind, Map<string, AnyRecord | null>>()
  private readonly slims = new Map<Kind, Map<string, Slim | null>>()

  constructor(
    private readonly ctx: ServiceContext,
    readonly origin: string,
  ) {
    this.api = `${origin}/api/v4/${ctx.workspace.slug}`
  }

  uri(kind: Kind, id: EntityId): string {
    return `${this.api}/${V4_KINDS[kind].path}/${id}`
  }

  appUrl(kind: Kind, id: EntityId): string {
    return appUrl(this.origin, this.ctx.workspace.slug, kind, id)
  }

  record(kind: Kind, id: EntityId): AnyRecord | null {
    const records = this.recordsOf(kind)
    const key = String(id)
    let record = records.get(key)
    if (record === undefined) {
      record = (this.ctx.col<AnyRecord>(kind).get(id) as AnyRecord | undefined) ?? null
      records.set(key, record)
    }
    return record
  }

  /** Reads the records of these ids that are not cached yet, in one statement (a page's references at once). */
  preload(kind: Kind, ids: Iterable<EntityId | null | undefined>): void {
    const records = this.recordsOf(kind)
    const missing = new Set<string>()
    for (const id of ids) if (id !== null && id !== undefined && !records.has(String(id))) missing.add(String(id))
    if (missing.size === 0) return
    const found = this.ctx.col<AnyRecord>(kind).getMany([...missing])
    for (const id of missing) records.set(id, found.get(id) ?? null)
  }

  /** Caches records just read (a page's comments), so slim() does not read them again. */
  remember(kind: Kind, records: Iterable<StoredRecord>): void {
    const cached = this.recordsOf(kind)
    for (const r of records) cached.set(String(r.id), r as AnyRecord)
  }

  /** A slim reference, or null when the target no longer exists. Made once per target and request. */
  slim(kind: Kind, id: EntityId | null | undefined): Slim | null {
    if (id === null || id === undefined) return null
    let slims = this.slims.get(kind)
    if (!slims) this.slims.set(kind, (slims = new Map()))
    const key = String(id)
    let slim = slims.get(key)
    if (slim === undefined) {
      slim = this.makeSlim(kind, id)
      slims.set(key, slim)
    }
    return slim
  }

  private recordsOf(kind: Kind): Map<string, AnyRecord | null> {
    let records = this.records.get(kind)
    if (!records) this.records.set(kind, (records = new Map()))
    return records
  }

  private makeSlim(kind: Kind, id: EntityId): Slim | null {
    const r = this.record(kind, id)
    if (!r) return null
    const v4 = V4_KINDS[kind]
    const entity_type = `${v4.type}:slim`
    switch (kind) {
      case 'member':
        return { entity_type, id: r.id, name: (r.profile as { name: string }).name, uri: this.uri(kind, id) }
      case 'epic_state':
        return { entity_type, id: r.id, name: r.name as string, type: r.type }
      case 'epic_comment':
        return {
          entity_type,
          id: r.id,
          app_url: `${this.appUrl('epic', r.epic_id as number)}#activity-${r.id}`,
          deleted: r.deleted === true,
          text: r.text as string,
          uri: `${this.uri('epic', r.epic_id as number)}/comments/${r.id}`,
        }
      case 'epic_health':
        return { entity_type, id: r.id, status: r.status, created_at: r.created_at, updated_at: r.updated_at }
      case 'doc':
        return { entity_type, id: r.id, name: r.title as string, uri: this.uri(kind, id), app_url: this.appUrl(kind, id) }
      case 'pull_request':
        return { entity_type, id: r.id, name: r.title as string, uri: this.uri(kind, id) }
      case 'workflow_state': {
        const wf = this.record('workflow', r.workflow_id as number)
        return { entity_type, id: r.id, name: r.name as string, uri: this.uri(kind, id), workflow_name: (wf?.name as string) ?? '' }
      }
      default: {
        const slim: Slim = { entity_type, id: r.id, name: (r.name as string) ?? '', uri: this.uri(kind, id) }
        if (v4.appUrl) slim.app_url = this.appUrl(kind, id)
        return slim
      }
    }
  }

  /** A page<T> wrapper of slim references; missing targets are left out. */
  page(kind: Kind, ids: readonly EntityId[], listUrl: string): PageOf<Slim> {
    const entities: Slim[] = []
    for (const id of ids) {
      const slim = this.slim(kind, id)
      if (slim) entities.push(slim)
    }
    return { current_items: entities.length, entities, list_url: listUrl, total_items: entities.length }
  }

  workspace(): Slim {
    const w = this.ctx.workspace
    return { entity_type: 'workspace:slim', id: w.id, name: w.name, slug: w.slug, uri: `${this.origin}/api/v4/${w.slug}`, app_url: `${this.origin}/${w.slug}` }
  }
}

/**
 * The v3 `global_id` of an entity: the workspace's id, the kind and the entity's id
 * (`<workspace uuid>:epic:31`), so it is unique across kinds and workspaces and never
 * changes. Milestones and objectives are one record and share theirs.
 */
export function globalId(ctx: ServiceContext, kind: Kind, id: EntityId): string {
  return `${ctx.workspace.id}:${kind}:${id}`
}

/** The web-app address of an entity (v3 app_url and v4 app_url agree). */
export function appUrl(origin: string, slug: string, kind: Kind, id: EntityId): string {
  const path = V4_KINDS[kind].appUrl ?? V4_KINDS[kind].path
  return `${origin}/${slug}/${path}/${id}`
}
