// The short chaos soak `npm test` runs: a few hundred random actions per seed
// through offline spells, injected faults, 429 bursts and kills (mid-bootstrap
// and mid-replay included), and the service ends with exactly what they
// intended. The long one is `npm run soak -- --seed S --ops 10000`.
import { describe, expect, it } from 'vitest'
import { formatReport, runSoak } from './index.ts'
import { MAX_ONLINE_WAIT_MS } from './runner.ts'

const OPS = 300

describe('the chaos soak', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: ${OPS} actions, nothing lost, doubled or wrong`, { timeout: 90_000 }, async () => {
      const report = await runSoak({ seed, ops: OPS })
      const text = formatReport(report)
      // It did what it says: kills at both points, offline spells, every kind of write.
      expect(report.stats.lives, text).toBeGreaterThan(1)
      expect(report.stats.kills.midBootstrap + report.stats.kills.midReplay, text).toBeGreaterThan(0)
      expect(Object.keys(report.stats.actions).length, text).toBeGreaterThanOrEqual(20)
      expect(report.stats.actions.createLabel, text).toBeGreaterThan(0)
      // Changes made while all was clear went at once (their waits were measured, and none sat).
      expect(report.waits.measured, text).toBeGreaterThan(0)
      expect(report.waits.longestAtHeadMs, text).toBeLessThanOrEqual(MAX_ONLINE_WAIT_MS)
      expect({ lost: report.lost, duplicated: report.duplicated, wrong: report.wrong, stuck: report.stuck, refused: report.refused }, text).toEqual({
        lost: 0,
        duplicated: 0,
        wrong: 0,
        stuck: 0,
        refused: 0,
      })
    })
  }
})
