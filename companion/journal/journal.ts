import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ToolError } from '../../shared/errors';
import { appendFileDurable, fsyncDir, TEMP_SUFFIX, writeFileAtomic } from '../fsx/atomic-write';
import { asToolError, isMissing } from '../fsx/errno';
import { sha256 } from '../fsx/sha256';
import type { Policy } from '../policy/schema';
import type { CallOrigin, FileOp, Journal, JournalEntry } from '../types';
import { applyUndo, assertUndoTargetsUnmoved, capturePathState, describeChange, runOp, type OpRuntime } from './ops';
import {
  intentRecordSchema,
  namedPaths,
  outOfBounds,
  pathsOf,
  summarizeOp,
  undoRecordSchema,
  type IntentRecord,
  type IntentState,
  type PathState,
  type UndoRecord,
} from './records';

export interface JournalOptions {
  /** where entries live, e.g. ~/.chatbridge/journal */
  dir: string;
  policy: Pick<Policy, 'roots' | 'deny' | 'limits' | 'journal'> & Partial<Pick<Policy, 'reserved'>>;
  now?: () => Date;
  /** an entry that failed validation was moved to `<dir>/quarantine/<id>`; the person should hear of it */
  onQuarantine?: (id: string, reason: string) => void;
}

/** A journal entry on disk that does not hold what the journal writes; it is quarantined, never replayed. */
class EntryRejected extends Error {
  constructor(
    readonly id: string,
    readonly reason: string,
  ) {
    super(`journal entry ${id} failed validation: ${reason}`);
  }
}

/**
 * Test hook: pause this many milliseconds before each op and again before each write's rename, so a test can
 * SIGKILL a process in the middle of a batch (between ops, or with a temp file written) and check that
 * recover() repairs it. Unset in normal use.
 */
const DELAY_ENV = 'CHATBRIDGE_JOURNAL_TEST_DELAY_MS';

const FINAL_STATES: ReadonlySet<IntentState> = new Set(['applied', 'rolled-back', 'undone']);
const ID_PATTERN = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;

function newId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:.]/g, '');
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}

interface RestoreFailure {
  path: string;
  error: ToolError;
}

function describeFailures(failures: readonly RestoreFailure[]): string {
  return failures.map((f) => `${JSON.stringify(f.path)} (${f.error.message})`).join('; ');
}

function toEntry(intent: IntentRecord): JournalEntry {
  return {
    id: intent.id,
    time: intent.time,
    label: intent.label,
    ...(intent.origin ? { origin: intent.origin } : {}),
    paths: intent.paths,
    state: intent.state === 'undone' ? 'undone' : intent.state === 'applied' ? 'applied' : 'rolled-back',
  };
}

