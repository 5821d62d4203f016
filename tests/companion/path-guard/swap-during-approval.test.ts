/**
 * A tool call resolves each path once and carries it from plan to run. These attacks swap a directory on the
 * way for a symlink out of the roots while the call waits for its approval — after plan and preview checked
 * the path, before run uses it — through the real pipeline (callTool) and the real tools. Each one must be
 * refused by the check at the final use (the opened descriptor's real path, the journal's re-check of the
 * directory, or a fresh resolution before a walk or a child's cwd), and nothing outside may be read or changed.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../shared/errors';
import type { ToolName } from '../../../shared/tools/names';
import { callTool } from '../../../companion/runs/tool-call';
import { toolHandlers } from '../../../companion/tools';
import { resolvePath, resolvePathNow, withCallScope } from '../../../companion/tools/define-handler';
import { createWorld, type World } from '../tools/world';

const SECRET = 'outside secret';

type Swap = [name: string, tool: ToolName, code: ErrorCode, args: (w: World) => Record<string, unknown>];

const D = (w: World, ...parts: string[]) => path.join(w.root, 'dir', ...parts);

const SWAPS: Swap[] = [
  ['read a file whose directory becomes a link out', 'fs.read', 'FORBIDDEN', (w) => ({ path: D(w, 'file.txt') })],
  ['diff a file whose directory becomes a link out', 'fs.diff', 'FORBIDDEN', (w) => ({ leftPath: D(w, 'file.txt'), rightPath: path.join(w.root, 'other.txt') })],
  ['overwrite a file whose directory becomes a link out', 'fs.write', 'FORBIDDEN', (w) => ({ path: D(w, 'file.txt'), mode: 'overwrite', content: 'pwned' })],
  ['append to a file whose directory becomes a link out', 'fs.write', 'FORBIDDEN', (w) => ({ path: D(w, 'file.txt'), mode: 'append', content: 'pwned' })],
  ['create a file in a directory that becomes a link out', 'fs.write', 'FORBIDDEN', (w) => ({ path: D(w, 'planted.txt'), mode: 'overwrite', content: 'pwned' })],
  ['batch-write into a directory that becomes a link out', 'fs.writeBatch', 'FORBIDDEN', (w) => ({ files: [{ path: D(w, 'planted.txt'), content: 'pwned' }] })],
  ['remove a file whose directory becomes a link out', 'fs.rm', 'FORBIDDEN', (w) => ({ path: D(w, 'file.txt') })],
  ['move a file out of a directory that becomes a link out', 'fs.mv', 'FORBIDDEN', (w) => ({ fromPath: D(w, 'file.txt'), toPath: path.join(w.root, 'stolen.txt') })],
  ['move a file into a directory that becomes a link out', 'fs.mv', 'FORBIDDEN', (w) => ({ fromPath: path.join(w.root, 'other.txt'), toPath: D(w, 'planted.txt') })],
  ['chmod a file whose directory becomes a link out', 'fs.chmod', 'FORBIDDEN', (w) => ({ path: D(w, 'file.txt'), mode: '777' })],
  ['mkdir in a directory that becomes a link out', 'fs.mkdir', 'FORBIDDEN', (w) => ({ path: D(w, 'planted'), parents: true })],
  ['list a directory that becomes a link out', 'fs.ls', 'FORBIDDEN', (w) => ({ path: D(w) })],
  ['search a directory that becomes a link out', 'fs.search', 'FORBIDDEN', (w) => ({ path: D(w), query: 'secret' })],
  ['run a program in a directory that becomes a link out', 'process.run', 'FORBIDDEN', (w) => ({ command: 'cat', args: ['file.txt'], cwd: D(w) })],
  ['run a shell in a directory that becomes a link out', 'shell.exec', 'FORBIDDEN', (w) => ({ command: 'cat file.txt', cwd: D(w) })],
];

describe('symlink swap while a call waits for approval', () => {
  let world: World;
  let outsideBefore: string[];
  beforeEach(async () => {
    world = await createWorld();
    await world.write('dir/file.txt', 'inside');
    await world.write('other.txt', 'other');
    await fs.mkdir(path.join(world.outside, 'dir'));
    await fs.writeFile(path.join(world.outside, 'dir', 'file.txt'), SECRET);
    await fs.chmod(path.join(world.outside, 'dir', 'file.txt'), 0o600);
    outsideBefore = (await fs.readdir(path.join(world.outside, 'dir'))).sort();
  });
  afterEach(() => world.cleanup());

  it.each(SWAPS)('%s (%s) → %s', async (_name, tool, code, args) => {
    let swapped = 0;
    const ctx = {
      ...world.ctx,
      async authorize() {
        await fs.rename(D(world), path.join(world.root, 'dir-moved'));
        await fs.symlink(path.join(world.outside, 'dir'), D(world));
        swapped++;
      },
    };
    const outcome = await callTool(tool, args(world), ctx, toolHandlers);
    expect(swapped).toBe(1);
    expect(outcome.ok, JSON.stringify(outcome)).toBe(false);
    if (!outcome.ok) expect(outcome.code, outcome.message).toBe(code);
    expect(JSON.stringify(outcome)).not.toContain(SECRET);
    const secretFile = path.join(world.outside, 'dir', 'file.txt');
    expect((await fs.readdir(path.join(world.outside, 'dir'))).sort()).toEqual(outsideBefore);
    expect(await fs.readFile(secretFile, 'utf8')).toBe(SECRET);
    expect((await fs.stat(secretFile)).mode & 0o777).toBe(0o600);
    expect(await fs.readFile(path.join(world.root, 'dir-moved', 'file.txt'), 'utf8')).toBe('inside');
  });

  it.each([
    ['process.run', (w: World) => ({ command: 'cat', args: ['file.txt'], cwd: path.join(w.root, 'current') })],
    ['shell.exec', (w: World) => ({ command: 'cat file.txt', cwd: path.join(w.root, 'current') })],
  ] as const)('%s in a folder whose link is pointed at another folder of the root while the card waits runs nowhere the card did not show', async (tool, args) => {
    // the card shows the folder the link led to; a program run wherever it leads later runs what no card showed
    await world.write('planted/file.txt', 'planted');
    await fs.symlink(D(world), path.join(world.root, 'current'));
    let shownCwd: string | undefined;
    const ctx = {
      ...world.ctx,
      async authorize(request: { preview: { cwd?: string } }) {
        shownCwd = request.preview.cwd;
        await fs.rm(path.join(world.root, 'current'));
        await fs.symlink(path.join(world.root, 'planted'), path.join(world.root, 'current'));
      },
    };
    const outcome = await callTool(tool, args(world), ctx, toolHandlers);
    expect(shownCwd).toBe(D(world));
    expect(outcome.ok, JSON.stringify(outcome)).toBe(false);
    if (!outcome.ok) {
      expect(outcome.code).toBe('CONFLICT');
      expect(outcome.message).toBe(
        `the working directory ${JSON.stringify(path.join(world.root, 'current'))} led to ${JSON.stringify(D(world))} when the card was shown and leads to ${JSON.stringify(path.join(world.root, 'planted'))} now; nothing was run — send the call again for a new card`,
      );
    }
    expect(JSON.stringify(outcome)).not.toContain('planted\n');
  });

  it('without a swap the same pipeline reads and writes (the refusals above are the swap, not the setup)', async () => {
    const read = await callTool('fs.read', { path: D(world, 'file.txt') }, world.ctx, toolHandlers);
    expect(read).toMatchObject({ ok: true, text: 'inside' });
    const write = await callTool('fs.write', { path: D(world, 'file.txt'), mode: 'append', content: '+' }, world.ctx, toolHandlers);
    expect(write.ok, JSON.stringify(write)).toBe(true);
    expect(await world.read('dir/file.txt')).toBe('inside+');
    const search = await callTool('fs.search', { path: D(world), query: 'inside' }, world.ctx, toolHandlers);
    expect(search).toMatchObject({ ok: true, text: `${D(world, 'file.txt')}:1:1: inside+` });
  });
});

describe('withCallScope: one resolution per call', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld();
    await world.write('a/file.txt', 'a');
  });
  afterEach(() => world.cleanup());

  it('inside a call scope a path is resolved once; resolvePathNow and calls outside a scope resolve every time', async () => {
    const scoped = withCallScope(world.ctx);
    const asked = path.join(world.root, 'a', 'file.txt');
    const first = resolvePath(asked, scoped, { mustExist: true });
    expect(resolvePath(asked, scoped, { mustExist: true })).toBe(first);
    // different options are a different question
    expect(resolvePath(asked, scoped, { forWrite: true })).not.toBe(first);
    expect(await first).toBe(asked);

    // the directory moves and a link takes its place: the scope keeps its answer, a fresh resolution sees the link
    await fs.rename(path.join(world.root, 'a'), path.join(world.root, 'b'));
    await fs.symlink(path.join(world.root, 'b'), path.join(world.root, 'a'));
    expect(await resolvePath(asked, scoped, { mustExist: true })).toBe(asked);
    expect(await resolvePathNow(asked, scoped, { mustExist: true })).toBe(path.join(world.root, 'b', 'file.txt'));
    expect(await resolvePath(asked, world.ctx, { mustExist: true })).toBe(path.join(world.root, 'b', 'file.txt'));
    expect(await resolvePath(asked, withCallScope(world.ctx), { mustExist: true })).toBe(path.join(world.root, 'b', 'file.txt'));
  });

  it('a refusal is kept for the call too, with its code', async () => {
    const scoped = withCallScope(world.ctx);
    const missing = path.join(world.root, 'nope.txt');
    await expect(resolvePath(missing, scoped, { mustExist: true })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(resolvePath(missing, scoped, { mustExist: true })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
