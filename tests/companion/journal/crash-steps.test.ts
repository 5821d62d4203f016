import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJournal } from '../../../companion/journal';
import { createWorld, type World } from '../tools/world';
import { editLater, snapshot } from './entry-files';

/**
 * One write killed with SIGKILL right after each step of the journal's format 2 (entry-file.ts): before anything is
 * recorded; with the intent, the record, the before-image inline and the `expect` line durable; with the temp file
 * written; after the rename; with the content and the directory fsync'd; with the applied line written (its fsync
 * not awaited). recover() must then leave exactly the before-state, or — once the file holds the whole new content —
 * exactly the after-state recorded as applied (journal.ts, deriveApplied), with no temp file of ours in the folder;
 * an applied one still undoes. A torn file (what a machine stop can leave, not a kill) is in entry-file.test.ts.
 */
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'crash-step-child.ts');
const STEPS = ['op', 'recorded', 'temp-written', 'renamed', 'synced', 'applied'] as const;
/** Killed after these, the file already holds the new bytes (a killed process's writes stay in the page cache). */
const COMPLETE = new Set<string>(['renamed', 'synced', 'applied']);

/** Runs the child until it reports `step`, then kills it there; returns what it printed. */
async function killAt(world: World, kind: 'overwrite' | 'create', step: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, world.journalDir, world.root, kind], {
    env: { ...process.env, CHATBRIDGE_JOURNAL_TEST_DELAY_MS: '400' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`never reached step ${step}: ${output}`)), 20_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`step ${step}\n`)) {
        clearTimeout(timer);
        child.kill('SIGKILL');
        resolve();
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited before step ${step}: ${output}`));
    });
  });
  expect(await exited).toBe('SIGKILL');
  expect(output).not.toContain('finished');
  return output;
}

describe('SIGKILL right after each durable step of one write, then recover()', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld();
    await world.write('a.txt', 'before\n');
    await fs.chmod(path.join(world.root, 'a.txt'), 0o640);
  });
  afterEach(() => world.cleanup());

  for (const kind of ['overwrite', 'create'] as const) {
    it.each(STEPS)(`${kind}: killed after "%s"`, async (step) => {
      const before = await snapshot(world.root);
      await killAt(world, kind, step);
      const journal = createJournal({ dir: world.journalDir, policy: world.policy });
      const repaired = await journal.recover();
      const now = await snapshot(world.root);
      expect(Object.keys(now).filter((name) => name.endsWith('.chatbridge-tmp'))).toEqual([]);
      const entries = await journal.list();
      if (!COMPLETE.has(step)) {
        expect(now).toEqual(before);
        if (step === 'op') {
          // nothing was durable yet: no entry is left at all
          expect(repaired).toEqual([]);
          expect(entries).toEqual([]);
          expect(await fs.readdir(world.journalDir).catch(() => [])).toEqual([]);
        } else {
          expect(repaired).toHaveLength(1);
          expect(entries).toMatchObject([{ id: repaired[0], state: 'rolled-back' }]);
        }
        expect(await journal.recover()).toEqual([]);
        return;
      }
      // the write was complete: the change stays, recorded as applied, and undo brings the before-state back
      expect(repaired).toEqual([]);
      expect(entries).toMatchObject([{ state: 'applied' }]);
      const changed = kind === 'overwrite' ? 'a.txt' : path.join('fresh', 'deep', 'new.txt');
      expect(now[changed]).toMatch(new RegExp(`after \\(${kind}\\)`));
      if (kind === 'overwrite') expect(now['a.txt']).toMatch(/^640 /);
      expect((await journal.undo(entries[0]!.id)).state).toBe('undone');
      expect(await snapshot(world.root)).toEqual(before);
    }, 30_000);
  }

  // The companion stays down after the kill, and the person goes on working before it starts again: the rollback
  // must not put the older file over their edit, nor remove a file they made in the folders the change had made.
  // (A file changed within moments of the kill is the change's own, torn by a machine stop: entry-file.test.ts.)
  it.each([
    ['overwrite', 'recorded', 'a.txt'],
    ['create', 'renamed', path.join('fresh', 'deep', 'new.txt')],
  ] as const)('%s killed after "%s", then edited by the person: recover() keeps the edit and says so', async (kind, step, name) => {
    await killAt(world, kind, step);
    await editLater(path.join(world.root, name), 'the person edited this after the crash\n');
    if (kind === 'create') await fs.writeFile(path.join(world.root, 'fresh', 'notes.txt'), 'made by the person\n');
    const kept: string[][] = [];
    const journal = createJournal({ dir: world.journalDir, policy: world.policy, onKeptAsFound: (_id, paths) => kept.push([...paths]) });
    const repaired = await journal.recover();
    const now = await snapshot(world.root);
    expect(now[name]).toMatch(/the person edited this after the crash/);
    if (kind === 'create') expect(now[path.join('fresh', 'notes.txt')]).toMatch(/made by the person/);
    expect(repaired).toHaveLength(1);
    const [entry] = await journal.list();
    expect(entry).toMatchObject({ id: repaired[0], state: 'rolled-back' });
    expect(kept).toHaveLength(1);
    expect(kept[0]![0]).toBe(`${JSON.stringify(path.join(world.root, name))} (the file was changed after the change was interrupted)`);
    if (kind === 'create') expect(kept[0]!.slice(1).join(' ')).toContain('"notes.txt"');
    // the entry says so too, for whoever reads it later
    expect(await fs.readFile(path.join(world.journalDir, `${entry!.id}.jsonl`), 'utf8')).toContain('kept as found');
    expect(await journal.recover()).toEqual([]);
  }, 30_000);
});
