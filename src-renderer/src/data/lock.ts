// One holder at a time per lock name, across the app's windows: one syncer and
// one outbox replayer per database. In a browser (the app's windows share an
// origin) that is the Web Locks API: a lock held by one window makes the others
// wait, and it is released when its holder's page goes away, so a crashed
// window never leaves it held. Node (tests, benchmarks) has no navigator.locks:
// an in-process mutex stands in, with the same semantics for every engine in
// the process. The engines take the lock as an argument, so a test can pass
// its own.

/** Runs `run` while holding the lock called `name`; waits for it when another holder has it. */
export type LockFn = <T>(name: string, run: () => Promise<T>) => Promise<T>

interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>
}

/** The browser's (and Electron renderer's) Web Locks, shared by every window of the app. */
export function webLock(locks: LockManagerLike): LockFn {
  return <T>(name: string, run: () => Promise<T>) => locks.request<T>(name, () => run())
}

/** A new mutex per name, for one process: holders run one after another, in the order they asked. */
export function createProcessLock(): LockFn {
  const tails = new Map<string, Promise<unknown>>()
  return <T>(name: string, run: () => Promise<T>): Promise<T> => {
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
}

/** The process-wide mutex (what every engine of this process shares without navigator.locks). */
export const processLock: LockFn = createProcessLock()

/** navigator.locks where the platform has it, else the process-wide mutex. */
export function platformLock(): LockFn {
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks
  if (!locks || typeof locks.request !== 'function') return processLock
  return webLock(locks)
}

/** The name of a database's sync lock. */
export const syncLockName = (dbName: string): string => `outpost-sync:${dbName}`

/** The name of a database's outbox replay lock. */
export const outboxLockName = (dbName: string): string => `outpost-outbox:${dbName}`
