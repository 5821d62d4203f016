import { cpSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJournal } from '../../../companion/journal';
import { createWorld, type World } from '../tools/world';
import { markUnfinished, readIntent, snapshot } from './entry-files';

/**
 * Entries of journal format 1 (`<id>/intent.json`, `undo.jsonl`, `before/`, `trash/`), as the journal wrote them
 * until 2026-11-25: fixtures/v1-entry was written by that code (an applied batch: overwrite with a chmod, a new file
 * in new folders, rm of a folder, mv, mkdir -p), its root replaced by @ROOT@. A journal that now writes format 2
 * must still undo such an entry, and recover one left unfinished, to exactly the before-state.
 */
const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'v1-entry');

let world: World;
let id: string;
let before: Record<string, string>;

beforeEach(async () => {
  world = await createWorld();
  const root = world.root;
  // the before-state, as the fixture's batch found it
  await world.write('a.txt', 'alpha\n');
  await fs.chmod(path.join(root, 'a.txt'), 0o640);
  await world.write('dir/b.txt', 'beta\n');
  await world.write('dir/sub/c.txt', 'gamma\n');
  await world.write('m.txt', 'em\n');
  before = await snapshot(root);
  // the after-state the entry recorded: dir/ went to the entry's trash, m.txt was moved
  await fs.rm(path.join(root, 'dir'), { recursive: true });
  await fs.rename(path.join(root, 'm.txt'), path.join(root, 'moved.txt'));
  await fs.writeFile(path.join(root, 'a.txt'), 'changed\n');
  await fs.chmod(path.join(root, 'a.txt'), 0o600);
  await world.write('new/deep/n.txt', 'new\n');
  await fs.mkdir(path.join(root, 'made/x'), { recursive: true });
  // the entry itself, its paths moved to this root
  const intentText = await fs.readFile(path.join(FIXTURE, 'intent.json'), 'utf8');
  id = (JSON.parse(intentText) as { id: string }).id;
  const entry = path.join(world.journalDir, id);
  cpSync(FIXTURE, entry, { recursive: true });
  for (const name of ['intent.json', 'undo.jsonl']) {
    const file = path.join(entry, name);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replaceAll('@ROOT@', root));
  }
});
afterEach(() => world.cleanup());

describe('journal format 1 entries, read by the present journal', () => {
  it('an applied one is listed and undone to exactly the before-state; its state stays in intent.json', async () => {
    expect(await world.journal.list()).toMatchObject([{ id, state: 'applied', label: 'fixture batch' }]);
    expect((await world.journal.undo(id)).state).toBe('undone');
    expect(await snapshot(world.root)).toEqual(before);
    expect((await readIntent(path.join(world.journalDir, id, 'intent.json'))).state).toBe('undone');
    // a format-2 entry written beside it lists with it
    const next = await world.journal.apply('w', [{ op: 'write', path: path.join(world.root, 'a.txt'), content: 'x' }]);
    expect((await world.journal.list()).map((e) => [e.id, e.state])).toEqual([
      [next.id, 'applied'],
      [id, 'undone'],
    ]);
    expect(await fs.readdir(world.journalDir)).toEqual([`${next.id}.jsonl`, id].sort());
  });

  it('one left unfinished (applying) is rolled back by recover()', async () => {
    await markUnfinished(world.journalDir, id);
    const journal = createJournal({ dir: world.journalDir, policy: world.policy });
    expect(await journal.recover()).toEqual([id]);
    expect(await snapshot(world.root)).toEqual(before);
    expect((await readIntent(path.join(world.journalDir, id, 'intent.json'))).state).toBe('rolled-back');
    expect(await journal.recover()).toEqual([]);
  });

  it('one with a torn last undo line is recovered without it', async () => {
    await markUnfinished(world.journalDir, id);
    await fs.appendFile(path.join(world.journalDir, id, 'undo.jsonl'), '{"type":"restore-fi');
    expect(await createJournal({ dir: world.journalDir, policy: world.policy }).recover()).toEqual([id]);
    expect(await snapshot(world.root)).toEqual(before);
  });
});
