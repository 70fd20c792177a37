// How every benchmark reports: a table for people and one JSON line per figure
// for tools. Benchmarks print figures; they never pass or fail on time.

export interface Figure {
  bench: string
  figure: string
  value: number
  unit: string
  /** What the figure is measured against (a goal, a baseline), if anything. */
  note?: string
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}

export function report(title: string, figures: Figure[]): void {
  const rows = figures.map((f) => [f.figure, formatValue(f.value), f.unit, f.note ?? ''])
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i].length), ['figure', 'value', 'unit', 'note'][i].length))
  const line = (cells: string[]) => cells.map((c, i) => (i === 1 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ')
  console.log(`\n${title}`)
  console.log(line(['figure', 'value', 'unit', 'note']))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const r of rows) console.log(line(r))
  for (const f of figures) console.log(JSON.stringify(f))
}

function formatValue(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(v < 10 ? 2 : 1)
}
