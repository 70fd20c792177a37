// What the user's actions intended, kept alongside them: every entity the soak
// knows (the seeded ones from the service's first snapshot, the created ones as
// they are made), with the fields the actions left it with, whether it should
// still exist, and the doc-epic links. The service must end equal to this.
//
// Created entities carry a tag in their name-like field (`[e12] ...`): every
// rename keeps it, so the service's copy is found by it, and a create that
// reached the service twice shows as two entities with one tag.
import type { EntityId } from '../../src-renderer/src/data/types.ts'
import type { Fields, ServiceState } from './service-state.ts'

export type Kind = 'epic' | 'comment' | 'health' | 'doc' | 'file' | 'linkedFile' | 'category' | 'objective' | 'label'

/** The field that carries a created entity's tag. */
export const TAG_FIELD: Record<Kind, string> = {
  epic: 'name',
  comment: 'text',
  health: 'text',
  doc: 'title',
  file: 'name',
  linkedFile: 'name',
  category: 'name',
  objective: 'name',
  label: 'name',
}

const TAG_LETTER: Record<Kind, string> = {
  epic: 'e',
  comment: 'c',
  health: 'h',
  doc: 'd',
  file: 'f',
  linkedFile: 'l',
  category: 'k',
  objective: 'o',
  label: 'b',
}

/** The tag at the start of a text, if any. */
export function tagOf(value: unknown): string | null {
  const m = typeof value === 'string' ? /^\[[a-z]\d+\]/.exec(value) : null
  return m ? m[0] : null
}

/** Fields that are sets of ids (compared without order). */
export const SET_FIELDS = new Set(['owner_ids', 'follower_ids', 'group_ids', 'label_ids', 'objective_ids', 'category_ids'])
/** Fields holding model keys of other entities (objectives and labels of an epic, categories of an objective). */
export const REF_FIELDS: Partial<Record<Kind, { field: string; kind: Kind }[]>> = {
  epic: [
    { field: 'objective_ids', kind: 'objective' },
    { field: 'label_ids', kind: 'label' },
  ],
  objective: [{ field: 'category_ids', kind: 'category' }],
}

export interface Entity {
  /** `epic#12` for a seeded entity, `epic[e3]` for a created one. */
  key: string
  kind: Kind
  /** Created entities: the tag in their name (a new one when the name had to change: a label name someone else took). */
  tag: string | null
  /** Seeded entities: the service id. */
  sid: EntityId | null
  /** The id actions take: the service id, or the local id the create answered. */
  ref: EntityId
  /** Should exist on the service. */
  live: boolean
  /** Went with the epic it lived under (not checked: the service cannot list it any more). */
  gone: boolean
  fields: Fields
  /** Comments and health: the epic's key; replies: the parent comment's key. */
  epic?: string
  parent?: string | null
}

export const linkKey = (docKey: string, epicKey: string): string => `${docKey}\n${epicKey}`
export const splitLinkKey = (key: string): [string, string] => key.split('\n') as [string, string]

export class Model {
  readonly entities = new Map<string, Entity>()
  readonly links = new Set<string>()
  private readonly counters = new Map<Kind, number>()

  /** The next tag of a kind (taken before the create, since the name carries it). */
  nextTag(kind: Kind): string {
    const n = (this.counters.get(kind) ?? 0) + 1
    this.counters.set(kind, n)
    return `[${TAG_LETTER[kind]}${n}]`
  }

  seeded(kind: Kind, sid: EntityId, fields: Fields, extra: Partial<Entity> = {}): Entity {
    const e: Entity = { key: `${kind}#${sid}`, kind, tag: null, sid, ref: sid, live: true, gone: false, fields, ...extra }
    this.entities.set(e.key, e)
    return e
  }

  created(kind: Kind, tag: string, ref: EntityId, fields: Fields, extra: Partial<Entity> = {}): Entity {
    const e: Entity = { key: `${kind}${tag}`, kind, tag, sid: null, ref, live: true, gone: false, fields, ...extra }
    this.entities.set(e.key, e)
    return e
  }

  live(kind: Kind, filter: (e: Entity) => boolean = () => true): Entity[] {
    const out: Entity[] = []
    for (const e of this.entities.values()) if (e.kind === kind && e.live && !e.gone && filter(e)) out.push(e)
    return out
  }

  get(key: string): Entity | undefined {
    return this.entities.get(key)
  }

  update(e: Entity, fields: Fields): void {
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) e.fields[k] = v
  }

  /** A deletion, and what the service does with it (children, links, references). */
  remove(e: Entity): void {
    e.live = false
    switch (e.kind) {
      case 'epic':
        for (const c of this.entities.values()) if (c.epic === e.key) c.gone = true
        for (const l of [...this.links]) if (splitLinkKey(l)[1] === e.key) this.links.delete(l)
        break
      case 'doc':
        for (const l of [...this.links]) if (splitLinkKey(l)[0] === e.key) this.links.delete(l)
        break
      case 'objective':
      case 'category':
        this.dropReferences(e)
        break
    }
  }

  /**
   * A create discarded before the service saw it: the entity never was, nor what lived under it (comments and
   * health of an epic, replies to a comment, its doc links), and the writes that named it name it no more.
   */
  forget(e: Entity): void {
    e.live = false
    for (const c of this.entities.values()) if (c.live && (c.epic === e.key || c.parent === e.key)) this.forget(c)
    for (const l of [...this.links]) if (splitLinkKey(l).includes(e.key)) this.links.delete(l)
    this.dropReferences(e)
  }

  /** Nothing names `e` any more (the service takes a deleted objective off its epics, and so on). */
  private dropReferences(e: Entity): void {
    for (const x of this.entities.values()) {
      for (const ref of REF_FIELDS[x.kind] ?? []) {
        if (ref.kind === e.kind && Array.isArray(x.fields[ref.field])) x.fields[ref.field] = (x.fields[ref.field] as string[]).filter((k) => k !== e.key)
      }
    }
  }

  /** The model the seeded workspace starts as. */
  static fromService(s: ServiceState): Model {
    const m = new Model()
    const key = (kind: Kind, id: EntityId) => `${kind}#${id}`
    for (const [id, f] of s.labels) m.seeded('label', id, { ...f })
    for (const [id, f] of s.categories) m.seeded('category', id, { ...f })
    for (const [id, f] of s.objectives) {
      m.seeded('objective', id, { ...f, category_ids: (f.category_ids as number[]).map((k) => key('category', k)) })
    }
    for (const [id, f] of s.epics) {
      m.seeded('epic', id, {
        ...f,
        objective_ids: (f.objective_ids as number[]).map((o) => key('objective', o)),
        label_ids: (f.label_ids as number[]).map((l) => key('label', l)),
      })
    }
    for (const c of s.comments.values()) {
      const e = m.seeded('comment', c.id, { text: c.text }, { epic: key('epic', c.epicId), parent: c.parentId === null ? null : key('comment', c.parentId) })
      if (c.deleted) e.live = false
    }
    for (const [id, f] of s.docs) m.seeded('doc', id, { ...f })
    for (const [doc, epics] of s.links) for (const epic of epics) m.links.add(linkKey(key('doc', doc), key('epic', epic)))
    for (const [id, f] of s.files) m.seeded('file', id, { ...f })
    for (const [id, f] of s.linkedFiles) m.seeded('linkedFile', id, { ...f })
    return m
  }
}
