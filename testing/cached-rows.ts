// Cached rows for tests: sound rows with every field, changed where a test cares.
import type { CachedEpic } from '../src-renderer/src/data/types.ts'

/** An epic as the cache holds it ("Epic <id>", active, no owners), with `fields` laid over it. */
export function cachedEpic(id: number, fields: Partial<CachedEpic> = {}): CachedEpic {
  return {
    id,
    name: `Epic ${id}`,
    description: '',
    archived: false,
    epic_state_id: 1,
    started: false,
    completed: false,
    started_at: null,
    completed_at: null,
    deadline: null,
    planned_start_date: null,
    owner_ids: [],
    follower_ids: [],
    group_ids: [],
    objective_ids: [],
    label_ids: [],
    requested_by_id: null,
    external_id: null,
    position: id,
    app_url: '',
    created_at: '2025-01-01T00:00:00Z',
    updated_at: '2025-02-01T00:00:00Z',
    ...fields,
  }
}
