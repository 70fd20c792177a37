// A soak's figures as text: the verdict line first (`lost N, duplicated N,
// wrong N`), then what was exercised, then every finding.
import { MAX_ONLINE_WAIT_MS, type SoakReport } from './runner.ts'

/** True when the run found nothing lost, doubled, wrong, stuck in the outbox or refused, and no change sat while all was clear. */
export const clean = (r: SoakReport): boolean => r.lost + r.duplicated + r.wrong + r.stuck + r.refused === 0 && r.waits.longestAtHeadMs <= MAX_ONLINE_WAIT_MS

export function formatReport(r: SoakReport, options: { maxDetails?: number } = {}): string {
  const s = r.stats
  const max = options.maxDetails ?? 50
  const lines = [
    `lost ${r.lost}, duplicated ${r.duplicated}, wrong ${r.wrong}`,
    `stuck ${r.stuck}, refused ${r.refused}; cache disagrees on ${r.cache.details.length} of ${r.cache.checked}`,
    `longest wait online with nothing failing, once nothing queued before it was left: ${r.waits.longestAtHeadMs} ms (at most ${MAX_ONLINE_WAIT_MS} ms; ${r.waits.measured} changes measured)${r.waits.longestAtHead ? `: ${r.waits.longestAtHead}` : ''}${r.waits.longestAtHeadMs > MAX_ONLINE_WAIT_MS ? ' ✘' : ''}`,
    `longest wait online with nothing failing, from enqueue (a backlog before it included): ${r.waits.longestMs} ms${r.waits.longest ? `: ${r.waits.longest}` : ''}`,
    `seed ${r.seed}, ${r.ops} actions in ${(r.ms / 1000).toFixed(1)} s; ${s.requests} requests; ${s.skipped} picks skipped (not in the cache yet)`,
    `lives ${s.lives}: killed mid-bootstrap ${s.kills.midBootstrap}, mid-replay ${s.kills.midReplay}, mid-sync ${s.kills.midSync}, idle ${s.kills.idle}, between a commit and its confirmation ${s.kills.afterCommit}; store wiped ${s.wipes.count} times (${s.wipes.restored} open changes in the journal then)`,
    `storage full ${s.quota.spells} times: ${s.quota.refused} cache writes refused; ${s.quota.changesKept} changes of the user's kept in the journal (made once there was room), ${s.quota.changesRefused} refused (told, not made)`,
    `offline ${s.offline} times, faults changed ${s.faultChanges} times, 429 bursts ${s.rateLimitBursts} (${s.answers.rateLimited} answers 429, ${s.answers.failed} answers 5xx), replays ${s.replays}, syncs ${s.syncs}, opened ${s.refreshes}`,
    `someone else meanwhile: took the name of a label of ours ${s.labelNamesTaken} times, renamed an epic or doc we renamed ${s.renamedElsewhere} times (conflicts resolved: mine ${s.resolved.mine}, theirs ${s.resolved.theirs})`,
    `checked ${s.checked.entities} entities and ${s.checked.links} links`,
    `actions: ${Object.entries(s.actions)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  ]
  const findings = [...r.details, ...r.cache.details.map((d) => `cache: ${d}`)]
  for (const d of findings.slice(0, max)) lines.push(`  ${d}`)
  if (findings.length > max) lines.push(`  ... and ${findings.length - max} more`)
  return lines.join('\n')
}
