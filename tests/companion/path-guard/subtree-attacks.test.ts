/**
 * Issue 9, finding 4: deny globs name paths, and a change to a directory changes every path under it. Moving
 * `docs` to `documents` under deny `**\/docs/private/**` was approved as "move docs → documents", and
 * `documents/private/plan.txt` could then be read with no approval; fs.mv moved a project's `.git`, which fs.rm
 * refuses. Each attack below runs through the real tools (contract → plan → preview → run) on a real temp
 * workspace and must be refused before anything changes, naming the path and the glob.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAutocoderPlan } from '../../../companion/plans';
import { MAX_SUBTREE_ENTRIES } from '../../../companion/policy/subtree-guard';
import { toolHandlers } from '../../../companion/tools';
import type { ErrorCode } from '../../../shared/errors';
import type { ToolName } from '../../../shared/tools/names';
import type { AutocoderPlan } from '../../../shared/protocols/types';
import { createWorld as createPlanWorld, parseExecutorResponse, type World as PlanWorld } from '../plans/world';
import { createWorld, type World } from '../tools/world';

const DEFAULT_DENY = ['**/.git/**', '**/.env', '**/.env.*', '**/*.pem', '**/*.key', '**/id_rsa*', '**/id_ed25519*', '**/.ssh/**'];
const R = (w: World, ...parts: string[]) => path.join(w.root, ...parts);

type Attack = [name: string, tool: ToolName, args: (w: World) => Record<string, unknown>, code: ErrorCode, message: RegExp];

const ATTACKS: Attack[] = [
  [
    'move a parent of a denied directory: mv docs → documents',
    'fs.mv',
    (w) => ({ fromPath: R(w, 'docs'), toPath: R(w, 'documents') }),
    'POLICY_BLOCKED',
    /docs\/private.*deny glob "\*\*\/docs\/private\/\*\*"/,
  ],
  [
    'move a grandparent of a denied directory: mv area → area2',
    'fs.mv',
    (w) => ({ fromPath: R(w, 'area'), toPath: R(w, 'area2') }),
    'POLICY_BLOCKED',
    /area\/docs\/private/,
  ],
  [
    'move a project holding a nested .git (fs.rm refuses it)',
    'fs.mv',
    (w) => ({ fromPath: R(w, 'project'), toPath: R(w, 'project-renamed') }),
    'POLICY_BLOCKED',
    /project\/\.git.*deny glob "\*\*\/\.git\/\*\*"/,
  ],
  [
    'move a directory holding a key file out of its name: mv keys → k',
    'fs.mv',
    (w) => ({ fromPath: R(w, 'keys'), toPath: R(w, 'k') }),
    'POLICY_BLOCKED',
    /keys\/server\.pem/,
  ],
  [
    'move a directory so that its files land under a denied path: mv stuff → docs',
    'fs.mv',
    (w) => ({ fromPath: R(w, 'stuff'), toPath: R(w, 'fresh', 'docs') }),
    'POLICY_BLOCKED',
    /stuff\/private.* at .*fresh\/docs\/private.*deny glob "\*\*\/docs\/private\/\*\*"/,
  ],
  [
    'replace a directory holding a .git by moving another onto it (overwrite removes it)',
    'fs.mv',
    (w) => ({ fromPath: R(w, 'stuff'), toPath: R(w, 'project'), overwrite: true }),
    'POLICY_BLOCKED',
    /project\/\.git/,
  ],
  [
    'PromptX move of a parent of a denied directory',
    'filesystem',
    () => ({ action: 'move', source: 'docs', destination: 'documents' }),
    'POLICY_BLOCKED',
    /docs\/private/,
  ],
  [
    'PromptX move of a project holding a nested .git',
    'filesystem',
    () => ({ action: 'move', source: 'project', destination: 'elsewhere/project' }),
    'POLICY_BLOCKED',
    /project\/\.git/,
  ],
  [
    'chmod a parent of a denied directory: chmod 777 docs',
    'fs.chmod',
    (w) => ({ path: R(w, 'docs'), mode: '777' }),
    'POLICY_BLOCKED',
    /docs\/private/,
  ],
  [
    'chmod a project holding a nested .git: chmod 700 project',
    'fs.chmod',
    (w) => ({ path: R(w, 'project'), mode: '700' }),
    'POLICY_BLOCKED',
    /project\/\.git/,
  ],
  [
    'remove a parent of a denied directory: rm -r docs',
    'fs.rm',
    (w) => ({ path: R(w, 'docs'), recursive: true }),
    'POLICY_BLOCKED',
    /docs\/private/,
  ],
];

describe('subtree attacks: a change to a directory is checked for every path under it', () => {
  let world: World;
  let before: string;

  async function snapshot(dir: string): Promise<string> {
    const lines: string[] = [];
    async function visit(at: string): Promise<void> {
      for (const name of (await fs.readdir(at)).sort()) {
        const full = path.join(at, name);
        const stat = await fs.lstat(full);
        lines.push(`${path.relative(dir, full)} ${(stat.mode & 0o7777).toString(8)}`);
        if (stat.isDirectory()) await visit(full);
      }
    }
    await visit(dir);
    return lines.join('\n');
  }

  beforeEach(async () => {
    world = await createWorld({ deny: [...DEFAULT_DENY, '**/docs/private/**', 'notes/secret/**'] });
    await world.write('docs/readme.md', 'public');
    await world.write('docs/private/plan.txt', 'the plan');
    await world.write('area/docs/private/plan.txt', 'the plan');
    await world.write('project/src/a.ts', 'a');
    await world.write('project/.git/HEAD', 'ref: refs/heads/main');
    await world.write('keys/server.pem', 'PRIVATE KEY');
    await world.write('stuff/private/notes.txt', 'notes');
    await fs.mkdir(R(world, 'fresh'));
    before = await snapshot(world.root);
  });
  afterEach(() => world.cleanup());

  it.each(ATTACKS)('%s (%s)', async (_name, tool, args, code, message) => {
    await world.fails(tool, args(world), code, message);
    expect(await snapshot(world.root)).toBe(before);
  });

  it('the root-relative glob form (notes/secret/**) protects a subtree as well as the **/ form', async () => {
    await world.write('notes/secret/diary.txt', 'dear diary');
    const error = await world.fails('fs.mv', { fromPath: R(world, 'notes'), toPath: R(world, 'n') }, 'POLICY_BLOCKED');
    expect(error.message).toContain(R(world, 'notes', 'secret'));
    expect(error.message).toContain('"notes/secret/**"');
    expect(error.data).toMatchObject({ glob: 'notes/secret/**' });
  });

  it('after the refused move, the denied file is still denied where it was: documents/private/plan.txt does not exist', async () => {
    await world.fails('fs.mv', { fromPath: R(world, 'docs'), toPath: R(world, 'documents') }, 'POLICY_BLOCKED');
    await world.fails('fs.read', { path: R(world, 'documents', 'private', 'plan.txt') }, 'NOT_FOUND');
    await world.fails('fs.read', { path: R(world, 'docs', 'private', 'plan.txt') }, 'POLICY_BLOCKED');
  });

  it('the refusal names the path, the glob and the side: plan() throws before anything is authorized', async () => {
    const plan = toolHandlers['fs.mv'].plan({ fromPath: R(world, 'docs'), toPath: R(world, 'documents') }, world.ctx);
    await expect(plan).rejects.toMatchObject({
      code: 'POLICY_BLOCKED',
      data: { path: R(world, 'docs', 'private'), glob: '**/docs/private/**', side: 'source' },
    });
    const into = toolHandlers['fs.mv'].plan({ fromPath: R(world, 'stuff'), toPath: R(world, 'fresh', 'docs') }, world.ctx);
    await expect(into).rejects.toMatchObject({
      code: 'POLICY_BLOCKED',
      data: { path: R(world, 'fresh', 'docs', 'private'), glob: '**/docs/private/**', side: 'destination' },
    });
  });

  it('a protected directory that appears while the call waits for approval is caught at run, and nothing moves', async () => {
    await world.write('plain/a.txt', 'a');
    const args = { fromPath: R(world, 'plain'), toPath: R(world, 'plain2') };
    await toolHandlers['fs.mv'].plan(args, world.ctx);
    await toolHandlers['fs.mv'].preview(args, world.ctx);
    await world.write('plain/.git/config', '[core]');
    await expect(toolHandlers['fs.mv'].run(args, world.ctx)).rejects.toMatchObject({ code: 'POLICY_BLOCKED' });
    expect(await world.exists(R(world, 'plain', '.git', 'config'))).toBe(true);
    expect(await world.exists(R(world, 'plain2'))).toBe(false);
  });

  it('the same for chmod and for the PromptX move', async () => {
    await world.write('plain/a.txt', 'a');
    const chmod = { path: R(world, 'plain'), mode: '700' };
    await toolHandlers['fs.chmod'].plan(chmod, world.ctx);
    const move = { action: 'move' as const, source: 'plain', destination: 'plain2' };
    await toolHandlers.filesystem.plan(move, world.ctx);
    await world.write('plain/.env', 'KEY=1');
    await expect(toolHandlers['fs.chmod'].run(chmod, world.ctx)).rejects.toMatchObject({ code: 'POLICY_BLOCKED' });
    const out = await toolHandlers.filesystem.run(move, world.ctx);
    expect(JSON.parse(out.text)).toMatchObject({ success: false, error: { code: 'PERMISSION_DENIED' } });
    expect(((await fs.stat(R(world, 'plain'))).mode & 0o777).toString(8)).not.toBe('700');
    expect(await world.exists(R(world, 'plain2'))).toBe(false);
  });

  it('the approval card says the whole subtree was checked, and names what it holds when a protected path appears', async () => {
    await world.write('plain/a.txt', 'a');
    await world.write('plain/sub/b.txt', 'b');
    const args = { fromPath: R(world, 'plain'), toPath: R(world, 'plain2') };
    const preview = await toolHandlers['fs.mv'].preview(args, world.ctx);
    expect(preview.title).toMatch(/a directory with 3 entries, none protected by a deny glob/);
    // the card words the title from these in the person's language
    expect(preview.heading).toEqual({ kind: 'move', from: R(world, 'plain'), to: R(world, 'plain2'), overwrite: false, entries: 3 });
    const removal = await toolHandlers['fs.rm'].preview({ path: R(world, 'plain'), recursive: true }, world.ctx);
    expect(removal.heading).toEqual({ kind: 'delete', path: R(world, 'plain'), what: 'directory', entries: 3 });
    await world.write('plain/.git/HEAD', 'ref');
    const warned = await toolHandlers['fs.mv'].preview(args, world.ctx);
    expect(warned.title).toContain(R(world, 'plain', '.git'));
    expect(warned.title).toMatch(/protected.*deny glob "\*\*\/\.git\/\*\*".*will be refused/);
    expect(warned.paths).toContain(R(world, 'plain', '.git'));
    // the refusal's facts, for the card to word in the person's language too
    expect(warned.heading).toEqual({ kind: 'refused', change: 'move', path: R(world, 'plain'), to: R(world, 'plain2'), overwrite: false, protected: R(world, 'plain', '.git'), glob: '**/.git/**' });
    const rm = await toolHandlers['fs.rm'].preview({ path: R(world, 'docs'), recursive: true }, world.ctx);
    expect(rm.title).toMatch(/will be refused/);
    expect(rm.heading).toEqual({ kind: 'refused', change: 'remove', path: R(world, 'docs'), protected: expect.stringContaining(R(world, 'docs', 'private')), glob: '**/docs/private/**' });
  });

  it('a plain directory (nothing protected inside) still moves, chmods and is removed', async () => {
    await world.write('plain/a.txt', 'a');
    await world.write('plain/sub/b.txt', 'b');
    await world.call('fs.mv', { fromPath: R(world, 'plain'), toPath: R(world, 'plain2') });
    expect(await world.read('plain2/sub/b.txt')).toBe('b');
    await world.call('fs.chmod', { path: R(world, 'plain2'), mode: '750' });
    expect((await fs.stat(R(world, 'plain2'))).mode & 0o777).toBe(0o750);
    await world.call('filesystem', { action: 'move', source: 'plain2', destination: 'plain3' });
    expect(await world.read('plain3/a.txt')).toBe('a');
    await world.call('fs.rm', { path: R(world, 'plain3'), recursive: true });
    expect(await world.exists(R(world, 'plain3'))).toBe(false);
  });

  it('a symlink inside the subtree is moved as a link: what it points to (a .git outside) is not walked', async () => {
    await fs.mkdir(path.join(world.outside, 'repo', '.git'), { recursive: true });
    await world.write('plain/a.txt', 'a');
    await fs.symlink(path.join(world.outside, 'repo'), R(world, 'plain', 'repo-link'));
    await world.call('fs.mv', { fromPath: R(world, 'plain'), toPath: R(world, 'plain2') });
    expect(await fs.readlink(R(world, 'plain2', 'repo-link'))).toBe(path.join(world.outside, 'repo'));
  });

  it(`a subtree too big to check (over ${MAX_SUBTREE_ENTRIES} entries) is refused with LIMIT_EXCEEDED, not approved unchecked`, async () => {
    const big = R(world, 'big');
    await fs.mkdir(big);
    const names = Array.from({ length: MAX_SUBTREE_ENTRIES + 1 }, (_, i) => path.join(big, `f${i}`));
    for (let i = 0; i < names.length; i += 500) await Promise.all(names.slice(i, i + 500).map((name) => fs.writeFile(name, '')));
    for (const [tool, args] of [
      ['fs.mv', { fromPath: big, toPath: R(world, 'big2') }],
      ['fs.rm', { path: big, recursive: true }],
      ['fs.chmod', { path: big, mode: '700' }],
    ] as const) {
      await world.fails(tool, args, 'LIMIT_EXCEEDED', new RegExp(`more than ${MAX_SUBTREE_ENTRIES} entries`));
    }
    expect((await fs.readdir(big)).length).toBe(MAX_SUBTREE_ENTRIES + 1);
    expect(await world.exists(R(world, 'big2'))).toBe(false);
  });

  it.skipIf(process.getuid?.() === 0)('a directory inside the subtree that cannot be read is refused (what it holds is unknown)', async () => {
    await world.write('plain/locked/inner.txt', 'x');
    await fs.chmod(R(world, 'plain', 'locked'), 0o000);
    try {
      await world.fails('fs.mv', { fromPath: R(world, 'plain'), toPath: R(world, 'plain2') }, 'FORBIDDEN', /cannot be read/);
    } finally {
      await fs.chmod(R(world, 'plain', 'locked'), 0o755);
    }
  });
});

