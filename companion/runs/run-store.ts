import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { runStatusSchema } from '../../shared/api';
import { asToolError } from '../fsx/errno';
import { createLineAppender } from '../fsx/line-appender';
import { writeFileAtomic } from '../home';
import { commandHow } from '../how-to-run';

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
  /** the tool it runs, once known (RunResponse.tool) */
  tool: z.string().optional(),
  /** who posted the request that started the run: a digest of its bearer token (run-manager tokenDigest), never the token */
  startedBy: z.string().optional(),
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
  /**
   * The companion stops: answers still owed to the log are tried once more, and those it still cannot hold are named
   * on stderr, with what a restart will say of them.
   */
  close(): void;
}

const MAX_RUNS = 2_000;
/** how often answers the run log could not hold are tried again */
const OWED_RETRY_MS = 2_000;

export const INTERRUPTED_TEXT =
  `chatbridge restarted while this run was executing, or before its result could be written to the run log (a full disk); its result is unknown. Before running it again, check the journal and ${commandHow('audit')}.`;

/**
 * The file is a JSON-lines log, one line per state change, last line per run wins: an append costs the same
 * however many runs there are (a full rewrite per run would make every call slower as history grows). It is
 * compacted at load and whenever it grows far past what it holds.
 *
 * An answer the log cannot hold (the data dir's disk full, or gone read-only) is kept in memory and owed to the
 * log: written before the next line, and tried every OWED_RETRY_MS meanwhile, so once there is room again a restart
 * answers the run with its result instead of "interrupted" (its running line is in the log). A line cut short by the
 * failure is ended with a line break before the next, so it costs only itself. There is nowhere else to keep them
 * (the data dir is the companion's only store): a companion stopped before there is room tries them a last time and
 * says which runs a restart will report as unknown; one that is killed says nothing, and they are unknown too.
 */
export function createRunStore(options: { file?: string; clock?: () => number } = {}): RunStore {
  const clock = options.clock ?? Date.now;
  const runs = new Map<string, RunRecord>();
  const keys = new Map<string, string>();
  let lines = 0;
  const log = options.file ? createLineAppender(options.file) : undefined;
  /** answers the log could not hold, the latest per run, in the order they came */
  const owed = new Map<string, RunRecord>();
  let retry: NodeJS.Timeout | undefined;
  /** the last append failed, maybe part-way: the next starts on a line of its own */
  let torn = false;

  /** throws what the file system throws; the caller reopens */
  function append(record: RunRecord): void {
    log?.append(`${torn ? '\n' : ''}${JSON.stringify(record)}\n`);
    torn = false;
    lines += 1;
  }

  function writeOwed(): void {
    for (const [runId, record] of owed) {
      append(record);
      owed.delete(runId);
    }
    if (retry && owed.size === 0) {
      clearInterval(retry);
      retry = undefined;
      console.error(`chatbridge: ${options.file} has room again; every answer it could not hold is recorded now`);
    }
  }

  function failed(): void {
    torn = true;
    // the next line tries a new descriptor
    log?.reopen();
  }

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
        writeOwed();
        append(record);
      } catch (error) {
        // the data dir's disk is full, or it went read-only
        failed();
        // a run about to change things that the log cannot hold could run twice after a restart: it must not start
        if (record.status === 'running') throw asToolError(error, options.file);
        // an answer is kept in memory and owed to the log; never a crash
        owed.delete(record.runId);
        owed.set(record.runId, record);
        retry ??= setInterval(() => {
          try {
            writeOwed();
          } catch {
            failed();
          }
        }, OWED_RETRY_MS);
        retry.unref();
        console.error(
          `chatbridge: cannot record run ${record.runId} in ${options.file}: ${String(error)}; it is written there once there is room (stopped before then, chatbridge reports its result as unknown after the next start)`,
        );
        return;
      }
      if (lines > MAX_RUNS * 4) {
        try {
          compact();
        } catch {
          // the log holds every line; it is compacted at a later line, or at the next start
        }
      }
    },
    track: remember,
    forgetKey(key) {
      keys.delete(key);
    },
    close() {
      clearInterval(retry);
      retry = undefined;
      if (owed.size === 0) return;
      try {
        writeOwed();
        console.error(`chatbridge: ${options.file} had room again at the stop; every answer it could not hold is recorded now`);
      } catch (error) {
        failed();
        console.error(
          `chatbridge: the answers of ${owed.size === 1 ? 'run' : 'runs'} ${[...owed.keys()].join(', ')} are not in ${options.file} (${String(error)}): after the next start ${owed.size === 1 ? 'it says its' : 'they say their'} result is unknown. Each answer was given when its run ended; free room in that folder before stopping chatbridge to keep them.`,
        );
      }
    },
  };
}
