import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, DEFAULT_LIMITS, type World } from './world';

describe('fs.ls', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld();
    await world.write('README.md', '# hi\n');
    await world.write('src/a.ts', 'export {};\n');
    await world.write('src/lib/b.ts', 'b\n');
    await world.write('.hidden', '');
    await world.write('node_modules/pkg/index.js', 'x');
    await world.write('.git/config', '[core]');
    await fs.symlink('src', path.join(world.root, 'link'));
  });
  afterEach(() => world.cleanup());

  it('depth 1 lists the directory itself: names only, dirs with a slash, symlinks marked, nothing skipped', async () => {
    const out = await world.call('fs.ls', { path: world.root });
    expect(out.text.split('\n')).toEqual(['.git/  [denied by policy]', '.hidden', 'README.md', 'link -> src (symlink)', 'node_modules/', 'src/']);
    expect((out.data as { entries: unknown[] }).entries).toEqual([
      { name: '.git', type: 'denied' },
      { name: '.hidden', type: 'file' },
      { name: 'README.md', type: 'file' },
      { name: 'link', type: 'symlink', target: 'src' },
      { name: 'node_modules', type: 'dir' },
      { name: 'src', type: 'dir' },
    ]);
  });

  it('sizes: true adds each file\'s size in bytes, in the text and the entries; directories, links and denied entries unchanged', async () => {
    const out = await world.call('fs.ls', { path: world.root, sizes: true });
    expect(out.text.split('\n')).toEqual([
      '.git/  [denied by policy]',
      '.hidden  0 B',
      'README.md  5 B',
      'link -> src (symlink)',
      'node_modules/',
      'src/',
    ]);
    const entries = (out.data as { entries: Array<{ name: string; size?: number }> }).entries;
    expect(entries.filter((entry) => entry.size !== undefined)).toEqual([
      { name: '.hidden', type: 'file', size: 0 },
      { name: 'README.md', type: 'file', size: 5 },
    ]);
    const plain = await world.call('fs.ls', { path: world.root, sizes: false });
    expect(plain.text).not.toMatch(/\d B$/m);
  });

  it('depth descends into directories but never into a symlink or a denied directory', async () => {
    const out = await world.call('fs.ls', { path: world.root, depth: 3 });
    const lines = out.text.split('\n');
    expect(lines).toContain('src/lib/b.ts');
    expect(lines).toContain('node_modules/pkg/index.js');
    expect(lines.some((line) => line.startsWith('link/'))).toBe(false);
    expect(lines.some((line) => line.startsWith('.git/config'))).toBe(false);
    const sized = (await world.call('fs.ls', { path: world.root, depth: 3, sizes: true })).text.split('\n');
    expect(sized).toContain('src/lib/b.ts  2 B');
    expect(sized).toContain('node_modules/pkg/index.js  1 B');
    expect(sized.filter((line) => !line.endsWith(' B'))).toEqual(lines.filter((line) => !/\.(ts|js|md)$|^\.hidden$/.test(line)));
  });

  it('glob filters entries; "*.ts" matches at any depth', async () => {
    const out = await world.call('fs.ls', { path: world.root, depth: 5, glob: '*.ts' });
    expect(out.text.split('\n')).toEqual(['src/a.ts', 'src/lib/b.ts']);
    const sized = await world.call('fs.ls', { path: world.root, depth: 5, glob: '*.ts', sizes: true });
    expect(sized.text.split('\n')).toEqual(['src/a.ts  11 B', 'src/lib/b.ts  2 B']);
    const none = await world.call('fs.ls', { path: world.root, glob: '*.rs' });
    expect(none.text).toMatch(/no entries/);
  });

  it('caps the listing at limits.maxListEntries with a marker', async () => {
    await world.cleanup();
    world = await createWorld({ limits: { ...DEFAULT_LIMITS, maxListEntries: 3 } });
    for (let i = 0; i < 10; i++) await world.write(`f${i}.txt`, '');
    const out = await world.call('fs.ls', { path: world.root });
    expect(out.truncated).toBe(true);
    const lines = out.text.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(/more entries not listed \(limit 3, limits\.maxListEntries\)/);
  });

  it('a file path lists that file', async () => {
    const file = path.join(world.root, 'README.md');
    expect((await world.call('fs.ls', { path: file })).text).toBe(file);
    expect((await world.call('fs.ls', { path: file, sizes: true })).text).toBe(`${file}  5 B`);
  });

  it('errors: NOT_FOUND, relative INVALID_INPUT, depth 0 or sizes "yes" INVALID_INPUT, symlink out for list FORBIDDEN, sibling prefix FORBIDDEN', async () => {
    await world.fails('fs.ls', { path: path.join(world.root, 'nope') }, 'NOT_FOUND');
    await world.fails('fs.ls', { path: 'src' }, 'INVALID_INPUT');
    await world.fails('fs.ls', { path: world.root, depth: 0 }, 'INVALID_INPUT');
    await world.fails('fs.ls', { path: world.root, sizes: 'yes' }, 'INVALID_INPUT');
    await fs.symlink(world.outside, path.join(world.root, 'out'));
    await world.fails('fs.ls', { path: path.join(world.root, 'out') }, 'FORBIDDEN');
    await fs.mkdir(`${world.root}-evil`);
    await world.fails('fs.ls', { path: `${world.root}-evil` }, 'FORBIDDEN');
    await world.fails('fs.ls', { path: path.join(world.root, '.git') }, 'POLICY_BLOCKED');
  });
});
