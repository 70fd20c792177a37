// Every resource of the service, in seeding order (what others refer to comes first).
import type { Resource } from '../resource.ts'
import { categoriesResource } from './categories/index.ts'
import { customFieldsResource } from './custom-fields/index.ts'
import { docsResource } from './docs/index.ts'
import { entityTemplatesResource } from './entity-templates/index.ts'
import { epicsResource } from './epics/index.ts'
import { filesResource } from './files/index.ts'
import { groupsResource } from './groups/index.ts'
import { labelsResource } from './labels/index.ts'
import { members } from './members/index.ts'
import { objectivesResource } from './objectives/index.ts'
import { storiesResource } from './stories/index.ts'
import { webhooksResource } from './webhooks/index.ts'

export const RESOURCES: Resource[] = [
  members,
  groupsResource,
  categoriesResource,
  objectivesResource,
  labelsResource,
  customFieldsResource,
  entityTemplatesResource,
  epicsResource,
  storiesResource,
  docsResource,
  filesResource,
  webhooksResource,
]
