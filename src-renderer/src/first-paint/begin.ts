// The first paint: how a window shows the epic list it showed last before the
// app knows who is signed in. Three layers, each a fallback for the one before
// and each replaced by the next as it comes:
// - screen-copy.ts: a copy of the list's HTML, painted before the app's code
//   runs (main.ts), removed in the task that mounts the live screen;
// - saved-rows.ts: the list's first screen as data (localStorage), which the
//   live list shows until the cache answers;
// - early-cache.ts: the last workspace's cache opened, and its first screen
//   read, while the main side is still answering about accounts.
// All three are kept under the workspace's database name, never hold a token,
// and go with the workspace.
//
// Imported first by start.ts, so this runs before the rest of the app is
// evaluated (ES modules run in import order): the cache starts opening some
// 100 ms sooner.
import { openLastWorkspaceEarly } from './early-cache.ts'

openLastWorkspaceEarly()
