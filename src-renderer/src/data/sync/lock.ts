// One syncer per database across windows. In a browser (the app's windows
// share an origin) that is the Web Locks API: a lock held by one window makes
// the others wait, and it is released when its holder's page goes away, so a
// crashed window never leaves it held. Node (tests, benchmarks) has no
// navigator.locks: an in-process mutex stands in, with the same semantics for
// every engine in the process.

/** Runs `run` while holding the lock called `name`; waits for it when another holder has it. */
export type LockFn = <T>(name: string, run: () => Promise<T>) => Promise<T>

interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>
}

const tails = new Map<string, Promise<unknown>>()

/** A mutex per name, for one process: holders run one after another, in the order they asked. */
export const processLock: LockFn = <T>(name: string, run: () => Promise<T>): Promise<T> => {
  const before = tails.get(name) ?? Promise.resolve()
  const mine = before.then(run, run)
  const tail = mine.then(
    () => undefined,
    () => undefined,
  )
  tails.set(name, tail)
  void tail.then(() => {
    if (tails.get(name) === tail) tails.delete(name)
  })
  return mine
}

/** navigator.locks where the platform has it, else the in-process mutex. */
export function platformLock(): LockFn {
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks
  if (!locks || typeof locks.request !== 'function') return processLock
  return <T>(name: string, run: () => Promise<T>) => locks.request<T>(name, () => run())
}

/** The name of a database's sync lock. */
export const syncLockName = (dbName: string): string => `outpost-sync:${dbName}`
