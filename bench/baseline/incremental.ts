// Baseline of benchmark 2: keeping the copy of ./bootstrap.ts up to date with
// the official client.
//
// - Epics and docs: v4 lists ordered by updated_at, newest first, pages of 100,
//   read until an item no newer than the newest one of the last run (the
//   client's `paginate` stops fetching when the loop stops).
// - A changed epic is fetched again (v3 GET /epics/{id}): the copy holds its
//   whole comment threads and health, which the list does not carry.
// - Everything else (members, groups, categories, objectives, labels, custom
//   fields, epic states, files, linked files) is listed again on every run:
//   those lists have no "changed since" and the client offers no schedule.
// - Deletions are not looked for (that would be the v3 epic and doc lists too).
import type { Doc as DocV4, Epic as EpicV4, ShortcutV4Page } from '@shortcut/client/v4'
import { fetchReference, type Mirror } from './bootstrap.ts'
import { eachAtMost, itemsOf, type Official } from './official.ts'

/** The newest updated_at seen of epics and docs: where the next run stops. */
export interface Marks {
  epics: string
  docs: string
}

const newest = async <T extends { updated_at?: string }>(first: Promise<ShortcutV4Page<T>>) => (await first).entities[0]?.updated_at ?? ''

/** The marks as the service stands now (one small page each). */
export async function currentMarks(official: Official): Promise<Marks> {
  const { ws } = official
  const query = { limit: 1, order_by: 'updated_at', order_dir: 'desc', filter: 'include_archived', fields: 'updated_at' } as const
  return { epics: await newest<EpicV4>(ws.listEpics(query)), docs: await newest<DocV4>(ws.listDocs(query)) }
}

/** What changed after `mark`, newest first (the walk stops at the first item no newer). */
function changedSince<T extends { updated_at?: string }>(official: Official, first: Promise<ShortcutV4Page<T>>, mark: string): Promise<T[]> {
  return itemsOf(official, first, (item) => item.updated_at! > mark)
}

/** One incremental run: updates `mirror` in place and returns the new marks. */
export async function syncChanges(official: Official, mirror: Mirror, marks: Marks): Promise<{ marks: Marks; epics: number; docs: number }> {
  const { v3, ws } = official
  const newestFirst = { limit: 100, order_by: 'updated_at', order_dir: 'desc', filter: 'include_archived' } as const
  const [reference, epics, docs] = await Promise.all([
    fetchReference(official),
    changedSince<EpicV4>(official, ws.listEpics(newestFirst), marks.epics),
    changedSince<DocV4>(official, ws.listDocs(newestFirst), marks.docs),
  ])
  mirror.reference = reference
  for (const doc of docs) mirror.docs.set(doc.id!, doc)
  await eachAtMost(epics, async (epic) => {
    mirror.epics.set(epic.id!, (await v3.getEpic(epic.id!)).data)
  })
  return {
    marks: { epics: epics[0]?.updated_at ?? marks.epics, docs: docs[0]?.updated_at ?? marks.docs },
    epics: epics.length,
    docs: docs.length,
  }
}
