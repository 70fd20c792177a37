// Files and linked files: v3 routes, multipart uploads whose bytes live in
// SQLite beside their records, and the /media routes that serve those bytes.
import type { Resource } from '../../resource.ts'
import { mediaRoutes } from './media.ts'
import { seedFiles } from './seed.ts'
import { fileRoutesV3 } from './v3.ts'

export const filesResource: Resource = {
  seed: seedFiles,
  v3: fileRoutesV3,
  root: mediaRoutes,
}
