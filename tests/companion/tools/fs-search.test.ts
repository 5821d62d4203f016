import { spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { searchFiles, type SearchQuery } from '../../../companion/fsx/search';
import { createFileFilter } from '../../../companion/fsx/search/file-filter';
import { linesHoldingLiterals } from '../../../companion/fsx/search/literal-lines';
import { deniedBy } from '../../../companion/policy/path-guard';
import { setSearchBackend } from '../../../companion/tools';
import { createWorld, DEFAULT_LIMITS, type World } from './world';

async function buildTree(world: World): Promise<void> {
  await world.write('src/app.ts', 'import x from "y";\nconst needle = 1;\n// needle again\n');
  await world.write('src/deep/er/util.ts', 'export const NEEDLE = 2;\nfunction needle() {}\n');
  await world.write('src/view.tsx', 'export const v = "needle";\n');
  await world.write('docs/readme.md', 'A needle in the docs.\nNo match here.\n');
  await world.write('docs/big.md', `${'padding\n'.repeat(200)}needle at the end\n`);
  await world.write('.hidden/conf.ts', 'needle hidden but not skipped\n');
  await world.write('.git/objects/x.ts', 'needle in git\n');
  await world.write('node_modules/pkg/index.ts', 'needle in node_modules\n');
  await world.write('sub/node_modules/inner.ts', 'needle in nested node_modules\n');
  await world.write('.env', 'needle=secret\n');
  await world.write('keys/server.pem', 'needle key\n');
  await world.write('bin/blob.bin', Buffer.concat([Buffer.from('needle\n'), Buffer.from([0, 1, 2, 3])]));
  await world.write('crlf.txt', 'first\r\nsecond needle\r\n');
  await world.write('unicode.txt', 'héllo wörld needle ünïcode\n');
  await fs.writeFile(path.join(world.outside, 'leak.ts'), 'needle outside\n');
  await fs.symlink(world.outside, path.join(world.root, 'out-link'));
  await fs.symlink(path.join(world.outside, 'leak.ts'), path.join(world.root, 'leak-link.ts'));
  const old = new Date('2020-01-01T00:00:00Z');
  await fs.utimes(path.join(world.root, 'docs/readme.md'), old, old);
}

describe.each(['ripgrep', 'js'] as const)('fs.search (%s backend)', (backend) => {
  let world: World;
  beforeEach(async () => {
    setSearchBackend(backend);
    world = await createWorld();
    await buildTree(world);
  });
  afterEach(() => world.cleanup());
  afterAll(() => setSearchBackend(undefined));

  const hitsOf = async (args: Record<string, unknown>) => {
    const out = await world.call('fs.search', { path: world.root, ...args });
    expect((out.data as { backend: string }).backend).toBe(backend);
    return out;
  };

  it('plain text: one `path:line:col: text` line per matching line; skips .git, node_modules, binaries, deny globs and symlinks', async () => {
    const out = await hitsOf({ query: 'needle' });
    const r = world.root;
    expect(out.text.split('\n')).toEqual([
      `${r}/.hidden/conf.ts:1:1: needle hidden but not skipped`,
      `${r}/crlf.txt:2:8: second needle`,
      `${r}/docs/big.md:201:1: needle at the end`,
      `${r}/docs/readme.md:1:3: A needle in the docs.`,
      `${r}/src/app.ts:2:7: const needle = 1;`,
      `${r}/src/app.ts:3:4: // needle again`,
      `${r}/src/deep/er/util.ts:2:10: function needle() {}`,
      `${r}/src/view.tsx:1:19: export const v = "needle";`,
      `${r}/unicode.txt:1:13: héllo wörld needle ünïcode`,
    ]);
  });

  it('regex', async () => {
    const out = await hitsOf({ query: 'NEEDLE|needle\\(\\)', regex: true, glob: '**/util.ts' });
    expect(out.text.split('\n')).toEqual([
      `${world.root}/src/deep/er/util.ts:1:14: export const NEEDLE = 2;`,
      `${world.root}/src/deep/er/util.ts:2:10: function needle() {}`,
    ]);
  });

  it('glob "*.ts" matches at any depth; extensions filter', async () => {
    const byGlob = await hitsOf({ query: 'needle', glob: '*.ts' });
    expect((byGlob.data as { hits: Array<{ path: string }> }).hits.map((h) => path.relative(world.root, h.path))).toEqual([
      '.hidden/conf.ts',
      'src/app.ts',
      'src/app.ts',
      'src/deep/er/util.ts',
    ]);
    const byExt = await hitsOf({ query: 'needle', extensions: ['tsx', 'md'] });
    expect((byExt.data as { hits: Array<{ path: string }> }).hits.map((h) => path.relative(world.root, h.path))).toEqual([
      'docs/big.md',
      'docs/readme.md',
      'src/view.tsx',
    ]);
  });

  it('size and mtime filters', async () => {
    const small = await hitsOf({ query: 'needle', maxBytes: 40 });
    expect(small.text).not.toContain('big.md');
    expect(small.text).toContain('view.tsx');
    const large = await hitsOf({ query: 'needle', minBytes: 1000 });
    expect(large.text.split('\n')).toEqual([`${world.root}/docs/big.md:201:1: needle at the end`]);
    const old = await hitsOf({ query: 'needle', mtimeTo: '2021-01-01' });
    expect(old.text.split('\n')).toEqual([`${world.root}/docs/readme.md:1:3: A needle in the docs.`]);
    const recent = await hitsOf({ query: 'needle', mtimeFrom: '2021-01-01', glob: 'docs/**' });
    expect(recent.text.split('\n')).toEqual([`${world.root}/docs/big.md:201:1: needle at the end`]);
  });

  it('contextLines shows grep-style context and `--` between groups', async () => {
    const out = await hitsOf({ query: 'needle', glob: 'src/app.ts', contextLines: 1 });
    const f = `${world.root}/src/app.ts`;
    expect(out.text).toBe([`${f}-1- import x from "y";`, `${f}:2:7: const needle = 1;`, `${f}:3:4: // needle again`].join('\n'));
    const two = await hitsOf({ query: 'needle', extensions: ['md'], contextLines: 2 });
    expect(two.text).toContain('\n--\n');
    expect(two.text).toContain(`${world.root}/docs/big.md-199- padding`);
  });

  it('limit stops early and says so', async () => {
    const out = await hitsOf({ query: 'needle', limit: 2 });
    const lines = out.text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/stopped at 2 hits/);
    expect(out.truncated).toBe(true);
  });

  it('limits.maxMatches caps a larger limit', async () => {
    await world.cleanup();
    world = await createWorld({ limits: { ...DEFAULT_LIMITS, maxMatches: 3 } });
    await buildTree(world);
    const out = await world.call('fs.search', { path: world.root, query: 'needle', limit: 100 });
    expect(out.text).toMatch(/stopped at 3 hits \(limit, limits\.maxMatches = 3\)/);
  });

  it('searching a single file; no hits says so', async () => {
    const out = await hitsOf({ path: path.join(world.root, 'src/app.ts'), query: 'again' });
    expect(out.text).toBe(`${world.root}/src/app.ts:3:11: // needle again`);
    expect((await hitsOf({ query: 'zebra' })).text).toBe(`No matches for "zebra" under ${world.root}`);
  });

  it('errors: invalid regex INVALID_INPUT, contextLines 6 INVALID_INPUT, symlink out for search FORBIDDEN, missing NOT_FOUND', async () => {
    await world.fails('fs.search', { path: world.root, query: '(', regex: true }, 'INVALID_INPUT', /regular expression/);
    await world.fails('fs.search', { path: world.root, query: 'x', contextLines: 6 }, 'INVALID_INPUT');
    await world.fails('fs.search', { path: path.join(world.root, 'out-link'), query: 'needle' }, 'FORBIDDEN');
    await world.fails('fs.search', { path: path.join(world.root, 'nope'), query: 'needle' }, 'NOT_FOUND');
    await world.fails('fs.search', { path: path.join(world.root, '.git'), query: 'needle' }, 'POLICY_BLOCKED');
  });
});

