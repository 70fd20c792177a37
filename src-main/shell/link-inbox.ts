// Deep links the OS handed to the app (at launch, from a second launch, or
// macOS's open-url), kept until the window takes them: one that comes before
// the page listens is not lost, and one the page hears of is opened once.
import { parseItemLink } from '../../src-shared/links.ts'

export class LinkInbox {
  private pending: string[] = []

  constructor(private readonly told: () => void) {}

  /** Keeps a link (anything else is ignored) and tells the window there is one to take. */
  push(url: string): boolean {
    if (!parseItemLink(url)) return false
    this.pending.push(url)
    this.told()
    return true
  }

  /** The links not taken yet, oldest first; each is taken once. */
  take(): string[] {
    const links = this.pending
    this.pending = []
    return links
  }
}
