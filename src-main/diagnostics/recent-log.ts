// The main side's recent warnings and errors, and the ones the window reported
// (log.report), kept in memory for a problem report: a ring of the last few
// hundred, each line cut to a few kilobytes, so a loop of failures cannot grow it.
// Every token the main side has held is cut out of a line before the line is
// cut to length: a token cut in two would leave a part no later search finds.
import { withoutSecrets } from './secrets-out.ts'

export interface LogEntry {
  /** Epoch ms. */
  at: number
  level: 'info' | 'warning' | 'error'
  /** `main`: the main side; `window`: reported by the renderer. */
  from: 'main' | 'window'
  message: string
}

export const LOG_CAPACITY = 300
export const LOG_MESSAGE_MAX = 4000

export class RecentLog {
  private readonly entries: LogEntry[] = []
  private readonly secrets = new Set<string>()

  constructor(
    private readonly now: () => number = Date.now,
    private readonly capacity = LOG_CAPACITY,
  ) {}

  /** A secret (a token the main side read or stored) that no line may keep, whole or in part. */
  keepOut(secret: string): void {
    this.secrets.add(secret)
  }

  add(level: LogEntry['level'], message: string, from: LogEntry['from'] = 'main'): void {
    const clean = this.secrets.size > 0 ? withoutSecrets(message, [...this.secrets]) : message
    const text = clean.length > LOG_MESSAGE_MAX ? `${clean.slice(0, LOG_MESSAGE_MAX)}… (${clean.length - LOG_MESSAGE_MAX} more characters)` : clean
    this.entries.push({ at: this.now(), level, from, message: text })
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity)
  }

  info = (message: string): void => this.add('info', message)
  warn = (message: string): void => this.add('warning', message)
  error = (message: string): void => this.add('error', message)

  /** Oldest first. */
  list(): LogEntry[] {
    return this.entries.map((e) => ({ ...e }))
  }

  /**
   * Keeps what is written to the console's warn and error from now on as well (the
   * main side's and its libraries'), still writing it there. Returns the undo.
   */
  watchConsole(target: Pick<Console, 'warn' | 'error'> = console): () => void {
    const { warn, error } = target
    const text = (args: unknown[]) => args.map((a) => (a instanceof Error ? (a.stack ?? a.message) : typeof a === 'string' ? a : safeJson(a))).join(' ')
    target.warn = (...args: unknown[]) => {
      this.add('warning', text(args))
      warn.apply(target, args)
    }
    target.error = (...args: unknown[]) => {
      this.add('error', text(args))
      error.apply(target, args)
    }
    return () => {
      target.warn = warn
      target.error = error
    }
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
