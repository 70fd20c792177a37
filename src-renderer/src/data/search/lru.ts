// A map that keeps its most recently used entries up to a total weight (a
// count of entries by default): the least recently used go first, never the
// one just kept, however much it weighs.
export class Lru<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number }>()
  #weight = 0

  constructor(
    private readonly most: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  /** The value kept for `key`, now the most recently used; undefined when none is. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    return entry.value
  }

  /** Keeps `value` for `key` as the most recently used, and lets the least recently used go while the total weighs too much. */
  set(key: K, value: V): void {
    const old = this.#entries.get(key)
    if (old) {
      this.#entries.delete(key)
      this.#weight -= old.weight
    }
    const weight = this.weigh(value)
    this.#entries.set(key, { value, weight })
    this.#weight += weight
    for (const [oldest, entry] of this.#entries) {
      if (this.#weight <= this.most || oldest === key) break
      this.#entries.delete(oldest)
      this.#weight -= entry.weight
    }
  }

  clear(): void {
    this.#entries.clear()
    this.#weight = 0
  }
}
