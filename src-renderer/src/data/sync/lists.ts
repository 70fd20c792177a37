// The kinds fetched as one whole list: where each comes from and which table
// it fills. A v3 list where one request returns everything (members, groups,
// categories, objectives, labels, custom fields, files, linked files); the
// epic states are a v4 list of a handful of states (one page of 100).
import type { Table } from 'dexie'
import type { OperationName, OperationQuery } from '../../../../src-shared/api/operations.ts'
import type { OutpostDb } from '../db.ts'
import type { EntityId } from '../types.ts'
import {
  categoryFromV3,
  customFieldFromV3,
  epicStateFromV4,
  fileFromV3,
  groupFromV3,
  labelFromV3,
  linkedFileFromV3,
  memberFromV3,
  objectiveFromV3,
} from '../convert.ts'
import type { FILE_KINDS, REFERENCE_KINDS } from './checkpoints.ts'

export type ListKind = (typeof REFERENCE_KINDS)[number] | (typeof FILE_KINDS)[number]

export interface ListSource {
  operation: OperationName
  query?: OperationQuery
  /** A v4 list (pages, cursor) rather than a v3 array. */
  paged?: boolean
  table: (db: OutpostDb) => Table<{ id: EntityId }, EntityId>
  convert: (item: never) => { id: EntityId }
}

const source = <T, R extends { id: EntityId }>(s: Omit<ListSource, 'convert'> & { convert: (item: T) => R }): ListSource => s as unknown as ListSource

export const LIST_SOURCES: Record<ListKind, ListSource> = {
  members: source({ operation: 'members.list', table: (db) => db.members as never, convert: memberFromV3 }),
  groups: source({ operation: 'groups.list', table: (db) => db.groups as never, convert: groupFromV3 }),
  epicStates: source({
    operation: 'epicWorkflow.states',
    query: { limit: 100, order_by: 'position' },
    paged: true,
    table: (db) => db.epicStates as never,
    convert: epicStateFromV4,
  }),
  categories: source({ operation: 'categories.v3List', table: (db) => db.categories as never, convert: categoryFromV3 }),
  objectives: source({ operation: 'objectives.list', table: (db) => db.objectives as never, convert: objectiveFromV3 }),
  labels: source({ operation: 'labels.list', table: (db) => db.labels as never, convert: labelFromV3 }),
  customFields: source({ operation: 'customFields.list', table: (db) => db.customFields as never, convert: customFieldFromV3 }),
  files: source({ operation: 'files.list', table: (db) => db.files as never, convert: fileFromV3 }),
  linkedFiles: source({ operation: 'linkedFiles.list', table: (db) => db.linkedFiles as never, convert: linkedFileFromV3 }),
}