describe('subtree attacks through an auto_coder plan: delete_directory', () => {
  let world: PlanWorld;
  beforeEach(async () => {
    world = await createPlanWorld();
    await world.write('project/src/a.ts', 'a');
    await world.write('project/.git/HEAD', 'ref: refs/heads/main');
    await world.write('old/x.txt', 'x');
  });
  afterEach(() => world.dispose());

  it('delete_directory of a project holding a nested .git fails with POLICY_BLOCKED and refuses the plan: nothing removed; a plain one alone goes', async () => {
    const plan: AutocoderPlan = {
      type: 'operate',
      file_operations: [
        { action_type: 'delete_directory', path: 'project' },
        { action_type: 'delete_directory', path: 'old' },
      ],
    };
    const response = parseExecutorResponse(await runAutocoderPlan(plan, world.ctx(), { auditId: 'audit-1' }));
    expect(response.file_actions[0]).toMatchObject({ status: 'failure', action: 'delete_directory', path: 'project' });
    expect(response.file_actions[0].error).toMatch(/^POLICY_BLOCKED: .*project\/\.git.*deny glob "\*\*\/\.git\/\*\*"/);
    expect(response.file_actions[1]).toMatchObject({ status: 'failure', action: 'delete_directory', path: 'old' });
    expect(response.file_actions[1].error).toMatch(/^POLICY_BLOCKED: file action 1 \(delete_directory "project"\) was refused, so no part of the plan ran/);
    expect(await world.read('project/.git/HEAD')).toBe('ref: refs/heads/main');
    expect(await world.read('project/src/a.ts')).toBe('a');
    expect(await world.exists('old/x.txt')).toBe(true);
    const alone = parseExecutorResponse(await runAutocoderPlan({ type: 'operate', file_operations: [plan.file_operations![1]!] }, world.ctx(), { auditId: 'audit-2' }));
    expect(alone.file_actions[0]).toEqual({ status: 'success', action: 'delete_directory', path: 'old' });
    expect(await world.exists('old/x.txt')).toBe(false);
  });
});