describe('fs.search auto backend', () => {
  let world: World;
  beforeEach(async () => {
    setSearchBackend(undefined);
    world = await createWorld();
    await buildTree(world);
  });
  afterEach(() => world.cleanup());

  it('uses ripgrep, and the JS search for a regex ripgrep does not know (lookahead)', async () => {
    const plain = await world.call('fs.search', { path: world.root, query: 'needle again' });
    expect((plain.data as { backend: string }).backend).toBe('ripgrep');
    const lookahead = await world.call('fs.search', { path: world.root, query: 'needle(?= again)', regex: true });
    expect((lookahead.data as { backend: string }).backend).toBe('js');
    expect(lookahead.text).toBe(`${world.root}/src/app.ts:3:4: // needle again`);
  });
});

describe('fs.search backends agree', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld();
    await buildTree(world);
    // a wider generated tree: many files, several depths, mixed extensions and contents
    for (let i = 0; i < 120; i++) {
      const dir = `gen/d${i % 7}/e${i % 3}`;
      const ext = ['ts', 'js', 'md', 'txt'][i % 4];
      const lines = Array.from({ length: 1 + (i % 9) }, (_, n) => (n * i) % 5 === 0 ? `item ${i} needle ${n} TODO(${n})` : `item ${i} line ${n}`);
      await world.write(`${dir}/f${i}.${ext}`, `${lines.join('\n')}\n`);
    }
  });
  afterEach(() => world.cleanup());

  const queries: Array<Partial<SearchQuery>> = [
    { query: 'needle' },
    { query: 'TODO\\(\\d\\)', regex: true },
    { query: '^item \\d+ line 3$', regex: true },
    { query: 'needle', glob: '*.md' },
    { query: 'needle', glob: 'gen/d3/**' },
    { query: 'item', extensions: ['ts', 'js'], minBytes: 30, maxBytes: 200 },
    { query: 'needle', limit: 17 },
  ];

  it.each(queries)('same hits for %j', async (partial) => {
    const query: SearchQuery = {
      start: world.root,
      query: '',
      regex: false,
      contextLines: 0,
      limit: 10_000,
      isDenied: (p) => deniedBy(p, world.policy) !== undefined,
      ...partial,
    } as SearchQuery;
    const rg = await searchFiles(query, { backend: 'ripgrep', denyGlobs: world.policy.deny });
    const js = await searchFiles(query, { backend: 'js' });
    expect(rg.backend).toBe('ripgrep');
    expect(js.backend).toBe('js');
    expect(rg.hits.length).toBeGreaterThan(0);
    expect(rg.hits).toEqual(js.hits);
    expect(rg.limited).toBe(js.limited);
  });

  it('the JS walk never enters .git, node_modules, denied directories or symlinked directories', async () => {
    await world.write('secrets/.git/objects/deep/file.ts', 'needle');
    const asked: string[] = [];
    const result = await searchFiles(
      {
        start: world.root,
        query: 'needle',
        regex: false,
        contextLines: 0,
        limit: 10_000,
        isDenied: (p) => {
          asked.push(path.relative(world.root, p));
          return deniedBy(p, world.policy) !== undefined;
        },
      },
      { backend: 'js' },
    );
    expect(result.hits.length).toBeGreaterThan(0);
    // every path the walk looked at goes through isDenied first; nothing below a skipped directory was looked at
    expect(asked).toContain('node_modules');
    expect(asked).toContain('.git');
    expect(asked).toContain('secrets/.git');
    for (const relative of asked) {
      expect(relative).not.toMatch(/(^|\/)(node_modules|\.git|out-link)\//);
    }
  });

  it('the walk filter refuses .git, node_modules (at any depth) and denied paths by path alone, so the walk never enters them', () => {
    const filter = createFileFilter(
      { start: world.root, query: 'x', regex: false, contextLines: 0, limit: 1, isDenied: (p) => deniedBy(p, world.policy) !== undefined },
      false,
    );
    expect(filter.skipsPath(path.join(world.root, '.git'))).toBe(true);
    expect(filter.skipsPath(path.join(world.root, 'sub/node_modules'))).toBe(true);
    expect(filter.skipsPath(path.join(world.root, '.env'))).toBe(true);
    expect(filter.skipsPath(path.join(world.root, 'src'))).toBe(false);
  });
});

