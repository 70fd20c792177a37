// The floor of a v4 epics page: the SQLite reads the page needs and
// JSON.stringify of the answer, with no framework (no HTTP, no Fastify, no
// validation, no hooks). It reads the same rows the service reads for the page
// (the ordered ids of the list or the snapshot's, the page's epics, their
// comments, health updates and stories, and every member, team, label, objective
// and epic state the page refers to), each kind in one query, and renders them
// into the same JSON the service answers; the benchmark checks that the two are
// equal before it times either.
import type { Db } from '../src-server/db.ts'

interface EpicRow {
  id: number
  archived: boolean
  completed: boolean
  completed_at: string | null
  completed_at_override: string | null
  created_at: string
  deadline: string | null
  description: string
  epic_state_id: number
  external_id: string | null
  follower_ids: string[]
  group_ids: string[]
  group_mention_ids: string[]
  label_ids: number[]
  member_mention_ids: string[]
  name: string
  objective_ids: number[]
  owner_ids: string[]
  planned_start_date: string | null
  requested_by_id: string
  started: boolean
  started_at: string | null
  started_at_override: string | null
  updated_at: string
}

type Slim = Record<string, unknown>

export interface FloorPage {
  /** The answer's JSON text, as the service would send it. */
  text: string
}

/** Reads and renders pages of `GET /api/v4/{slug}/epics` on the service's database. */
export class EpicPageFloor {
  private readonly api: string
  private readonly stmts

  constructor(
    db: Db,
    private readonly origin: string,
    private readonly slug: string,
  ) {
    this.api = `${origin}/api/v4/${slug}`
    const children = (kind: string, columns: string, order: string) =>
      db.prepare<[string], Record<string, string>>(
        `SELECT parent, ${columns} FROM entities WHERE kind = '${kind}' AND parent IN (SELECT value FROM json_each(?)) ORDER BY ${order}`,
      )
    const named = (kind: string, name: string) =>
      db.prepare<[string], { id: string; name: string | null }>(
        `SELECT id, ${name} AS name FROM entities WHERE kind = '${kind}' AND id IN (SELECT value FROM json_each(?))`,
      )
    this.stmts = {
      listIds: db.prepare<[], number>("SELECT CAST(id AS INTEGER) FROM entities WHERE kind = 'epic' AND archived = 0 ORDER BY seq").pluck(),
      snapshot: db.prepare<[string], { spec: string; ids: string }>(
        'SELECT s.spec, l.ids FROM list_snapshots s JOIN list_ids l ON l.digest = s.digest WHERE s.id = ?',
      ),
      epics: db.prepare<[string], { data: string }>("SELECT data FROM entities WHERE kind = 'epic' AND id IN (SELECT value FROM json_each(?))"),
      // The service orders comments oldest first and health newest first, ties in row order.
      comments: children('epic_comment', "id, name AS text, json_extract(data, '$.deleted') AS deleted", 'parent, created_at, seq'),
      healths: children('epic_health', "id, json_extract(data, '$.status') AS status, created_at, updated_at", 'parent, created_at DESC, seq DESC'),
      stories: children('story', 'id', 'parent, seq'),
      members: named('member', "json_extract(data, '$.profile.name')"),
      groups: named('group', 'name'),
      labels: named('label', 'name'),
      objectives: named('objective', 'name'),
      stories_named: named('story', 'name'),
      states: db.prepare<[string], { id: string; name: string; type: string }>(
        "SELECT id, name, json_extract(data, '$.type') AS type FROM entities WHERE kind = 'epic_state' AND id IN (SELECT value FROM json_each(?))",
      ),
    }
  }

  /** The first page: the ordered ids of the list, then the page. `cursor` is the next page's, as the service made it. */
  first(limit: number, nextCursor: string): FloorPage {
    const ids = this.stmts.listIds.all()
    return this.page(ids, 0, limit, nextCursor)
  }

