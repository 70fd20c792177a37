// Baseline of benchmark 3: changes made offline, sent with the official client
// once the network is back, one call per change (the baseline): v4
// PATCH /epics/{id} per update, v4 POST /epics per create (with an external_id,
// which costs nothing and lets a careful developer look a create up), v3 POST
// /files per uploaded file. Six at a time; a 429 waits its Retry-After and goes
// again (./official.ts), which is safe: a refused request was not processed.
//
// The client also has bulkUpdateEpics and bulkCreateEpics; using them means
// building what Outpost's outbox is (grouping, ordering, answers mapped back to
// the queued changes, a refused bulk split up), so they are not the baseline.
import { readFile } from 'node:fs/promises'
import { eachAtMost, type Official } from './official.ts'

export interface QueuedChanges {
  updates: { id: number; fields: { name?: string; epic_state_id?: number } }[]
  creates: { name: string; externalId: string }[]
  uploads: { path: string; name: string }[]
}

export async function sendOneByOne(official: Official, changes: QueuedChanges): Promise<void> {
  const { v3, ws } = official
  await eachAtMost(changes.updates, (u) => ws.updateEpic(u.id, u.fields))
  await eachAtMost(changes.creates, (c) => ws.createEpic({ name: c.name, external_id: c.externalId }))
  await eachAtMost(changes.uploads, async (u) => v3.uploadFiles({ file0: new File([await readFile(u.path)], u.name) }))
}
