// Everything the shell can do by name: the command palette lists these, the
// keyboard shortcuts and the menu's 'command' event run them. One table, so a
// shortcut shown in the palette is the one that works.
import type { AppCommand } from '../../../src-shared/ipc.ts'
import { router } from '../lib/router.svelte.ts'
import { FIND_EVENT } from '../features/find-field.ts'
import { EPIC_ACTION_EVENT, EPIC_ACTION_KEYS, type EpicAction } from '../features/epics/epic-actions.svelte.ts'
import type { IconName } from '../features/ui/icons.ts'
import { notices } from '../lib/notices.svelte.ts'
import { session } from './session.svelte.ts'
import { workspaceExport } from './export.svelte.ts'
import { ui } from '../lib/ui.svelte.ts'
import type { OpenWorkspace } from './workspace.svelte.ts'
import { messageOf } from '../lib/errors.ts'
import { reportProblem } from './problem-report.ts'
import { updates } from './updates.svelte.ts'
import { metered } from './metered.svelte.ts'

export interface Command {
  id: string
  title: string
  group: 'Go to' | 'Create' | 'Epic' | 'Workspace' | 'Sync' | 'Help'
  icon: IconName
  /** As written for shortcutKeys(): "Mod+K", "g e", "c". */
  shortcut?: string
  /** Extra words the palette matches on. */
  keywords?: string
  /** Hidden when false (no workspace open, read-only token...). */
  available?: (workspace: OpenWorkspace | undefined) => boolean
  run: (workspace: OpenWorkspace | undefined) => void | Promise<void>
}

const signedIn = (w: OpenWorkspace | undefined) => w !== undefined
const writable = (w: OpenWorkspace | undefined) => w !== undefined && w.canWrite

/** The screens open their "new" form on their `new` route (#/epics/new, #/docs/new). */
function startNew(kind: 'epic' | 'doc'): void {
  router.go(kind === 'epic' ? '#/epics/new' : '#/docs/new')
}

export const COMMANDS: Command[] = [
  { id: 'go-epics', title: 'Go to Epics', group: 'Go to', icon: 'epic', shortcut: 'g e', available: signedIn, run: () => router.go('#/epics') },
  { id: 'go-docs', title: 'Go to Docs', group: 'Go to', icon: 'doc', shortcut: 'g d', available: signedIn, run: () => router.go('#/docs') },
  {
    id: 'go-files',
    title: 'Go to Files',
    group: 'Go to',
    icon: 'file',
    shortcut: 'g f',
    keywords: 'uploads attachments',
    available: signedIn,
    run: () => router.go('#/files'),
  },
  {
    id: 'go-objectives',
    title: 'Go to Objectives',
    group: 'Go to',
    icon: 'target',
    shortcut: 'g o',
    keywords: 'browse milestones',
    available: signedIn,
    run: () => router.go('#/browse/objectives'),
  },
  {
    id: 'go-categories',
    title: 'Go to Categories',
    group: 'Go to',
    icon: 'folder',
    shortcut: 'g c',
    keywords: 'browse',
    available: signedIn,
    run: () => router.go('#/browse/categories'),
  },
  {
    id: 'go-teams',
    title: 'Go to Teams',
    group: 'Go to',
    icon: 'users',
    shortcut: 'g t',
    keywords: 'browse groups',
    available: signedIn,
    run: () => router.go('#/browse/teams'),
  },
  {
    id: 'go-settings',
    title: 'Workspaces and settings',
    group: 'Workspace',
    icon: 'settings',
    shortcut: 'g s',
    keywords: 'preferences accounts token keychain',
    available: signedIn,
    run: () => router.go('#/settings'),
  },

  { id: 'new-epic', title: 'New epic', group: 'Create', icon: 'plus', shortcut: 'c', keywords: 'create add', available: writable, run: () => startNew('epic') },
  {
    id: 'new-doc',
    title: 'New doc',
    group: 'Create',
    icon: 'plus',
    shortcut: 'Shift+C',
    keywords: 'create add write document',
    available: writable,
    run: () => startNew('doc'),
  },

  {
    id: 'sync-now',
    title: 'Sync now',
    group: 'Sync',
    icon: 'sync',
    keywords: 'refresh replay send pull',
    available: signedIn,
    run: async (w) => {
      if (!w) return
      notices.show(w.outbox.pending > 0 ? 'Sending your changes, then syncing…' : 'Syncing…')
      await w.syncNow().then(
        () => notices.show('Up to date', 'success'),
        () => undefined,
      )
    },
  },
  {
    id: 'metered',
    get title() {
      return metered.on ? 'Turn metered mode off' : 'Turn metered mode on'
    },
    group: 'Sync',
    icon: 'wifi',
    keywords: 'metered data hotspot mobile cellular roaming bandwidth slow link save',
    run: () => {
      metered.toggle()
      notices.show(metered.on ? 'Metered mode: Outpost sends your changes and fetches what you open, nothing else' : 'Metered mode off: Outpost syncs as usual')
    },
  },
  {
    id: 'toggle-pending',
    title: 'Show or hide pending changes',
    group: 'Sync',
    icon: 'inbox',
    shortcut: 'g p',
    keywords: 'outbox queue failed conflicts offline',
    available: signedIn,
    run: () => ui.togglePending(),
  },

  {
    id: 'export-workspace',
    title: 'Export workspace…',
    group: 'Workspace',
    icon: 'download',
    keywords: 'backup save folder markdown json archive',
    available: signedIn,
    run: (w) => {
      if (w) void workspaceExport.start(w, session.bridge)
    },
  },
  {
    id: 'add-workspace',
    title: 'Add a workspace…',
    group: 'Workspace',
    icon: 'plus',
    keywords: 'sign in account token',
    run: () => {
      session.adding = true
    },
  },
  {
    id: 'restart-to-update',
    title: 'Restart to update',
    group: 'Help',
    icon: 'download',
    keywords: 'update upgrade new version install',
    available: () => updates.ready,
    run: () => updates.restart().catch((e: unknown) => void notices.show(messageOf(e), 'error')),
  },
  {
    id: 'report-problem',
    title: 'Report a problem…',
    group: 'Help',
    icon: 'alert',
    keywords: 'bug crash feedback support logs diagnostics',
    run: (w) => void reportProblem(w),
  },
  { id: 'shortcuts', title: 'Keyboard shortcuts', group: 'Help', icon: 'command', shortcut: '?', keywords: 'keys help', run: () => ui.openPalette('?') },
]

