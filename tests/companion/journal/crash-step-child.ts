/**
 * Run by crash-steps.test.ts as a separate process: one change through a real journal with
 * CHATBRIDGE_JOURNAL_TEST_DELAY_MS set, printing `step <name>` as each pause starts (the step just done is durable),
 * so the test can SIGKILL it right after any durable step.
 * argv: <journalDir> <root> <kind: overwrite | create>
 */
import path from 'node:path';
import { createJournal } from '../../../companion/journal';
import { configSchema, type Policy } from '../../../companion/policy/schema';

const [journalDir, root, kind] = process.argv.slice(2);
if (!journalDir || !root || (kind !== 'overwrite' && kind !== 'create')) throw new Error('usage: crash-step-child <journalDir> <root> overwrite|create');
const policy: Policy = { ...configSchema.parse({}), roots: [root], redact: [], reserved: [] };
const journal = createJournal({ dir: journalDir, policy, onPause: (step) => process.stdout.write(`step ${step}\n`) });
const target = kind === 'overwrite' ? path.join(root, 'a.txt') : path.join(root, 'fresh', 'deep', 'new.txt');
await journal.apply(`crash at a step (${kind})`, [{ op: 'write', path: target, content: `after (${kind})\n` }]);
process.stdout.write('finished\n');
