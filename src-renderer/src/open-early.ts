// Imported first by start.ts, so this runs before the rest of the app is
// evaluated (ES modules run in import order): the cache starts opening some
// 100 ms sooner. See data/early-open.ts.
import { openLastWorkspaceEarly } from './data/early-open.ts'

openLastWorkspaceEarly()
