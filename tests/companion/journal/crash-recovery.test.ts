import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJournal } from '../../../companion/journal';
import { createWorld, type World } from '../tools/world';
import { snapshot, undoRecords } from './entry-files';

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
});
