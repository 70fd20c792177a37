// What the renderer sends is checked before a handler sees it: the page is
// the less trusted side, and a malformed request gets a clear
// `invalid-request` instead of a crash deep in the gateway.
import { LIMITS } from '../../src-shared/api/limits.ts'
import { isOperationName, LANES, type Lane, type QueryValue } from '../../src-shared/api/operations.ts'
import {
  EXPORT_PART_MAX_CHARS,
  type ApiCallRequest,
  type JournalIdsRequest,
  type JournalMapping,
  type JournalRecord,
  type RequestChannel,
  type RequestOf,
} from '../../src-shared/ipc.ts'
import { parseItemLink } from '../../src-shared/links.ts'
import { IpcFailure } from './errors.ts'

type Check<C extends RequestChannel> = (request: unknown) => RequestOf<C>

function invalid(message: string): never {
  throw new IpcFailure('invalid-request', message)
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) invalid(`${what} must be an object`)
  return value as Record<string, unknown>
}

function text(value: unknown, what: string, max = 4096): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) invalid(`${what} must be a string of 1 to ${max} characters`)
  return value
}

function positiveInt(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) invalid(`${what} must be a positive integer`)
  return value
}

function nothing(_request: unknown): void {
  return undefined
}

function scalars<T>(value: unknown, what: string, ok: (v: unknown) => v is T): Record<string, T> | undefined {
  if (value === undefined) return undefined
  const obj = record(value, what)
  for (const [key, v] of Object.entries(obj)) if (!ok(v)) invalid(`${what}.${key} has a value of the wrong type`)
  return obj as Record<string, T>
}

const isParam = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))
const isScalar = (v: unknown): v is QueryValue => v === undefined || v === null || typeof v === 'boolean' || isParam(v)
const isLane = (v: unknown): v is Lane => (LANES as readonly unknown[]).includes(v)
const isQueryValue = (v: unknown): v is QueryValue | QueryValue[] => isScalar(v) || (Array.isArray(v) && v.length <= 100 && v.every(isScalar))

/** Field names to keep of an answer: up to 100 names of letters, digits and underscores. */
function fieldNames(value: unknown): string[] {
  if (!Array.isArray(value) || value.length > 100 || !value.every((f) => typeof f === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(f))) {
    invalid('fields must list up to 100 field names (letters, digits and _)')
  }
  return value as string[]
}

/** The most a journal request carries: a change holds at most a doc's text, and a burst of them is a few. */
const JOURNAL_MAX_CHARS = 8 * 1024 * 1024
const JOURNAL_OPS = ['create', 'update', 'delete', 'void']

function journalIds(value: unknown, what = 'ids'): number[] {
  if (!Array.isArray(value) || value.length > 100_000) invalid(`${what} must list at most 100000 journal ids`)
  return value.map((id, i) => positiveInt(id, `${what}[${i}]`))
}

/** An account's journal and some of its entries. */
function journalIdsRequest(request: unknown): JournalIdsRequest {
  const r = record(request, 'The request')
  return { accountId: text(r.accountId, 'accountId', 256), ids: journalIds(r.ids) }
}

