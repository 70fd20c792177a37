// Deep links the OS handed to the app (at launch, from a second launch, or
// macOS's open-url), kept until a window has opened them: one that comes
// before the page listens is not lost, one the page hears of is opened once,
// and one taken by a window that goes away before opening it (a window closing
// or reloading as the link comes) is given back and told again.
import { parseItemLink } from '../../src-shared/links.ts'

/** How long a window that took a link has to say it opened it before the link is given back. */
export const LINK_LOAN_MS = 5_000

/** The links one window took at once, until it says it opened them or their time is up. */
interface Loan {
  urls: string[]
  timer: ReturnType<typeof setTimeout>
}

export class LinkInbox {
  private pending: string[] = []
  private lent: Loan[] = []

  constructor(
    private readonly told: () => void,
    private readonly loanMs = LINK_LOAN_MS,
  ) {}

  /** Keeps a link (anything else is ignored) and tells the window there is one to take. */
  push(url: string): boolean {
    if (!parseItemLink(url)) return false
    this.pending.push(url)
    this.told()
    return true
  }

  /**
   * The links not taken yet, oldest first; each is taken once. They are lent
   * to the window that took them: unless it says it opened them (`opened`)
   * within the loan's time, they are given back, first in line, and told again.
   */
  take(): string[] {
    const urls = this.pending
    this.pending = []
    if (urls.length > 0) {
      const loan: Loan = { urls: [...urls], timer: setTimeout(() => this.giveBack(loan), this.loanMs) }
      loan.timer.unref?.()
      this.lent.push(loan)
    }
    return urls
  }

  /** A window opened these links it took: they are done with. */
  opened(urls: readonly string[]): void {
    for (const url of urls) {
      const loan = this.lent.find((l) => l.urls.includes(url))
      if (!loan) continue
      loan.urls.splice(loan.urls.indexOf(url), 1)
      if (loan.urls.length === 0) this.end(loan)
    }
  }

  /** The app is closing: no link is given back any more. */
  close(): void {
    for (const loan of [...this.lent]) this.end(loan)
  }

  private end(loan: Loan): void {
    clearTimeout(loan.timer)
    this.lent.splice(this.lent.indexOf(loan), 1)
  }

  /** A loan's time is up: what was not opened goes back first in line, in order, and the windows are told. */
  private giveBack(loan: Loan): void {
    if (!this.lent.includes(loan)) return
    this.end(loan)
    this.pending = [...loan.urls, ...this.pending]
    this.told()
  }
}
