import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Figure } from '../../bench/figure';
import { figuresOf, mergeResults, readResults, writeReadmeTable, type Measured } from '../../bench/results-file';
import { formatTable } from '../../bench/run-table';

const dir = mkdtempSync(join(tmpdir(), 'cb-bench-results-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const on = (date: string, cpus: string): Measured => ({
  machine: { os: 'Linux x64', cpus, memory: '8.0 GiB' },
  versions: { node: 'v20.20.2', chromium: 'Chromium 150', rg: null },
  date,
});
const figure = (name: string, median: number): Figure => ({ name, unit: 'ms', median, p10: median, p90: median, runs: 5, budget: { max: 3, text: '< 3 ms' } });

describe('bench results file', () => {
  it('a run of some groups replaces those and keeps the others, each with where it was measured', () => {
    const file = join(dir, 'results.json');
    const first = mergeResults(readResults(file), on('2026-11-20T00:00:00Z', '2 × A'), new Map([['companion', [figure('companion: a', 1)]], ['search', [figure('search: s', 9)]]]));
    writeFileSync(file, JSON.stringify(first));
    const second = mergeResults(readResults(file), on('2026-11-25T00:00:00Z', '2 × B'), new Map([['companion', [figure('companion: a', 0.5), figure('companion: b', Number.NaN)]]]));
    writeFileSync(file, JSON.stringify(second));
    const back = readResults(file);
    expect(back.groups.search?.date).toBe('2026-11-20T00:00:00Z');
    expect(back.groups.companion?.machine.cpus).toBe('2 × B');
    const figures = figuresOf(back, ['companion', 'reference', 'search']);
    expect(figures.map((f) => [f.name, f.median])).toEqual([['companion: a', 0.5], ['companion: b', Number.NaN], ['search: s', 9]]);
  });

  it('a file in another shape counts as none instead of failing the run', () => {
    const file = join(dir, 'old.json');
    writeFileSync(file, JSON.stringify({ machine: {}, figures: [] }));
    expect(readResults(file)).toEqual({ groups: {} });
    writeFileSync(file, '{not json');
    expect(readResults(file)).toEqual({ groups: {} });
  });

  it('the README table between the markers is rewritten, the text around it kept; no markers, nothing written', () => {
    const readme = join(dir, 'README.md');
    const results = mergeResults({ groups: {} }, on('2026-11-25T10:00:00Z', '2 × C'), new Map([['scanner', [figure('scanner: first scan', 40)]]]));
    writeFileSync(readme, 'before\n<!-- bench-table:start (written by npm run bench from bench/results.json) -->\nold table\n<!-- bench-table:end -->\nafter\n');
    expect(writeReadmeTable(readme, results, ['companion', 'scanner'], formatTable)).toBeUndefined();
    const text = readFileSync(readme, 'utf8');
    expect(text.startsWith('before\n<!-- bench-table:start')).toBe(true);
    expect(text.endsWith('<!-- bench-table:end -->\nafter\n')).toBe(true);
    expect(text).not.toContain('old table');
    expect(text).toContain('- `scanner`: 2026-11-25 10:00 UTC on Linux x64; 2 × C; 8.0 GiB; node v20.20.2; Chromium 150');
    expect(text).toMatch(/\| scanner: first scan +\| 40 ms +\|/);
    writeFileSync(readme, 'no markers\n');
    expect(writeReadmeTable(readme, results, ['scanner'], formatTable)).toMatch(/has no bench-table markers/);
    expect(readFileSync(readme, 'utf8')).toBe('no markers\n');
  });

  it('a run that lacks a group the README table shows (a clone: git keeps no results.json) leaves the table as it was', () => {
    // the project's own README, whose table was measured on another machine
    const readme = join(dir, 'README-clone.md');
    copyFileSync(join(__dirname, '../../README.md'), readme);
    const before = readFileSync(readme, 'utf8');
    expect(before).toMatch(/^- `companion`: /m);
    expect(writeReadmeTable(readme, readResults(join(dir, 'absent.json')), ['companion', 'reference', 'search', 'scanner', 'mcp'], formatTable)).toMatch(
      /shows companion, .*which bench\/results\.json does not hold/,
    );
    const onlyScanner = mergeResults({ groups: {} }, on('2026-11-27T10:00:00Z', '2 × D'), new Map([['scanner', [figure('scanner: first scan', 40)]]]));
    expect(writeReadmeTable(readme, onlyScanner, ['companion', 'reference', 'search', 'scanner', 'mcp'], formatTable)).toMatch(/--only companion,reference,search,mcp/);
    expect(readFileSync(readme, 'utf8')).toBe(before);
  });
});
