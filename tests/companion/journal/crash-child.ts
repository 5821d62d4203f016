/**
 * Run by crash-recovery.test.ts as a separate process: applies a big batch through a real journal with
 * CHATBRIDGE_JOURNAL_TEST_DELAY_MS set, so the test can SIGKILL it part-way through.
 * argv: <journalDir> <root> <fileCount>
 */
import path from 'node:path';
import { createJournal } from '../../../companion/journal';
import { configSchema, type Policy } from '../../../companion/policy/schema';
import type { FileOp } from '../../../companion/types';

const [journalDir, root, countText] = process.argv.slice(2);
if (!journalDir || !root || !countText) throw new Error('usage: crash-child <journalDir> <root> <fileCount>');
const policy: Policy = { ...configSchema.parse({}), roots: [root], redact: [], reserved: [] };
const journal = createJournal({ dir: journalDir, policy });
const ops: FileOp[] = [];
for (let i = 0; i < Number(countText); i++) {
  // even: overwrite an existing file; odd: create a new file in a new directory
  ops.push(
    i % 2 === 0
      ? { op: 'write', path: path.join(root, `existing-${i}.txt`), content: `overwritten ${i}\n` }
      : { op: 'write', path: path.join(root, `new-dir-${i}`, 'file.txt'), content: `created ${i}\n` },
  );
}
ops.push({ op: 'rm', path: path.join(root, 'to-remove'), recursive: true });
process.stdout.write('starting\n');
await journal.apply('crash test batch', ops);
process.stdout.write('finished\n');
