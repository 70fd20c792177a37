// The chaos run: N random user actions (every write the outbox supports, on
// seeded entities and on ones created offline, labels made offline and used at
// once included; queued creates discarded before they went; failures and
// conflicts fixed as the user would), interleaved with someone else's writes
// (a label name one of ours waits to claim, a rename of what the user renamed
// offline), the network going and coming back, the service's faults (drops before and after commit,
// 5xx, latency), bursts of 429, replay and sync runs (awaited or in the
// background), and the app killed and started again at random points,
// mid-bootstrap and mid-replay included, sometimes on a store wiped meanwhile
// (the main side's journal of queued changes kept). At the end: online, no faults, replay
// until the outbox is empty, and the service's state against what the actions
// intended (model.ts, verify.ts).
//
// The seed fixes every choice the run makes (actions, values, events, kill
// points); the interleaving with timers and I/O can still differ between runs.
// To trace a finding, KEEP_JOURNAL=<file> keeps a copy of the journal of queued
// changes as the run left it (the ids in a stuck record's line are its entries).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { Gateway } from '../../src-main/gateway/index.ts'
import { seededRandom } from '../../src-server/faults.ts'
import type { Faults } from '../../src-server/index.ts'
import { testService, v3 } from '../service.ts'
import { WriteRefused } from '../../src-renderer/src/data/actions.ts'
import { OutpostDb } from '../../src-renderer/src/data/db.ts'
import { fileJournal } from '../journal-kit.ts'
import { isLocalId, outboxRecords, outboxStatus, resolveId } from '../../src-renderer/src/data/outbox/index.ts'
import { sameValue } from '../../src-renderer/src/data/outbox/kinds.ts'
import { journalIdsOf } from '../../src-renderer/src/data/outbox/journal.ts'
import { mergedDocEpics, mergedLabels, mergedOne } from '../../src-renderer/src/data/overlay.ts'
import { isBootstrapped } from '../../src-renderer/src/data/sync/index.ts'
import { StorageFullError } from '../../src-renderer/src/data/storage-full.ts'
import type { EntityId, EntityKind, OutboxRecord } from '../../src-renderer/src/data/types.ts'
import { startLife, type KillReason, type Life, type Pace, type Shared } from './client.ts'
import { linkKey, Model, REF_FIELDS, splitLinkKey, TAG_FIELD, type Entity, type Kind } from './model.ts'
import { readServiceState } from './service-state.ts'
import { verify } from './verify.ts'
import { watchWaits, type WaitWatch, type Waits } from './waits.ts'

export interface SoakOptions {
  seed: number
  /** User actions to make. */
  ops: number
  /** The service's rate limit (and the gateway's pacing): 200 a second unless told. */
  pace?: Pace
  /** Progress lines (every `every` actions) and the end figures. */
  log?: (line: string) => void
  every?: number
}

export interface SoakReport {
  seed: number
  ops: number
  ms: number
  lost: number
  duplicated: number
  wrong: number
  /** Records failed or in conflict once everything else was sent (each a change that did not go through as made). */
  stuck: number
  /**
   * How long changes made while the service was reachable and nothing failed waited for their request (waits.ts): the
   * longest once nothing queued before it was left must be at most MAX_ONLINE_WAIT_MS (a change that sits while online
   * is stuck, however sure it is to go later).
   */
  waits: Waits
  /** Actions refused on entities the user could see (not "not found"). */
  refused: number
  /** One line per finding. */
  details: string[]
  /** Where the merged cache disagrees with the intended state after the last sync (shown, not failed on). */
  cache: { checked: number; details: string[] }
  stats: SoakStats
}

export interface SoakStats {
  actions: Record<string, number>
  skipped: number
  lives: number
  /** Lives that started on a store wiped since the last one (the journal kept): its changes restored from the journal. */
  wipes: { count: number; restored: number }
  /** afterCommit: between a transaction's commit and the journal's confirmation of what it made pointless. */
  kills: { midBootstrap: number; midReplay: number; midSync: number; idle: number; afterCommit: number }
  offline: number
  /** Spells of storage full (cache writes refused), and the user's changes refused during them (said to the user, not made). */
  quota: { spells: number; refused: number; changesKept: number; changesRefused: number }
  faultChanges: number
  rateLimitBursts: number
  /** Label names someone else took while one of ours waited to be sent with it. */
  labelNamesTaken: number
  /** Epics and docs someone else renamed while a rename of ours waited (each a conflict to resolve). */
  renamedElsewhere: number
  /** How those conflicts were resolved. */
  resolved: { mine: number; theirs: number }
  /** Answers of the service: 429 (rate limited) and 5xx (injected failures). Dropped connections are not answers. */
  answers: { rateLimited: number; failed: number }
  replays: number
  syncs: number
  refreshes: number
  requests: number
  checked: { entities: number; links: number }
}

export const DEFAULT_PACE: Pace = { max: 200, windowMs: 1000 }

/** The longest a change made while all was clear may wait for its request (ms). */
export const MAX_ONLINE_WAIT_MS = 2000
/** How long the calm end of a run waits for the app to send what is left by itself (ms). */
const CALM_DRAIN_MS = 2.5 * MAX_ONLINE_WAIT_MS

const NO_FAULTS: Faults = { latencyMs: 0, failRate: 0, dropRate: 0, dropAfterCommitRate: 0 }

