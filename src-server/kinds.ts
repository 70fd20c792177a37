// Every kind of stored resource, and the indexed columns it derives. Resource
// modules own their record shapes; this table only says how rows are keyed.
import type { CollectionOptions, Columns, StoredRecord } from './store.ts'

type AnyRecord = StoredRecord & Record<string, unknown>

interface KindSpec {
  label: string
  intId: boolean
  /** The field holding the display name (default `name`). */
  nameField?: string
  /** The field holding the owning entity's id, for byParent(). */
  parentField?: string
}

export const KINDS = {
  member: { label: 'Member', intId: false },
  group: { label: 'Team', intId: false },
  category: { label: 'Category', intId: true },
  objective: { label: 'Objective', intId: true },
  epic: { label: 'Epic', intId: true },
  epic_state: { label: 'Epic state', intId: true },
  epic_comment: { label: 'Comment', intId: true, parentField: 'epic_id', nameField: 'text' },
  epic_health: { label: 'Health', intId: false, parentField: 'epic_id', nameField: 'status' },
  doc: { label: 'Doc', intId: false, nameField: 'title' },
  collection: { label: 'Collection', intId: false },
  file: { label: 'File', intId: true },
  linked_file: { label: 'Linked file', intId: true },
  label: { label: 'Label', intId: true },
  custom_field: { label: 'Custom field', intId: false },
  entity_template: { label: 'Entity template', intId: false },
  story: { label: 'Story', intId: true, parentField: 'epic_id' },
  branch: { label: 'Branch', intId: true },
  pull_request: { label: 'Pull request', intId: true, nameField: 'title', parentField: 'branch_id' },
  repository: { label: 'Repository', intId: true },
  project: { label: 'Project', intId: true },
  iteration: { label: 'Iteration', intId: true },
  workflow: { label: 'Workflow', intId: true },
  workflow_state: { label: 'Workflow state', intId: true, parentField: 'workflow_id' },
  webhook: { label: 'Webhook integration', intId: true },
} as const satisfies Record<string, KindSpec>

export type Kind = keyof typeof KINDS

export function collectionOptions<T extends StoredRecord>(kind: Kind): CollectionOptions<T> {
  const spec: KindSpec = KINDS[kind]
  return {
    label: spec.label,
    intId: spec.intId,
    columns: (record: T): Columns => {
      const r = record as unknown as AnyRecord
      const name = r[spec.nameField ?? 'name']
      const parent = spec.parentField ? r[spec.parentField] : undefined
      return {
        name: typeof name === 'string' ? name : null,
        archived: r.archived === true,
        external_id: typeof r.external_id === 'string' ? r.external_id : null,
        parent: typeof parent === 'string' || typeof parent === 'number' ? parent : null,
        position: typeof r.position === 'number' ? r.position : null,
      }
    },
  }
}
