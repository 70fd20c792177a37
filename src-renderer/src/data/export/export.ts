// "Export workspace…": the cache, as the user sees it (local changes
// included), written to a folder through the main side, which owns the disk.
// One JSON file per kind, one Markdown file per epic and per doc, the bytes
// of the files whose content is cached (nothing is downloaded: an export
// works offline and shows what this computer has), then manifest.json with
// the counts. Each part crosses the bridge on its own (a long list in parts
// of about a megabyte), so the progress moves and no message is huge.
import type { ExportFinished } from '../../../../src-shared/ipc.ts'
import { BridgeError, type Bridge } from '../../lib/bridge.ts'
import type { OutpostDb } from '../db.ts'
import { outboxStatus } from '../outbox/index.ts'
import { isLocalId } from '../outbox/kinds.ts'
import { merged, readInPages } from '../overlay.ts'
import type { CachedComment, CachedDoc, CachedEpic, CachedFile, CachedHealth, EntityId } from '../types.ts'
import { docMarkdown, epicMarkdown, type Names } from './markdown.ts'

export interface ExportProgress {
  /** What is being written, in the user's words ("Epics", "Files"). */
  step: string
  done: number
  total: number
}

export interface ExportOptions {
  db: OutpostDb
  bridge: Pick<Bridge, 'call'>
  onProgress?: (progress: ExportProgress) => void
  /** Whether the first download of the workspace had finished (else the manifest says the export is partial). */
  bootstrapped?: boolean
  /** Text per write, in characters (tests make it small). */
  partChars?: number
  /** Cancels the export: the folder goes as after a failure, and the promise rejects with the signal's reason. */
  signal?: AbortSignal
}

const PART_CHARS = 1_000_000

/** A name part for a path: what no OS minds, one line, not too long (the main side makes it safe again). */
function pathName(text: string, max = 60): string {
  const cleaned = Array.from(text.replace(/\s+/g, ' ').trim(), (c) => (c.charCodeAt(0) < 0x20 || '<>:"/\\|?*'.includes(c) ? '_' : c))
  return (
    cleaned
      .slice(0, max)
      .join('')
      .replace(/^[.\s]+|[.\s]+$/g, '') || 'untitled'
  )
}

/** Names already used in a folder (case-folded: one file on macOS and Windows); a repeat gets a suffix. */
function uniqueIn(used: Set<string>, name: string, suffix: string): string {
  let candidate = name
  for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = `${name.replace(/\.md$/, '')} (${suffix}${n > 2 ? `-${n}` : ''}).md`
  used.add(candidate.toLowerCase())
  return candidate
}

/** Reads every kind at once (one snapshot for the whole export), as the screens show them. */
async function readCache(db: OutpostDb) {
  const [epics, comments, health, docs, docEpics, files, linkedFiles, categories, objectives, teams, members, epicStates, customFields, labels, stories] =
    await Promise.all([
      merged<CachedEpic>(db, 'epic'),
      merged<CachedComment>(db, 'comment'),
      merged<CachedHealth>(db, 'health'),
      merged(db, 'doc'),
      merged(db, 'docEpic'),
      merged<CachedFile>(db, 'file'),
      merged(db, 'linkedFile'),
      merged(db, 'category'),
      merged(db, 'objective'),
      merged(db, 'group'),
      merged(db, 'member'),
      merged(db, 'epicState'),
      merged(db, 'customField'),
      merged(db, 'label'),
      readInPages(db.stories),
    ])
  // Each epic's progress is kept in its row; the export keeps it in a file of its own, as it always has.
  const epicProgress = epics.flatMap((e) => (e.progress ? [{ id: e.id, ...e.progress }] : []))
  return {
    epics: epics.map(({ progress: _, ...epic }) => epic),
    comments,
    health,
    docs,
    docEpics,
    files,
    linkedFiles,
    categories,
    objectives,
    teams,
    members,
    epicStates,
    customFields,
    labels,
    stories,
    epicProgress,
  }
}

function byId<T extends { id: EntityId }>(rows: T[], name: (row: T) => string): Map<string, string> {
  return new Map(rows.map((r) => [String(r.id), name(r)]))
}

function groupByEpic<T extends { epic_id: EntityId }>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const r of rows) out.set(String(r.epic_id), [...(out.get(String(r.epic_id)) ?? []), r])
  return out
}

/**
 * Exports the workspace whose cache is `db` into a new folder (picked by the
 * user where the shell can ask). Null when the user cancelled the folder
 * dialog. A failure on the way removes the partial folder and is thrown.
 */
