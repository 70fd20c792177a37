// What a seeder is asked for, and the deterministic tools it seeds with.
import type { ServiceContext } from '../context.ts'
import { seededRandom } from '../faults.ts'

export interface SeedPlan {
  /** The small, believable demo workspace, or a large one of given sizes. */
  demo: boolean
  epics: number
  docs: number
  files: number
}

export const DEMO_PLAN: SeedPlan = { demo: true, epics: 36, docs: 14, files: 8 }

/** Deterministic randomness for seeding: same plan, same workspace. */
export class SeedRandom {
  readonly next: () => number

  constructor(seed: number) {
    this.next = seededRandom(seed)
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]
  }
  /** Up to n distinct items. */
  some<T>(items: readonly T[], n: number): T[] {
    const copy = [...items]
    const out: T[] = []
    while (out.length < n && copy.length > 0) out.push(copy.splice(Math.floor(this.next() * copy.length), 1)[0])
    return out
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => Math.floor(this.next() * 16).toString(16))
    hex[12] = '4'
    hex[16] = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)
    const h = hex.join('')
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  }
  /** An ISO timestamp between daysAgo days ago and now of the service clock. */
  pastDate(ctx: ServiceContext, daysAgo: number): string {
    return new Date(ctx.clock() - Math.floor(this.next() * daysAgo * 86_400_000)).toISOString()
  }
}

/** Passed to every resource's seeder, in the order of RESOURCES. */
export interface SeedContext {
  ctx: ServiceContext
  plan: SeedPlan
  random: SeedRandom
}
