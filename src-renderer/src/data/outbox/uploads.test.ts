// Queued uploads go four files a request (the service's file0 to file3), all
// or nothing. One the service refuses goes again file by file, so only the bad
// file fails; one whose answer is lost is looked up in one list (name, size and
// uploader, never one file for two records) before anything goes again.
import { rm } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { v3 } from '../../../../testing/service.ts'
import { mergedFile } from '../overlay.ts'
import { outboxRecords, outboxStatus } from './records.ts'
import { actionsFor, counting, offline, replayFast, startKit, tempFile, type Kit } from '../../../../testing/outbox-kit.ts'

let kit: Kit
afterEach(async () => kit.close())

/** Queues one upload per [name, content], offline. */
const queueUploads = async (files: [string, string][]): Promise<string[]> => {
  const act = actionsFor(kit.db, offline(kit.transport))
  const locals: string[] = []
  for (const [i, [name, content]] of files.entries()) locals.push(await act.uploadFile({ path: await tempFile(kit.folder, `${i}-${name}`, content), name }))
  return locals
}

const filesNamed = async (prefix: string): Promise<{ id: number; name: string; size: number }[]> =>
  ((await v3(kit.service, kit.service.tokens.admin).get('/files')).body as { id: number; name: string; size: number }[]).filter((f) =>
    f.name.startsWith(prefix),
  )

describe('uploads, four files a request', () => {
  it('sends N queued files in ceil(N/4) uploads, each file once', async () => {
    kit = await startKit({ seed: 'demo' })
    const { db } = kit
    const locals = await queueUploads(Array.from({ length: 6 }, (_, i) => [`batch-${i}.txt`, `content ${i} `.repeat(i + 1)]))

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 6, failed: 0, remaining: 0 })
    expect(t.counts.get('files.upload')).toBe(2)
    const onService = await filesNamed('batch-')
    expect(onService.map((f) => f.name).sort()).toEqual(['batch-0.txt', 'batch-1.txt', 'batch-2.txt', 'batch-3.txt', 'batch-4.txt', 'batch-5.txt'])
    for (const [i, local] of locals.entries()) {
      const file = await mergedFile(db, local)
      expect(file).toMatchObject({ name: `batch-${i}.txt`, size: `content ${i} `.length * (i + 1) })
      expect(onService.find((f) => f.name === `batch-${i}.txt`)?.id).toBe(file?.id)
    }
  })

  it('an answer lost after the upload committed: one list finds every file (two identical ones too) and nothing is sent again', async () => {
    kit = await startKit({ seed: 'demo' })
    const { db, service } = kit
    const locals = await queueUploads([
      ['lost-same.txt', 'twin'],
      ['lost-same.txt', 'twin'],
      ['lost-other.txt', 'other'],
      ['lost-last.txt', 'last'],
    ])
    service.setFaults({ dropAfterCommitRate: 1 })
    expect((await replayFast(db, kit.transport, { backoff: { attempts: 1 } })).stopped).toBe('offline')
    service.setFaults({ dropAfterCommitRate: 0 })
    expect((await outboxRecords(db)).map((r) => r.state)).toEqual(['in-flight', 'in-flight', 'in-flight', 'in-flight'])

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 4, remaining: 0 })
    expect(t.counts.get('files.upload')).toBeUndefined()
    expect(t.counts.get('files.list')).toBe(1)
    const onService = await filesNamed('lost-')
    expect(onService).toHaveLength(4)
    const ids = await Promise.all(locals.map(async (l) => (await mergedFile(db, l))?.id))
    // Each record adopted a different file: the twins are two files, not one twice.
    expect(new Set(ids).size).toBe(4)
    expect(ids.every((id) => onService.some((f) => f.id === id))).toBe(true)
  })

  it('a connection dropped before the service handled the upload: looked up, not found, sent once', async () => {
    kit = await startKit({ seed: 'demo' })
    const { db, service } = kit
    await queueUploads([
      ['dropped-0.txt', 'zero'],
      ['dropped-1.txt', 'one'],
    ])
    service.setFaults({ dropRate: 1 })
    await replayFast(db, kit.transport, { backoff: { attempts: 1 } })
    service.setFaults({ dropRate: 0 })
    expect(await filesNamed('dropped-')).toEqual([])

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 2, remaining: 0 })
    expect(t.counts.get('files.upload')).toBe(1)
    expect((await filesNamed('dropped-')).map((f) => f.name).sort()).toEqual(['dropped-0.txt', 'dropped-1.txt'])
  })

  it('a file the service refuses (413, too large) fails alone; the others of its upload land', async () => {
    kit = await startKit({ seed: 'demo', maxFileBytes: 1000 })
    const { db } = kit
    const locals = await queueUploads([
      ['fits-0.txt', 'small'],
      ['too-big.bin', 'x'.repeat(5000)],
      ['fits-1.txt', 'small too'],
    ])

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 2, failed: 1 })
    // The batch, then each file alone.
    expect(t.counts.get('files.upload')).toBe(4)
    expect((await filesNamed('fits-')).map((f) => f.name).sort()).toEqual(['fits-0.txt', 'fits-1.txt'])
    expect(await filesNamed('too-big')).toEqual([])
    const [failed] = await outboxRecords(db, ['failed'])
    expect(failed).toMatchObject({ entityId: locals[1], error: { status: 413 } })
    expect(failed.error?.message).toBeTruthy()
  })

  it('a staged file that vanished fails alone, saying so; the others of its upload land', async () => {
    kit = await startKit({ seed: 'demo' })
    const { db } = kit
    const locals = await queueUploads([
      ['kept-0.txt', 'kept'],
      ['vanished.txt', 'gone'],
      ['kept-1.txt', 'kept too'],
    ])
    const vanished = (await outboxRecords(db)).find((r) => r.entityId === locals[1])!
    await rm(vanished.staged!.path)

    expect(await replayFast(db, kit.transport)).toMatchObject({ confirmed: 2, failed: 1 })
    expect((await filesNamed('kept-')).map((f) => f.name).sort()).toEqual(['kept-0.txt', 'kept-1.txt'])
    const [failed] = await outboxRecords(db, ['failed'])
    expect(failed.entityId).toBe(locals[1])
    expect(failed.error?.message).toMatch(/drop it again/)
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, failed: 1 })
  })
})