export function createJournal(options: JournalOptions): Journal {
  const { dir, policy } = options;
  const now = options.now ?? (() => new Date());
  // One change at a time: two calls touching the same file must not interleave their before-images.
  let queue: Promise<unknown> = Promise.resolve();
  function exclusive<T>(task: () => Promise<T>): Promise<T> {
    const result = queue.then(task, task);
    queue = result.catch(() => undefined);
    return result;
  }

  const entryDir = (id: string) => path.join(dir, id);
  const intentPath = (id: string) => path.join(entryDir(id), 'intent.json');
  const undoPath = (id: string) => path.join(entryDir(id), 'undo.jsonl');

  async function saveIntent(intent: IntentRecord): Promise<void> {
    await writeFileAtomic(intentPath(intent.id), JSON.stringify(intent, null, 1));
  }

  // What a restore may touch: inside a root, never the companion's own data (its data directory, this journal).
  const bounds = { roots: policy.roots, reserved: [...(policy.reserved ?? []), path.resolve(dir)] };

  /** Parses intent.json; EntryRejected when it is not what apply writes (hand-edited, planted, corrupted). */
  async function loadIntent(id: string): Promise<IntentRecord | undefined> {
    if (!ID_PATTERN.test(id)) return undefined;
    let raw: string;
    try {
      raw = await fs.readFile(intentPath(id), 'utf8');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new EntryRejected(id, 'intent.json is not JSON');
    }
    const parsed = intentRecordSchema.safeParse(json);
    if (!parsed.success) throw new EntryRejected(id, `intent.json: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
    if (parsed.data.id !== id) throw new EntryRejected(id, `intent.json names entry ${JSON.stringify(parsed.data.id)}`);
    return parsed.data;
  }

  /** The entry's intent and undo records, checked against the roots: the only way a restore reads them. */
  async function loadChecked(id: string): Promise<{ intent: IntentRecord | undefined; records: UndoRecord[] }> {
    const intent = await loadIntent(id);
    const records = await loadUndo(id);
    if (intent) {
      for (const p of namedPaths(intent, records)) {
        const why = outOfBounds(p, bounds);
        if (why !== undefined) throw new EntryRejected(id, why);
      }
    } else if (records.length > 0) {
      throw new EntryRejected(id, 'undo records without an intent');
    }
    return { intent, records };
  }

  /** Moves a rejected entry aside, whole, so nothing in it is ever replayed and a person can look at it. */
  async function quarantine(rejected: EntryRejected): Promise<void> {
    const target = path.join(dir, 'quarantine', rejected.id);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rm(target, { recursive: true, force: true });
    await fs.rename(entryDir(rejected.id), target);
    options.onQuarantine?.(rejected.id, rejected.reason);
  }

  async function loadUndo(id: string): Promise<UndoRecord[]> {
    let text: string;
    try {
      text = await fs.readFile(undoPath(id), 'utf8');
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const records: UndoRecord[] = [];
    const lines = text.split('\n');
    for (const [i, line] of lines.entries()) {
      if (!line.trim()) continue;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        // A torn last line: the process died while appending it, so the op it guards never started.
        if (lines.slice(i + 1).every((rest) => !rest.trim())) continue;
        throw new EntryRejected(id, `undo.jsonl line ${i + 1} is not JSON`);
      }
      const parsed = undoRecordSchema.safeParse(json);
      if (!parsed.success) {
        throw new EntryRejected(id, `undo.jsonl line ${i + 1}: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
      }
      records.push(parsed.data);
    }
    return records;
  }

  /**
   * Replays the entry's undo records, newest first. One record that cannot be replayed (its directory is not
   * writable, a symlink appeared on its way) must not keep the others from restoring their paths: every record is
   * tried, and the ones that failed are returned. Records are idempotent, so a later retry redoes only what is left.
   */
  async function rollBack(id: string, records: UndoRecord[]): Promise<RestoreFailure[]> {
    const refPath = (ref: string) => path.join(entryDir(id), ref);
    const failures: RestoreFailure[] = [];
    for (const record of [...records].reverse()) {
      const target = record.type === 'move-back' ? record.from : record.path;
      try {
        await applyUndo(record, refPath);
      } catch (error) {
        failures.push({ path: target, error: asToolError(error, target) });
      }
    }
    return failures;
  }

  /** Rolls back an entry this process is applying: its records were just written here, and are checked all the same. */
  async function rollBackOwn(id: string): Promise<RestoreFailure[]> {
    let records: UndoRecord[];
    try {
      records = (await loadChecked(id)).records;
    } catch (error) {
      return [{ path: undoPath(id), error: error instanceof EntryRejected ? new ToolError('INTERNAL', error.message) : asToolError(error, undoPath(id)) }];
    }
    return rollBack(id, records);
  }

  /** Every path an undo would touch, with whether a directory's listing must match too. */
  function watchedPaths(intent: IntentRecord, records: readonly UndoRecord[]): Map<string, boolean> {
    const watched = new Map<string, boolean>(intent.paths.map((p) => [p, false]));
    for (const record of records) {
      if (record.type === 'remove-created' && record.dir) watched.set(record.path, true);
    }
    return watched;
  }

  async function listIds(): Promise<string[]> {
    try {
      return (await fs.readdir(dir)).filter((name) => ID_PATTERN.test(name)).sort();
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  async function apply(label: string, ops: FileOp[], origin?: CallOrigin): Promise<JournalEntry> {
    if (ops.length === 0) throw new ToolError('INVALID_INPUT', `"${label}" has no changes to apply`);
    const time = now();
    const id = newId(time);
    await fs.mkdir(entryDir(id), { recursive: true });
    await Promise.all([fs.mkdir(path.join(entryDir(id), 'before')), fs.mkdir(path.join(entryDir(id), 'trash'))]);
    // Written once, as `applying`: recover() treats a `preparing` entry exactly like an `applying` one (both roll
    // back what their undo records name), and nothing ran between the two saves, so the second cost two more
    // fsyncs per change for nothing.
    const intent: IntentRecord = {
      id,
      time: time.toISOString(),
      label,
      ...(origin ? { origin } : {}),
      state: 'applying',
      ops: ops.map((op) => summarizeOp(op, sha256)),
      paths: pathsOf(ops),
    };
    // The intent and the entry's name in the journal directory are made durable together (fsyncs in flight at
    // once, which the file system commits together). The ops start meanwhile — reading, writing before-images
    // into the entry — but every undo record waits for the intent (record below), and every op records before it
    // changes anything, so no change and no record is on disk before its intent. A crash before the intent is
    // durable leaves an entry without one, which recover() removes as it always did.
    const intentSaved = Promise.all([saveIntent(intent), fsyncDir(dir)]).then(() => undefined);
    intentSaved.catch(() => undefined);
    let counter = 0;
    // the undo records as written, so the after-state needs no second read of undo.jsonl
    const written: UndoRecord[] = [];
    // fsyncs of directories after a rename, awaited with the applied state's save
    const deferred: Array<Promise<void>> = [];
    const runtime: OpRuntime = {
      policy,
      intentDurable: () => intentSaved,
      record: async (undo) => {
        await intentSaved;
        await appendFileDurable(undoPath(id), `${JSON.stringify(undo)}\n`);
        written.push(undo);
      },
      newRef: (kind) => `${kind}/${counter++}`,
      refPath: (ref) => path.join(entryDir(id), ref),
      defer: (sync) => {
        deferred.push(sync);
      },
    };
    const delayMs = Number(process.env[DELAY_ENV] ?? 0);
    const pause = () => new Promise<void>((resolve) => setTimeout(resolve, delayMs));
    if (delayMs > 0) runtime.pauseBeforeRename = pause;
    // the crash tests pause between steps and expect the intent on disk at the first pause
    if (delayMs > 0) await intentSaved;
    try {
      for (const op of ops) {
        if (delayMs > 0) await pause();
        await runOp(op, runtime);
      }
      await intentSaved;
      const after: Record<string, PathState> = {};
      for (const p of watchedPaths(intent, written).keys()) after[p] = await capturePathState(p);
      intent.after = after;
      intent.state = 'applied';
      // The applied state and the renamed file's directory entry are made durable together: the answer waits for
      // both. Should the machine stop between them, either the entry says applied of a rename that did not last —
      // the file holds its before-image, and undo refuses as the file changed — or recover() rolls back a change
      // whose entry says applying: no state in which a change stays without its before-image.
      await Promise.all([saveIntent(intent), ...deferred]);
      return toEntry(intent);
    } catch (error) {
      await Promise.all(deferred);
      // the intent never reached the disk: nothing was recorded or changed (records wait for it), as before
      const intentError = await intentSaved.then(
        () => undefined,
        (failed: unknown) => failed,
      );
      if (intentError !== undefined) throw intentError;
      const failure = asToolError(error);
      const failures = await rollBackOwn(id);
      if (failures.length === 0) intent.state = 'rolled-back';
      // Otherwise it stays `applying`, and recover() at the next start retries what is left.
      intent.error = `${failure.code}: ${failure.message}${failures.length > 0 ? `; not yet restored: ${describeFailures(failures)}` : ''}`;
      // A full disk can refuse this write too; the entry then stays `applying` and the next start finishes it.
      await saveIntent(intent).catch(() => undefined);
      if (failures.length === 0) throw failure;
      // The cause keeps its code: the person needs to know the disk is full or the file is not theirs, and the
      // journal entry to see what is left.
      throw new ToolError(
        failure.code,
        `${failure.message}; restoring the previous state also failed for ${describeFailures(failures)}; entry ${id} is retried at the next start`,
        { ...failure.data, journalId: id, unrestored: failures.map((f) => f.path) },
      );
    }
  }

  async function undo(id: string): Promise<JournalEntry> {
    let loaded: Awaited<ReturnType<typeof loadChecked>>;
    try {
      loaded = await loadChecked(id);
    } catch (error) {
      if (!(error instanceof EntryRejected)) throw error;
      await quarantine(error);
      throw new ToolError('FORBIDDEN', `${error.message}; it was quarantined and nothing was restored`, { journalId: id });
    }
    const { intent, records } = loaded;
    if (!intent) throw new ToolError('NOT_FOUND', `no journal entry ${JSON.stringify(id)}`);
    if (intent.state !== 'applied') {
      throw new ToolError('CONFLICT', `journal entry ${id} is ${intent.state}; only an applied entry can be undone`, { journalId: id });
    }
    for (const [p, compareEntries] of watchedPaths(intent, records)) {
      const expected = intent.after?.[p];
      if (!expected) continue;
      const change = describeChange(expected, await capturePathState(p), compareEntries);
      if (change !== undefined) {
        throw new ToolError('CONFLICT', `cannot undo ${id}: ${JSON.stringify(p)} was changed after this entry (${change})`, {
          journalId: id,
          path: p,
        });
      }
    }
    for (const record of records) await assertUndoTargetsUnmoved(record).catch((error: unknown) => Promise.reject(asToolError(error)));
    intent.state = 'undoing';
    await saveIntent(intent);
    const failures = await rollBack(id, records);
    if (failures.length > 0) {
      // Left in `undoing`: every undo record is idempotent, so recover() at the next start finishes the undo.
      const first = failures[0]!.error;
      const message = failures.length === 1 ? first.message : `${first.message}; also ${describeFailures(failures.slice(1))}`;
      throw new ToolError(first.code, `undo of ${id} is incomplete: ${message}; the next start retries it`, {
        ...first.data,
        journalId: id,
        unrestored: failures.map((f) => f.path),
      });
    }
    intent.state = 'undone';
    await saveIntent(intent);
    return toEntry(intent);
  }

  async function list(limit = 50): Promise<JournalEntry[]> {
    const entries: JournalEntry[] = [];
    for (const id of (await listIds()).reverse()) {
      if (entries.length >= limit) break;
      const intent = await loadIntent(id).catch(() => undefined);
      if (intent && FINAL_STATES.has(intent.state)) entries.push(toEntry(intent));
    }
    return entries;
  }

  async function recover(): Promise<string[]> {
    const repaired: string[] = [];
    for (const id of await listIds()) {
      let loaded: Awaited<ReturnType<typeof loadChecked>>;
      try {
        loaded = await loadChecked(id);
      } catch (error) {
        // planted or corrupted: never replayed, kept aside for a person to look at; the start goes on
        if (error instanceof EntryRejected) await quarantine(error).catch(() => undefined);
        continue;
      }
      const { intent, records } = loaded;
      if (!intent) {
        // Died before intent.json was durable: nothing ran yet (ops only start after it is written).
        await fs.rm(entryDir(id), { recursive: true, force: true });
        continue;
      }
      if (FINAL_STATES.has(intent.state)) continue;
      // temp files first: one left in a directory the entry created would keep that directory from going
      await removeStrayTempFiles(intent);
      const failures = await rollBack(id, records);
      if (failures.length > 0) {
        // One entry that cannot be repaired (say, a directory swapped for a symlink) must not stop the start or
        // the other entries; its other paths are restored, it stays unfinished with the reason, and the next
        // recover() tries again.
        intent.error = `recovery failed: not restored: ${describeFailures(failures)}`;
        await saveIntent(intent).catch(() => undefined);
        continue;
      }
      intent.state = intent.state === 'undoing' ? 'undone' : 'rolled-back';
      intent.error ??= 'interrupted; rolled back at start';
      await saveIntent(intent);
      repaired.push(id);
    }
    return repaired;
  }

  /** A kill between writing a temp file and renaming it leaves `.<name>.<hex>.chatbridge-tmp` behind. */
  async function removeStrayTempFiles(intent: IntentRecord): Promise<void> {
    for (const op of intent.ops) {
      if (op.op !== 'write') continue;
      const folder = path.dirname(op.path);
      const prefix = `.${path.basename(op.path)}.`;
      const names = await fs.readdir(folder).catch(() => [] as string[]);
      for (const name of names) {
        // best effort: one that cannot be removed is named by the rollback that follows if it matters
        if (name.startsWith(prefix) && name.endsWith(TEMP_SUFFIX)) await fs.rm(path.join(folder, name), { force: true }).catch(() => undefined);
      }
    }
  }

  async function sizeOf(p: string): Promise<number> {
    const stat = await fs.lstat(p).catch(() => undefined);
    if (!stat) return 0;
    if (!stat.isDirectory()) return stat.size;
    let total = 0;
    for (const name of await fs.readdir(p)) total += await sizeOf(path.join(p, name));
    return total;
  }

  async function prune(): Promise<void> {
    const cutoff = now().getTime() - policy.journal.maxAgeDays * 24 * 60 * 60 * 1000;
    const kept: Array<{ id: string; size: number }> = [];
    for (const id of await listIds()) {
      const loaded = await loadIntent(id).catch((error: unknown) => error);
      if (loaded instanceof EntryRejected) {
        await quarantine(loaded).catch(() => undefined);
        continue;
      }
      const intent = loaded instanceof Error ? undefined : (loaded as IntentRecord | undefined);
      if (intent && !FINAL_STATES.has(intent.state)) continue;
      if (!intent || Date.parse(intent.time) < cutoff) {
        await fs.rm(entryDir(id), { recursive: true, force: true });
        continue;
      }
      kept.push({ id, size: await sizeOf(entryDir(id)) });
    }
    let total = kept.reduce((sum, entry) => sum + entry.size, 0);
    for (const entry of kept) {
      if (total <= policy.journal.maxBytes) break;
      await fs.rm(entryDir(entry.id), { recursive: true, force: true });
      total -= entry.size;
    }
  }

  return {
    apply: (label, ops, origin) => exclusive(() => apply(label, ops, origin)),
    undo: (id) => exclusive(() => undo(id)),
    list,
    recover: () => exclusive(recover),
    prune: () => exclusive(prune),
  };
}
