import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { walkTree, walkTreeBatches, type WalkEntry } from '../../../companion/fsx/walk';

// walkTreeBatches hands the walk over in runs of entries; flattened, it must be walkTree's walk, entry for entry.
const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-walk-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
for (const dir of ['b', 'b/inner', 'b/inner/deep', 'd', 'skip']) mkdirSync(join(base, dir), { recursive: true });
for (const file of ['a.txt', 'b/x.txt', 'b/inner/y.txt', 'b/inner/deep/z.txt', 'c.txt', 'd/w.txt', 'skip/hidden.txt', 'e.txt']) writeFileSync(join(base, file), file);
symlinkSync(join(base, 'b'), join(base, 'link-to-b'));

const shape = (entries: WalkEntry[]) => entries.map((e) => `${e.depth} ${e.relative} ${e.path}`);

describe('walkTreeBatches', () => {
  for (const options of [
    {},
    { maxDepth: 1 },
    { maxDepth: 2 },
    { descend: (e: WalkEntry) => e.relative !== 'skip' },
    { include: (e: WalkEntry) => !e.relative.endsWith('.txt') },
    { readSync: true },
    { readSync: true, maxDepth: 2, descend: (e: WalkEntry) => e.relative !== 'skip' },
  ]) {
    it(`flattens to walkTree's entries in walkTree's order (${Object.keys(options).join(', ') || 'defaults'})`, async () => {
      const one: WalkEntry[] = [];
      for await (const entry of walkTree(base, options)) one.push(entry);
      const batches: WalkEntry[][] = [];
      for await (const batch of walkTreeBatches(base, options)) batches.push(batch);
      expect(shape(batches.flat())).toEqual(shape(one));
      expect(batches.every((batch) => batch.length > 0)).toBe(true);
    });
  }

  it('hands a one-level listing over as one batch, never entering a symlinked directory', async () => {
    const batches: WalkEntry[][] = [];
    for await (const batch of walkTreeBatches(base, { maxDepth: 1 })) batches.push(batch);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.map((e) => e.relative)).toEqual(['a.txt', 'b', 'c.txt', 'd', 'e.txt', 'link-to-b', 'skip']);
    const all: string[] = [];
    for await (const batch of walkTreeBatches(base)) all.push(...batch.map((e) => e.relative));
    expect(all.filter((r) => r.startsWith('link-to-b/'))).toEqual([]);
    // depth first, names sorted, each directory's entries right after it
    expect(all).toEqual([
      'a.txt', 'b', 'b/inner', 'b/inner/deep', 'b/inner/deep/z.txt', 'b/inner/y.txt', 'b/x.txt', 'c.txt', 'd', 'd/w.txt', 'e.txt', 'link-to-b', 'skip', 'skip/hidden.txt',
    ]);
  });

  it('reads the same tree with readSync as through the pool, and skips an unreadable or vanished directory either way', async () => {
    for (const start of [base, join(base, 'nope')]) {
      const pooled: WalkEntry[] = [];
      for await (const entry of walkTree(start)) pooled.push(entry);
      const direct: WalkEntry[] = [];
      for await (const entry of walkTree(start, { readSync: true })) direct.push(entry);
      expect(shape(direct)).toEqual(shape(pooled));
      expect(pooled.length).toBe(start === base ? 14 : 0);
    }
  });

  it('gives each entry the path path.join gives, from a start written with a trailing slash, "..", "." or relative', async () => {
    const up = join(base, 'b', '..');
    const starts = [base, `${base}/`, `${base}//b/../`, `${up}/d/..`, relative(process.cwd(), base), `./${relative(process.cwd(), base)}/`];
    for (const start of starts) {
      const entries: WalkEntry[] = [];
      for await (const entry of walkTree(start)) entries.push(entry);
      expect(entries.length).toBe(14);
      for (const entry of entries) expect(entry.path).toBe(join(start, entry.relative));
    }
    const fromRoot: WalkEntry[] = [];
    for await (const entry of walkTree('/', { maxDepth: 1 })) fromRoot.push(entry);
    expect(fromRoot.length).toBeGreaterThan(0);
    for (const entry of fromRoot) expect(entry.path).toBe(join('/', entry.relative));
  });
});
