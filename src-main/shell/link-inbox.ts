// Deep links the OS handed to the app (at launch, from a second launch, or
// macOS's open-url), kept until a window has opened them: one that comes
// before the page listens is not lost, one the page hears of is opened once,
// and one taken by a page that goes away before it says it opened it (a
// window closing or reloading as the link comes) is given back at once and
// told again.
//
// A taken link is lent to the page that took it, by name (dispatch.ts `from`:
// the window's webContents, the browser host's socket). The page says it
// opened it (`opened`), and the link is done with; the page goes (`release`:
// the window closed or reloaded, the socket closed), and what it had not
// opened goes back first in line. A loan whose page never says either (a page
// hung, or a taker that names no page) is given back after LINK_LOAN_MS.
import { parseItemLink } from '../../src-shared/links.ts'

/** How long a link lent to a page that neither opens it nor goes away stays lent (ms). */
export const LINK_LOAN_MS = 30_000

/** The links one page took at once, until it says it opened them, goes, or their time is up. */
interface Loan {
  page: string | undefined
  urls: string[]
  timer: ReturnType<typeof setTimeout>
}

export class LinkInbox {
  private pending: string[] = []
  private loans: Loan[] = []

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
   * The links not taken yet, oldest first; each is taken once. They are lent to the page that took them until it
   * says it opened them (`opened`); should it go first (`release`), they are given back, first in line, and told again.
   */
  take(page?: string): string[] {
    const urls = this.pending
    this.pending = []
    if (urls.length > 0) {
      const loan: Loan = { page, urls: [...urls], timer: setTimeout(() => this.giveBack(loan), this.loanMs) }
      loan.timer.unref?.()
      this.loans.push(loan)
    }
    return urls
  }

  /** A window opened these links it took: they are done with. */
  opened(urls: readonly string[]): void {
    for (const url of urls) {
      const loan = this.loans.find((l) => l.urls.includes(url))
      if (!loan) continue
      loan.urls.splice(loan.urls.indexOf(url), 1)
      if (loan.urls.length === 0) this.end(loan)
    }
  }

  /** The page went (its window closed or reloaded, its socket closed): what it took and did not open goes back now. */
  release(page: string): void {
    this.giveBack(...this.loans.filter((l) => l.page === page))
  }

  /** The links lent to pages that have not said they opened them yet. */
  lent(): string[] {
    return this.loans.flatMap((loan) => loan.urls)
  }

  /** The app is closing: no link is given back any more. */
  close(): void {
    for (const loan of [...this.loans]) this.end(loan)
  }

  private end(loan: Loan): void {
    clearTimeout(loan.timer)
    this.loans.splice(this.loans.indexOf(loan), 1)
  }

  /** Loans whose page went, or whose time is up: what was not opened goes back first in line, in order, and the windows are told. */
  private giveBack(...loans: Loan[]): void {
    const back = loans.filter((loan) => this.loans.includes(loan))
    if (back.length === 0) return
    for (const loan of back) this.end(loan)
    this.pending = [...back.flatMap((loan) => loan.urls), ...this.pending]
    this.told()
  }
}
