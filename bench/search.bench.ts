// Local search benchmark (the goal: results for a keystroke in under 16 ms with
// 10,000 epics and 2,000 docs). Not a test: it prints figures and never fails
// on time. Run: npm run bench search (or npx tsx bench/search.bench.ts)
//
// It fills a fake-indexeddb cache with deterministic data (10,000 epics, 2,000
// docs of ~5 KB markdown, 500 comments, 200 files), builds the index the way
// the app does (createSearch), then types 200 keystrokes of typical queries,
// applies a single edit, a 100-doc sync page and an offline create; then the
// epic list's own part of the interface benchmark's epic keystrokes (its filter
// and the index) over as many epics as that benchmark seeds (10,000;
// BENCH_SCALE=5: 50,000), named as it names them. It prints a table and one
// JSON line per figure.
import { IDBKeyRange, indexedDB } from 'fake-indexeddb'
import os from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { OutpostDb } from '../src-renderer/src/data/db.ts'
import { createSearch } from '../src-renderer/src/data/search/index.ts'
import { applyFilters, asksIndex, INDEX_LIMIT, type EpicFilters } from '../src-renderer/src/features/epics/epic-filter.ts'
import { scoresOf } from '../src-renderer/src/features/lookup.ts'
import type { CachedComment, CachedDoc, CachedEpic, CachedFile } from '../src-renderer/src/data/types.ts'
import { epicPhrases, workspaceSize } from './harness.ts'
import { percentile, report, type Figure } from './report.ts'

const EPICS = 10_000
const DOCS = 2_000
const COMMENTS = 500
const FILES = 200
const KEYSTROKES = 200
/** The epic list's part: the interface benchmark's workspace size (BENCH_SCALE=5: 50,000 epics). */
const LIST_EPICS = workspaceSize().epics

// ---- deterministic text -------------------------------------------------------------------

function prng(seed: number): () => number {
  // mulberry32
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const random = prng(4)
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]
const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1))

const COMMON = `the of and to a in is it you that he was for on are with as his they be at one have this from or had by
not word but what some we can out other were all there when up use your how said an each she which do their time if will
way about many then them write would like so these her long make thing see him two has look more day could go come did
number sound no most people my over know water than call first who may down side been now find any new work part take get
place made live where after back little only round man year came show every good me give our under name very through just
form sentence great think say help low line differ turn cause much mean before move right boy old too same tell does set
three want air well also play small end put home read hand port large spell add even land here must big high such follow
act why ask men change went light kind off need house picture try us again animal point mother world near build self earth`.split(/\s+/)
const PRODUCT = `design system tokens migration onboarding billing invoice search offline sync export import dashboard report
analytics mobile android ios api gateway auth login permissions roles notifications email webhook calendar timeline roadmap
kanban sprint release deploy pipeline monitoring alerts latency cache database postgres schema index query performance
accessibility localisation translation payments checkout subscription pricing tutorial feedback survey support ticket chat
integration slack github figma upload download attachments comments mentions reactions editor markdown preview templates
workspace settings profile avatar theme dark keyboard shortcuts navigation sidebar filters sorting pagination bulk archive
restore history audit compliance security encryption backup recovery quota limits usage metrics experiment rollout flags
beta feature customer partner admin invite team group member owner follower label category objective milestone health
status risk blocker dependency estimate capacity planning retro incident postmortem oncall runbook documentation guide`.split(/\s+/)
const SYLLABLES = 'ka lo mi ra te su vo ne pa ri zu do fe gi ha ji ku ma no pe qui sa ti wa xe yo bri cla dre fro glu'.split(' ')

/** ~20,000 words, most frequent first: real words, then product words, then made-up names and jargon. */
const VOCABULARY = (() => {
  const words = new Set<string>([...COMMON, ...PRODUCT])
  const made = prng(7)
  while (words.size < 20_000) {
    let word = ''
    const n = 2 + Math.floor(made() * 3)
    for (let i = 0; i < n; i++) word += SYLLABLES[Math.floor(made() * SYLLABLES.length)]
    words.add(word)
  }
  return [...words]
})()
/** Zipf's law over VOCABULARY: cumulative weights for a binary search. */
const CUMULATIVE = (() => {
  const out = new Float64Array(VOCABULARY.length)
  let sum = 0
  for (let i = 0; i < VOCABULARY.length; i++) out[i] = sum += 1 / Math.pow(i + 1, 1.05)
  return out
})()
function word(): string {
  const x = random() * CUMULATIVE[CUMULATIVE.length - 1]
  let low = 0
  let high = CUMULATIVE.length - 1
  while (low < high) {
    const mid = (low + high) >> 1
    if (CUMULATIVE[mid] < x) low = mid + 1
    else high = mid
  }
  return VOCABULARY[low]
}
const words = (n: number) => Array.from({ length: n }, word).join(' ')
const sentence = () => {
  const s = words(between(6, 18))
  return s[0].toUpperCase() + s.slice(1) + '.'
}
const paragraph = (n: number) => Array.from({ length: n }, sentence).join(' ')
const capitalised = (s: string) => s[0].toUpperCase() + s.slice(1)
const title = () => capitalised(Array.from({ length: between(2, 5) }, () => (random() < 0.7 ? pick(PRODUCT) : word())).join(' '))

