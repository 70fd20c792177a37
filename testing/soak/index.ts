// The chaos soak: a seeded scenario runner over the data layer, the real
// gateway and the local service (see runner.ts).
export { runSoak, DEFAULT_PACE } from './runner.ts'
export type { SoakOptions, SoakReport, SoakStats } from './runner.ts'
export { clean, formatReport } from './report.ts'
