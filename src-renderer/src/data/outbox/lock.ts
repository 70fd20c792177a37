// One replayer across windows: an exclusive Web Lock per workspace database.
// Where `navigator.locks` is missing (Node tests, benchmarks), a mutex in this
// process does the same for the engines it runs.

export interface ReplayLock {
  /** Runs `task` while holding the lock `name`, waiting for it if another holder has it. */
  run<T>(name: string, task: () => Promise<T>): Promise<T>
}

interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>
}

/** The browser's (and Electron renderer's) Web Locks, shared by every window of the app. */
export function webLock(locks: LockManagerLike): ReplayLock {
  return { run: (name, task) => locks.request(name, task) }
}

/** An exclusive lock within this process. */
export function processLock(): ReplayLock {
  const tails = new Map<string, Promise<unknown>>()
  return {
    run<T>(name: string, task: () => Promise<T>): Promise<T> {
      const before = tails.get(name) ?? Promise.resolve()
      const mine = before.catch(() => undefined).then(task)
      const tail = mine.catch(() => undefined)
      tails.set(name, tail)
      void tail.then(() => {
        if (tails.get(name) === tail) tails.delete(name)
      })
      return mine
    },
  }
}

const shared = processLock()

/** navigator.locks where there is one, else the process-wide mutex. */
export function defaultLock(): ReplayLock {
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks
  return locks ? webLock(locks) : shared
}