/**
 * ripgrep decides binary files itself (its `end` message names the first NUL) instead of the file being read
 * again; these are the files where that decision could drift from the JS walk's "a NUL anywhere" rule.
 */
describe('fs.search backends agree on binary and encoding edge cases', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld();
    const line = (n: number) => `line ${n} of filler text\n`;
    const filler = Array.from({ length: 20_000 }, (_, n) => line(n)).join(''); // ≈ 480 KB, past any first buffer
    await world.write('text/plain.txt', 'a needle here\nno match\nneedle again\n');
    await world.write('text/nul-far-after-hits.log', Buffer.concat([Buffer.from(`needle first\n${filler}needle late\n`), Buffer.from([0]), Buffer.from('\n')]));
    await world.write('text/nul-before-hit.log', Buffer.concat([Buffer.from('head\n'), Buffer.from([0]), Buffer.from(`\n${filler}needle\n`)]));
    await world.write('text/nul-in-first-bytes.bin', Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0]), Buffer.from('needle\n')]));
    await world.write('text/hits-after-filler.txt', `${filler}needle at the end\n`);
    // a UTF-16 byte-order mark followed by ASCII: ripgrep would transcode it by default; both read raw bytes
    await world.write('enc/bom16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('needle after a UTF-16 mark\n')]));
    // real UTF-16 text holds NUL bytes: binary for both
    await world.write('enc/utf16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('needle\n', 'utf16le')]));
    // a UTF-8 byte-order mark stays part of line 1, so the column counts it
    await world.write('enc/bom8.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('needle with a UTF-8 mark\n')]));
    // invalid UTF-8 before the hit: columns count decoded characters
    await world.write('enc/latin1.txt', Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9, 0xff]), Buffer.from(' needle\r\n')]));
    await world.write('enc/multibyte.txt', 'ünïcödé ✓ 𝄞 needle\n');
  });
  afterEach(() => world.cleanup());

  const query = (partial: Partial<SearchQuery>): SearchQuery => ({
    start: world.root,
    query: 'needle',
    regex: false,
    contextLines: 0,
    limit: 10_000,
    isDenied: (p) => deniedBy(p, world.policy) !== undefined,
    ...partial,
  });

  const both = async (partial: Partial<SearchQuery>) => {
    const rg = await searchFiles(query(partial), { backend: 'ripgrep', denyGlobs: world.policy.deny });
    const js = await searchFiles(query(partial), { backend: 'js' });
    expect(rg.backend).toBe('ripgrep');
    expect(js.backend).toBe('js');
    expect(rg.hits).toEqual(js.hits);
    expect(rg.limited).toBe(js.limited);
    return rg.hits.map((hit) => `${path.relative(world.root, hit.path)}:${hit.line}:${hit.column}`);
  };

  it('a file is skipped when it holds a NUL anywhere, before or long after its hits', async () => {
    expect(await both({})).toEqual([
      'enc/bom16.txt:1:3',
      'enc/bom8.txt:1:2',
      'enc/latin1.txt:1:7',
      'enc/multibyte.txt:1:14',
      'text/hits-after-filler.txt:20001:1',
      'text/plain.txt:1:3',
      'text/plain.txt:3:1',
    ]);
  });

  it('the same for a regex query, which the JS walk cannot look for in raw bytes', async () => {
    expect(await both({ query: 'need(le)? (a|w|h)', regex: true })).toEqual([
      'enc/bom16.txt:1:3',
      'enc/bom8.txt:1:2',
      'text/hits-after-filler.txt:20001:1',
      'text/plain.txt:1:3',
      'text/plain.txt:3:1',
    ]);
  });

  it.each([
    ['text/nul-far-after-hits.log', []],
    ['text/nul-before-hit.log', []],
    ['text/nul-in-first-bytes.bin', []],
    ['enc/utf16.txt', []],
    ['text/hits-after-filler.txt', ['text/hits-after-filler.txt:20001:1']],
  ])('searching the single file %s', async (file, expected) => {
    expect(await both({ start: path.join(world.root, file) })).toEqual(expected);
  });

  it('a size or mtime filter still applies to the files ripgrep reports', async () => {
    expect(await both({ minBytes: 1000 })).toEqual(['text/hits-after-filler.txt:20001:1']);
    expect(await both({ maxBytes: 40 })).toEqual(['enc/bom16.txt:1:3', 'enc/bom8.txt:1:2', 'enc/latin1.txt:1:7', 'enc/multibyte.txt:1:14', 'text/plain.txt:1:3', 'text/plain.txt:3:1']);
    await fs.utimes(path.join(world.root, 'text/plain.txt'), new Date('2020-01-01'), new Date('2020-01-01'));
    expect(await both({ mtimeTo: new Date('2021-01-01') })).toEqual(['text/plain.txt:1:3', 'text/plain.txt:3:1']);
    expect(await both({ start: path.join(world.root, 'text/hits-after-filler.txt'), maxBytes: 1000 })).toEqual([]);
  });

  it('a limit reached inside one file stops there, in walk order', async () => {
    expect(await both({ limit: 6 })).toEqual([
      'enc/bom16.txt:1:3',
      'enc/bom8.txt:1:2',
      'enc/latin1.txt:1:7',
      'enc/multibyte.txt:1:14',
      'text/hits-after-filler.txt:20001:1',
      'text/plain.txt:1:3',
    ]);
  });
});

