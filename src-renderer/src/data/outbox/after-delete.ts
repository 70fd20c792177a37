// The cache after a delete the service confirmed: the row goes, and so does
// what the service removed with it (an epic's comments, health and doc links, a
// doc's links, a file's downloaded content); a comment with replies stays as a
// deleted placeholder; a deleted objective or category leaves the id lists that
// named it, in the cache and in queued writes. Runs inside replay's write.
import { rebuildOverlays } from '../overlay.ts'
import { recordProblem } from '../row-checks.ts'
import { removeFiles } from '../sync/cache.ts'
import type { OutpostDb } from '../db.ts'
import type { EntityId, OutboxRecord } from '../types.ts'
import { journalAgain, type OutboxJournal } from './journal.ts'
import { tableKey, tableOf, type WritableKind } from './kinds.ts'

/** What the cache work after a delete needs of the pass (replay.ts). */
export interface DeletingPass {
  readonly db: OutpostDb
  readonly journal?: OutboxJournal
  readonly clock: () => number
}

/**
 * A confirmed delete, and what the service removed with it. Queued writes journaled again go to `replaced`, the
 * write's list of entries to confirm once it committed. Answers the paths of downloaded content to discard.
 */
export async function removeServerRow(pass: DeletingPass, replaced: number[], kind: WritableKind, id: string): Promise<string[]> {
  const db = pass.db
  const key = tableKey(kind, id) as never
  switch (kind) {
    case 'file':
      return removeFiles(db, [key])
    case 'epic': {
      const epicId = Number(id)
      await db.epicComments.where('epic_id').equals(epicId).delete()
      await db.epicHealth.where('epic_id').equals(epicId).delete()
      await db.docEpics.where('epic_id').equals(epicId).delete()
      break
    }
    case 'doc':
      await db.docEpics.where('doc_id').equals(id).delete()
      break
    case 'comment': {
      // A comment with replies stays as a deleted placeholder holding them.
      if ((await db.epicComments.where('parent_id').equals(Number(id)).count()) > 0) {
        await db.epicComments.update(Number(id), { deleted: true, text: '' })
        return []
      }
      break
    }
    case 'objective': {
      // The service takes a deleted objective off its epics (and a deleted category off its objectives):
      // so does the cache, and so do the bases of queued writes, or they would look like someone else's change.
      const objectiveId = Number(id)
      await db.epics
        .where('objective_ids')
        .equals(objectiveId)
        .modify((e) => {
          e.objective_ids = e.objective_ids.filter((o) => o !== objectiveId)
        })
      await forgetInRecords(pass, replaced, 'epic', 'objective_ids', objectiveId)
      break
    }
    case 'category': {
      const categoryId = Number(id)
      await db.objectives
        .filter((o) => o.category_ids.includes(categoryId))
        .modify((o) => {
          o.category_ids = o.category_ids.filter((c) => c !== categoryId)
        })
      await forgetInRecords(pass, replaced, 'objective', 'category_ids', categoryId)
      break
    }
  }
  await tableOf(db, kind).delete(key)
  return []
}

/** A deleted entity's id leaves the id lists of queued writes (base and mine). */
async function forgetInRecords(pass: DeletingPass, replaced: number[], kind: WritableKind, field: string, id: EntityId): Promise<void> {
  const now = pass.clock()
  const touched: OutboxRecord[] = []
  for (const r of await pass.db.outbox.toArray()) {
    // In-flight ones too (one sent before a kill, waiting to be reconciled): their base and mine are read
    // again before they are compared or sent, and the service took the id out of what they wrote as well.
    if (r.kind !== kind || recordProblem(r)) continue
    let changed = false
    for (const side of [r.base, r.payload]) {
      const list = side[field]
      if (Array.isArray(list) && list.includes(id)) {
        side[field] = list.filter((v) => v !== id)
        changed = true
      }
    }
    if (!changed) continue
    // The journal keeps the change as it goes now (restored as it was, its base would meet the deletion as a conflict).
    replaced.push(...(await journalAgain(pass.db, pass.journal, r)))
    await pass.db.outbox.put(r)
    touched.push(r)
  }
  await rebuildOverlays(pass.db, touched, now)
}
