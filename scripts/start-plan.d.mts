// Types of start-plan.mjs (plain JS: run with node, no build step).
export type Plan = { kind: 'electron'; path: string } | { kind: 'browser'; why: string }
export function electronBinary(): string | undefined
export function installElectron(options?: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<string | undefined>
export function plan(options?: { binary?: () => string | undefined; install?: () => Promise<string | undefined>; say?: (line: string) => void }): Promise<Plan>
