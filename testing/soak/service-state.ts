// The service's state as the soak compares it: every entity kind the outbox
// writes, read through the API (v3 lists, v4 where only v4 carries a field),
// each reduced to the fields a user action sets. The same reader takes the
// snapshot the model starts from and the final state it is checked against.
import type { RunningService } from '../../src-server/index.ts'
import { v3, v4, walk, type Client } from '../service.ts'
import type { EpicSlimV3, HealthV3 } from '../../src-shared/api/v3/epics.ts'
import type { LinkedFileV3, UploadedFileV3 } from '../../src-shared/api/v3/files.ts'
import type { LabelV3 } from '../../src-shared/api/v3/labels.ts'
import type { ObjectiveV3 } from '../../src-shared/api/v3/objectives.ts'
import type { CategoryV4 } from '../../src-shared/api/v4/categories.ts'
import type { DocV4 } from '../../src-shared/api/v4/docs.ts'

export type Fields = Record<string, unknown>

export interface ServiceComment {
  id: number
  epicId: number
  parentId: number | null
  text: string
  deleted: boolean
}

export interface ServiceHealth {
  id: string
  epicId: number
  status: string
  text: string
}

export interface ServiceState {
  epics: Map<number, Fields>
  /** Comments of every epic, replies included (each with its parent). */
  comments: Map<number, ServiceComment>
  health: ServiceHealth[]
  docs: Map<string, Fields>
  /** Doc id -> the epic ids it is linked to. */
  links: Map<string, Set<number>>
  files: Map<number, Fields>
  linkedFiles: Map<number, Fields>
  categories: Map<number, Fields>
  objectives: Map<number, Fields>
  labels: Map<number, Fields>
}

interface Thread {
  id: number
  text: string
  deleted: boolean
  comments?: Thread[]
}

/** An empty optional text reads the same whether the service keeps it as null or "". */
export const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value))

/** Reads the whole state (the rate limit should be off: this makes one request per epic and per doc). */
export async function readServiceState(service: RunningService): Promise<ServiceState> {
  const c3 = v3(service, service.tokens.admin)
  const c4 = v4(service, service.tokens.admin)
  const get = async <T>(client: Client, path: string, query?: Record<string, string | number | boolean>): Promise<T> => {
    const answer = await client.get<T>(path, { query })
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${JSON.stringify(answer.body)}`)
    return answer.body
  }

  const state: ServiceState = {
    epics: new Map(),
    comments: new Map(),
    health: [],
    docs: new Map(),
    links: new Map(),
    files: new Map(),
    linkedFiles: new Map(),
    categories: new Map(),
    objectives: new Map(),
    labels: new Map(),
  }

  for (const e of await get<EpicSlimV3[]>(c3, '/epics', { includes_description: true })) {
    state.epics.set(e.id, {
      name: e.name,
      description: text(e.description),
      archived: e.archived,
      epic_state_id: e.epic_state_id,
      owner_ids: e.owner_ids,
      group_ids: e.group_ids,
      label_ids: e.label_ids,
      objective_ids: e.objective_ids,
      deadline: e.deadline,
      planned_start_date: e.planned_start_date,
      follower_ids: e.follower_ids,
      requested_by_id: e.requested_by_id,
    })
    const visit = (list: Thread[], parentId: number | null) => {
      for (const t of list) {
        state.comments.set(t.id, { id: t.id, epicId: e.id, parentId, text: t.text, deleted: t.deleted })
        visit(t.comments ?? [], t.id)
      }
    }
    visit(await get<Thread[]>(c3, `/epics/${e.id}/comments`), null)
    for (const h of await get<HealthV3[]>(c3, `/epics/${e.id}/health-history`)) {
      if (h.id !== null) state.health.push({ id: h.id, epicId: e.id, status: h.status, text: text(h.text) })
    }
  }

  for (const d of await walk<DocV4>(c4, '/documents', { filter: 'include_archived', limit: 100 })) {
    state.docs.set(d.id, { title: d.title, content_markdown: text(d.content_markdown) })
    const epics = await get<{ id: number }[]>(c3, `/documents/${d.id}/epics`)
    state.links.set(d.id, new Set(epics.map((e) => e.id)))
  }
  for (const f of await get<UploadedFileV3[]>(c3, '/files')) state.files.set(f.id, { name: f.name, description: text(f.description), size: f.size })
  for (const l of await get<LinkedFileV3[]>(c3, '/linked-files')) {
    state.linkedFiles.set(l.id, { name: l.name, type: l.type, url: l.url, description: text(l.description) })
  }
  for (const k of await walk<CategoryV4>(c4, '/categories', { filter: 'include_archived', limit: 100 })) {
    state.categories.set(k.id, { name: k.name, color: k.color ?? null, archived: k.archived })
  }
  for (const l of await get<LabelV3[]>(c3, '/labels')) state.labels.set(l.id, { name: l.name, color: l.color })
  for (const o of await get<ObjectiveV3[]>(c3, '/objectives')) {
    state.objectives.set(o.id, {
      name: o.name,
      description: text(o.description),
      state: o.state,
      archived: o.archived,
      category_ids: o.categories.map((k) => k.id),
    })
  }
  return state
}
