// The chaos run: N random user actions (every write the outbox supports, on
// seeded entities and on ones created offline), interleaved with the network
// going and coming back, the service's faults (drops before and after commit,
// 5xx, latency), bursts of 429, replay and sync runs (awaited or in the
// background), and the app killed and started again at random points,
// mid-bootstrap and mid-replay included. At the end: online, no faults, replay
// until the outbox is empty, and the service's state against what the actions
// intended (model.ts, verify.ts).
//
// The seed fixes every choice the run makes (actions, values, events, kill
// points); the interleaving with timers and I/O can still differ between runs.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IDBFactory } from 'fake-indexeddb'
import { Gateway } from '../../../../src-main/gateway/index.ts'
import { seededRandom } from '../../../../src-server/faults.ts'
import type { Faults } from '../../../../src-server/index.ts'
import { testService } from '../../../../src-server/testing.ts'
import { WriteRefused } from '../actions.ts'
import { isLocalId, outboxRecords, outboxStatus, resolveId } from '../outbox/index.ts'
import { mergedDocEpics, mergedOne } from '../overlay.ts'
import { isBootstrapped } from '../sync/index.ts'
import type { EntityId, EntityKind } from '../types.ts'
import { startLife, type KillReason, type Life, type Pace, type Shared } from './client.ts'
import { linkKey, Model, splitLinkKey, TAG_FIELD, type Entity, type Kind } from './model.ts'
import { readServiceState } from './service-state.ts'
import { verify } from './verify.ts'

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
  kills: { midBootstrap: number; midReplay: number; midSync: number; idle: number }
  offline: number
  faultChanges: number
  rateLimitBursts: number
  /** Answers of the service: 429 (rate limited) and 5xx (injected failures). Dropped connections are not answers. */
  answers: { rateLimited: number; failed: number }
  replays: number
  syncs: number
  refreshes: number
  requests: number
  checked: { entities: number; links: number }
}

export const DEFAULT_PACE: Pace = { max: 200, windowMs: 1000 }

const NO_FAULTS: Faults = { latencyMs: 0, failRate: 0, dropRate: 0, dropAfterCommitRate: 0 }

