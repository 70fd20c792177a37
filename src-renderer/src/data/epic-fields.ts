// The cached epic's fields, written once. Their types are the v3 epic's (the TypeBox schemas of
// src-shared/api/v3/epics.ts, which the service validates with); the two tables below name the fields
// the cache keeps and give each the neutral value a draft (an epic created offline) has until the
// service answers. The cached epic (types.ts), the fields a v3 list carries to the window, what an
// update may change and the draft all follow from them.
//
// Tables rather than the schemas' keys at run time: the renderer does not bundle TypeBox.
import type { EpicSlimV3, UpdateEpicV3 } from '../../../src-shared/api/v3/epics.ts'

/** The v3 epic's fields as the cache types them. */
export type EpicValues = Omit<EpicSlimV3, 'description' | 'epic_state_id' | 'requested_by_id'> & {
  /** v3 lists leave it out unless asked: the cache keeps the last one it saw ('' before any). */
  description: string
  /** None yet: a draft, or a v4 epic without a state. */
  epic_state_id: number | null
  /** None: a v4 epic without a requester, or a draft made before the member was known. */
  requested_by_id: string | null
}

/** The fields the v3 update takes (label_ids go as its `labels`, by name). */
type Updatable = Extract<keyof EpicValues, keyof UpdateEpicV3 | 'label_ids'>

/** What an update may change, in the order conflicts list them. */
const EDITABLE = {
  name: '',
  description: '',
  epic_state_id: null,
  deadline: null,
  planned_start_date: null,
  owner_ids: [],
  follower_ids: [],
  group_ids: [],
  objective_ids: [],
  label_ids: [],
  requested_by_id: null,
  archived: false,
} satisfies Partial<Pick<EpicValues, Updatable>>

/** What an update leaves alone: what the service sets, and external_id (sent once, with the create). A draft goes last. */
const SET_BY_SERVICE = {
  started: false,
  completed: false,
  started_at: null,
  completed_at: null,
  external_id: null,
  position: Number.MAX_SAFE_INTEGER,
  app_url: '',
  created_at: '',
  updated_at: '',
} satisfies Partial<Omit<EpicValues, keyof typeof EDITABLE>>

export type EditableEpicField = keyof typeof EDITABLE
/** Every field of the cached epic but its id. */
export type EpicField = EditableEpicField | keyof typeof SET_BY_SERVICE

export const EDITABLE_EPIC_FIELDS = Object.keys(EDITABLE) as EditableEpicField[]
export const EPIC_FIELDS = [...EDITABLE_EPIC_FIELDS, ...Object.keys(SET_BY_SERVICE)] as EpicField[]

/** A draft's value of every field but the id (its lists fresh each time). */
export function epicDraft(): Pick<EpicValues, EpicField> {
  return structuredClone({ ...EDITABLE, ...SET_BY_SERVICE })
}