function markdown(heading: string): string {
  let md = `# ${heading}\n\n${paragraph(3)}\n\n`
  while (md.length < 5_000) {
    md += `## ${title()}\n\n${paragraph(between(2, 5))}\n\n`
    if (random() < 0.5) md += Array.from({ length: between(3, 6) }, () => `- ${sentence()}`).join('\n') + '\n\n'
    if (random() < 0.4) md += `See [${words(2)}](https://docs.example.com/${word()}/${word()}) and \`${word()}_${word()}\`.\n\n`
  }
  return md
}
const html = (md: string) =>
  md
    .split('\n\n')
    .map((block) => `<p>${block}</p>`)
    .join('\n')

// ---- the cache ----------------------------------------------------------------------------

const timestamp = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString()

function epic(id: number): CachedEpic {
  return {
    id,
    name: title(),
    description: paragraph(between(2, 6)),
    archived: random() < 0.05,
    epic_state_id: 1,
    started: false,
    completed: false,
    started_at: null,
    completed_at: null,
    deadline: null,
    planned_start_date: null,
    owner_ids: [],
    follower_ids: [],
    group_ids: [],
    objective_ids: [],
    label_ids: [],
    requested_by_id: null,
    external_id: null,
    position: id,
    app_url: `https://app.example.com/epic/${id}`,
    created_at: timestamp(id),
    updated_at: timestamp(id),
  }
}
function doc(i: number): CachedDoc {
  const heading = title()
  const content_markdown = markdown(heading)
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    title: heading,
    content_markdown,
    content_html: html(content_markdown),
    archived: false,
    creator_id: null,
    created_at: timestamp(i),
    updated_at: timestamp(i),
  }
}
function comment(id: number): CachedComment {
  return {
    id,
    epic_id: between(1, EPICS),
    parent_id: null,
    author_id: null,
    text: paragraph(between(1, 3)),
    deleted: false,
    external_id: null,
    created_at: timestamp(id),
    updated_at: timestamp(id),
  }
}
function file(id: number): CachedFile {
  return {
    id,
    name: `${words(2).replace(' ', '-')}.pdf`,
    description: random() < 0.5 ? sentence() : null,
    content_type: 'application/pdf',
    size: 1000,
    url: `https://files.example.com/${id}`,
    thumbnail_url: null,
    story_ids: [],
    uploader_id: null,
    external_id: null,
    created_at: timestamp(id),
    updated_at: timestamp(id),
  }
}

async function fill(db: OutpostDb): Promise<number> {
  let bytes = 0
  for (let from = 1; from <= EPICS; from += 1000) {
    await db.epics.bulkPut(Array.from({ length: Math.min(1000, EPICS - from + 1) }, (_, i) => epic(from + i)))
  }
  for (let from = 1; from <= DOCS; from += 200) {
    const docs = Array.from({ length: Math.min(200, DOCS - from + 1) }, (_, i) => doc(from + i))
    for (const d of docs) bytes += d.content_markdown.length
    await db.docs.bulkPut(docs)
  }
  await db.epicComments.bulkPut(Array.from({ length: COMMENTS }, (_, i) => comment(i + 1)))
  await db.files.bulkPut(Array.from({ length: FILES }, (_, i) => file(i + 1)))
  return bytes / DOCS
}

// ---- figures ------------------------------------------------------------------------------

const figures: Figure[] = []
const record = (figure: string, value: number, unit: string, note?: string) => {
  figures.push({ bench: 'search', figure, value: Math.round(value * 100) / 100, unit, ...(note ? { note } : {}) })
}
// Heap figures after a full collection, without asking for --expose-gc on the command line.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const heapMb = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed / 2 ** 20
}

