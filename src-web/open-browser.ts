// Opening the browser host's page in the default browser (`npm start` without
// the Electron binary). The browser is started through a command line, which
// every local user can read (`ps`, /proc), so it is handed a one-time address
// (a code the page trades for the launch secret once, within a minute), never
// the address with the secret.
import { spawn } from 'node:child_process'
import type { Host } from './host.ts'

/** The command that opens the host's page: $BROWSER when set (as xdg-open honours it), else the OS's opener; a new one-time address last. */
export function browserCommand(
  host: Pick<Host, 'oneTimeUrl'>,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): { command: string; args: string[] } {
  const url = host.oneTimeUrl()
  if (env.BROWSER) return { command: env.BROWSER, args: [url] }
  if (platform === 'darwin') return { command: 'open', args: [url] }
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] }
  return { command: 'xdg-open', args: [url] }
}

/** Starts the browser on the host's page, on its own; `say` tells the user when no browser could be started. */
export function openInBrowser(host: Pick<Host, 'oneTimeUrl'>, say: (line: string) => void): void {
  const { command, args } = browserCommand(host)
  const opener = spawn(command, args, { stdio: 'ignore', detached: true })
  opener.on('error', () => say(`No browser could be opened (${command}): open the address above yourself.`))
  opener.unref()
}
