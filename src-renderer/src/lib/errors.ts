/** An error's words for a person: its message, or what was thrown, written out. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