type Outcome = 'done' | 'skip'

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const started = Date.now()
  const pace = options.pace ?? DEFAULT_PACE
  const log = options.log ?? (() => undefined)
  const random = seededRandom(0x5eed + options.seed * 7919)
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
  const service = await testService({
    seed: 'demo',
    faultSeed: options.seed,
    rateLimit: 'off',
    log: (line) => {
      const status = Number(line.split(' ')[2])
      if (status === 429) answers.rateLimited++
      else if (status >= 500) answers.failed++
    },
  })
  const folder = await mkdtemp(join(tmpdir(), 'outpost-soak-'))
  await mkdir(join(folder, 'drops'), { recursive: true })
  const shared: Shared = {
    service,
    indexedDB: new IDBFactory(),
    dbName: `outpost-soak-${options.seed}`,
    folders: { staging: join(folder, 'staging'), cache: join(folder, 'cache') },
    pace,
    net: { online: true },
  }
  // Keeps the HTTP agent open across lives (the last gateway to close an origin closes its connections).
  const keeper = new Gateway({ baseUrl: service.baseUrl, workspaceSlug: service.workspace, token: service.tokens.admin, tokenKind: 'v4' })

  const model = Model.fromService(await readServiceState(service))
  service.setRateLimit(pace)

  const stats: SoakStats = {
    actions: {},
    skipped: 0,
    lives: 0,
    kills: { midBootstrap: 0, midReplay: 0, midSync: 0, idle: 0 },
    offline: 0,
    faultChanges: 0,
    rateLimitBursts: 0,
    answers,
    replays: 0,
    syncs: 0,
    refreshes: 0,
    requests: 0,
    checked: { entities: 0, links: 0 },
  }
  const details: string[] = []
  let refused = 0
  let bootstrapped = false
  let burst: ReturnType<typeof setTimeout> | undefined

  // ---- lives ----
  const running = new Map<Life, { replay: number; sync: number }>()
  const newLife = (killAfter?: number): Life => {
    const k = killAfter ?? (!bootstrapped ? (chance(0.6) ? 1 + int(15) : Infinity) : chance(0.35) ? 1 + int(40) : Infinity)
    const life = startLife(shared, k)
    stats.lives++
    running.set(life, { replay: 0, sync: 0 })
    void life.died.then((reason: KillReason) => {
      const r = running.get(life)!
      if (reason === 'end') return
      if (r.sync > 0 && !bootstrapped) stats.kills.midBootstrap++
      else if (r.replay > 0) stats.kills.midReplay++
      else if (r.sync > 0) stats.kills.midSync++
      else stats.kills.idle++
    })
    // The app starting: it syncs, and replays what the last run left queued.
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

  let life = newLife()

  // ---- what the user sees ----
  const visible = async (kind: EntityKind, ref: EntityId) => (await mergedOne(life.db, kind, ref)) !== undefined
  const visibleRefs = async (kind: Kind, max: number) => {
    const out: Entity[] = []
    for (const e of sample(model.live(kind), max)) if (await visible(kind, e.ref)) out.push(e)
    return out
  }
  const words = ['alpha', 'beta', 'gamma', 'delta', 'déjà vu', 'naïve', '数据', 'emoji 🚀', 'quote "x"', 'back\\slash', 'a & b', '<b>not html</b>']
  const phrase = (n: number) => Array.from({ length: 1 + int(n) }, () => pick(words)).join(' ')
  const colour = () => `#${int(0xffffff).toString(16).padStart(6, '0')}`

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
    if (chance(0.2)) f.owner_ids = m.owner_ids = sample((await db.members.toArray()).filter((x) => !x.disabled).map((x) => x.id as string), 2)
    if (chance(0.15)) f.group_ids = m.group_ids = sample((await db.groups.toArray()).filter((g) => !g.archived).map((g) => g.id as string), 2)
    if (chance(0.15)) f.label_ids = m.label_ids = sample((await db.labels.toArray()).map((l) => l.id as number), 2)
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
        if (chance(0.4)) f.description = m.description = phrase(10)
        await life.actions.updateEpic(e.ref, f)
        model.update(e, m)
        return 'done'
      },
    },
    {
      name: 'archiveEpic',
      weight: 2,
      run: async () => {
        const e = pick(model.live('epic', (x) => x.fields.archived !== true))
        if (!e) return 'skip'
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
        if (!e) return 'skip'
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
        await life.actions.editComment(c.ref, text)
        model.update(c, { text })
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
        const f: Record<string, unknown> = {}
        if (chance(0.5)) f.title = retitled(d, `${phrase(3)} v${int(100)}`)
        if (!f.title || chance(0.5)) f.content_markdown = `## ${phrase(2)}\n\n${phrase(10)}`
        await life.actions.updateDoc(d.ref, f)
        model.update(d, f)
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
        await life.actions.updateFile(f.ref, fields)
        model.update(f, { ...fields, ...(fields.description === null && { description: '' }) })
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
        await life.actions.updateLinkedFile(l.ref, fields)
        model.update(l, fields)
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
        await life.actions.updateCategory(k.ref, fields)
        model.update(k, fields)
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
        await life.actions.updateObjective(o.ref, f)
        model.update(o, m)
        return 'done'
      },
    },
    deleting('deleteObjective', 'objective', 0.4, 4, (ref) => life.actions.deleteObjective(ref)),
  ]
  const actionWeight = actions.reduce((n, a) => n + a.weight, 0)

  const act = async (): Promise<Outcome> => {
    let roll = random() * actionWeight
    const a = actions.find((x) => (roll -= x.weight) < 0) ?? actions[actions.length - 1]
    try {
      const outcome = await a.run()
      if (outcome === 'done') stats.actions[a.name] = (stats.actions[a.name] ?? 0) + 1
      return outcome
    } catch (error) {
      // Not in the cache (yet): the UI would not have offered it.
      if (error instanceof WriteRefused && error.reason === 'not-found') return 'skip'
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
    { weight: 6, run: async () => background(life, 'replay') },
    { weight: 3, run: async () => void (await awaited(life, 'replay')) },
    { weight: 3, run: async () => background(life, 'sync', chance(0.2)) },
    { weight: 1.5, run: async () => void (await awaited(life, 'sync', chance(0.2))) },
    {
      weight: 2,
      run: async () => {
        shared.net.online = !shared.net.online
        if (!shared.net.online) stats.offline++
      },
    },
    {
      weight: 2,
      run: async () => {
        service.setFaults(faultProfile())
        stats.faultChanges++
      },
    },
    { weight: 1.5, run: async () => life.kill('idle') },
    {
      weight: 0.12,
      run: async () => {
        // A burst the gateway's pacing cannot see coming: the service allows 2 requests a second for a moment.
        stats.rateLimitBursts++
        service.setRateLimit({ max: 2, windowMs: 1000 })
        clearTimeout(burst)
        burst = setTimeout(() => service.setRateLimit(pace), 1200)
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
    { weight: 2, run: () => new Promise((resolve) => setTimeout(resolve, int(15))) },
  ]
  const eventWeight = events.reduce((n, e) => n + e.weight, 0)

  // ---- the run ----
  let done = 0
  let nextLog = options.every ?? 1000
  for (let step = 0; done < options.ops; step++) {
    if (life.dead) {
      await bury(life)
      life = newLife()
    }
    if (chance(0.22)) {
      let roll = random() * eventWeight
      await (events.find((x) => (roll -= x.weight) < 0) ?? events[0]).run()
      continue
    }
    if ((await act()) === 'done') {
      done++
      // Main asks for a replay after a write (when online); often it is still going when the next write comes.
      if (chance(0.3)) background(life, 'replay')
    } else stats.skipped++
    if (done >= nextLog) {
      nextLog += options.every ?? 1000
      const status = await outboxStatus(life.db).catch(() => null)
      log(`  ${done} actions, ${Math.round((Date.now() - started) / 1000)} s, ${stats.lives} lives, outbox ${status?.pending ?? '?'} pending`)
    }
  }

  // ---- the end: online, no faults, everything sent ----
  clearTimeout(burst)
  service.setFaults(NO_FAULTS)
  service.setRateLimit(pace)
  shared.net.online = true
  await bury(life)
  life = newLife(Infinity)
  for (let i = 0; i < 20 && !bootstrapped; i++) await awaited(life, 'sync')
  let stuck = 0
  for (let pass = 0; pass < 100; pass++) {
    await awaited(life, 'replay')
    // Only this client writes: a failed or conflicting record is a finding. Each is settled as the user
    // would (a conflict resolved as "mine", a failure discarded) so that what waits behind it goes on.
    const held = await outboxRecords(life.db, ['failed', 'conflict'])
    for (const r of held) {
      stuck++
      details.push(`stuck: #${r.seq} ${r.op} ${r.kind} ${r.entityId} ${r.state}: ${r.error?.message ?? JSON.stringify(r.conflict?.fields ?? r.conflict)} payload ${JSON.stringify(r.payload)}`)
      if (r.state === 'failed') await life.actions.discard(r.seq!)
      else await life.actions.resolveConflict(r.seq!, 'mine')
    }
    if (held.length === 0 && (await outboxStatus(life.db)).pending === 0) break
  }
  const left = await outboxStatus(life.db)
  if (left.pending > 0) {
    details.push(`stuck: ${left.pending} records still to send after 100 passes`)
    for (const r of await outboxRecords(life.db, ['pending', 'in-flight'])) {
      details.push(`stuck: #${r.seq} ${r.op} ${r.kind} ${r.entityId} ${r.state} (${r.attempts} attempts) params ${JSON.stringify(r.params ?? {})} payload ${JSON.stringify(r.payload)}`)
    }
  }
  stuck += left.pending

  // ---- the cache the user sees, after one more sync ----
  await awaited(life, 'sync')
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
  await service.close()
  await rm(folder, { recursive: true, force: true })
  return {
    seed: options.seed,
    ops: options.ops,
    ms: Date.now() - started,
    lost: verdict.lost,
    duplicated: verdict.duplicated,
    wrong: verdict.wrong,
    stuck,
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
    else if (e.live && row && row[TAG_FIELD[e.kind]] !== e.fields[TAG_FIELD[e.kind]] && e.kind !== 'comment') {
      out.details.push(`${e.key} shows ${JSON.stringify(row[TAG_FIELD[e.kind]])}, intended ${JSON.stringify(e.fields[TAG_FIELD[e.kind]])}`)
    }
  }
  return out
}

