// The outbox journal's file: what is appended is there after a reopen (a new
// process), confirmations trim it, compaction keeps only what is open (and the
// ids going up), a line a crash cut short is dropped, and accounts are apart.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { JournalRecord } from '../../src-shared/ipc.ts'
import { AccountJournal, journalPath, Journals } from './journal.ts'

const dirs: string[] = []
const journals: Array<AccountJournal | Journals> = []

afterEach(async () => {
  for (const j of journals.splice(0)) await j.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-journal-'))
  dirs.push(dir)
  return dir
}

function journalAt(path: string): AccountJournal {
  const j = new AccountJournal(path)
  journals.push(j)
  return j
}

const rename = (id: number, name: string): JournalRecord => ({ kind: 'epic', entityId: String(id), op: 'update', payload: { name }, base: { name: 'old' } })
const create = (localId: string, name: string): JournalRecord => ({
  kind: 'epic',
  entityId: localId,
  op: 'create',
  payload: { name },
  externalId: `outpost-${localId}`,
})

describe('the outbox journal', () => {
  it('keeps what was appended, in order with its ids, across a reopen; confirmed changes are gone', async () => {
    const path = join(folder(), 'journal', 'a.jsonl')
    const j = journalAt(path)
    const first = await j.append([rename(1, 'one'), rename(2, 'two')], 1000)
    const second = await j.append([create('local:x', 'three')], 2000)
    expect(first.ids).toEqual([1, 2])
    expect(second).toEqual({ epoch: first.epoch, ids: [3] })
    await j.sent([1, 3])
    // The request of entry 3 never left: as never sent.
    await j.unsent([3])
    // The cache could not take entry 3 (storage full): kept here only.
    await j.kept([3])
    await j.confirm([2], { 'local:y': { kind: 'epic', id: 9 } })
    await j.close()

    const again = journalAt(path)
    const state = await again.read()
    expect(state.epoch).toBe(first.epoch)
    expect(state.lastId).toBe(3)
    expect(state.entries).toEqual([
      { id: 1, at: 1000, record: rename(1, 'one'), sentAfter: 3 },
      { id: 3, at: 2000, record: create('local:x', 'three'), kept: true },
    ])
    expect(state.map).toEqual({ 'local:y': { kind: 'epic', id: 9 } })
    // Every line was on disk before the answer: the file holds them as JSON lines.
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines[0]).toMatchObject({ epoch: first.epoch })
    expect(lines.filter((l) => 'record' in l)).toHaveLength(3)
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })

  it('compacts when most lines are confirmed: only what is open stays, ids keep going up, mappings still named stay', async () => {
    const path = join(folder(), 'a.jsonl')
    const j = journalAt(path)
    const {
      ids: [named],
    } = await j.append([rename(5, 'names local:kept')], 1)
    await j.sent([named])
    await j.kept([named])
    await j.confirm([], { 'local:kept': { kind: 'label', id: 77 } })
    for (let i = 0; i < 200; i++) {
      const { ids } = await j.append([rename(100 + i, `n${i}`)], 2)
      await j.confirm(ids)
    }
    const lines = readFileSync(path, 'utf8').trim().split('\n')
    expect(lines.length).toBeLessThan(80)
    const { ids } = await j.append([rename(1, 'after')], 3)
    expect(ids).toEqual([202])
    await j.close()

    const state = await journalAt(path).read()
    expect(state.entries.map((e) => [e.id, e.sentAfter, e.kept])).toEqual([
      [1, 1, true],
      [202, undefined, undefined],
    ])
    expect(state.lastId).toBe(202)
    expect(state.map['local:kept']).toEqual({ kind: 'label', id: 77 })
  })

  it('drops a last line a crash cut short, and appends after it cleanly', async () => {
    const path = join(folder(), 'a.jsonl')
    const j = journalAt(path)
    const { epoch } = await j.append([rename(1, 'whole')], 1)
    await j.close()
    appendFileSync(path, '{"id":2,"at":2,"record":{"kind":"epic","entityId":"2","op":"upd')

    const again = journalAt(path)
    expect((await again.read()).entries.map((e) => e.id)).toEqual([1])
    expect(await again.append([rename(3, 'next')], 3)).toEqual({ epoch, ids: [2] })
    await again.close()
    const state = await journalAt(path).read()
    expect(state.entries.map((e) => e.record.payload.name)).toEqual(['whole', 'next'])
  })

  it('skips a line that is not JSON, and starts a journal of its own where the file lost its first line', async () => {
    const path = join(folder(), 'a.jsonl')
    writeFileSync(path, `not json\n${JSON.stringify({ id: 4, at: 1, record: rename(4, 'kept') })}\n`)
    const state = await journalAt(path).read()
    expect(state.entries.map((e) => e.id)).toEqual([4])
    expect(state.epoch).toMatch(/^[0-9a-f-]{36}$/)
    expect(state.lastId).toBe(4)
  })

  it('keeps each account apart, in a file named safely, and forgets a removed one', async () => {
    const dataDir = folder()
    const all = new Journals(dataDir)
    journals.push(all)
    await all.of('acct-1').append([rename(1, 'mine')], 1)
    await all.of('../acct 2').append([rename(2, 'theirs')], 1)
    expect((await all.of('acct-1').read()).entries.map((e) => e.record.payload.name)).toEqual(['mine'])
    expect((await all.of('../acct 2').read()).entries.map((e) => e.record.payload.name)).toEqual(['theirs'])
    expect(journalPath(dataDir, '../acct 2').startsWith(join(dataDir, 'journal'))).toBe(true)
    expect(readFileSync(journalPath(dataDir, '../acct 2'), 'utf8')).not.toContain('mine')

    await all.remove('acct-1')
    expect(() => statSync(journalPath(dataDir, 'acct-1'))).toThrow()
    expect((await all.of('acct-1').read()).entries).toEqual([])
  })
})