  /** A later page: the snapshot's ids, then the page. */
  later(cursor: string, nextCursor: string): FloorPage {
    const { s, o } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s: string; o: number }
    const row = this.stmts.snapshot.get(s)
    if (!row) throw new Error('no such snapshot')
    const { limit } = JSON.parse(row.spec) as { limit: number }
    return this.page(JSON.parse(row.ids) as number[], o, limit, nextCursor)
  }

  private page(ids: number[], offset: number, limit: number, nextCursor: string): FloorPage {
    const slice = ids.slice(offset, offset + limit)
    const list = JSON.stringify(slice.map(String))
    const byId = new Map<number, EpicRow>()
    for (const r of this.stmts.epics.all(list)) {
      const e = JSON.parse(r.data) as EpicRow
      byId.set(e.id, e)
    }
    const epics = slice.map((id) => byId.get(id)).filter((e): e is EpicRow => e !== undefined)
    const comments = group(this.stmts.comments.all(list))
    const healths = group(this.stmts.healths.all(list))
    const stories = group(this.stmts.stories.all(list))

    const wanted = {
      member: new Set<string>(),
      group: new Set<string>(),
      label: new Set<string>(),
      objective: new Set<string>(),
      state: new Set<string>(),
      story: new Set<string>(),
    }
    for (const e of epics) {
      for (const id of [...e.follower_ids, ...e.owner_ids, ...e.member_mention_ids]) wanted.member.add(id)
      if (typeof e.requested_by_id === 'string') wanted.member.add(e.requested_by_id)
      for (const id of [...e.group_ids, ...e.group_mention_ids]) wanted.group.add(id)
      for (const id of e.label_ids) wanted.label.add(String(id))
      for (const id of e.objective_ids) wanted.objective.add(String(id))
      wanted.state.add(String(e.epic_state_id))
    }
    for (const rows of stories.values()) for (const s of rows) wanted.story.add(s.id)
    // Each slim made once per target (a page mentions the same few hundreds of times), as the service does.
    const api = this.api
    const web = `${this.origin}/${this.slug}`
    const slims = (stmt: typeof this.stmts.members, set: Set<string>, make: (id: string, name: string) => Slim) =>
      new Map(stmt.all(JSON.stringify([...set])).map((r) => [r.id, make(r.id, r.name ?? '')]))
    const linked = (type: string, path: string, appPath: string, intId: boolean) => (id: string, name: string) => ({
      entity_type: `${type}:slim`,
      id: intId ? Number(id) : id,
      name,
      uri: `${api}/${path}/${id}`,
      app_url: `${web}/${appPath}/${id}`,
    })
    const members = slims(this.stmts.members, wanted.member, (id, name) => ({ entity_type: 'member:slim', id, name, uri: `${api}/members/${id}` }))
    const teams = slims(this.stmts.groups, wanted.group, linked('team', 'teams', 'settings/team', false))
    const labels = slims(this.stmts.labels, wanted.label, linked('label', 'labels', 'label', true))
    const objectives = slims(this.stmts.objectives, wanted.objective, linked('objective', 'objectives', 'objective', true))
    const storySlims = slims(this.stmts.stories_named, wanted.story, linked('story', 'stories', 'story', true))
    const states = new Map(this.stmts.states.all(JSON.stringify([...wanted.state])).map((r) => [r.id, r]))
    const lookup = (map: Map<string, Slim>) => (id: string | number) => map.get(String(id)) ?? null
    const member = lookup(members)
    const team = lookup(teams)
    const label = lookup(labels)
    const objective = lookup(objectives)
    const story = lookup(storySlims)
    const page = <T>(ids: readonly T[], slim: (id: T) => Slim | null, listUrl: string) => {
      const entities = ids.map(slim).filter((s): s is Slim => s !== null)
      return { current_items: entities.length, entities, list_url: listUrl, total_items: entities.length }
    }

    const entities = epics.map((e) => {
      const uri = `${api}/epics/${e.id}`
      const state = states.get(String(e.epic_state_id))
      return {
        entity_type: 'epic',
        app_url: `${web}/epic/${e.id}`,
        archived: e.archived,
        comments: page(
          comments.get(String(e.id)) ?? [],
          (c) => ({
            entity_type: 'threaded-comment:slim',
            id: Number(c.id),
            app_url: `${web}/epic/${e.id}#activity-${c.id}`,
            deleted: Number(c.deleted) === 1,
            text: c.text,
            uri: `${uri}/comments/${c.id}`,
          }),
          `${uri}/comments`,
        ),
        completed: e.completed,
        completed_at: e.completed_at,
        completed_at_override: e.completed_at_override,
        created_at: e.created_at,
        deadline: e.deadline,
        description: e.description,
        epic_state: state
          ? { entity_type: 'epic-state:slim', id: e.epic_state_id, name: state.name, type: state.type }
          : { entity_type: 'epic-state:slim', id: e.epic_state_id },
        external_id: e.external_id,
        followers: page(e.follower_ids, member, `${uri}/followers`),
        healths: page(
          healths.get(String(e.id)) ?? [],
          (h) => ({ entity_type: 'health:slim', id: h.id, status: h.status, created_at: h.created_at, updated_at: h.updated_at }),
          `${uri}/epic-healths`,
        ),
        id: e.id,
        labels: page(e.label_ids, label, `${uri}/labels`),
        mentioned_members: page(e.member_mention_ids, member, `${uri}/mentioned-members`),
        mentioned_teams: page(e.group_mention_ids, team, `${uri}/mentioned-teams`),
        name: e.name,
        objectives: page(e.objective_ids, objective, `${uri}/objectives`),
        owners: page(e.owner_ids, member, `${uri}/owners`),
        planned_start_date: e.planned_start_date,
        requester: member(e.requested_by_id),
        started: e.started,
        started_at: e.started_at,
        started_at_override: e.started_at_override,
        stories: page(stories.get(String(e.id)) ?? [], (s) => story(s.id), `${uri}/stories`),
        teams: page(e.group_ids, team, `${uri}/teams`),
        updated_at: e.updated_at,
        uri,
      }
    })
    const body: Record<string, unknown> = {
      $schema: `${this.origin}/api/v4/schemas/get-epics`,
      entities,
      current_items: entities.length,
      current_page: Math.floor(offset / limit) + 1,
      total_items: ids.length,
      total_pages: Math.max(1, Math.ceil(ids.length / limit)),
    }
    if (offset + limit < ids.length) body.next_page_url = `${api}/epics?cursor=${nextCursor}`
    return { text: JSON.stringify(body) }
  }
}

/** Rows by their parent, in the order read. */
function group(rows: Record<string, string>[]): Map<string, Record<string, string>[]> {
  const map = new Map<string, Record<string, string>[]>()
  for (const r of rows) {
    const list = map.get(r.parent)
    if (list) list.push(r)
    else map.set(r.parent, [r])
  }
  return map
}
