// Every resource of the service, in seeding order (what others refer to comes first).
import type { Resource } from '../app.ts'
import { categoriesResource } from './categories/index.ts'
import { members } from './members/index.ts'

export const RESOURCES: Resource[] = [members, categoriesResource]
