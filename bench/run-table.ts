import { withinBudget, type Figure } from './figure';

function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return '—';
  if (unit === '×') return `${value.toFixed(2)}×`;
  if (unit === 'req/s') return `${value.toFixed(0)} req/s`;
  return `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ${unit}`;
}

/** The printed table (and the README's): median, spread across runs, budget and verdict per figure. */
export function formatTable(figures: readonly Figure[]): string {
  const rows = figures.map((f) => {
    const within = withinBudget(f);
    return [
      f.name,
      formatValue(f.median, f.unit),
      `${formatValue(f.p10, f.unit)} – ${formatValue(f.p90, f.unit)}`,
      String(f.runs),
      f.budget?.text ?? '—',
      within === undefined ? '' : within ? 'within' : 'OVER',
    ];
  });
  const header = ['figure', 'median', 'spread (p10 – p90 of runs)', 'runs', 'budget', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