type Outcome = 'done' | 'skip'

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const started = Date.now()
  const pace = options.pace ?? DEFAULT_PACE
  const log = options.log ?? (() => undefined)
  const random = seededRandom(0x5eed + options.seed * 7919)
  const crashes = seededRandom(0xc0de + options.seed * 7919)
  const int = (n: number) => Math.floor(random() * n)
  const chance = (p: number) => random() < p
  const pick = <T>(list: readonly T[]): T | undefined => (list.length ? list[int(list.length)] : undefined)
  const sample = <T>(list: readonly T[], max: number): T[] => {
    const pool = [...list]
    const out: T[] = []
    for (let n = int(max + 1); n > 0 && pool.length; n--) out.push(pool.splice(int(pool.length), 1)[0])
    return out
  }

  // The service's answers, counted by status (what the faults and bursts made of the run).
  const answers = { rateLimited: 0, failed: 0 }
  /** The run's end: everything sent and checked, with no more faults or crashes. */
  let ending = false
  /** The user's last actions are made on a sound link (calm, below): their waits are measured at every seed. */
  let calm = false
  /** How long the user's changes wait for their request while all is clear (started with the first life). */
  let waits: WaitWatch | undefined
  const service = await testService({
    seed: 'demo',
    faultSeed: options.seed,
    rateLimit: 'off',
    log: (line) => {
      const status = Number(line.split(' ')[2])
      if (status === 429) answers.rateLimited++
      else if (status >= 500) answers.failed++
      if (status === 429 || status >= 500) waits?.trouble()
    },
  })
  const folder = await mkdtemp(join(tmpdir(), 'outpost-soak-'))
  await mkdir(join(folder, 'drops'), { recursive: true })
  const journal = fileJournal(join(folder, 'journal', 'soak.jsonl'))
  const shared: Shared = {
    service,
    indexedDB: new IDBFactory(),
    dbName: `outpost-soak-${options.seed}`,
    folders: { staging: join(folder, 'staging'), cache: join(folder, 'cache') },
    pace,
    net: { online: true },
    // Refused at the commit, as Chromium refuses it.
    quota: { full: false, refused: 0, at: 'commit', kept: 0 },
    journal,
    // Not while storage is full: a confirmation then is as often the withdrawal of a write the cache refused. Its own
    // draws: asked at moments the run's timing decides, they would shift every later choice of the seed's.
    crashAfterCommit: () => !ending && !calm && !shared.quota.full && crashes() < 0.15,
  }
  // Keeps the HTTP agent open across lives (the last gateway to close an origin closes its connections).
  const keeper = new Gateway({ baseUrl: service.baseUrl, workspaceSlug: service.workspace, token: service.tokens.admin, tokenKind: 'v4' })

  const model = Model.fromService(await readServiceState(service))
  service.setRateLimit(pace)

  const stats: SoakStats = {
    actions: {},
    skipped: 0,
    lives: 0,
    wipes: { count: 0, restored: 0 },
    kills: { midBootstrap: 0, midReplay: 0, midSync: 0, idle: 0, afterCommit: 0 },
    offline: 0,
    quota: { spells: 0, refused: 0, changesKept: 0, changesRefused: 0 },
    faultChanges: 0,
    rateLimitBursts: 0,
    labelNamesTaken: 0,
    renamedElsewhere: 0,
    resolved: { mine: 0, theirs: 0 },
    answers,
    replays: 0,
    syncs: 0,
    refreshes: 0,
    requests: 0,
    checked: { entities: 0, links: 0 },
  }
  const details: string[] = []
  let refused = 0
  /** Doubles the actions themselves caught (the service's are counted by verify). */
  let duplicated = 0
  let bootstrapped = false
  let burst: ReturnType<typeof setTimeout> | undefined
  let bursting = false
  /** The service's faults now. */
  let faults: Faults = NO_FAULTS

  // ---- lives ----
  const running = new Map<Life, { replay: number; sync: number }>()
  const newLife = (killAfter?: number): Life => {
    const k = killAfter ?? (!bootstrapped ? (chance(0.6) ? 1 + int(15) : Infinity) : chance(0.35) ? 1 + int(40) : Infinity)
    const life = startLife(shared, k)
    stats.lives++
    running.set(life, { replay: 0, sync: 0 })
    void life.died.then((reason: KillReason) => {
      waits?.trouble()
      const r = running.get(life)!
      if (reason === 'end') return
      if (reason === 'commit') stats.kills.afterCommit++
      else if (r.sync > 0 && !bootstrapped) stats.kills.midBootstrap++
      else if (r.replay > 0) stats.kills.midReplay++
      else if (r.sync > 0) stats.kills.midSync++
      else stats.kills.idle++
    })
    // The app starting: it syncs, and replays what the last run left queued. Afterwards each change the user makes
    // tells the replay itself (client.ts); the main side asks again on reconnect and now and then (events below).
    background(life, 'sync')
    background(life, 'replay')
    return life
  }
  const runTask = (life: Life, what: 'replay' | 'sync', force = false): Promise<unknown> => {
    const r = running.get(life)!
    r[what]++
    if (what === 'replay') stats.replays++
    else stats.syncs++
    const task = what === 'replay' ? life.engine.replay() : life.engine.sync({ force })
    return task
      .then(async () => {
        if (what === 'sync' && !bootstrapped && !life.dead) bootstrapped = await isBootstrapped(life.db).catch(() => false)
      })
      .catch(() => undefined)
      .finally(() => r[what]--)
  }
  const background = (life: Life, what: 'replay' | 'sync', force = false) => void runTask(life, what, force)
  /** Awaits a run, unless the life dies first (a dead app's work is not waited for). */
  const awaited = (life: Life, what: 'replay' | 'sync', force = false) => Promise.race([runTask(life, what, force), life.died])
  const bury = async (l: Life) => {
    stats.requests += l.calls
    await l.bury()
    running.delete(l)
  }
  /** The store wiped between lives (an update, a downgrade, a profile reset): the journal is all that is left of the outbox. */
  const wipe = async () => {
    stats.wipes.count++
    stats.wipes.restored += (await shared.journal.read()).entries.length
    await new OutpostDb(shared.dbName, { indexedDB: shared.indexedDB, IDBKeyRange }).delete()
    bootstrapped = false
    // A new store numbers its outbox records from 1 again: conflicts are noted afresh.
    conflictEntities.clear()
  }

  let life = newLife()
  // While nothing stands in the way, how long the user's changes wait for their request.
  const faultless = () => faults.dropRate === 0 && faults.dropAfterCommitRate === 0 && faults.failRate === 0
  waits = watchWaits({
    clear: () => shared.net.online && faultless() && !shared.quota.full && !bursting && !life.dead,
    app: () => (life.dead ? null : { db: life.db, id: life.id }),
  })

  // ---- what the user sees ----
  const visible = async (kind: EntityKind, ref: EntityId) => (await mergedOne(life.db, kind, ref)) !== undefined
  /** Whether the screen shows these values (the UI offers to archive only what shows unarchived; a change kept in the journal does not show until there is room). */
  const shows = async (e: Entity, fields: Record<string, unknown>) => {
    const row = await mergedOne<Record<string, unknown>>(life.db, e.kind, e.ref)
    return row !== undefined && Object.entries(fields).every(([f, v]) => (row[f] ?? false) === v)
  }
  /**
   * The fields of a change the screen shows already, as the app compares them: it queues no change of those. The
   * screen can differ from what the user last asked (a change kept in the journal shows only once there is room), and
   * the model then keeps what was asked before.
   */
  const shownAlready = async (e: Entity, f: Record<string, unknown>): Promise<Set<string>> => {
    const row = await mergedOne<Record<string, unknown>>(life.db, e.kind, await resolveId(life.db, e.kind, e.ref))
    const out = new Set<string>()
    if (!row) return out
    for (const [field, value] of Object.entries(f)) {
      const ref = REF_FIELDS[e.kind]?.find((r) => r.field === field)
      const asked = ref && Array.isArray(value) ? await Promise.all(value.map((v) => resolveId(life.db, ref.kind, v as EntityId))) : value
      if (sameValue(row[field], asked)) out.add(field)
    }
    return out
  }
  /** The user asks the app for `f` (`act`); the model takes what of it the app changes (`m` is `f` as the model keeps it). */
  const updated = async (e: Entity, m: Record<string, unknown>, f: Record<string, unknown>, act: () => Promise<unknown>) => {
    const same = await shownAlready(e, f)
    await act()
    model.update(e, Object.fromEntries(Object.entries(m).filter(([field]) => !same.has(field))))
  }
  const visibleRefs = async (kind: Kind, max: number) => {
    const out: Entity[] = []
    for (const e of sample(model.live(kind), max)) if (await visible(kind, e.ref)) out.push(e)
    return out
  }
  const words = ['alpha', 'beta', 'gamma', 'delta', 'déjà vu', 'naïve', '数据', 'emoji 🚀', 'quote "x"', 'back\\slash', 'a & b', '<b>not html</b>']
  const phrase = (n: number) => Array.from({ length: 1 + int(n) }, () => pick(words)).join(' ')
  const colour = () => `#${int(0xffffff).toString(16).padStart(6, '0')}`
  const day = () => new Date(Date.UTC(2026, int(12), 1 + int(28))).toISOString()

  // ---- the user's actions ----
  const refs = (list: Entity[]) => list.map((e) => e.ref)
  const keys = (list: Entity[]) => list.map((e) => e.key)

  /** Some of an epic's fields, as the action takes them (`f`) and as the model keeps them (`m`: objectives by key). */
  const epicFields = async () => {
    const db = life.db
    const f: Record<string, unknown> = {}
    const m: Record<string, unknown> = {}
    if (chance(0.25)) {
      const state = pick(await db.epicStates.toArray())
      if (state) f.epic_state_id = m.epic_state_id = state.id
    }
    const members = (await db.members.toArray()).filter((x) => !x.disabled).map((x) => x.id as string)
    if (chance(0.2)) f.owner_ids = m.owner_ids = sample(members, 2)
    if (chance(0.1)) f.follower_ids = m.follower_ids = sample(members, 2)
    if (chance(0.08) && members.length > 0) f.requested_by_id = m.requested_by_id = pick(members)
    if (chance(0.15))
      f.group_ids = m.group_ids = sample(
        (await db.groups.toArray()).filter((g) => !g.archived).map((g) => g.id as string),
        2,
      )
    if (chance(0.1)) f.deadline = m.deadline = chance(0.25) ? null : day()
    if (chance(0.1)) f.planned_start_date = m.planned_start_date = chance(0.25) ? null : day()
    if (chance(0.15)) {
      // Labels made offline among them: the epic's write waits for the label and goes with its service id.
      const labels = await visibleRefs('label', 2)
      f.label_ids = refs(labels)
      m.label_ids = keys(labels)
    }
    if (chance(0.2)) {
      const objectives = await visibleRefs('objective', 2)
      f.objective_ids = refs(objectives)
      m.objective_ids = keys(objectives)
    }
    return { f, m }
  }

  const liveVisible = async (kind: Kind, filter?: (e: Entity) => boolean): Promise<Entity | undefined> => {
    const e = pick(model.live(kind, filter))
    return e && (await visible(kind, e.ref)) ? e : undefined
  }

  type Action = { name: string; weight: number; run: () => Promise<Outcome> }
  /** A deletion of a random live entity, unless fewer than `keep` of its kind are left. */
  const deleting = (name: string, kind: Kind, weight: number, keep: number, remove: (ref: EntityId) => Promise<void>): Action => ({
    name,
    weight,
    run: async () => {
      const e = pick(model.live(kind))
      if (!e || model.live(kind).length < keep) return 'skip'
      await remove(e.ref)
      model.remove(e)
      return 'done'
    },
  })
  /** A new name-like text that keeps a created entity's tag (the check finds it by the tag). */
  const retitled = (e: Entity, text: string) => (e.tag ? `${e.tag} ${text}` : text)

  const actions: Action[] = [
    {
      name: 'createEpic',
      weight: 6,
      run: async () => {
        const tag = model.nextTag('epic')
        const name = `${tag} ${phrase(3)}`
        const description = chance(0.8) ? phrase(8) : ''
        const { f, m } = await epicFields()
        const ref = await life.actions.createEpic({ name, description, ...f })
        model.created('epic', tag, ref, { owner_ids: [], group_ids: [], label_ids: [], objective_ids: [], archived: false, name, description, ...m })
        return 'done'
      },
    },
    {
      name: 'updateEpic',
      weight: 10,
      run: async () => {
        const e = pick(model.live('epic'))
        if (!e) return 'skip'
        const { f, m } = await epicFields()
        if (chance(0.5)) f.name = m.name = retitled(e, `${phrase(3)} v${int(100)}`)
        // The screen offers no edit of a description not downloaded yet (stored from the v3 list, partial).
        if (chance(0.4) && !(await shows(e, { partial: true }))) f.description = m.description = phrase(10)
        await updated(e, m, f, () => life.actions.updateEpic(e.ref, f))
        return 'done'
      },
    },
    {
      name: 'archiveEpic',
      weight: 2,
      run: async () => {
        const e = pick(model.live('epic', (x) => x.fields.archived !== true))
        if (!e || !(await shows(e, { archived: false }))) return 'skip'
        await life.actions.archiveEpic(e.ref)
        model.update(e, { archived: true })
        return 'done'
      },
    },
    {
      name: 'unarchiveEpic',
      weight: 1.5,
      run: async () => {
        const e = pick(model.live('epic', (x) => x.fields.archived === true))
        if (!e || !(await shows(e, { archived: true }))) return 'skip'
        await life.actions.unarchiveEpic(e.ref)
        model.update(e, { archived: false })
        return 'done'
      },
    },
    deleting('deleteEpic', 'epic', 1, 20, (ref) => life.actions.deleteEpic(ref)),
    {
      name: 'createComment',
      weight: 5,
      run: async () => {
        const epic = pick(model.live('epic'))
        if (!epic) return 'skip'
        const tag = model.nextTag('comment')
        const text = `${tag} ${phrase(6)}`
        const ref = await life.actions.createComment(epic.ref, text)
        model.created('comment', tag, ref, { text }, { epic: epic.key, parent: null })
        return 'done'
      },
    },
    {
      name: 'replyToComment',
      weight: 3,
      run: async () => {
        const parent = pick(model.live('comment'))
        if (!parent) return 'skip'
        const tag = model.nextTag('comment')
        const text = `${tag} ${phrase(6)}`
        const ref = await life.actions.replyToComment(parent.ref, text)
        model.created('comment', tag, ref, { text }, { epic: parent.epic, parent: parent.key })
        return 'done'
      },
    },
    {
      name: 'editComment',
      weight: 3,
      run: async () => {
        const c = pick(model.live('comment'))
        if (!c) return 'skip'
        const text = retitled(c, `${phrase(6)} (edited ${int(100)})`)
        await updated(c, { text }, { text }, () => life.actions.editComment(c.ref, text))
        return 'done'
      },
    },
    deleting('deleteComment', 'comment', 1.5, 0, (ref) => life.actions.deleteComment(ref)),
    {
      name: 'setEpicHealth',
      weight: 2,
      run: async () => {
        const epic = pick(model.live('epic'))
        if (!epic) return 'skip'
        const tag = model.nextTag('health')
        const status = pick(['At Risk', 'No Health', 'Off Track', 'On Track'] as const)!
        const text = `${tag} ${phrase(4)}`
        const ref = await life.actions.setEpicHealth(epic.ref, { status, text })
        model.created('health', tag, ref, { status, text }, { epic: epic.key })
        return 'done'
      },
    },
    {
      name: 'createDoc',
      weight: 3,
      run: async () => {
        const tag = model.nextTag('doc')
        const title = `${tag} ${phrase(3)}`
        const content = chance(0.8) ? `# ${phrase(2)}\n\n${phrase(12)}` : ''
        const ref = await life.actions.createDoc({ title, content_markdown: content })
        model.created('doc', tag, ref, { title, content_markdown: content })
        return 'done'
      },
    },
    {
      name: 'updateDoc',
      weight: 4,
      run: async () => {
        const d = pick(model.live('doc'))
        if (!d) return 'skip'
        // The screen offers no edit of a doc whose text is not downloaded yet (stored from the v3 list, partial).
        if (await shows(d, { partial: true })) return 'skip'
        const f: Record<string, unknown> = {}
        if (chance(0.5)) f.title = retitled(d, `${phrase(3)} v${int(100)}`)
        if (!f.title || chance(0.5)) f.content_markdown = `## ${phrase(2)}\n\n${phrase(10)}`
        await updated(d, f, f, () => life.actions.updateDoc(d.ref, f))
        return 'done'
      },
    },
    deleting('deleteDoc', 'doc', 0.8, 8, (ref) => life.actions.deleteDoc(ref)),
    {
      name: 'linkDocToEpic',
      weight: 2.5,
      run: async () => {
        const d = await liveVisible('doc')
        const e = await liveVisible('epic')
        if (!d || !e) return 'skip'
        await life.actions.linkDocToEpic(d.ref, e.ref)
        model.links.add(linkKey(d.key, e.key))
        return 'done'
      },
    },
    {
      name: 'unlinkDocFromEpic',
      weight: 1.5,
      run: async () => {
        const l = pick([...model.links])
        if (!l) return 'skip'
        const [d, e] = splitLinkKey(l).map((k) => model.get(k)!)
        // The UI offers to unlink only the links it shows (a seeded doc's links come when it is opened).
        if ((await mergedDocEpics(life.db, { docId: d.ref, epicId: e.ref })).length === 0) return 'skip'
        await life.actions.unlinkDocFromEpic(d.ref, e.ref)
        model.links.delete(l)
        return 'done'
      },
    },
    {
      name: 'uploadFile',
      weight: 1.5,
      run: async () => {
        const tag = model.nextTag('file')
        const name = `${tag} notes ${int(1000)}.txt`
        const bytes = Buffer.from(phrase(1 + int(40)), 'utf8')
        const path = join(folder, 'drops', `${tag.slice(1, -1)}.txt`)
        await writeFile(path, bytes)
        const description = chance(0.5) ? phrase(3) : undefined
        const ref = await life.actions.uploadFile({ path, name }, { description })
        await rm(path, { force: true })
        model.created('file', tag, ref, { name, size: bytes.length, description: description ?? '' })
        return 'done'
      },
    },
    {
      name: 'updateFile',
      weight: 1.5,
      run: async () => {
        const f = pick(model.live('file'))
        if (!f) return 'skip'
        const fields: Record<string, unknown> = {}
        if (chance(0.5)) fields.name = retitled(f, `renamed ${int(1000)}.txt`)
        if (!fields.name || chance(0.5)) fields.description = chance(0.2) ? null : phrase(4)
        await updated(f, { ...fields, ...(fields.description === null && { description: '' }) }, fields, () => life.actions.updateFile(f.ref, fields))
        return 'done'
      },
    },
    deleting('deleteFile', 'file', 0.6, 0, (ref) => life.actions.deleteFile(ref)),
    {
      name: 'createLinkedFile',
      weight: 1.5,
      run: async () => {
        const tag = model.nextTag('linkedFile')
        const name = `${tag} ${phrase(2)}`
        const type = pick(['box', 'dropbox', 'google', 'onedrive', 'url'] as const)!
        const url = `https://example.com/${tag.slice(1, -1)}/${int(1e6)}`
        const description = chance(0.5) ? phrase(3) : undefined
        const ref = await life.actions.createLinkedFile({ name, type, url, description })
        model.created('linkedFile', tag, ref, { name, type, url, description: description ?? '' })
        return 'done'
      },
    },
    {
      name: 'updateLinkedFile',
      weight: 1.5,
      run: async () => {
        const l = pick(model.live('linkedFile'))
        if (!l) return 'skip'
        const fields: Record<string, unknown> = {}
        if (chance(0.4)) fields.name = retitled(l, `${phrase(2)} v${int(100)}`)
        if (chance(0.3)) fields.url = `https://example.org/${int(1e6)}`
        if (chance(0.3)) fields.type = pick(['box', 'dropbox', 'google', 'onedrive', 'url'] as const)
        if (Object.keys(fields).length === 0 || chance(0.3)) fields.description = phrase(3)
        await updated(l, fields, fields, () => life.actions.updateLinkedFile(l.ref, fields))
        return 'done'
      },
    },
    deleting('deleteLinkedFile', 'linkedFile', 0.6, 0, (ref) => life.actions.deleteLinkedFile(ref)),
    {
      name: 'createCategory',
      weight: 1.2,
      run: async () => {
        const tag = model.nextTag('category')
        const name = `${tag} ${phrase(2)}`
        const color = chance(0.5) ? colour() : null
        const ref = await life.actions.createCategory({ name, ...(color && { color }) })
        model.created('category', tag, ref, { name, color, archived: false })
        return 'done'
      },
    },
    {
      name: 'updateCategory',
      weight: 1.5,
      run: async () => {
        const k = pick(model.live('category'))
        if (!k) return 'skip'
        const fields: Record<string, unknown> = {}
        if (chance(0.5)) fields.name = retitled(k, `${phrase(2)} v${int(1000)}`)
        if (chance(0.4)) fields.color = chance(0.2) ? null : colour()
        if (Object.keys(fields).length === 0 || chance(0.2)) fields.archived = !k.fields.archived
        await updated(k, fields, fields, () => life.actions.updateCategory(k.ref, fields))
        return 'done'
      },
    },
    deleting('deleteCategory', 'category', 0.4, 4, (ref) => life.actions.deleteCategory(ref)),
    {
      name: 'createObjective',
      weight: 1.2,
      run: async () => {
        const tag = model.nextTag('objective')
        const name = `${tag} ${phrase(2)}`
        const description = chance(0.6) ? phrase(5) : ''
        const state = pick(['to do', 'in progress', 'done'] as const)!
        const categories = await visibleRefs('category', 2)
        const ref = await life.actions.createObjective({ name, description, state, category_ids: refs(categories) })
        model.created('objective', tag, ref, { name, description, state, archived: false, category_ids: keys(categories) })
        return 'done'
      },
    },
    {
      name: 'updateObjective',
      weight: 2,
      run: async () => {
        const o = pick(model.live('objective'))
        if (!o) return 'skip'
        const f: Record<string, unknown> = {}
        const m: Record<string, unknown> = {}
        if (chance(0.4)) f.name = m.name = retitled(o, `${phrase(2)} v${int(1000)}`)
        if (chance(0.3)) f.description = m.description = phrase(5)
        if (chance(0.3)) f.state = m.state = pick(['to do', 'in progress', 'done'] as const)
        if (chance(0.15)) f.archived = m.archived = !o.fields.archived
        if (Object.keys(f).length === 0 || chance(0.3)) {
          const categories = await visibleRefs('category', 2)
          f.category_ids = refs(categories)
          m.category_ids = keys(categories)
        }
        await updated(o, m, f, () => life.actions.updateObjective(o.ref, f))
        return 'done'
      },
    },
    deleting('deleteObjective', 'objective', 0.4, 4, (ref) => life.actions.deleteObjective(ref)),
    {
      name: 'createLabel',
      weight: 1.2,
      run: async () => {
        const tag = model.nextTag('label')
        const name = `${tag} ${phrase(2)}`
        const color = chance(0.6) ? colour() : null
        const ref = await life.actions.createLabel({ name, ...(color && { color }) })
        const label = model.created('label', tag, ref, { name, color })
        // Used at once, on an epic made or changed next (offline too: the epic's write waits for the label).
        if (chance(0.6)) await useLabel(label)
        return 'done'
      },
    },
    {
      name: 'createLabelTaken',
      weight: 0.3,
      run: async () => {
        // A name the cache knows (the service's, or one made here and not sent yet) is refused at once, nothing queued.
        const known = pick(await mergedLabels(life.db))
        if (!known) return 'skip'
        try {
          await life.actions.createLabel({ name: chance(0.5) ? known.name : `  ${known.name} ` })
        } catch (error) {
          if (error instanceof WriteRefused && error.reason === 'invalid') return 'done'
          throw error
        }
        duplicated++
        details.push(`duplicated: a second label named ${JSON.stringify(known.name)} was queued`)
        return 'done'
      },
    },
    {
      name: 'renameRefusedLabel',
      weight: 0.8,
      run: async () => {
        // The service refused a label because someone else took its name meanwhile: the user renames it and retries.
        const refused = (await outboxRecords(life.db, ['failed'])).find((r) => r.kind === 'label' && takenLabel(r))
        if (!refused) return 'skip'
        await renameTaken(refused)
        return 'done'
      },
    },
    {
      name: 'resolveConflict',
      weight: 1,
      run: async () => {
        // Someone else renamed what the user renamed offline: the user picks, as the pending panel offers.
        await noteConflicts()
        const r = pick((await outboxRecords(life.db, ['conflict'])).filter((x) => expectedConflict(x) !== undefined))
        if (!r) return 'skip'
        await settleConflict(r)
        return 'done'
      },
    },
    {
      name: 'discardQueuedCreate',
      weight: 0.8,
      run: async () => {
        // A create not sent yet is dropped from the pending list: it never happens, nor anything that needed it.
        const byRef = new Map([...model.entities.values()].filter((e) => e.live && isLocalId(e.ref)).map((e) => [e.ref, e]))
        const r = pick((await outboxRecords(life.db, ['pending'])).filter((x) => x.op === 'create' && byRef.has(x.entityId)))
        if (!r) return 'skip'
        try {
          await life.actions.discard(r.seq!)
        } catch (error) {
          // It went on its way meanwhile (replay marked it in flight): the UI no longer offers to discard it.
          if (/is being sent/.test((error as Error).message)) return 'skip'
          throw error
        }
        const e = byRef.get(r.entityId)!
        model.forget(e)
        if (taken.delete(e.key)) {
          // Its name is someone else's label now: a tag of its own keeps that one from passing for it.
          e.tag = model.nextTag('label')
        }
        return 'done'
      },
    },
  ]

  /** A new label on an epic: a new epic that carries it, or one more label on an epic the user sees. */
  async function useLabel(label: Entity): Promise<void> {
    if (chance(0.4)) {
      const tag = model.nextTag('epic')
      const name = `${tag} ${phrase(3)}`
      const ref = await life.actions.createEpic({ name, label_ids: [label.ref] })
      model.created('epic', tag, ref, { owner_ids: [], group_ids: [], label_ids: [label.key], objective_ids: [], archived: false, name, description: '' })
    } else {
      const epic = await liveVisible('epic')
      if (!epic) return
      const keys = [...new Set([...(epic.fields.label_ids as string[]), label.key])]
      const f = { label_ids: keys.map((k) => model.get(k)!.ref) }
      await updated(epic, { label_ids: keys }, f, () => life.actions.updateEpic(epic.ref, f))
    }
    stats.actions.useLabelAtOnce = (stats.actions.useLabelAtOnce ?? 0) + 1
  }

  // ---- names someone else changes on the service (conflicts) ----
  /** The field someone else renames, per kind. */
  const RENAMED: Partial<Record<Kind, string>> = { epic: 'name', doc: 'title' }
  /** Entities someone else renamed while a rename of ours waited to be sent: the conflicts they meet are expected. */
  const renamedElsewhere = new Set<string>()
  /** The model entity whose service id (or confirmed local id) is `id`. */
  const entityOf = async (kind: Kind, id: string): Promise<Entity | undefined> => {
    for (const e of model.live(kind)) if (String(await resolveId(life.db, kind, e.ref)) === id) return e
    return undefined
  }
  /** The entity of a conflict someone else's rename caused, if that is all it is about. */
  const expectedConflict = (r: OutboxRecord): Entity | undefined => {
    const field = RENAMED[r.kind as Kind]
    if (!field || !r.conflict || r.conflict.deletedElsewhere || Object.keys(r.conflict.fields).some((f) => f !== field)) return undefined
    const key = conflictEntities.get(r.seq!)
    // Deleted meanwhile too (the delete waits behind the conflict): resolved all the same, before it goes.
    return key === undefined ? undefined : model.get(key)
  }
  /** Conflict records by the model key of the entity they are about (see noteConflicts). */
  const conflictEntities = new Map<number, string>()
  /** Resolves a conflict of someone else's rename, mine or theirs at random; the model takes what the service will have. */
  const settleConflict = async (r: OutboxRecord): Promise<void> => {
    const e = expectedConflict(r)!
    const field = RENAMED[e.kind]!
    const choice = chance(0.5) ? 'mine' : 'theirs'
    const theirs = r.conflict!.fields[field].theirs
    await life.actions.resolveConflict(r.seq!, choice)
    // A later write of the same field (queued after this one met the conflict, or kept in the journal while storage
    // was full, to be queued once there is room) is what the service ends with.
    const writes = (kind: string, entityId: string, payload: Record<string, unknown>) => kind === r.kind && entityId === r.entityId && field in payload
    // A kept entry this record holds is this change itself (queued into it once there was room): resolved with it.
    // It can still be open in the journal (a crash before its confirmation), but it is no later write.
    const own = new Set(journalIdsOf([r]))
    const later =
      (await outboxRecords(life.db)).some((x) => x.seq! > r.seq! && writes(x.kind, x.entityId, x.payload)) ||
      (await shared.journal.read()).entries.some((x) => x.kept === true && !own.has(x.id) && writes(x.record.kind, x.record.entityId, x.record.payload))
    if (choice === 'theirs' && !later) model.update(e, { [field]: theirs })
    stats.resolved[choice]++
  }
  /** Notes which entity each conflict record is about (the record names the service id; the model, maybe a local one). */
  const noteConflicts = async () => {
    for (const r of await outboxRecords(life.db, ['conflict'])) {
      if (conflictEntities.has(r.seq!) || !RENAMED[r.kind as Kind]) continue
      for (const key of renamedElsewhere) {
        const e = model.get(key)!
        if (e.kind !== r.kind || String(await resolveId(life.db, e.kind, e.ref)) !== r.entityId) continue
        conflictEntities.set(r.seq!, key)
        break
      }
    }
  }

  /** Between tries of someone else's request: longer each time, past a burst of 429s. */
  const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.min(500, 10 * attempt)))

  /** Someone else's rename, made through the same faults (tried until the service has it). */
  async function renameElsewhere(kind: 'epic' | 'doc', id: string, value: string): Promise<void> {
    const client = v3(service, service.tokens.member)
    const path = kind === 'epic' ? `/epics/${id}` : `/documents/${id}`
    const field = RENAMED[kind]!
    for (let attempt = 0; attempt < 50; attempt++) {
      await pause(attempt)
      await client.put(path, { [field]: value }).catch(() => null)
      const now = await client.get(path).catch(() => null)
      if (now?.status === 200 && (now.body as Record<string, unknown>)[field] === value) return
    }
    throw new Error(`someone else's rename of ${kind} ${id} did not land`)
  }

  // ---- label names someone else takes ----
  /** Our labels whose name someone else took on the service before ours was ever sent. */
  const taken = new Set<string>()
  const takenLabel = (r: OutboxRecord) => [...taken].some((key) => model.get(key)?.ref === r.entityId)
  /** The user's fix for a label the service refused as taken: another name (with a tag of its own), and retry. */
  const renameTaken = async (r: OutboxRecord) => {
    const label = [...taken].map((key) => model.get(key)!).find((e) => e.ref === r.entityId)!
    const tag = model.nextTag('label')
    const name = `${tag} ${phrase(2)}`
    await life.actions.retry(r.seq!, { name })
    taken.delete(label.key)
    label.tag = tag
    model.update(label, { name })
  }
  const actionWeight = actions.reduce((n, a) => n + a.weight, 0)

  const act = async (): Promise<Outcome> => {
    let roll = random() * actionWeight
    const a = actions.find((x) => (roll -= x.weight) < 0) ?? actions[actions.length - 1]
    try {
      const outcome = await life.act(() => a.run())
      if (outcome === 'done') stats.actions[a.name] = (stats.actions[a.name] ?? 0) + 1
      return outcome
    } catch (error) {
      // Not in the cache (yet): the UI would not have offered it.
      if (error instanceof WriteRefused && error.reason === 'not-found') return 'skip'
      // The description became not downloaded between the look and the edit (a bootstrap's list stored the epic
      // meanwhile): the screen would have stopped offering it.
      if (error instanceof WriteRefused && error.reason === 'not-loaded') return 'skip'
      // The window died under the action (its journal calls with it): nothing of it was made.
      if (life.dead) return 'skip'
      // Storage full and kept nowhere (a change to a queued record): not made, and the user was told so.
      if (error instanceof StorageFullError) {
        stats.quota.changesRefused++
        return 'skip'
      }
      refused++
      details.push(`refused: ${a.name}: ${(error as Error).message}`)
      return 'skip'
    }
  }

  // ---- the world around the user ----
  const faultProfile = (): Faults => {
    const r = random()
    if (r < 0.35) return NO_FAULTS
    if (r < 0.55) return { ...NO_FAULTS, latencyMs: 1 + int(15) }
    if (r < 0.85) return { latencyMs: int(5), dropRate: 0.05, dropAfterCommitRate: 0.05, failRate: 0.05 }
    return { latencyMs: int(10), dropRate: 0.2, dropAfterCommitRate: 0.2, failRate: 0.15 }
  }

  const events: { weight: number; run: () => Promise<void> }[] = [
    // The main side's replay-now (window focus, resume, its timer), and the user's Send now, awaited.
    { weight: 1, run: async () => background(life, 'replay') },
    { weight: 1, run: async () => void (await awaited(life, 'replay')) },
    { weight: 3, run: async () => background(life, 'sync', chance(0.2)) },
    { weight: 1.5, run: async () => void (await awaited(life, 'sync', chance(0.2))) },
    {
      weight: 2,
      run: async () => {
        shared.net.online = !shared.net.online
        if (!shared.net.online) stats.offline++
        // Back: the main side's reconnect asks for a replay.
        else background(life, 'replay')
      },
    },
    {
      weight: 2,
      run: async () => {
        faults = faultProfile()
        service.setFaults(faults)
        stats.faultChanges++
      },
    },
    { weight: 1.5, run: async () => life.kill('idle') },
    {
      weight: 1,
      run: async () => {
        // Storage full for a spell: every write of the cache is refused (sync pages, replay's answers, the user's changes).
        if (shared.quota.full) return
        shared.quota.full = true
        quotaUntil = step + 1 + int(40)
        stats.quota.spells++
      },
    },
    {
      weight: 0.12,
      run: async () => {
        // A burst the gateway's pacing cannot see coming: the service allows 2 requests a second for a moment.
        stats.rateLimitBursts++
        bursting = true
        service.setRateLimit({ max: 2, windowMs: 1000 })
        clearTimeout(burst)
        burst = setTimeout(() => {
          service.setRateLimit(pace)
          bursting = false
        }, 1200)
      },
    },
    {
      weight: 1,
      run: async () => {
        // Opening an epic or a doc loads its details into the cache (over queued changes).
        stats.refreshes++
        const e = pick(model.live(chance(0.6) ? 'epic' : 'doc'))
        if (!e || !shared.net.online) return
        const resolved = await resolvedId(life, e)
        if (resolved === null) return
        const refresh = e.kind === 'epic' ? life.engine.refreshEpic(Number(resolved)) : life.engine.refreshDoc(String(resolved))
        await Promise.race([refresh.catch(() => undefined), life.died])
      },
    },
    {
      weight: 0.6,
      run: async () => {
        // Someone else makes a label with the name of one of ours that has never left (we are offline, so none
        // can leave meanwhile): ours is refused when it goes, and the user renames it (renameRefusedLabel).
        if (shared.net.online) return
        const byRef = new Map(model.live('label', (e) => e.tag !== null && !taken.has(e.key)).map((e) => [e.ref, e]))
        const r = pick(
          (await outboxRecords(life.db, ['pending']).catch(() => [])).filter(
            (x) => x.kind === 'label' && x.op === 'create' && x.attempts === 0 && byRef.has(x.entityId),
          ),
        )
        if (!r) return
        const ours = byRef.get(r.entityId)!
        const theirs = await someoneElsesLabel(String(ours.fields.name))
        model.seeded('label', theirs.id, { name: theirs.name, color: theirs.color })
        taken.add(ours.key)
        stats.labelNamesTaken++
      },
    },
    {
      weight: 0.6,
      run: async () => {
        // Someone else renames an epic or doc whose rename by the user has never left (we are offline, so it
        // cannot leave meanwhile): when it goes, it meets a conflict, which the user resolves (resolveConflict).
        if (shared.net.online) return
        const all = await outboxRecords(life.db).catch(() => [] as OutboxRecord[])
        const busy = new Set(all.filter((x) => x.state !== 'pending').map((x) => `${x.kind}|${x.entityId}`))
        const r = pick(
          all.filter(
            (x) =>
              x.state === 'pending' &&
              x.op === 'update' &&
              x.attempts === 0 &&
              !isLocalId(x.entityId) &&
              !busy.has(`${x.kind}|${x.entityId}`) &&
              RENAMED[x.kind as Kind] !== undefined &&
              RENAMED[x.kind as Kind]! in x.payload,
          ),
        )
        if (!r) return
        const e = await entityOf(r.kind as Kind, r.entityId)
        if (!e) return
        await renameElsewhere(r.kind as 'epic' | 'doc', r.entityId, retitled(e, `renamed elsewhere ${int(1000)}`))
        renamedElsewhere.add(e.key)
        stats.renamedElsewhere++
      },
    },
    { weight: 2, run: () => new Promise((resolve) => setTimeout(resolve, int(15))) },
  ]
  const eventWeight = events.reduce((n, e) => n + e.weight, 0)

  /** Another person's label of that name, made through the same faults (tried until it is there). */
  async function someoneElsesLabel(name: string): Promise<{ id: number; name: string; color: string | null }> {
    const client = v3(service, service.tokens.member)
    for (let attempt = 0; attempt < 50; attempt++) {
      await pause(attempt)
      const made = await client.post('/labels', { name }).catch(() => null)
      if (made?.status === 201) return made.body as { id: number; name: string; color: string | null }
      // 422: an attempt whose answer was lost made it (ours never left); read it back. Else a fault: again.
      if (made?.status === 422 || attempt > 10) {
        const list = await client.get('/labels').catch(() => null)
        const found = list?.status === 200 ? (list.body as { id: number; name: string; color: string | null }[]).find((l) => l.name === name) : undefined
        if (found) return found
      }
    }
    throw new Error(`someone else's label ${JSON.stringify(name)} could not be made`)
  }

  // ---- the run ----
  let done = 0
  let nextLog = options.every ?? 1000
  /** The step at which a spell of storage full ends. */
  let quotaUntil = 0
  let step = 0
  // The last stretch of a run is calm: online, no faults, no burst, room to write, no kills. Chaos can leave no
  // moment clear in a short run; a calm end makes sure changes made while all is clear are measured at every seed.
  const calmFrom = options.ops - Math.min(100, Math.max(20, Math.ceil(options.ops / 20)))
  for (; done < options.ops; step++) {
    if (shared.quota.full && step >= quotaUntil) shared.quota.full = false
    if (!calm && done >= calmFrom) {
      calm = true
      life.spare()
      faults = NO_FAULTS
      service.setFaults(NO_FAULTS)
      clearTimeout(burst)
      service.setRateLimit(pace)
      bursting = false
      shared.quota.full = false
      if (!shared.net.online) {
        shared.net.online = true
        if (!life.dead) background(life, 'replay')
      }
    }
    if (life.dead) {
      const reason = await life.died
      await bury(life)
      // After a crash between a commit and its confirmation, the store is often lost too: what the journal still
      // holds open then must not bring back a change the user replaced or discarded.
      if (chance(reason === 'commit' ? 0.5 : 0.12)) await wipe()
      life = newLife(calm ? Number.POSITIVE_INFINITY : undefined)
    }
    if (chance(0.22) && !calm) {
      let roll = random() * eventWeight
      await (events.find((x) => (roll -= x.weight) < 0) ?? events[0]).run()
      continue
    }
    if ((await act()) === 'done') done++
    else stats.skipped++
    if (done >= nextLog) {
      nextLog += options.every ?? 1000
      const status = await outboxStatus(life.db).catch(() => null)
      log(`  ${done} actions, ${Math.round((Date.now() - started) / 1000)} s, ${stats.lives} lives, outbox ${status?.pending ?? '?'} pending`)
    }
  }

  // The calm end goes on a moment with nobody asking for a replay: the app sends what is left by itself, and a
  // change it leaves sitting shows in the waits.
  const drainUntil = Date.now() + CALM_DRAIN_MS
  while (Date.now() < drainUntil && !life.dead) {
    const left = await outboxRecords(life.db, ['pending']).catch(() => null)
    if (left?.length === 0) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }

  // ---- the end: online, no faults, everything sent ----
  ending = true
  const waited = await waits.stop()
  waits = undefined
  clearTimeout(burst)
  faults = NO_FAULTS
  service.setFaults(NO_FAULTS)
  service.setRateLimit(pace)
  shared.net.online = true
  shared.quota.full = false
  stats.quota.refused = shared.quota.refused
  stats.quota.changesKept = shared.quota.kept
  await bury(life)
  life = newLife(Infinity)
  for (let i = 0; i < 20 && !bootstrapped; i++) await awaited(life, 'sync')
  let stuck = 0
  for (let pass = 0; pass < 100; pass++) {
    await awaited(life, 'replay')
    // A failed or conflicting record is a finding, unless someone else's write made it (then it is settled as
    // the user was told to). Findings are settled as the user would (a conflict resolved as "mine", a failure
    // discarded) so that what waits behind them goes on.
    await noteConflicts()
    const held = await outboxRecords(life.db, ['failed', 'conflict'])
    for (const r of held) {
      // Met someone else's rename, as the user was told it would: resolved, as the user would.
      if (r.state === 'conflict' && expectedConflict(r)) {
        await settleConflict(r)
        continue
      }
      // Refused as the user was told it would be (its name was taken meanwhile): renamed, as the user would.
      if (r.state === 'failed' && r.kind === 'label' && takenLabel(r)) {
        await renameTaken(r)
        continue
      }
      stuck++
      details.push(
        `stuck: #${r.seq} ${r.op} ${r.kind} ${r.entityId} ${r.state}: ${r.error?.message ?? JSON.stringify(r.conflict?.fields ?? r.conflict)} payload ${JSON.stringify(r.payload)} journal ${JSON.stringify(r.journal ?? [])}`,
      )
      if (r.state === 'failed') await life.actions.discard(r.seq!)
      else await life.actions.resolveConflict(r.seq!, 'mine')
    }
    if (held.length === 0 && (await outboxStatus(life.db)).pending === 0) break
  }
  const left = await outboxStatus(life.db)
  if (left.pending > 0) {
    details.push(`stuck: ${left.pending} records still to send after 100 passes`)
    for (const r of await outboxRecords(life.db, ['pending', 'in-flight'])) {
      details.push(
        `stuck: #${r.seq} ${r.op} ${r.kind} ${r.entityId} ${r.state} (${r.attempts} attempts) params ${JSON.stringify(r.params ?? {})} payload ${JSON.stringify(r.payload)}`,
      )
    }
  }
  stuck += left.pending

  // ---- the cache the user sees, after one more sync (of every list: labels someone else made come with theirs) ----
  await awaited(life, 'sync', true)
  const cache = await compareCache(life, model)
  const ids = new Map<string, EntityId>()
  for (const e of model.entities.values()) {
    if (e.kind !== 'comment' || e.tag === null) continue
    const id = await resolveId(life.db, 'comment', e.ref)
    if (!isLocalId(id)) ids.set(e.key, id)
  }

  stats.requests += life.calls
  await life.bury()
  clearTimeout(burst)
  service.setRateLimit('off')
  const verdict = verify(model, await readServiceState(service), ids)
  stats.checked = verdict.checked
  details.push(...verdict.details)
  await keeper.close()
  await journal.close()
  await service.close()
  if (process.env.KEEP_JOURNAL) await writeFile(process.env.KEEP_JOURNAL, await readFile(join(folder, 'journal', 'soak.jsonl')))
  await rm(folder, { recursive: true, force: true })
  return {
    seed: options.seed,
    ops: options.ops,
    ms: Date.now() - started,
    lost: verdict.lost,
    duplicated: verdict.duplicated + duplicated,
    wrong: verdict.wrong,
    stuck,
    waits: waited,
    refused,
    details,
    cache,
    stats,
  }
}

