// The stored entity (story) template: the v3 EntityTemplate with story_contents
// holding only the keys a template sets, as ids (labels, files and linked files
// are rendered from their records on read).
import type { ServiceContext } from '../../context.ts'
import type { FieldValueRef } from '../custom-fields/field.ts'
import type { StoryType } from '../stories/story.ts'

export interface TemplateTask {
  description: string
  complete: boolean
  owner_ids: string[]
  external_id: string | null
  position: number
}

export interface TemplateSubTask {
  name: string
  owner_ids: string[]
  workflow_state_id: number | null
  position: number
}

export interface StoryContentsRecord {
  name?: string
  description?: string
  story_type?: StoryType
  epic_id?: number
  estimate?: number
  deadline?: string
  external_links?: string[]
  file_ids?: number[]
  linked_file_ids?: number[]
  follower_ids?: string[]
  owner_ids?: string[]
  group_id?: string
  iteration_id?: number
  project_id?: number
  workflow_state_id?: number
  label_ids?: number[]
  custom_fields?: FieldValueRef[]
  tasks?: TemplateTask[]
  sub_tasks?: TemplateSubTask[]
}

export interface EntityTemplateRecord {
  id: string
  name: string
  author_id: string
  last_used_at: string
  story_contents: StoryContentsRecord
  created_at: string
  updated_at: string
}

export const templates = (ctx: ServiceContext) => ctx.col<EntityTemplateRecord>('entity_template')