/** An epic is open and may be changed: the epic's single-key actions apply to it. */
const onWritableEpic = (w: OpenWorkspace | undefined) =>
  writable(w) && router.route.section === 'epics' && router.route.id !== undefined && router.route.id !== 'new'

const EPIC_ICONS: Record<EpicAction, IconName> = { state: 'layers', owners: 'user', labels: 'tag', health: 'pulse', description: 'edit', archive: 'archive' }

// The open epic's actions (epic-actions.svelte.ts), with the keys that do them there.
COMMANDS.push(
  ...EPIC_ACTION_KEYS.map(({ action, key, title }) => ({
    id: `epic-${action}`,
    title,
    group: 'Epic' as const,
    icon: EPIC_ICONS[action],
    shortcut: key,
    keywords: 'epic',
    available: onWritableEpic,
    run: () => void window.dispatchEvent(new CustomEvent(EPIC_ACTION_EVENT, { detail: action })),
  })),
)

/** Switching to each other workspace, as palette commands. */
export function workspaceCommands(): Command[] {
  return session.accounts
    .filter((a) => a.id !== session.current?.id)
    .map((a) => ({
      id: `switch-${a.id}`,
      title: `Switch to ${a.workspaceName}`,
      group: 'Workspace' as const,
      icon: 'arrowRight' as const,
      keywords: `${a.workspaceSlug} ${a.baseUrl} ${a.memberName}`,
      run: async () => {
        await session.switchTo(a.id).catch((e: unknown) => {
          notices.show(messageOf(e), 'error')
        })
      },
    }))
}

export function commandById(id: string): Command | undefined {
  return COMMANDS.find((c) => c.id === id)
}

/** The menu's (and the OS shortcuts') commands, by the shell's command ids. */
export const APP_COMMANDS: Record<AppCommand, string> = {
  'open-palette': 'palette',
  find: 'find',
  'new-epic': 'new-epic',
  'new-doc': 'new-doc',
  'go-epics': 'go-epics',
  'go-docs': 'go-docs',
  'go-files': 'go-files',
  'go-outbox': 'toggle-pending',
  'open-settings': 'go-settings',
  'report-problem': 'report-problem',
}

/** Runs a command by id, if it is available now; the palette and find are the shell's own. */
export function runCommand(id: string, workspace: OpenWorkspace | undefined): void {
  if (id === 'palette') {
    ui.openPalette()
    return
  }
  if (id === 'find') {
    const event = new CustomEvent(FIND_EVENT, { cancelable: true })
    if (window.dispatchEvent(event)) ui.openPalette()
    return
  }
  const command = commandById(id)
  if (!command) return
  if (command.available && !command.available(workspace)) {
    if (command.available === writable && workspace && !workspace.canWrite)
      notices.show(workspace.access.reason ?? 'This workspace is read-only for you.', 'error')
    return
  }
  void command.run(workspace)
}
