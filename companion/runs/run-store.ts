import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { runStatusSchema } from '../../shared/api';
import { asToolError } from '../fsx/errno';
import { createLineAppender } from '../fsx/line-appender';
import { writeFileAtomic } from '../home';

/**
 * Runs by id, and the idempotency map (block key → run id) that makes a block posted twice — a reload, a second
 * tab, a retried request — answer with the first run instead of executing again. Persisted in the data dir so
 * this holds across a restart of the companion.
 */
export const runRecordSchema = z.object({
  runId: z.string(),
  key: z.string().optional(),
  kind: z.string(),
  site: z.string(),
  conversationId: z.string(),
  messageKey: z.string(),
  status: runStatusSchema,
  resultText: z.string(),
  auditId: z.string(),
  pendingConfirmationId: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

export interface RunStore {
  get(runId: string): RunRecord | undefined;
  byKey(key: string): RunRecord | undefined;
  put(record: RunRecord): void;
  /** holds the record (by id and by key) without writing it: a run that has done nothing yet (see run-manager) */
  track(record: RunRecord): void;
  /** forget the key → run mapping (a deliberate re-run) */
  forgetKey(key: string): void;
}

const MAX_RUNS = 2_000;

export const INTERRUPTED_TEXT =
  'chatbridge restarted while this run was executing; its result is unknown. Check `chatbridge audit` and the journal before running it again.';

/**
 * The file is a JSON-lines log, one line per state change, last line per run wins: an append costs the same
 * however many runs there are (a full rewrite per run would make every call slower as history grows). It is
 * compacted at load and whenever it grows far past what it holds.
 */
export function createRunStore(options: { file?: string; clock?: () => number } = {}): RunStore {
  const clock = options.clock ?? Date.now;
  const runs = new Map<string, RunRecord>();
  const keys = new Map<string, string>();
  let lines = 0;
  const log = options.file ? createLineAppender(options.file) : undefined;

  const remember = (record: RunRecord) => {
    runs.delete(record.runId);
    runs.set(record.runId, record);
    if (record.key) keys.set(record.key, record.runId);
    while (runs.size > MAX_RUNS) {
      const oldest = runs.keys().next().value as string;
      const dropped = runs.get(oldest);
      runs.delete(oldest);
      if (dropped?.key && keys.get(dropped.key) === oldest) keys.delete(dropped.key);
    }
  };

  function compact(): void {
    if (!options.file) return;
    const text = [...runs.values()].map((r) => JSON.stringify(r) + '\n').join('');
    writeFileAtomic(options.file, text);
    // the file was replaced by a rename: the next line goes to the new one
    log?.reopen();
    lines = runs.size;
  }

  if (options.file && existsSync(options.file)) {
    const loaded = new Map<string, RunRecord>();
    for (const line of readFileSync(options.file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const parsed = runRecordSchema.safeParse(JSON.parse(line));
        if (parsed.success) {
          loaded.delete(parsed.data.runId);
          loaded.set(parsed.data.runId, parsed.data);
        }
      } catch {
        // a torn last line after a crash costs only that line
      }
    }
    for (const record of loaded.values()) {
      // its approval died with the old process and nothing ran: posting the block again asks again
      if (record.status === 'pending') continue;
      remember(
        record.status === 'running'
          ? { ...record, status: 'error', resultText: INTERRUPTED_TEXT, updatedAt: new Date(clock()).toISOString() }
          : record,
      );
    }
    compact();
  }

  return {
    get: (runId) => runs.get(runId),
    byKey(key) {
      const id = keys.get(key);
      return id === undefined ? undefined : runs.get(id);
    },
    put(record) {
      remember(record);
      if (!options.file) return;
      try {
        // synchronous: a crash right after answering must still remember the answer
        log?.append(JSON.stringify(record) + '\n');
        lines += 1;
        if (lines > MAX_RUNS * 4) compact();
      } catch (error) {
        // the data dir's disk is full, or it went read-only: the next line tries a new descriptor
        log?.reopen();
        // a run about to change things that the log cannot hold could run twice after a restart: it must not start
        if (record.status === 'running') throw asToolError(error, options.file);
        // an answer is kept in memory (a restart says "interrupted" for a run logged as running); never a crash
        console.error(`chatbridge: cannot record run ${record.runId} in ${options.file}: ${String(error)}`);
      }
    },
    track: remember,
    forgetKey(key) {
      keys.delete(key);
    },
  };
}
