import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../../shared/errors';
import { createJournal } from '../../../companion/journal';
import { sha256 } from '../../../companion/fsx/sha256';
import { executingBeside, IO_MODES } from '../io-modes';
import { createWorld, type World } from '../tools/world';
import { markUnfinished, readIntent, snapshot, stateFile } from './entry-files';

async function rejection(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

// every case with the file-system calls on the main thread and through the thread pool (io-modes.ts)
describe.each(IO_MODES)('journal, %s', (_mode, others) => {
  executingBeside(others);

  let world: World;
  let root: string;
  beforeEach(async () => {
    world = await createWorld();
    root = world.root;
    await world.write('a.txt', 'alpha\n');
    await world.write('dir/b.txt', 'beta\n');
    await world.write('dir/sub/c.txt', 'gamma\n');
  });
  afterEach(() => world.cleanup());

  it('writes intent, undo records and before-images, then undo restores the before-state', async () => {
    const before = await snapshot(root);
    const entry = await world.journal.apply(
      'batch',
      [
        { op: 'write', path: path.join(root, 'a.txt'), content: 'changed\n' },
        { op: 'write', path: path.join(root, 'new/deep/n.txt'), content: 'new\n' },
        { op: 'rm', path: path.join(root, 'dir'), recursive: true },
        { op: 'mkdir', path: path.join(root, 'made/x'), parents: true },
        { op: 'chmod', path: path.join(root, 'a.txt'), mode: 0o600 },
      ],
      world.ctx.origin,
    );
    expect(entry.state).toBe('applied');
    expect(entry.origin).toEqual(world.ctx.origin);
    expect(await world.read('a.txt')).toBe('changed\n');
    expect(await world.read('new/deep/n.txt')).toBe('new\n');
    expect(await world.exists(path.join(root, 'dir'))).toBe(false);
    const entryDir = path.join(world.journalDir, entry.id);
    const intent = await readIntent(stateFile(world.journalDir, entry.id));
    expect(intent.state).toBe('applied');
    expect(intent.ops.map((op: { op: string }) => op.op)).toEqual(['write', 'write', 'rm', 'mkdir', 'chmod']);
    // the new content is never stored (the before-image of a.txt is, inline and base64)
    expect(await fs.readFile(stateFile(world.journalDir, entry.id), 'utf8')).not.toContain(Buffer.from('changed\n').toString('base64'));
    expect(JSON.stringify(intent)).not.toContain('changed');
    // the removed directory sits whole in the entry's trash
    const trash = await fs.readdir(path.join(entryDir, 'trash'));
    expect(trash).toHaveLength(1);
    expect(await fs.readFile(path.join(entryDir, 'trash', trash[0]!, 'sub', 'c.txt'), 'utf8')).toBe('gamma\n');

    const undone = await world.journal.undo(entry.id);
    expect(undone.state).toBe('undone');
    expect(await snapshot(root)).toEqual(before);
    expect((await world.journal.list()).map((e) => [e.id, e.state])).toEqual([[entry.id, 'undone']]);
  });

  it('undo conflict: a file changed after the entry → CONFLICT naming the path, nothing restored', async () => {
    const entry = await world.journal.apply('w', [{ op: 'write', path: path.join(root, 'a.txt'), content: 'mine\n' }]);
    await fs.writeFile(path.join(root, 'a.txt'), 'someone else\n');
    const error = await rejection(world.journal.undo(entry.id));
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain(path.join(root, 'a.txt'));
    expect(await world.read('a.txt')).toBe('someone else\n');
    expect((await world.journal.list())[0]!.state).toBe('applied');
  });

  it('undo conflict: a file added into a directory the entry created', async () => {
    const entry = await world.journal.apply('w', [{ op: 'write', path: path.join(root, 'fresh/f.txt'), content: 'f' }]);
    await fs.writeFile(path.join(root, 'fresh/other.txt'), 'not mine');
    const error = await rejection(world.journal.undo(entry.id));
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain(path.join(root, 'fresh'));
  });

  it('undo twice → CONFLICT; unknown id → NOT_FOUND', async () => {
    const entry = await world.journal.apply('w', [{ op: 'write', path: path.join(root, 'a.txt'), content: 'x' }]);
    await world.journal.undo(entry.id);
    expect((await rejection(world.journal.undo(entry.id))).code).toBe('CONFLICT');
    expect((await rejection(world.journal.undo('20260101T000000000Z-00000000'))).code).toBe('NOT_FOUND');
    expect((await rejection(world.journal.undo('../../etc'))).code).toBe('NOT_FOUND');
  });

  it('batch failure rollback: a later op fails → every earlier op is undone and the error is rethrown', async () => {
    const before = await snapshot(root);
    const error = await rejection(
      world.journal.apply('batch', [
        { op: 'write', path: path.join(root, 'a.txt'), content: 'first\n' },
        { op: 'write', path: path.join(root, 'brand/new/file.txt'), content: 'second\n' },
        { op: 'mv', from: path.join(root, 'dir/b.txt'), to: path.join(root, 'moved.txt') },
        { op: 'write', path: path.join(root, 'dir/sub/c.txt'), content: 'third\n', expectedSha256: sha256('not what is there') },
      ]),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain(sha256('not what is there'));
    expect(error.message).toContain(sha256('gamma\n'));
    expect(await snapshot(root)).toEqual(before);
    const [entry] = await world.journal.list();
    expect(entry!.state).toBe('rolled-back');
  });

  it('mv with overwrite keeps the replaced file in the trash and undo brings both back', async () => {
    const before = await snapshot(root);
    await expect(world.journal.apply('mv', [{ op: 'mv', from: path.join(root, 'a.txt'), to: path.join(root, 'dir/b.txt') }])).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    const entry = await world.journal.apply('mv', [{ op: 'mv', from: path.join(root, 'a.txt'), to: path.join(root, 'dir/b.txt'), overwrite: true }]);
    expect(await world.read('dir/b.txt')).toBe('alpha\n');
    await world.journal.undo(entry.id);
    expect(await snapshot(root)).toEqual(before);
  });

  it('append keeps the existing bytes; empty content is a valid write', async () => {
    await world.journal.apply('a', [{ op: 'write', path: path.join(root, 'a.txt'), content: 'more\n', mode: 'append' }]);
    expect(await world.read('a.txt')).toBe('alpha\nmore\n');
    await world.journal.apply('e', [{ op: 'write', path: path.join(root, 'empty.txt'), content: '' }]);
    expect(await world.read('empty.txt')).toBe('');
  });

  it('writes are atomic: no temp files are left next to the target', async () => {
    await world.journal.apply('w', [{ op: 'write', path: path.join(root, 'dir/b.txt'), content: 'new' }]);
    expect((await fs.readdir(path.join(root, 'dir'))).sort()).toEqual(['b.txt', 'sub']);
  });

  it('symlink swap between check and write: the directory is re-resolved and the write refused', async () => {
    await fs.writeFile(path.join(world.outside, 'b.txt'), 'outside');
    const target = path.join(root, 'dir', 'b.txt'); // checked while dir was a real directory
    await fs.rename(path.join(root, 'dir'), path.join(root, 'dir-real'));
    await fs.symlink(world.outside, path.join(root, 'dir'));
    const error = await rejection(world.journal.apply('w', [{ op: 'write', path: target, content: 'pwned' }]));
    expect(error.code).toBe('FORBIDDEN');
    expect(await fs.readFile(path.join(world.outside, 'b.txt'), 'utf8')).toBe('outside');
    expect(await fs.readdir(world.outside)).toEqual(['b.txt']);
  });

  it('undo refuses to restore through a directory swapped for a symlink after the entry', async () => {
    const entry = await world.journal.apply('w', [{ op: 'write', path: path.join(root, 'dir/b.txt'), content: 'mine\n' }]);
    await fs.writeFile(path.join(world.outside, 'b.txt'), 'mine\n');
    await fs.rename(path.join(root, 'dir'), path.join(root, 'dir-real'));
    await fs.symlink(world.outside, path.join(root, 'dir'));
    const error = await rejection(world.journal.undo(entry.id));
    expect(error.code).toBe('FORBIDDEN');
    expect(await fs.readFile(path.join(world.outside, 'b.txt'), 'utf8')).toBe('mine\n');
    expect((await world.journal.list())[0]).toMatchObject({ id: entry.id, state: 'applied' });
  });

  it('prune drops entries past maxAgeDays and beyond maxBytes, oldest first', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const policy = { ...world.policy, journal: { maxAgeDays: 10, maxBytes: 1_000_000 } };
    const journal = createJournal({ dir: path.join(world.tmp, 'j2'), policy, now: () => now });
    const old = await journal.apply('old', [{ op: 'write', path: path.join(root, 'a.txt'), content: 'v1' }]);
    now = new Date('2026-01-20T00:00:00Z');
    const recent = await journal.apply('recent', [{ op: 'write', path: path.join(root, 'a.txt'), content: 'v2' }]);
    await journal.prune();
    expect((await journal.list()).map((e) => e.id)).toEqual([recent.id]);
    expect(old.id < recent.id).toBe(true);

    const tiny = createJournal({ dir: path.join(world.tmp, 'j3'), policy: { ...policy, journal: { maxAgeDays: 10, maxBytes: 1 } }, now: () => now });
    await tiny.apply('one', [{ op: 'write', path: path.join(root, 'a.txt'), content: 'x'.repeat(5000) }]);
    await tiny.apply('two', [{ op: 'write', path: path.join(root, 'a.txt'), content: 'y' }]);
    await tiny.prune();
    expect(await tiny.list()).toEqual([]);
  });

  it('recover rolls back an entry left in `applying` and leaves applied ones alone', async () => {
    const applied = await world.journal.apply('ok', [{ op: 'write', path: path.join(root, 'a.txt'), content: 'kept\n' }]);
    // a batch (a lone write whose file holds its new bytes is recorded as applied instead: entry-file.test.ts)
    const entry = await world.journal.apply('w', [
      { op: 'write', path: path.join(root, 'dir/b.txt'), content: 'half\n' },
      { op: 'mkdir', path: path.join(root, 'dir/made') },
    ]);
    // simulate a crash after the ops ran but before `applied` was recorded
    await markUnfinished(world.journalDir, entry.id);
    const fresh = createJournal({ dir: world.journalDir, policy: world.policy });
    expect(await fresh.recover()).toEqual([entry.id]);
    expect(await world.read('dir/b.txt')).toBe('beta\n');
    expect(await world.exists(path.join(root, 'dir/made'))).toBe(false);
    expect(await world.read('a.txt')).toBe('kept\n');
    expect(await fresh.recover()).toEqual([]);
    expect((await fresh.list()).find((e) => e.id === applied.id)?.state).toBe('applied');
  });

  it('an empty op list is INVALID_INPUT', async () => {
    expect((await rejection(world.journal.apply('none', []))).code).toBe('INVALID_INPUT');
  });
});
