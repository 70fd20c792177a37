// v4 Objective as the category-objectives list returns it (part 2 §4.2; the
// spec leaves the v4 Objective's fields out): the published ObjectiveSlim.
import { Type, type Static } from 'typebox'

export const ObjectiveSlimV4 = Type.Object({
  entity_type: Type.Literal('objective:slim'),
  app_url: Type.String(),
  id: Type.Integer(),
  name: Type.String(),
  uri: Type.String(),
})
export type ObjectiveSlimV4 = Static<typeof ObjectiveSlimV4>

export const CATEGORY_OBJECTIVE_LIST = { orderBy: ['updated_at'], filter: ['exclude_archived', 'include_archived'] } as const
