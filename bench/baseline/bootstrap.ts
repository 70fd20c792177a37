// Baseline of benchmark 1: a local copy of the whole workspace with the
// official client, the way its API makes obvious. The copy holds what
// Outpost's cache holds after its bootstrap: every epic (description, position,
// comments, health), every doc in markdown and HTML, files, linked files and
// the reference data.
//
// Lists the API serves whole come first, one request each, as Outpost does
// (v3 members, groups, categories, objectives, labels, custom fields, files,
// linked files; the epic workflow with its states; the v3 epic list with
// descriptions and positions). Docs: v4 pages at the largest size (100; the
// default is 10) with archived ones, through the client's `paginate`; each page
// carries both contents. v3 lists only slims and would cost two requests a doc.
//
// Comments and health, two ways:
// - `epicDetails`: one v3 GET /epics/{id} per epic, which answers the epic with
//   its whole comment threads (authors, times, replies) and its current health.
//   This is what the client's types lead to: v3 Epic carries `comments` and
//   `health`, the v3 list does not. One request an epic is the least any
//   per-epic way costs (the v4 comment and health lists are two).
// - `epicPages`: v4 epic pages of 100, whose epics embed their comments and
//   healths as slims (text, status, times; no authors) — the same as Outpost's
//   cache, which fetches the rest when an epic is opened. The developer who
//   noticed this gets the floor's request count without any sync engine.
import type { Epic, EpicSlim } from '@shortcut/client'
import type { Doc as DocV4, Epic as EpicV4 } from '@shortcut/client/v4'
import { eachAtMost, itemsOf, type Official } from './official.ts'

// The client's v4 types make every field optional (a `fields` query may leave
// any out); without `fields`, as here, every field is there.

export interface Mirror {
  reference: Record<string, unknown[]>
  /** By id: the v3 list's slim, then the full epic once its details came. */
  epics: Map<number, EpicSlim | Epic>
  /** v4 epics from the pages (the `epicPages` way). */
  epicPages: Map<number, EpicV4>
  docs: Map<string, DocV4>
}

const data = <T>(answer: Promise<{ data: T }>) => answer.then((a) => a.data)

/** The reference data: the lists the API serves whole, one request each (./incremental.ts lists them again every run). */
export async function fetchReference(official: Official): Promise<Mirror['reference']> {
  const { v3 } = official
  const [members, groups, categories, objectives, labels, customFields, files, linkedFiles, workflow] = await Promise.all([
    data(v3.listMembers()),
    data(v3.listGroups()),
    data(v3.listCategories()),
    data(v3.listObjectives()),
    data(v3.listLabels()),
    data(v3.listCustomFields()),
    data(v3.listFiles()),
    data(v3.listLinkedFiles()),
    data(v3.getEpicWorkflow()),
  ])
  return { members, groups, categories, objectives, labels, customFields, files, linkedFiles, epicStates: workflow.epic_states }
}

/** The reference data, the v3 epic list and the doc pages: what both ways share. */
export async function fetchLists(official: Official): Promise<Mirror> {
  const [reference, epics] = await Promise.all([fetchReference(official), data(official.v3.listEpics({ includes_description: true }))])
  const docs = await itemsOf(official, official.ws.listDocs({ limit: 100, filter: 'include_archived' }))
  return {
    reference,
    epics: new Map(epics.map((e) => [e.id, e])),
    epicPages: new Map(),
    docs: new Map(docs.map((d) => [d.id!, d])),
  }
}

/** Comments and health the per-epic way: one GET /epics/{id} each (v3). */
export async function fetchEpicDetails(official: Official, mirror: Mirror, ids: readonly number[]): Promise<void> {
  await eachAtMost(ids, async (id) => {
    mirror.epics.set(id, (await official.v3.getEpic(id)).data)
  })
}

/** Comments and health as the v4 epic pages embed them. */
export async function fetchEpicPages(official: Official, mirror: Mirror): Promise<void> {
  for (const epic of await itemsOf(official, official.ws.listEpics({ limit: 100, filter: 'include_archived' }))) {
    mirror.epicPages.set(epic.id!, epic)
  }
}