describe('linesHoldingLiterals (which hit files a secret could span lines of)', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld();
  });
  afterEach(() => world.cleanup());

  it('ripgrep and the reads name the same lines, per file that holds a literal', async () => {
    const key = await world.write('deploy.yml', 'a\n-----BEGIN PRIVATE KEY-----\nbody\n-----END PRIVATE KEY-----\nneedle\n');
    const netrc = await world.write('notes.txt', 'x\r\ny\r\nmachine h login me password p\r\n');
    const plain = await world.write('src/app.ts', 'const needle = 1;\n');
    const latin1 = await world.write('enc/latin1.txt', Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9, 0xff]), Buffer.from('\npassword x\n')]));
    const files = [key, netrc, plain, latin1];
    const expected = new Map([
      [key, [2, 4]],
      [netrc, [3]],
      [latin1, [2]],
    ]);
    for (const backend of ['ripgrep', 'js'] as const) {
      expect(await linesHoldingLiterals(files, ['PRIVATE KEY', 'password'], { backend }), backend).toEqual(expected);
    }
  });

  // Once a gap: the reads opened each hit's path plainly, well after the search had checked it. A FIFO put at a hit's
  // path since held the open (a pool thread each, until a writer came), and a link put there was followed out of
  // the roots.
  it('attack: a hit swapped for a FIFO or for a link out of the roots after the search is not opened through', async () => {
    const kept = await world.write('kept.txt', 'password here\n');
    const fifo = await world.write('swapped-fifo.txt', 'password\n');
    const link = await world.write('swapped-link.txt', 'password\n');
    await fs.rm(fifo);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    await fs.rm(link);
    await fs.writeFile(path.join(world.outside, 'secret.txt'), 'x\npassword outside\n');
    await fs.symlink(path.join(world.outside, 'secret.txt'), link);
    try {
      expect(await linesHoldingLiterals([fifo, link, kept], ['password'], { backend: 'js' })).toEqual(new Map([[kept, [1]]]));
    } finally {
      // a read still waiting on the FIFO ends (its open sees a writer come and go)
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: nobody waits on it
      }
    }
  });
});
