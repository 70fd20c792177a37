// Giving the event loop a turn between pieces of long work, so input,
// rendering and other tasks run in between (search slices, list updates,
// bootstrap conversions).

/**
 * How eagerly the next piece runs. 'background' (building the search index
 * when a window opens) runs only when nothing else is waiting; 'user-visible'
 * takes its turn with the page's other tasks.
 */
export type SlicePriority = 'background' | 'user-visible'

interface Scheduler {
  postTask?: (task: () => void, options: { priority: SlicePriority }) => Promise<void>
}

/**
 * Gives the event loop a turn: a task of that priority in Chromium
 * (scheduler.postTask; scheduler.yield would put the continuation ahead of
 * every other task instead), setImmediate in Node, a timer elsewhere.
 */
export function yieldToEventLoop(priority: SlicePriority = 'user-visible'): Promise<void> {
  const scheduler = (globalThis as { scheduler?: Scheduler }).scheduler
  if (typeof scheduler?.postTask === 'function') return scheduler.postTask(() => undefined, { priority })
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve))
  return new Promise((resolve) => setTimeout(resolve, 0))
}
