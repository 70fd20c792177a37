// Epics: v3 and v4 epics with threaded comments, health history and the epic
// workflow (whose states every workspace gets when it is created).
import type { Resource } from '../../resource.ts'
import { seedEpics } from './seed.ts'
import { epicsV3 } from './v3.ts'
import { epicsV4 } from './v4.ts'
import { initEpicWorkflow } from './workflow.ts'

export const epicsResource: Resource = {
  init: initEpicWorkflow,
  seed: seedEpics,
  v3: epicsV3,
  v4: epicsV4,
}
