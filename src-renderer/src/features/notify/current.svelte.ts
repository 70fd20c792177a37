// The open workspace's notifier (the shell makes one per workspace) and whether its list is shown.
import type { Notifier } from './notifier.svelte.ts'

export const notifications = $state<{ notifier: Notifier | undefined; open: boolean }>({ notifier: undefined, open: false })
