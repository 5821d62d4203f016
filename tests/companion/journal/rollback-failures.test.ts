import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJournal } from '../../../companion/journal';
import { createWorld, type World } from '../tools/world';
import { markUnfinished as markEntryUnfinished, readIntent } from './entry-files';

/**
 * Rollback and recovery when one path cannot be restored: the others are restored anyway, the entry stays
 * unfinished naming what is left, and a later recover() converges once the obstacle is gone. A path that still holds
 * its before-image is not rewritten at all (that rewrite is what failed in a directory the process may not write).
 *
 * The tests run as whatever user runs the suite (often root, which no file mode stops), so the restore that fails
 * here is one the journal refuses itself: a directory on the way swapped for a symlink since the entry ran.
 */
let world: World;
let root: string;

beforeEach(async () => {
  world = await createWorld();
  root = world.root;
  await world.write('a.txt', 'alpha\n');
  await world.write('dir/sub/c.txt', 'gamma\n');
});
afterEach(() => world.cleanup());

const markUnfinished = (id: string, state: 'applying' | 'undoing' = 'applying') => markEntryUnfinished(world.journalDir, id, state);

describe('journal rollback when one path cannot be restored', () => {
  it('a file that still holds its before-image is left alone by recover(): same inode, nothing rewritten', async () => {
    const entry = await world.journal.apply('w', [{ op: 'write', path: path.join(root, 'a.txt'), content: 'changed\n' }]);
    // as if the crash came after the undo record and before the write: the file still holds the before-image
    await fs.writeFile(path.join(root, 'a.txt'), 'alpha\n');
    const inode = (await fs.stat(path.join(root, 'a.txt'))).ino;
    await markUnfinished(entry.id);
    expect(await createJournal({ dir: world.journalDir, policy: world.policy }).recover()).toEqual([entry.id]);
    expect(await world.read('a.txt')).toBe('alpha\n');
    expect((await fs.stat(path.join(root, 'a.txt'))).ino).toBe(inode);
  });

  it('a file with the before-image bytes but another mode is restored (mode counts as part of the before-image)', async () => {
    await fs.chmod(path.join(root, 'a.txt'), 0o640);
    const entry = await world.journal.apply('w', [{ op: 'write', path: path.join(root, 'a.txt'), content: 'changed\n' }]);
    await fs.writeFile(path.join(root, 'a.txt'), 'alpha\n');
    await fs.chmod(path.join(root, 'a.txt'), 0o600);
    await markUnfinished(entry.id);
    await createJournal({ dir: world.journalDir, policy: world.policy }).recover();
    expect(((await fs.stat(path.join(root, 'a.txt'))).mode & 0o777).toString(8)).toBe('640');
  });

  it('recover(): one path that cannot be restored does not stop the others; the entry converges once it can', async () => {
    const entry = await world.journal.apply('batch', [
      { op: 'write', path: path.join(root, 'a.txt'), content: 'changed a\n' },
      { op: 'write', path: path.join(root, 'new.txt'), content: 'created\n' },
      // last op, so its record is the first the rollback replays
      { op: 'write', path: path.join(root, 'dir/sub/c.txt'), content: 'changed c\n' },
    ]);
    const intentFile = await markUnfinished(entry.id);
    // dir/sub now leads elsewhere through a symlink: restoring c.txt there would write outside what the entry touched
    const elsewhere = path.join(world.tmp, 'elsewhere');
    await fs.rename(path.join(root, 'dir/sub'), elsewhere);
    await fs.symlink(elsewhere, path.join(root, 'dir/sub'));

    const journal = createJournal({ dir: world.journalDir, policy: world.policy });
    expect(await journal.recover()).toEqual([]);
    // the others are back even though c.txt could not be
    expect(await world.read('a.txt')).toBe('alpha\n');
    expect(await world.exists(path.join(root, 'new.txt'))).toBe(false);
    expect(await fs.readFile(path.join(elsewhere, 'c.txt'), 'utf8')).toBe('changed c\n');
    const stuck = await readIntent(intentFile);
    expect(stuck.state).toBe('applying');
    expect(stuck.error).toContain(JSON.stringify(path.join(root, 'dir/sub/c.txt')));
    expect(stuck.error).toMatch(/through a symlink/);
    expect((await journal.list()).find((e) => e.id === entry.id)).toBeUndefined();

    // the person puts the directory back: the next start finishes the entry, and a third changes nothing
    await fs.rm(path.join(root, 'dir/sub'));
    await fs.rename(elsewhere, path.join(root, 'dir/sub'));
    expect(await journal.recover()).toEqual([entry.id]);
    expect(await world.read('dir/sub/c.txt')).toBe('gamma\n');
    expect(await world.read('a.txt')).toBe('alpha\n');
    expect((await readIntent(intentFile)).state).toBe('rolled-back');
    expect(await journal.recover()).toEqual([]);
  });

  it('an unfinished undo is finished by recover() for the paths it can, and completed later', async () => {
    const entry = await world.journal.apply('batch', [
      { op: 'write', path: path.join(root, 'a.txt'), content: 'changed a\n' },
      { op: 'write', path: path.join(root, 'dir/sub/c.txt'), content: 'changed c\n' },
    ]);
    const intentFile = await markUnfinished(entry.id, 'undoing');
    const elsewhere = path.join(world.tmp, 'elsewhere');
    await fs.rename(path.join(root, 'dir/sub'), elsewhere);
    await fs.symlink(elsewhere, path.join(root, 'dir/sub'));
    const journal = createJournal({ dir: world.journalDir, policy: world.policy });
    expect(await journal.recover()).toEqual([]);
    expect(await world.read('a.txt')).toBe('alpha\n');
    expect((await readIntent(intentFile)).state).toBe('undoing');
    await fs.rm(path.join(root, 'dir/sub'));
    await fs.rename(elsewhere, path.join(root, 'dir/sub'));
    expect(await journal.recover()).toEqual([entry.id]);
    expect((await readIntent(intentFile)).state).toBe('undone');
    expect(await world.read('dir/sub/c.txt')).toBe('gamma\n');
  });

  it('an undo that stopped half-way leaves what the person wrote since: the next starts restore only what is still as the change left it', async () => {
    await world.write('g.sh', 'echo hi\n');
    const entry = await world.journal.apply('mixed', [
      { op: 'write', path: path.join(root, 'a.txt'), content: 'changed a\n' },
      { op: 'write', path: path.join(root, 'new.txt'), content: 'created\n' },
      { op: 'write', path: path.join(root, 'left.txt'), content: 'created too\n' },
      { op: 'chmod', path: path.join(root, 'g.sh'), mode: 0o755 },
    ]);
    // a second name for g.sh: its mode is not restored (mode-guard), so the undo stops with the others done
    await fs.link(path.join(root, 'g.sh'), path.join(root, 'g-also.sh'));
    await expect(world.journal.undo(entry.id)).rejects.toThrow(/is incomplete: .*g\.sh.* the next start retries it/);
    expect(await world.read('a.txt')).toBe('alpha\n');
    expect(await world.exists(path.join(root, 'new.txt'))).toBe(false);
    // the person goes on with the files the undo gave back, and writes the removed one anew
    await fs.writeFile(path.join(root, 'a.txt'), 'my edit after the undo\n');
    await fs.writeFile(path.join(root, 'new.txt'), 'mine now\n');
    const intentFile = path.join(world.journalDir, `${entry.id}.jsonl`);
    expect(await createJournal({ dir: world.journalDir, policy: world.policy }).recover()).toEqual([]);
    expect(await world.read('a.txt')).toBe('my edit after the undo\n');
    expect(await world.read('new.txt')).toBe('mine now\n');
    expect((await readIntent(intentFile)).state).toBe('undoing');
    // once the mode can be restored, the undo finishes, and still leaves the person's files
    await fs.rm(path.join(root, 'g-also.sh'));
    expect(await createJournal({ dir: world.journalDir, policy: world.policy }).recover()).toEqual([entry.id]);
    expect((await readIntent(intentFile)).state).toBe('undone');
    expect(((await fs.stat(path.join(root, 'g.sh'))).mode & 0o777).toString(8)).toBe('644');
    expect(await world.read('a.txt')).toBe('my edit after the undo\n');
    expect(await world.read('new.txt')).toBe('mine now\n');
    expect(await world.exists(path.join(root, 'left.txt'))).toBe(false);
  });
});