function journalRecord(value: unknown, what: string): JournalRecord {
  const r = record(value, what)
  if (typeof r.kind !== 'string' || !/^[A-Za-z]{1,32}$/.test(r.kind)) invalid(`${what}.kind must be a kind's name`)
  if (!JOURNAL_OPS.includes(r.op as string)) invalid(`${what}.op must be one of ${JOURNAL_OPS.join(', ')}`)
  const optionalText = (v: unknown, field: string, max: number) => (v === undefined ? undefined : text(v, `${what}.${field}`, max))
  let staged
  if (r.staged !== undefined) {
    const s = record(r.staged, `${what}.staged`)
    if (typeof s.size !== 'number' || !Number.isSafeInteger(s.size) || s.size < 0) invalid(`${what}.staged.size must be a size in bytes`)
    staged = { path: text(s.path, `${what}.staged.path`), name: text(s.name, `${what}.staged.name`, LIMITS.fileName), size: s.size }
  }
  return {
    kind: r.kind,
    entityId: text(r.entityId, `${what}.entityId`, 1024),
    op: r.op as JournalRecord['op'],
    payload: record(r.payload, `${what}.payload`),
    ...(r.base !== undefined && { base: record(r.base, `${what}.base`) }),
    ...(r.params !== undefined && { params: scalars(r.params, `${what}.params`, (v): v is string | number | null => v === null || isParam(v)) }),
    ...(r.externalId !== undefined && { externalId: optionalText(r.externalId, 'externalId', 256) }),
    ...(r.baseUpdatedAt !== undefined && { baseUpdatedAt: optionalText(r.baseUpdatedAt, 'baseUpdatedAt', 64) }),
    ...(staged && { staged }),
    ...(r.order !== undefined && { order: positiveInt(r.order, `${what}.order`) }),
    ...(r.voids !== undefined && { voids: journalIds(r.voids, `${what}.voids`) }),
  }
}

