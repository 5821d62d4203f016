/**
 * bench/results.json and the table in the top-level README made from it. A run of some groups (`--only`) replaces
 * those groups' figures and keeps the others', each group with the machine, versions and date it was measured on,
 * so the README's table is always the latest measurement of every group and says when and where each was taken.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { Figure } from './figure';

const figureSchema = z.object({
  name: z.string(),
  unit: z.string(),
  median: z.number().nullable(),
  p10: z.number().nullable(),
  p90: z.number().nullable(),
  runs: z.number(),
  budget: z.object({ max: z.number(), inclusive: z.boolean().optional(), atLeast: z.boolean().optional(), text: z.string() }).nullable(),
  note: z.string().optional(),
});

const measuredSchema = z.object({
  machine: z.object({ os: z.string(), cpus: z.string(), memory: z.string() }),
  versions: z.object({ node: z.string(), chromium: z.string().nullable(), rg: z.string().nullable() }),
  date: z.string(),
});
export type Measured = z.infer<typeof measuredSchema>;

const groupSchema = measuredSchema.extend({ figures: z.array(figureSchema) });
export const resultsSchema = z.object({ groups: z.record(z.string(), groupSchema) });
export type Results = z.infer<typeof resultsSchema>;

/** JSON has no NaN: a figure without samples is stored as null and read back as NaN. */
function stored(figure: Figure): z.infer<typeof figureSchema> {
  const n = (v: number) => (Number.isFinite(v) ? v : null);
  return { ...figure, median: n(figure.median), p10: n(figure.p10), p90: n(figure.p90) };
}

function loaded(figure: z.infer<typeof figureSchema>): Figure {
  const n = (v: number | null) => v ?? Number.NaN;
  return { ...figure, median: n(figure.median), p10: n(figure.p10), p90: n(figure.p90) };
}

/** The file's results; an older or unreadable file counts as none (the groups measured now are written anew). */
export function readResults(file: string): Results {
  if (!existsSync(file)) return { groups: {} };
  try {
    const parsed = resultsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : { groups: {} };
  } catch {
    return { groups: {} };
  }
}

export function mergeResults(previous: Results, measured: Measured, figuresByGroup: ReadonlyMap<string, readonly Figure[]>): Results {
  const groups = { ...previous.groups };
  for (const [group, figures] of figuresByGroup) groups[group] = { ...measured, figures: figures.map(stored) };
  return { groups };
}

export function figuresOf(results: Results, order: readonly string[]): Figure[] {
  return order.flatMap((group) => (results.groups[group]?.figures ?? []).map(loaded));
}

const START = '<!-- bench-table:start (written by npm run bench from bench/results.json) -->';
const END = '<!-- bench-table:end -->';

function where(measured: Measured, withChromium: boolean): string {
  const versions = [`node ${measured.versions.node}`, ...(withChromium && measured.versions.chromium ? [measured.versions.chromium] : [])];
  return `${measured.date.slice(0, 16).replace('T', ' ')} UTC on ${measured.machine.os}; ${measured.machine.cpus}; ${measured.machine.memory}; ${versions.join('; ')}`;
}

/**
 * Replaces the README's table (between the markers) with the latest figures of every group. Returns why nothing was
 * written, or undefined once it is: the README has no markers, or its table shows a group the results do not hold.
 * git keeps no results.json, so in a clone a run of one group, or `--readme`, would otherwise drop the rows of every
 * group measured elsewhere from the committed table.
 */
export function writeReadmeTable(readmeFile: string, results: Results, order: readonly string[], table: (figures: Figure[]) => string, resultsFile = 'bench/results.json'): string | undefined {
  const readme = readFileSync(readmeFile, 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) return `${readmeFile} has no bench-table markers`;
  const shown = [...readme.slice(start, end).matchAll(/^- `([^`]+)`: /gm)].map((match) => match[1]!);
  const lost = shown.filter((group) => !results.groups[group]);
  if (lost.length > 0) {
    return `the table in ${readmeFile} shows ${lost.join(', ')}, measured elsewhere, which ${resultsFile} does not hold (git keeps no results.json), so it is left as it was; measure ${lost.length > 1 ? 'them' : 'it'} here too (npm run bench -- --only ${lost.join(',')}) to write it`;
  }
  const measuredLines = order
    .filter((group) => results.groups[group])
    .map((group) => `- \`${group}\`: ${where(results.groups[group] as Measured, group === 'scanner')}`);
  const section = [
    START,
    '',
    'When and where each group was last measured (`npm run bench -- --only <group>` measures one again):',
    '',
    ...measuredLines,
    '',
    table(figuresOf(results, order)),
    '',
    END,
  ].join('\n');
  writeFileSync(readmeFile, readme.slice(0, start) + section + readme.slice(end + END.length));
  return undefined;
}
