/**
 * Issue 9, finding 7: refusing a path that leads out of the roots is not enough — the refusal, a listing or an
 * error must not say where it leads either. `fs.ls` printed a symlink's outside target, and error messages the
 * realpath of it, which names files outside the workspace (and, for a relative link, the directories around
 * it). Every call here goes through the real pipeline (callTool) against real symlinks to an outside temp
 * directory whose name is distinctive; that name must appear in no result text, no error message and no error
 * data, and the companion's own working directory neither.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Outcome } from '../../../shared/results/outcome';
import { callTool } from '../../../companion/runs/tool-call';
import { toolHandlers } from '../../../companion/tools';
import { createWorld, type World } from '../tools/world';

/** In the outside directory's name and in every file name there; never in anything a model reads. */
const MARK = 'zebra';

type Call = [name: string, tool: string, args: (w: World) => Record<string, unknown>];

const R = (w: World, ...parts: string[]) => path.join(w.root, ...parts);

const CALLS: Call[] = [
  ['list the root (links shown, targets outside not named)', 'fs.ls', (w) => ({ path: w.root })],
  ['list the root three deep', 'fs.ls', (w) => ({ path: w.root, depth: 3 })],
  ['list through a directory link out', 'fs.ls', (w) => ({ path: R(w, 'escape-dir') })],
  ['list a file link out', 'fs.ls', (w) => ({ path: R(w, 'escape-file') })],
  ['read a file link out', 'fs.read', (w) => ({ path: R(w, 'escape-file') })],
  ['read through a directory link out', 'fs.read', (w) => ({ path: R(w, 'escape-dir', 'notes.txt') })],
  ['read through a relative link out', 'fs.read', (w) => ({ path: R(w, 'escape-relative') })],
  ['read a dangling link out', 'fs.read', (w) => ({ path: R(w, 'dangling-out') })],
  ['read through a link to a link out', 'fs.read', (w) => ({ path: R(w, 'chain', 'notes.txt') })],
  ['read a link out whose target cannot be looked at (name too long)', 'fs.read', (w) => ({ path: R(w, 'too-long') })],
  ['search through a directory link out', 'fs.search', (w) => ({ path: R(w, 'escape-dir'), query: 'outside-content' })],
  ['search the root', 'fs.search', (w) => ({ path: w.root, query: 'outside-content', contextLines: 2 })],
  ['diff against a file link out', 'fs.diff', (w) => ({ leftPath: R(w, 'inside.txt'), rightPath: R(w, 'escape-file') })],
  ['write through a directory link out', 'fs.write', (w) => ({ path: R(w, 'escape-dir', 'new.txt'), mode: 'overwrite', content: 'x' })],
  ['write a dangling link out', 'fs.write', (w) => ({ path: R(w, 'dangling-out'), mode: 'overwrite', content: 'x' })],
  ['mkdir through a directory link out', 'fs.mkdir', (w) => ({ path: R(w, 'escape-dir', 'made'), parents: true })],
  ['move into a directory link out', 'fs.mv', (w) => ({ fromPath: R(w, 'inside.txt'), toPath: R(w, 'escape-dir', 'moved.txt') })],
  ['chmod a file link out', 'fs.chmod', (w) => ({ path: R(w, 'escape-file'), mode: '644' })],
  ['run a program in a directory link out', 'process.run', (w) => ({ command: 'pwd', cwd: R(w, 'escape-dir') })],
  ['run a shell in a directory link out', 'shell.exec', (w) => ({ command: 'pwd', cwd: R(w, 'escape-relative') })],
  ['PromptX list the root', 'filesystem', () => ({ action: 'list_with_sizes', path: '.' })],
  ['PromptX list a directory link out', 'filesystem', () => ({ action: 'list', path: 'escape-dir' })],
  ['PromptX read a file link out', 'filesystem', () => ({ action: 'read', path: 'escape-file' })],
  ['PromptX read a link out whose target cannot be looked at', 'filesystem', () => ({ action: 'read', path: 'too-long' })],
  ['PromptX search the root', 'filesystem', () => ({ action: 'search', path: '.', pattern: '*' })],
  ['PromptX write through a directory link out', 'filesystem', () => ({ action: 'write', path: 'escape-dir/x.txt', content: 'x' })],
];

