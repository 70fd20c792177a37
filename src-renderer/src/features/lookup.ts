// Lookups the screens build from cached lists (plain functions: the maps are
// rebuilt, never mutated, so they need no reactive collection).
import type { OutboxRecord } from '../data/types.ts'

export function byId<T extends { id: string | number }>(list: readonly T[] | undefined): ReadonlyMap<string, T> {
  return new Map((list ?? []).map((item) => [String(item.id), item]))
}

export type WriteState = 'pending' | 'failed' | 'conflict'

const RANK: Record<WriteState, number> = { pending: 1, failed: 2, conflict: 3 }

/** The worst state of each entity's queued writes, by `${kind}:${entityId}`. */
export function writeStatesOf(records: readonly OutboxRecord[] | undefined): ReadonlyMap<string, WriteState> {
  const out = new Map<string, WriteState>()
  for (const r of records ?? []) {
    const key = `${r.kind}:${r.entityId}`
    const state: WriteState = r.state === 'in-flight' ? 'pending' : r.state
    const had = out.get(key)
    if (!had || RANK[state] > RANK[had]) out.set(key, state)
  }
  return out
}

/** The local search's results as scores by id. */
export function scoresOf(results: readonly { id: string | number; score: number }[]): ReadonlyMap<string, number> {
  return new Map(results.map((r) => [String(r.id), r.score]))
}

/** A set of ids as strings. */
export function idSet(ids: readonly (string | number)[] | undefined): ReadonlySet<string> {
  return new Set((ids ?? []).map(String))
}
