import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertSubtreeMayChange, describeSubtree, subtreeHit, subtreeRefusal, type SubtreeChange } from '../../../companion/policy/subtree-guard';

const ROOT = '/ws';
const policy = { roots: [ROOT], deny: ['**/.git/**', '**/docs/private/**', 'notes/secret/**', '**/*.pem'] };

describe('subtreeHit (pure): the entry, where it is and where it would land', () => {
  const move: SubtreeChange = { kind: 'move', from: '/ws/docs', to: '/ws/documents' };
  it.each<[string, SubtreeChange, string, ReturnType<typeof subtreeHit>]>([
    ['source entry under a **/ glob', move, 'private', { path: '/ws/docs/private', glob: '**/docs/private/**', side: 'source', entry: '/ws/docs/private' }],
    ['deep source entry', move, 'private/plan.txt', { path: '/ws/docs/private/plan.txt', glob: '**/docs/private/**', side: 'source', entry: '/ws/docs/private/plan.txt' }],
    ['plain entry', move, 'readme.md', undefined],
    [
      'landing under a denied path',
      { kind: 'move', from: '/ws/stuff', to: '/ws/docs' },
      'private/x',
      { path: '/ws/docs/private/x', glob: '**/docs/private/**', side: 'destination', entry: '/ws/stuff/private/x' },
    ],
    ['a copy is checked on both sides too', { kind: 'copy', from: '/ws/a', to: '/ws/notes' }, 'secret', { path: '/ws/notes/secret', glob: 'notes/secret/**', side: 'destination', entry: '/ws/a/secret' }],
    ['removal: source only', { kind: 'remove', path: '/ws/project' }, '.git', { path: '/ws/project/.git', glob: '**/.git/**', side: 'source', entry: '/ws/project/.git' }],
    ['chmod: source only', { kind: 'chmod', path: '/ws/keys' }, 'a.pem', { path: '/ws/keys/a.pem', glob: '**/*.pem', side: 'source', entry: '/ws/keys/a.pem' }],
    ['the directory itself', { kind: 'remove', path: '/ws/docs/private' }, '', { path: '/ws/docs/private', glob: '**/docs/private/**', side: 'source', entry: '/ws/docs/private' }],
  ])('%s', (_name, change, relative, expected) => {
    expect(subtreeHit(change, relative, policy)).toEqual(expected);
  });

  it('a replaced destination is checked as a removal', () => {
    const change: SubtreeChange = { kind: 'move', from: '/ws/a', to: '/ws/project' };
    expect(subtreeHit(change, '.git', policy, 'replaced')).toEqual({ path: '/ws/project/.git', glob: '**/.git/**', side: 'replaced', entry: '/ws/project/.git' });
  });

  it('subtreeRefusal is POLICY_BLOCKED naming the path, the glob and the side', () => {
    const hit = subtreeHit(move, 'private', policy)!;
    const error = subtreeRefusal(move, hit, policy);
    expect(error.code).toBe('POLICY_BLOCKED');
    expect(error.message).toContain('"/ws/docs/private", which matches the deny glob "**/docs/private/**", to "/ws/documents/private"');
    expect(error.data).toEqual({ path: '/ws/docs/private', glob: '**/docs/private/**', side: 'source' });
  });
});

describe('assertSubtreeMayChange (the bounded walk)', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'chatbridge-subtree-')));
    for (const file of ['d/a', 'd/b/c', 'd/b/e/f']) {
      await fs.mkdir(path.dirname(path.join(tmp, file)), { recursive: true });
      await fs.writeFile(path.join(tmp, file), '');
    }
  });
  afterEach(() => fs.rm(tmp, { recursive: true, force: true }));

  it('counts every entry and stops past the limit with LIMIT_EXCEEDED', async () => {
    const local = { roots: [tmp], deny: ['**/.git/**'] };
    expect(await assertSubtreeMayChange({ kind: 'remove', path: path.join(tmp, 'd') }, local)).toEqual({ directory: true, entries: 5, runsCodeAt: [] });
    await expect(assertSubtreeMayChange({ kind: 'remove', path: path.join(tmp, 'd') }, local, { limit: 4 })).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      data: { limit: 4 },
    });
  });

  it("a card's refusal is given as facts: the entry limit passed, or the companion's own words", async () => {
    const local = { roots: [tmp], deny: ['**/.git/**'] };
    const big = await describeSubtree({ kind: 'remove', path: path.join(tmp, 'd') }, local, { limit: 4 });
    expect(big).toMatchObject({ refused: true, why: { limit: 4 } });
    expect(big.phrase).toMatch(/more than 4 entries.*the call will be refused$/);
    const stopped = await describeSubtree({ kind: 'remove', path: path.join(tmp, 'd') }, local, { signal: AbortSignal.abort() });
    expect(stopped).toMatchObject({ refused: true, why: { reason: expect.stringMatching(/^stopped while checking/) } });
    expect(await describeSubtree({ kind: 'remove', path: path.join(tmp, 'd') }, local)).toEqual({ phrase: expect.any(String), protectedPaths: [], refused: false, entries: 5 });
  });

  it('a file or a symlink to a directory is checked as itself, never walked', async () => {
    const local = { roots: [tmp], deny: ['**/.git/**'] };
    await fs.symlink(path.join(tmp, 'd'), path.join(tmp, 'link'));
    expect(await assertSubtreeMayChange({ kind: 'move', from: path.join(tmp, 'link'), to: path.join(tmp, 'l2') }, local, { limit: 1 })).toEqual({
      directory: false,
      entries: 0,
      runsCodeAt: [],
    });
    expect(await assertSubtreeMayChange({ kind: 'remove', path: path.join(tmp, 'd', 'a') }, local)).toEqual({ directory: false, entries: 0, runsCodeAt: [] });
  });

  it('a move names where an entry that runs code would land (runs-code-subtree.test.ts)', async () => {
    const local = { roots: [tmp], deny: ['**/.git/**'] };
    await fs.writeFile(path.join(tmp, 'd', 'tasks.json'), '{}');
    const check = await assertSubtreeMayChange({ kind: 'move', from: path.join(tmp, 'd'), to: path.join(tmp, '.vscode') }, local);
    expect(check.runsCodeAt).toEqual([path.join(tmp, '.vscode', 'tasks.json')]);
    expect((await assertSubtreeMayChange({ kind: 'move', from: path.join(tmp, 'd'), to: path.join(tmp, 'docs') }, local)).runsCodeAt).toEqual([]);
  });

  it('a stopped call does not pass unchecked', async () => {
    const local = { roots: [tmp], deny: [] };
    const controller = new AbortController();
    controller.abort();
    await expect(assertSubtreeMayChange({ kind: 'remove', path: path.join(tmp, 'd') }, local, { signal: controller.signal })).rejects.toMatchObject({
      message: expect.stringMatching(/stopped/),
    });
  });
});
