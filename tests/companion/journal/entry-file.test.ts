import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJournal } from '../../../companion/journal';
import { INLINE_BEFORE_BYTES } from '../../../companion/journal/records';
import { sha256 } from '../../../companion/fsx/sha256';
import { executingBeside, IO_MODES } from '../io-modes';
import { createWorld, type World } from '../tools/world';
import { markUnfinished, readIntent, stateFile } from './entry-files';

/** The format-2 entry file (companion/journal/entry-file.ts): torn lines, planted lines, large before-images. */
let world: World;
beforeEach(async () => {
  world = await createWorld();
  await world.write('a.txt', 'alpha\n');
});
afterEach(() => world.cleanup());

const fresh = () => createJournal({ dir: world.journalDir, policy: world.policy });

// every case with the file-system calls on the main thread and through the thread pool (io-modes.ts)
describe.each(IO_MODES)('journal entry file (format 2), %s', (_mode, others) => {
  executingBeside(others);

  it('one file per change, no folder, for an overwrite: the intent, the record with the before-image inline, the applied state', async () => {
    const entry = await world.journal.apply('w', [{ op: 'write', path: path.join(world.root, 'a.txt'), content: 'changed\n' }]);
    expect(await fs.readdir(world.journalDir)).toEqual([`${entry.id}.jsonl`]);
    const lines = (await fs.readFile(stateFile(world.journalDir, entry.id), 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.t)).toEqual(['intent', 'expect', 'undo', 'state']);
    expect(lines[1]).toEqual({ t: 'expect', path: path.join(world.root, 'a.txt'), sha256: sha256('changed\n'), mode: 0o644 });
    expect(Buffer.from(lines[2].bytes, 'base64').toString()).toBe('alpha\n');
    expect(lines[3]).toMatchObject({ state: 'applied', after: { [path.join(world.root, 'a.txt')]: { kind: 'file', mode: 0o644 } } });
  });

  it.each([
    ['torn (the rename lasted, the content did not)', ''],
    ['holding other bytes', 'chang\n'],
  ])('a lone write whose applied line never reached the disk, its file %s: rolled back to the before-image', async (_what, content) => {
    const entry = await world.journal.apply('w', [{ op: 'write', path: path.join(world.root, 'a.txt'), content: 'changed\n' }]);
    await markUnfinished(world.journalDir, entry.id);
    await fs.writeFile(path.join(world.root, 'a.txt'), content);
    expect(await fresh().recover()).toEqual([entry.id]);
    expect(await world.read('a.txt')).toBe('alpha\n');
    expect((await fresh().list())[0]).toMatchObject({ id: entry.id, state: 'rolled-back' });
  });

  it('a lone write whose applied line never reached the disk, its file complete: recorded as applied, and it undoes', async () => {
    const created = await world.journal.apply('c', [{ op: 'write', path: path.join(world.root, 'new/deep/n.txt'), content: 'new\n' }]);
    const entry = await world.journal.apply('w', [{ op: 'write', path: path.join(world.root, 'a.txt'), content: 'changed\n' }]);
    await markUnfinished(world.journalDir, created.id);
    await markUnfinished(world.journalDir, entry.id);
    const journal = fresh();
    expect(await journal.recover()).toEqual([]);
    expect(await world.read('a.txt')).toBe('changed\n');
    expect((await journal.list()).map((e) => [e.id, e.state])).toEqual([
      [entry.id, 'applied'],
      [created.id, 'applied'],
    ]);
    await journal.undo(entry.id);
    expect(await world.read('a.txt')).toBe('alpha\n');
    await journal.undo(created.id);
    expect(await world.exists(path.join(world.root, 'new'))).toBe(false);
  });

  it('a lone overwrite whose file holds the new bytes with another mode is not taken as complete', async () => {
    const entry = await world.journal.apply('w', [{ op: 'write', path: path.join(world.root, 'a.txt'), content: 'changed\n' }]);
    await markUnfinished(world.journalDir, entry.id);
    await fs.chmod(path.join(world.root, 'a.txt'), 0o600);
    expect(await fresh().recover()).toEqual([entry.id]);
    expect(await world.read('a.txt')).toBe('alpha\n');
    expect(((await fs.stat(path.join(world.root, 'a.txt'))).mode & 0o777).toString(8)).toBe('644');
  });

  it('a torn last line (the process died appending it) is left out, cut off, and the entry recovered', async () => {
    const entry = await world.journal.apply('w', [{ op: 'write', path: path.join(world.root, 'a.txt'), content: 'changed\n' }]);
    const file = await markUnfinished(world.journalDir, entry.id);
    await fs.appendFile(file, '{"t":"undo","undo":{"type":"restore-fi');
    // the file torn too, so the entry is rolled back (not found complete)
    await fs.writeFile(path.join(world.root, 'a.txt'), '');
    expect(await fresh().recover()).toEqual([entry.id]);
    expect(await world.read('a.txt')).toBe('alpha\n');
    // the state line went where the torn one was: the file reads whole again
    expect(await fs.readFile(file, 'utf8')).not.toContain('restore-fi"');
    expect((await readIntent(file)).state).toBe('rolled-back');
    expect(await fresh().recover()).toEqual([]);
  });

  it('a file whose intent line is torn holds no change: recover() removes it', async () => {
    const id = '20260101T000000000Z-0badf00d';
    await fs.mkdir(world.journalDir, { recursive: true });
    await fs.writeFile(path.join(world.journalDir, `${id}.jsonl`), '{"t":"intent","intent":{"id":"2026');
    expect(await fresh().recover()).toEqual([]);
    expect(await fs.readdir(world.journalDir)).toEqual([]);
  });

  it.each([
    ['a path outside the roots', (outside: string) => ({ type: 'restore-file', path: path.join(outside, 'victim.txt'), ref: 'before/0', mode: 0o644 })],
    ['a ref that leaves the entry', (_: string, root: string) => ({ type: 'restore-file', path: path.join(root, 'a.txt'), ref: '../../x', mode: 0o644 })],
    ['bytes on a record that is not restore-file', (_: string, root: string) => ({ type: 'remove-created', path: path.join(root, 'a.txt'), dir: false })],
  ])('a planted entry with %s is quarantined whole, never replayed', async (_what, record) => {
    const victim = path.join(world.outside, 'victim.txt');
    await fs.writeFile(victim, 'original');
    const id = '20260101T000000000Z-deadbeef';
    const intent = {
      id,
      time: new Date().toISOString(),
      label: 'fs.write',
      state: 'applying',
      ops: [{ op: 'write', path: path.join(world.root, 'a.txt'), mode: 'overwrite', bytes: 1, sha256: 'x' }],
      paths: [path.join(world.root, 'a.txt')],
    };
    const lines = [{ t: 'intent', intent }, { t: 'undo', undo: record(world.outside, world.root), bytes: Buffer.from('attacker bytes').toString('base64') }];
    await fs.mkdir(world.journalDir, { recursive: true });
    await fs.writeFile(path.join(world.journalDir, `${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const reported: string[] = [];
    const journal = createJournal({ dir: world.journalDir, policy: world.policy, onQuarantine: (entry) => reported.push(entry) });
    expect(await journal.recover()).toEqual([]);
    expect(reported).toEqual([id]);
    expect(await fs.readFile(victim, 'utf8')).toBe('original');
    expect(await world.read('a.txt')).toBe('alpha\n');
    expect(existsSync(path.join(world.journalDir, 'quarantine', id, 'entry.jsonl'))).toBe(true);
    expect(existsSync(path.join(world.journalDir, `${id}.jsonl`))).toBe(false);
  });

  it('a before-image too large to go inline is its own file beside the entry, and undo restores it', async () => {
    const big = 'b'.repeat(INLINE_BEFORE_BYTES + 1);
    await world.write('big.txt', big);
    const entry = await world.journal.apply('w', [{ op: 'write', path: path.join(world.root, 'big.txt'), content: 'small\n' }]);
    expect(await fs.readFile(path.join(world.journalDir, entry.id, 'before', '0'), 'utf8')).toBe(big);
    const lines = (await fs.readFile(stateFile(world.journalDir, entry.id), 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines[2]).toEqual({ t: 'undo', undo: { type: 'restore-file', path: path.join(world.root, 'big.txt'), ref: 'before/0', mode: 0o644 } });
    await world.journal.undo(entry.id);
    expect(await world.read('big.txt')).toBe(big);
  });

  it('prune removes an entry file and the folder beside it', async () => {
    await world.write('d/x.txt', 'x');
    const entry = await world.journal.apply('rm', [{ op: 'rm', path: path.join(world.root, 'd'), recursive: true }]);
    expect((await fs.readdir(world.journalDir)).sort()).toEqual([entry.id, `${entry.id}.jsonl`]);
    const tiny = createJournal({ dir: world.journalDir, policy: { ...world.policy, journal: { maxAgeDays: 10, maxBytes: 1 } } });
    await tiny.prune();
    expect(await fs.readdir(world.journalDir)).toEqual([]);
  });
});
