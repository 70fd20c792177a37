// A screen's code in a chunk of its own, loaded the first time it is needed
// and from then on shown at once. An `{#await import(...)}` block waits for the
// import's promise every time it renders, even for a chunk loaded long ago: the
// screen is blank for a moment at each opening, and a key pressed then (Escape
// as an epic opens) reaches nothing.
import type { Component } from 'svelte'

// Svelte's own bound for a component's props (an interface of props is no Record<string, unknown>).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export class LazyComponent<Props extends Record<string, any>> {
  /** The component, once loaded. */
  component = $state<Component<Props> | undefined>(undefined)
  /** Why it could not be loaded (the screen says so in its place). */
  error = $state<unknown>(undefined)
  private loading: Promise<void> | undefined

  constructor(private readonly importer: () => Promise<{ default: Component<Props> }>) {}

  /** Loads it, once; a load that failed is tried again the next time. Call it from an effect, not while rendering. */
  load = (): void => {
    if (this.component || this.loading) return
    this.error = undefined
    this.loading = this.importer().then(
      (module) => {
        this.component = module.default
      },
      (error: unknown) => {
        this.error = error
        this.loading = undefined
      },
    )
  }
}