export async function exportWorkspace(options: ExportOptions): Promise<ExportFinished | null> {
  const { db, signal } = options
  const partChars = options.partChars ?? PART_CHARS
  const begun = await options.bridge.call('outpost:export.begin')
  if (!begun) return null
  const { exportId } = begun
  // Every step asks the main side something: a cancelled export stops at its next step.
  const bridge: Pick<Bridge, 'call'> = {
    call: ((...args: Parameters<Bridge['call']>) => {
      signal?.throwIfAborted()
      return options.bridge.call(...args)
    }) as Bridge['call'],
  }
  try {
    signal?.throwIfAborted()
    const cache = await readCache(db)
    const outbox = await outboxStatus(db)
    const lists: [file: string, step: string, rows: unknown[]][] = [
      ['epics.json', 'Epics', cache.epics],
      ['comments.json', 'Comments', cache.comments],
      ['health.json', 'Health updates', cache.health],
      ['docs.json', 'Docs', cache.docs],
      ['doc-epics.json', 'Doc links', cache.docEpics],
      ['files.json', 'Files', cache.files],
      ['linked-files.json', 'Linked files', cache.linkedFiles],
      ['categories.json', 'Categories', cache.categories],
      ['objectives.json', 'Objectives', cache.objectives],
      ['teams.json', 'Teams', cache.teams],
      ['members.json', 'Members', cache.members],
      ['epic-states.json', 'Epic states', cache.epicStates],
      ['custom-fields.json', 'Custom fields', cache.customFields],
      ['labels.json', 'Labels', cache.labels],
      ['stories.json', 'Stories', cache.stories],
      ['epic-progress.json', 'Epic progress', cache.epicProgress],
    ]
    const total = lists.length + cache.epics.length + cache.docs.length + cache.files.length + 1
    let done = 0
    const progress = (step: string) => options.onProgress?.({ step, done, total })
    const write = (path: string, text: string, append = false) => bridge.call('outpost:export.write', { exportId, path, text, append })

    for (const [file, step, rows] of lists) {
      progress(step)
      // One row a line or more, each pretty-printed; a long list goes in parts at row boundaries.
      let part = '[\n'
      let first = true
      let appended = false
      for (let i = 0; i < rows.length; i++) {
        part += `${first ? '' : ',\n'}${JSON.stringify(rows[i], null, 2).replace(/^/gm, '  ')}`
        first = false
        if (part.length >= partChars && i < rows.length - 1) {
          await write(file, part, appended)
          appended = true
          part = ''
        }
      }
      await write(file, `${part}${rows.length > 0 ? '\n' : ''}]\n`, appended)
      done++
    }

    const names: Names = {
      members: byId(cache.members as { id: EntityId; name: string }[], (m) => m.name),
      states: byId(cache.epicStates as { id: EntityId; name: string }[], (s) => s.name),
      teams: byId(cache.teams as { id: EntityId; name: string }[], (t) => t.name),
      objectives: byId(cache.objectives as { id: EntityId; name: string }[], (o) => o.name),
      labels: byId(cache.labels as { id: EntityId; name: string }[], (l) => l.name),
    }
    const comments = groupByEpic(cache.comments)
    const health = groupByEpic(cache.health)
    const epicNames = new Set<string>()
    for (const epic of cache.epics) {
      progress('Epics')
      const name = uniqueIn(epicNames, `${pathName(String(epic.id), 48)}-${pathName(epic.name)}.md`, 'epic')
      await write(`epics/${name}`, epicMarkdown(epic, comments.get(String(epic.id)) ?? [], health.get(String(epic.id)) ?? [], names))
      done++
    }
    const docNames = new Set<string>()
    for (const doc of cache.docs as CachedDoc[]) {
      progress('Docs')
      const name = uniqueIn(docNames, `${pathName(doc.title)}.md`, String(doc.id).slice(0, 8))
      await write(`docs/${name}`, docMarkdown(doc))
      done++
    }

    let filesIncluded = 0
    const waiting: string[] = []
    const refused: string[] = []
    for (const file of cache.files) {
      progress('Files')
      // A file still waiting to upload has no id on the service and nothing in the file cache yet.
      if (isLocalId(file.id)) waiting.push(file.name)
      else {
        try {
          if ((await bridge.call('outpost:export.copy-file', { exportId, fileId: Number(file.id), name: file.name })).included) filesIncluded++
        } catch (error) {
          // One file the main side refuses is left out and said so; the others still go (a full disk stops the export).
          if (!(error instanceof BridgeError && error.error.source === 'ipc' && error.error.kind === 'invalid-request')) throw error
          refused.push(`“${file.name}” (${error.message})`)
        }
      }
      done++
    }

    progress('Manifest')
    const slimComments = cache.comments.filter((c) => c.slim).length
    const slimHealth = cache.health.filter((h) => h.slim).length
    const unsent = outbox.pending + outbox.inFlight + outbox.failed + outbox.conflicts
    const notes = [
      options.bootstrapped === false ? 'The workspace had not finished downloading to this computer: the export holds only what had come.' : '',
      unsent > 0 ? `${unsent} change${unsent === 1 ? '' : 's'} made in Outpost had not reached the service yet: the export shows them as made.` : '',
      slimComments > 0
        ? `${slimComments} comment${slimComments === 1 ? '' : 's'}: the text only (author, thread and time come when the epic is opened in Outpost while online).`
        : '',
      slimHealth > 0
        ? `${slimHealth} health update${slimHealth === 1 ? '' : 's'}: the status and time only (the text and author come when the epic is opened in Outpost while online).`
        : '',
      waiting.length > 0 ? `${waiting.length} file${waiting.length === 1 ? '' : 's'} still waiting to upload, not included: ${waiting.join(', ')}.` : '',
      refused.length > 0 ? `${refused.length} file${refused.length === 1 ? '' : 's'} could not be written, not included: ${refused.join(', ')}` : '',
    ].filter(Boolean)
    const counts = {
      epics: cache.epics.length,
      comments: cache.comments.length,
      health: cache.health.length,
      docs: cache.docs.length,
      docEpics: cache.docEpics.length,
      files: cache.files.length,
      filesIncluded,
      linkedFiles: cache.linkedFiles.length,
      categories: cache.categories.length,
      objectives: cache.objectives.length,
      teams: cache.teams.length,
      members: cache.members.length,
      epicStates: cache.epicStates.length,
      customFields: cache.customFields.length,
      labels: cache.labels.length,
      stories: cache.stories.length,
    }
    const finished = await bridge.call('outpost:export.finish', { exportId, counts, notes })
    done++
    progress('Done')
    return finished
  } catch (error) {
    // A half export is no export: its folder goes (the main side made it, so nothing else is in it).
    await options.bridge.call('outpost:export.cancel', { exportId }).catch(() => undefined)
    throw error
  }
}