/** 200 keystrokes: typing typical queries letter by letter (prefixes), typos included. */
function keystrokes(db: { sampleTitles: string[] }): string[] {
  const phrases = [
    'design system',
    'billing export',
    'onboarding',
    'offline sync',
    'webhook',
    'dashbord',
    'permissions roles',
    'release pipeline',
    'notifcations',
    'api gateway',
    'search',
    'postgres schema',
    'accessibility',
    ...db.sampleTitles,
  ]
  const out: string[] = []
  for (const phrase of phrases) {
    for (let n = 1; n <= phrase.length && out.length < KEYSTROKES; n++) {
      if (phrase[n - 1] !== ' ') out.push(phrase.slice(0, n))
    }
    if (out.length >= KEYSTROKES) break
  }
  return out
}

async function main(): Promise<void> {
  const db = new OutpostDb('bench-search', { indexedDB, IDBKeyRange })
  await db.open()
  let started = performance.now()
  const markdownBytes = await fill(db)
  const fillMs = performance.now() - started
  const sampleTitles = (await db.epics.bulkGet([17, 4242, 9001])).map((e) => e!.name.toLowerCase())
  const heapBefore = heapMb()

  // Build, watching the event loop: with fake-indexeddb the IndexedDB work runs on this thread too,
  // so the loop delay includes it; the slicer's own figure is the index's part alone.
  const loop = monitorEventLoopDelay({ resolution: 1 })
  loop.enable()
  started = performance.now()
  const slices: number[] = []
  const search = createSearch(db, { onSlice: (ms) => slices.push(ms) })
  await search.ready
  const buildMs = performance.now() - started
  loop.disable()
  const built = search.stats()
  const buildSlices = slices.splice(0)
  const heapAfter = heapMb()
  record('documents indexed', built.documents, 'docs')
  record('markdown per doc', markdownBytes, 'bytes')
  record('cache fill (not search)', fillMs, 'ms')
  record('index build', buildMs, 'ms', 'createSearch to ready, reads from the cache included')
  record('indexing slice p99', percentile(buildSlices, 99), 'ms', `${buildSlices.length} slices, budget 8 ms`)
  record('longest indexing slice', built.longestSliceMs, 'ms', `wall clock: a slice the OS preempted counts its wait too`)
  record('indexing slices over 16 ms', buildSlices.filter((ms) => ms > 16).length, 'slices', `over 50 ms: ${buildSlices.filter((ms) => ms > 50).length}`)
  record('event loop max delay during build', loop.max / 1e6, 'ms', 'includes fake-indexeddb reads, which a browser does off-thread')
  record('heap: cache in fake-indexeddb', heapBefore, 'MB')
  record('heap: index', heapAfter - heapBefore, 'MB', 'after a full gc; texts kept for snippets included')

  // Keystrokes: three passes over the same 200. The first is what a person would get (garbage
  // collection, and here the other processes on the machine, included); the best of three per
  // keystroke is the query's own cost.
  const typed = keystrokes({ sampleTitles })
  // Warm-up for the JIT, with other words than the ones measured: the search keeps recent words'
  // matches and answers, and the first pass is to pay for its own.
  for (const text of typed.slice(0, 20)) search.query([...text].reverse().join(''))
  const passes: number[][] = []
  let results = 0
  for (let pass = 0; pass < 3; pass++) {
    passes.push(
      typed.map((text) => {
        const t = performance.now()
        const found = search.query(text, { limit: 20 })
        const took = performance.now() - t
        if (pass === 0) results += found.length
        return took
      }),
    )
  }
  const summarise = (label: string, times: number[], note: string) => {
    const max = Math.max(...times)
    record(`keystroke p50 (${label})`, percentile(times, 50), 'ms', note)
    record(`keystroke p95 (${label})`, percentile(times, 95), 'ms', 'goal: under 16 ms')
    record(`keystroke max (${label})`, max, 'ms', `on ${JSON.stringify(typed[times.indexOf(max)])}`)
  }
  summarise('first pass', passes[0], `${typed.length} queries, limit 20`)
  summarise(
    'best of 3',
    typed.map((_, i) => Math.min(passes[0][i], passes[1][i], passes[2][i])),
    'per keystroke',
  )
  const short = typed.map((text, i) => (text.replace(/\s/g, '').length <= 2 ? passes[0][i] : -1)).filter((ms) => ms >= 0)
  record('keystroke max, 1-2 letters (first pass)', Math.max(...short), 'ms', `${short.length} queries`)
  record('results per keystroke', results / typed.length, 'results')

  // Incremental: one edit, one sync page of 100 docs (a bulk write: the table is rescanned), one offline create.
  started = performance.now()
  await db.epics.update(17, { name: 'Quasar telemetry overhaul', updated_at: timestamp(EPICS + 1) })
  await search.settled()
  record('single edit to findable', performance.now() - started, 'ms', `found: ${search.query('quasar tele')[0]?.id === 17}`)
  const epicPage = Array.from({ length: 100 }, (_, i) => ({ ...epic(EPICS + 1 + i), name: `Pulsar rollout ${i}` }))
  started = performance.now()
  await db.epics.bulkPut(epicPage)
  await search.settled()
  const pulsar = search.query('pulsar roll', { limit: 100 })
  record(
    '100-epic sync page to findable',
    performance.now() - started,
    'ms',
    `rescans 10,000 epics; top 100 all from the page: ${pulsar.every((r) => r.title.startsWith('Pulsar rollout'))}`,
  )
  const page = Array.from({ length: 100 }, (_, i) => ({ ...doc(i + 1), title: `Nebula handbook ${i}`, updated_at: timestamp(EPICS + 2) }))
  started = performance.now()
  await db.docs.bulkPut(page)
  await search.settled()
  const nebula = search.query('nebula hand', { limit: 100 })
  record(
    '100-doc sync page to findable',
    performance.now() - started,
    'ms',
    `top 100 all from the page: ${nebula.every((r) => r.title.startsWith('Nebula handbook'))}`,
  )
  started = performance.now()
  await db.overlay.put({
    kind: 'epic',
    id: 'local:bench',
    patch: { name: 'Zephyr offline draft', description: '' },
    created: true,
    deleted: false,
    updatedAt: Date.now(),
  })
  await search.settled()
  record('offline create to findable', performance.now() - started, 'ms', `found: ${search.query('zephyr')[0]?.id === 'local:bench'}`)
  const changeSlices = slices.splice(0)
  record('longest slice while applying changes', Math.max(0, ...changeSlices), 'ms', `${changeSlices.length} slices`)

  search.dispose()
  db.close()
  await epicListKeystrokes()

  report(
    `Local search: ${EPICS} epics, ${DOCS} docs, ${COMMENTS} comments, ${FILES} files (load average ${os.loadavg()[0].toFixed(2)} on ${os.availableParallelism()} cores)`,
    figures,
  )
}