/** The entity's service id as the cache knows it now, or null while its create is unconfirmed. */
async function resolvedId(life: Life, e: Entity): Promise<EntityId | null> {
  const row = await mergedOne<{ id: EntityId }>(life.db, e.kind, e.ref)
  return row && !isLocalId(row.id) ? row.id : null
}

/** Each intended entity as the merged cache shows it: there when live, gone when deleted, with its name. */
async function compareCache(life: Life, model: Model): Promise<SoakReport['cache']> {
  const out: SoakReport['cache'] = { checked: 0, details: [] }
  for (const e of model.entities.values()) {
    if (e.gone) continue
    out.checked++
    const row = await mergedOne<Record<string, unknown>>(life.db, e.kind, e.ref)
    const shown = row && !(e.kind === 'comment' && row.deleted === true)
    if (e.live && !shown) out.details.push(`${e.key} is not in the cache`)
    else if (!e.live && shown) out.details.push(`${e.key} was deleted but the cache still shows it`)
    // A comment's text is not its tag; a health update's comes when its epic is opened (the epic pages carry slims).
    else if (e.live && row && row[TAG_FIELD[e.kind]] !== e.fields[TAG_FIELD[e.kind]] && e.kind !== 'comment' && !(e.kind === 'health' && row.slim === true)) {
      out.details.push(`${e.key} shows ${JSON.stringify(row[TAG_FIELD[e.kind]])}, intended ${JSON.stringify(e.fields[TAG_FIELD[e.kind]])}`)
    }
  }
  return out
}
