// v4 Objective (spec part 1 §2.2 leaves its fields out; this follows the
// official v4 client: slim references, related collections as page<slim>).
import { Type, type Static } from 'typebox'
import { Enums, Nullable, PageOf, Slim } from '../common.ts'

export const ObjectiveV4 = Type.Object({
  entity_type: Type.Literal('objective'),
  app_url: Type.String(),
  archived: Type.Boolean(),
  categories: Type.Array(Slim),
  completed: Type.Boolean(),
  completed_at: Nullable(Type.String()),
  completed_at_override: Nullable(Type.String()),
  created_at: Type.String(),
  description: Type.String(),
  epics: PageOf(Slim),
  healths: PageOf(Slim),
  id: Type.Integer(),
  key_results: PageOf(Slim),
  name: Type.String(),
  owners: PageOf(Slim),
  position: Type.Integer(),
  started: Type.Boolean(),
  started_at: Nullable(Type.String()),
  started_at_override: Nullable(Type.String()),
  state: Type.Enum(Enums.objectiveState),
  teams: PageOf(Slim),
  updated_at: Type.String(),
  uri: Type.String(),
})
export type ObjectiveV4 = Static<typeof ObjectiveV4>

export const CATEGORY_OBJECTIVE_LIST = { orderBy: ['updated_at'], filter: ['exclude_archived', 'include_archived'] } as const
