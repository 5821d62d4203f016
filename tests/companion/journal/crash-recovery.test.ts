import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJournal } from '../../../companion/journal';
import { createWorld, type World } from '../tools/world';
import { editLater, snapshot, undoRecords } from './entry-files';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'crash-child.ts');
const FILES = 40;

async function undoRecordCount(journalDir: string): Promise<number> {
  return (await undoRecords(journalDir)).length;
}

describe('crash recovery (SIGKILL in the middle of a batch)', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld();
    for (let i = 0; i < FILES; i += 2) await world.write(`existing-${i}.txt`, `original ${i}\n`);
    await world.write('to-remove/keep.txt', 'must survive\n');
  });
  afterEach(() => world.cleanup());

  async function tempFileCount(dir: string): Promise<number> {
    let count = 0;
    for (const name of await fs.readdir(dir, { recursive: true })) if (String(name).endsWith('.chatbridge-tmp')) count++;
    return count;
  }

  it.each([
    ['between two ops', async (w: World) => (await undoRecordCount(w.journalDir)) >= 12],
    ['with a temp file written but not renamed', async (w: World) => (await undoRecordCount(w.journalDir)) >= 6 && (await tempFileCount(w.root)) > 0],
  ])('kill -9 mid-batch (%s), then recover() restores the before-state exactly', async (_when, killNow) => {
    const before = await snapshot(world.root);
    await killMidBatch(killNow);

    const halfway = await snapshot(world.root);
    expect(halfway).not.toEqual(before); // the kill really left a half-applied batch

    const journal = createJournal({ dir: world.journalDir, policy: world.policy });
    const repaired = await journal.recover();
    expect(repaired).toHaveLength(1);
    expect(await snapshot(world.root)).toEqual(before);
    const [entry] = await journal.list();
    expect(entry).toMatchObject({ id: repaired[0], state: 'rolled-back', label: 'crash test batch' });
    expect(await journal.recover()).toEqual([]);
  });

  it('kill -9 mid-batch, then the person edits a file the batch wrote and adds one to a folder it made: recover() keeps both, restores the rest', async () => {
    const before = await snapshot(world.root);
    await killMidBatch(async (w) => (await undoRecordCount(w.journalDir)) >= 12);
    await editLater(path.join(world.root, 'existing-0.txt'), 'edited by the person\n');
    await fs.writeFile(path.join(world.root, 'new-dir-1', 'mine.txt'), 'made by the person\n');

    const kept: string[] = [];
    const journal = createJournal({ dir: world.journalDir, policy: world.policy, onKeptAsFound: (_id, paths) => kept.push(...paths) });
    expect(await journal.recover()).toHaveLength(1);
    const expected = { ...before, 'existing-0.txt': expect.stringMatching(/edited by the person/), 'new-dir-1': expect.stringMatching(/^<dir/), 'new-dir-1/mine.txt': expect.stringMatching(/made by the person/) };
    expect(await snapshot(world.root)).toEqual(expected);
    expect(kept.map((k) => k.slice(0, k.indexOf(' ('))).sort()).toEqual([JSON.stringify(path.join(world.root, 'existing-0.txt')), JSON.stringify(path.join(world.root, 'new-dir-1'))]);
  });

  async function killMidBatch(killNow: (w: World) => Promise<boolean>): Promise<void> {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, world.journalDir, world.root, String(FILES)], {
      env: { ...process.env, CHATBRIDGE_JOURNAL_TEST_DELAY_MS: '40' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));

    // wait until a good part of the batch has been applied, then kill without warning
    const deadline = Date.now() + 20_000;
    while (!(await killNow(world))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`child never got going: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(output).not.toContain('finished');
  }
});