describe('outside paths are never revealed (issue 9, finding 7)', () => {
  let world: World;
  let outside: string;
  const expectNothingOutside = (outcome: Outcome) => {
    const seen = JSON.stringify(outcome);
    expect(seen.toLowerCase(), seen).not.toContain(MARK);
    expect(seen).not.toContain(outside);
    expect(seen).not.toContain(JSON.stringify(process.cwd()).slice(1, -1));
  };

  beforeEach(async () => {
    world = await createWorld();
    outside = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), `chatbridge-${MARK}-outside-`)));
    await fs.writeFile(path.join(outside, `${MARK}-notes.txt`), 'outside-content\n');
    await fs.writeFile(path.join(outside, 'notes.txt'), 'outside-content\n');
    await fs.mkdir(path.join(outside, `${MARK}-subdir`));
    await world.write('inside.txt', 'inside\n');
    await world.write('src/a.ts', 'export {};\n');
    await fs.symlink(outside, R(world, 'escape-dir'));
    await fs.symlink(path.join(outside, `${MARK}-notes.txt`), R(world, 'escape-file'));
    await fs.symlink(path.relative(world.root, path.join(outside, `${MARK}-notes.txt`)), R(world, 'escape-relative'));
    await fs.symlink(path.join(outside, `${MARK}-not-there`), R(world, 'dangling-out'));
    await fs.symlink('escape-dir', R(world, 'chain'));
    await fs.symlink(path.join(outside, `${MARK}-${'z'.repeat(300)}`, 'x'), R(world, 'too-long'));
    await fs.symlink('src', R(world, 'inside-link'));
  });
  afterEach(async () => {
    await world.cleanup();
    await fs.rm(outside, { recursive: true, force: true });
  });

  it.each(CALLS)('%s (%s)', async (_name, tool, args) => {
    const outcome = await callTool(tool, args(world), world.ctx, toolHandlers);
    expectNothingOutside(outcome);
    expect(await fs.readdir(outside)).toHaveLength(3);
  });

  it('fs.ls says a link points outside the workspace, and still shows where a link inside leads', async () => {
    const outcome = await callTool('fs.ls', { path: world.root }, world.ctx, toolHandlers);
    const lines = outcome.ok ? outcome.text.split('\n') : [];
    expect(lines).toContain('escape-dir -> (points outside the workspace) (symlink)');
    expect(lines).toContain('escape-relative -> (points outside the workspace) (symlink)');
    expect(lines).toContain('dangling-out -> (points outside the workspace) (symlink)');
    expect(lines).toContain('chain -> (points outside the workspace) (symlink)');
    expect(lines).toContain('inside-link -> src (symlink)');
  });

  it('a refusal says the path points outside the workspace, naming only what was asked and the roots', async () => {
    const outcome = await callTool('fs.read', { path: R(world, 'escape-file') }, world.ctx, toolHandlers);
    expect(outcome.ok ? '' : outcome.message).toMatch(/points outside the workspace/);
    expect(outcome.ok ? '' : outcome.message).toContain(R(world, 'escape-file'));
  });

  it.each([
    ['read', 'fs.read', (w: World) => ({ path: R(w, 'dir', 'notes.txt') })],
    ['overwrite', 'fs.write', (w: World) => ({ path: R(w, 'dir', 'notes.txt'), mode: 'overwrite', content: 'x' })],
    ['list', 'fs.ls', (w: World) => ({ path: R(w, 'dir') })],
    ['search', 'fs.search', (w: World) => ({ path: R(w, 'dir'), query: 'x' })],
    ['diff', 'fs.diff', (w: World) => ({ leftPath: R(w, 'dir', 'notes.txt'), rightContent: 'x' })],
    ['run a program in', 'process.run', (w: World) => ({ command: 'pwd', cwd: R(w, 'dir') })],
  ] as const)('%s a directory swapped for a link out during the approval: the refusal does not name the target', async (_name, tool, args) => {
    await world.write('dir/notes.txt', 'inside\n');
    const ctx = {
      ...world.ctx,
      async authorize() {
        await fs.rename(R(world, 'dir'), R(world, 'dir-moved'));
        await fs.symlink(outside, R(world, 'dir'));
      },
    };
    const outcome = await callTool(tool, args(world), ctx, toolHandlers);
    expect(outcome.ok).toBe(false);
    expectNothingOutside(outcome);
  });
});