/**
 * The epic list's own part of a keystroke in the interface benchmark: its filter and, for a
 * misspelt word, the search index, over as many epics as that benchmark's service seeds (BENCH_SCALE),
 * named as it names them ("Epic N", "Seeded epic N."), typing the same kinds of phrases, letter by letter. The rest of
 * such a keystroke is the rows' updates and the browser's frame.
 */
async function epicListKeystrokes(): Promise<void> {
  const db = new OutpostDb('bench-epic-list', { indexedDB, IDBKeyRange })
  await db.open()
  const epics = Array.from({ length: LIST_EPICS }, (_, i) => ({ ...epic(i + 1), name: `Epic ${i + 1}`, description: `Seeded epic ${i + 1}.`, archived: false }))
  await db.epics.bulkPut(epics)
  const search = createSearch(db)
  await search.ready
  const phrases = epicPhrases(random, LIST_EPICS, 8)
  const filters: EpicFilters = { query: '', states: [], owners: [], teams: [], objectives: [], archived: 'active', sort: 'updated', dir: 'desc' }
  const keystroke = (query: string) =>
    applyFilters(
      epics,
      { ...filters, query },
      {
        states: new Map(),
        ranked: (textMatches) =>
          asksIndex(query, textMatches) ? scoresOf(search.query(query.trim(), { kinds: ['epic'], limit: INDEX_LIMIT, snippets: false })) : null,
      },
    )
  // The first half warms the JIT and the index's kept matches up, as the benchmark's earlier phrases do.
  const typed = phrases.flatMap((phrase) => [...phrase].map((_, k) => phrase.slice(0, k + 1)))
  const times = typed.map((query) => {
    const t = performance.now()
    keystroke(query)
    return performance.now() - t
  })
  const half = Math.floor(typed.length / 2)
  const measured = times.slice(half)
  const max = Math.max(...measured)
  record(
    'epic list keystroke p50 (filter and index)',
    percentile(measured, 50),
    'ms',
    `${measured.length} keystrokes of the interface benchmark's epic phrases over ${LIST_EPICS} epics named as seeded`,
  )
  record(
    'epic list keystroke p95 (filter and index)',
    percentile(measured, 95),
    'ms',
    `slowest ${max.toFixed(1)} ms on ${JSON.stringify(typed[half + measured.indexOf(max)])}`,
  )
  search.dispose()
  db.close()
}

await main()