const CHECKS: { [C in RequestChannel]: Check<C> } = {
  'outpost:accounts.list': nothing,
  'outpost:accounts.current': nothing,
  'outpost:accounts.add': (request) => {
    const r = record(request, 'The request')
    // An empty token is the accounts module's to explain; only the type is checked here.
    if (typeof r.token !== 'string' || r.token.length > 4096) invalid('token must be a string')
    return { baseUrl: text(r.baseUrl, 'baseUrl', 2048), token: r.token }
  },
  'outpost:accounts.switch': (request) => ({ id: text(record(request, 'The request').id, 'id', 256) }),
  'outpost:accounts.remove': (request) => ({ id: text(record(request, 'The request').id, 'id', 256) }),
  'outpost:secret-store.describe': nothing,
  'outpost:api.call': (request) => {
    const r = record(request, 'The request')
    if (!isOperationName(r.operation)) invalid(`"${String(r.operation)}" is not an operation of the API contract`)
    if (r.lane !== undefined && !isLane(r.lane)) invalid(`lane must be one of ${LANES.join(', ')}`)
    if (r.ahead !== undefined && !(Number.isSafeInteger(r.ahead) && (r.ahead as number) >= 0)) invalid('ahead must be a whole number of requests, 0 or more')
    const call = {
      operation: r.operation,
      params: scalars(r.params, 'params', isParam),
      query: scalars(r.query, 'query', isQueryValue),
      body: r.body,
      lane: r.lane,
      ahead: r.ahead,
      fields: r.fields === undefined ? undefined : fieldNames(r.fields),
    }
    // Checked here: every part's type. Which path parameters the operation needs, the gateway checks
    // as it fills the path (one left out is refused as an invalid request).
    return call as ApiCallRequest
  },
  'outpost:files.upload': (request) => {
    const r = record(request, 'The request')
    if (!Array.isArray(r.paths) || r.paths.length < 1 || r.paths.length > 4) invalid('paths must list 1 to 4 files')
    if (r.names !== undefined && (!Array.isArray(r.names) || r.names.length !== r.paths.length)) invalid('names must give one name per path')
    return {
      uploadId: text(r.uploadId, 'uploadId', 256),
      paths: r.paths.map((p, i) => text(p, `paths[${i}]`)),
      names: r.names?.map((n, i) => text(n, `names[${i}]`, LIMITS.fileName)),
      storyId: r.storyId === undefined ? undefined : positiveInt(r.storyId, 'storyId'),
    }
  },
  'outpost:files.download': (request) => {
    const r = record(request, 'The request')
    const known = r.known === undefined ? undefined : record(r.known, 'known')
    return {
      downloadId: text(r.downloadId, 'downloadId', 256),
      fileId: positiveInt(r.fileId, 'fileId'),
      ...(known && { known: { url: text(known.url, 'known.url'), name: text(known.name, 'known.name', LIMITS.fileName) } }),
      ...(r.lane !== undefined && { lane: isLane(r.lane) ? r.lane : invalid(`lane must be one of ${LANES.join(', ')}`) }),
    }
  },
  'outpost:files.open': (request) => ({ fileId: positiveInt(record(request, 'The request').fileId, 'fileId') }),
  'outpost:files.read': (request) => {
    const r = record(request, 'The request')
    return { fileId: positiveInt(r.fileId, 'fileId'), maxBytes: r.maxBytes === undefined ? undefined : positiveInt(r.maxBytes, 'maxBytes') }
  },
  'outpost:files.stage': (request) => ({ path: text(record(request, 'The request').path, 'path') }),
  'outpost:files.discard': (request) => ({ path: text(record(request, 'The request').path, 'path') }),
  'outpost:files.sweep-staged': (request) => {
    const keep = record(request, 'The request').keep
    // An outbox of queued uploads, each a path: generous, but bounded.
    if (!Array.isArray(keep) || keep.length > 100_000) invalid('keep must list at most 100000 paths')
    return { keep: keep.map((p, i) => text(p, `keep[${i}]`)) }
  },
  'outpost:files.evict-cache': (request) => {
    const keep = record(request, 'The request').keep
    if (!Array.isArray(keep) || keep.length > 100_000) invalid('keep must list at most 100000 file ids')
    return { keep: keep.map((id, i) => positiveInt(id, `keep[${i}]`)) }
  },
  'outpost:demo.sign-in': nothing,
  'outpost:connectivity.get': nothing,
  'outpost:app.info': nothing,
  'outpost:links.take': nothing,
  'outpost:links.opened': (request) => {
    const links = record(request, 'The request').links
    if (!Array.isArray(links) || links.length > 100) invalid('links must list at most 100 links')
    return { links: links.map((link, i) => text(link, `links[${i}]`, 2048)) }
  },
  'outpost:notify.show': (request) => {
    const r = record(request, 'The request')
    const link = text(r.link, 'link', 2048)
    if (!parseItemLink(link)) invalid('link must be an outpost:// link to an epic or a doc')
    return {
      title: text(r.title, 'title', 200),
      body: typeof r.body === 'string' && r.body.length <= 2000 ? r.body : invalid('body must be a string of at most 2000 characters'),
      link,
    }
  },
  'outpost:export.begin': nothing,
  'outpost:export.write': (request) => {
    const r = record(request, 'The request')
    if (typeof r.text !== 'string' || r.text.length > EXPORT_PART_MAX_CHARS)
      invalid(`text must be a string of at most ${EXPORT_PART_MAX_CHARS} characters (send a longer file in parts, with append)`)
    if (r.append !== undefined && typeof r.append !== 'boolean') invalid('append must be true or false')
    return { exportId: text(r.exportId, 'exportId', 64), path: text(r.path, 'path', 1024), text: r.text, append: r.append }
  },
  'outpost:export.copy-file': (request) => {
    const r = record(request, 'The request')
    return { exportId: text(r.exportId, 'exportId', 64), fileId: positiveInt(r.fileId, 'fileId'), name: text(r.name, 'name', LIMITS.fileName) }
  },
  'outpost:export.finish': (request) => {
    const r = record(request, 'The request')
    const counts = record(r.counts, 'counts')
    const entries = Object.entries(counts)
    if (entries.length > 50) invalid('counts must name at most 50 kinds')
    for (const [kind, n] of entries) {
      if (!/^[A-Za-z][A-Za-z0-9]{0,39}$/.test(kind)) invalid(`counts: "${kind}" is not a kind's name (letters and digits)`)
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) invalid(`counts.${kind} must be a whole number, 0 or more`)
    }
    if (r.notes !== undefined && (!Array.isArray(r.notes) || r.notes.length > 50)) invalid('notes must list at most 50 lines')
    const notes = (r.notes as unknown[] | undefined)?.map((n, i) => text(n, `notes[${i}]`, 2000))
    return { exportId: text(r.exportId, 'exportId', 64), counts: counts as Record<string, number>, notes }
  },
  'outpost:export.cancel': (request) => ({ exportId: text(record(request, 'The request').exportId, 'exportId', 64) }),
  'outpost:updates.get': nothing,
  'outpost:updates.check': nothing,
  'outpost:updates.restart': nothing,
  'outpost:problem-report.create': (request) => {
    const r = record(request, 'The request')
    if (!Array.isArray(r.dataProblems) || r.dataProblems.length > 200) invalid('dataProblems must list at most 200 problems')
    const dataProblems = r.dataProblems.map((p, i) => {
      const problem = record(p, `dataProblems[${i}]`)
      if (typeof problem.at !== 'number' || !Number.isFinite(problem.at)) invalid(`dataProblems[${i}].at must be a time in ms`)
      return {
        table: text(problem.table, `dataProblems[${i}].table`, 64),
        key: text(problem.key, `dataProblems[${i}].key`, 512),
        reason: text(problem.reason, `dataProblems[${i}].reason`, 1000),
        at: problem.at,
      }
    })
    let outbox
    if (r.outbox !== undefined) {
      const o = record(r.outbox, 'outbox')
      const count = (v: unknown, what: string) => {
        if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) invalid(`outbox.${what} must be a count`)
        return v
      }
      outbox = { pending: count(o.pending, 'pending'), failed: count(o.failed, 'failed'), conflicts: count(o.conflicts, 'conflicts') }
    }
    if (r.includeCrashDumps !== undefined && typeof r.includeCrashDumps !== 'boolean') invalid('includeCrashDumps must be true or false')
    return {
      dataProblems,
      ...(outbox && { outbox }),
      ...(r.userAgent !== undefined && { userAgent: text(r.userAgent, 'userAgent', 512) }),
      ...(r.includeCrashDumps === true && { includeCrashDumps: true }),
    }
  },
  'outpost:log.report': (request) => {
    const r = record(request, 'The request')
    if (r.level !== 'warning' && r.level !== 'error') invalid('level must be warning or error')
    return { level: r.level, message: text(r.message, 'message', 8000) }
  },
  'outpost:journal.append': (request) => {
    const r = record(request, 'The request')
    if (!Array.isArray(r.records) || r.records.length < 1 || r.records.length > 1000) invalid('records must list 1 to 1000 changes')
    if (JSON.stringify(r.records).length > JOURNAL_MAX_CHARS) invalid(`records must take at most ${JOURNAL_MAX_CHARS} characters as JSON`)
    return { accountId: text(r.accountId, 'accountId', 256), records: r.records.map((x, i) => journalRecord(x, `records[${i}]`)) }
  },
  'outpost:journal.sent': (request) => journalIdsRequest(request),
  'outpost:journal.unsent': (request) => journalIdsRequest(request),
  'outpost:journal.kept': (request) => journalIdsRequest(request),
  'outpost:journal.confirm': (request) => {
    const r = record(request, 'The request')
    let map: Record<string, JournalMapping> | undefined
    if (r.map !== undefined) {
      const m = record(r.map, 'map')
      if (Object.keys(m).length > 10_000) invalid('map must name at most 10000 local ids')
      map = {}
      for (const [localId, to] of Object.entries(m)) {
        if (!/^local:[A-Za-z0-9-]{1,100}$/.test(localId)) invalid(`map: "${localId.slice(0, 100)}" is not a local id`)
        const t = record(to, `map.${localId}`)
        if (!isParam(t.id)) invalid(`map.${localId}.id must be an id`)
        map[localId] = { kind: text(t.kind, `map.${localId}.kind`, 32), id: t.id }
      }
    }
    return { accountId: text(r.accountId, 'accountId', 256), ids: journalIds(r.ids), ...(map && { map }) }
  },
  'outpost:journal.read': (request) => ({ accountId: text(record(request, 'The request').accountId, 'accountId', 256) }),
}

export function checkRequest<C extends RequestChannel>(channel: C, request: unknown): RequestOf<C> {
  return CHECKS[channel](request)
}
