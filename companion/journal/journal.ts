import { mkdirSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { ToolError } from '../../shared/errors';
import { fsyncDir, TEMP_SUFFIX, tempNamePrefix, writeFileAtomic, writeFileDurable } from '../fsx/atomic-write';
import { asToolError, isMissing } from '../fsx/errno';
import { sha256 } from '../fsx/sha256';
import { randomId } from '../random-id';
import type { Policy } from '../policy/schema';
import type { CallOrigin, FileOp, Journal, JournalEntry } from '../types';
import { EntryFile, expectLine, intentLine, parseEntryFile, stateLine, undoLine } from './entry-file';
import {
  applyUndo,
  assertUndoTargetsUnmoved,
  bytesUnder,
  capturePathState,
  changedSinceCrash,
  describeChange,
  interruptedChange,
  runOp,
  type ExpectedFile,
  type OpRuntime,
  type Interrupted,
  type RefReader,
} from './ops';
import {
  INLINE_BEFORE_BYTES,
  intentRecordSchema,
  namedPaths,
  outOfBounds,
  pathsOf,
  summarizeOp,
  undoRecordSchema,
  type ExpectLine,
  type IntentRecord,
  type IntentState,
  type PathState,
  type UndoRecord,
} from './records';

export interface JournalOptions {
  /** where entries live, e.g. ~/.chatbridge/journal */
  dir: string;
  policy: Pick<Policy, 'roots' | 'deny' | 'limits' | 'journal'> & Partial<Pick<Policy, 'reserved' | 'redact'>>;
  now?: () => Date;
  /** an entry that failed validation was moved to `<dir>/quarantine/<id>`; the person should hear of it */
  onQuarantine?: (id: string, reason: string) => void;
  /**
   * a change a crash cut short was rolled back at the start, but these paths (each with why) were changed after the
   * crash and kept as found; what they held before the change stays in the entry. The person should hear of it.
   */
  onKeptAsFound?: (id: string, kept: readonly string[]) => void;
  /** test hook: with CHATBRIDGE_JOURNAL_TEST_DELAY_MS set, called as each pause starts, naming the step just done */
  onPause?: (step: string) => void;
}

/** A rollback at the start after a crash: the change (to tell its own files from later ones), and what was kept. */
interface AfterCrash {
  change: Interrupted;
  kept: string[];
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
 * Test hook: pause this many milliseconds before each op and after each durable step of a write (its record
 * durable, its temp file written, its rename done, the applied state durable), so a test can SIGKILL a process at
 * any of them and check that recover() repairs it. Unset in normal use.
 */
const DELAY_ENV = 'CHATBRIDGE_JOURNAL_TEST_DELAY_MS';

const FINAL_STATES: ReadonlySet<IntentState> = new Set(['applied', 'rolled-back', 'undone']);
const ID_PATTERN = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;

function newId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:.]/g, '');
  return `${stamp}-${randomId(4, 'hex')}`;
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

/** An entry as read back: its format decides how a new state is saved. */
interface LoadedEntry {
  format: 1 | 2;
  intent: IntentRecord | undefined;
  records: UndoRecord[];
  /** format 2: before-images written inline, by ref */
  inline: Map<string, Buffer>;
  /** format 2: what a lone write's path will hold */
  expects: ExpectLine[];
  /** format 2: where the next state line goes */
  validLength: number;
}

export function createJournal(options: JournalOptions): Journal {
  const { dir, policy } = options;
  const now = options.now ?? (() => new Date());
  // One change at a time: two calls touching the same file must not interleave their before-images.
  let queue: Promise<unknown> = Promise.resolve();
  // a lone write's applied state, still being fsync'd after its answer: the next task waits for it
  let tail: Promise<void> = Promise.resolve();
  function exclusive<T>(task: () => Promise<T>): Promise<T> {
    const result = queue.then(task, task);
    queue = result.then(
      () => tail,
      () => tail,
    );
    return result;
  }

  /** format 1's whole entry; format 2's before/ and trash/ files */
  const entryDir = (id: string) => path.join(dir, id);
  /** format 2's entry file */
  const entryFile = (id: string) => path.join(dir, `${id}.jsonl`);
  const intentPath = (id: string) => path.join(entryDir(id), 'intent.json');
  const undoPath = (id: string) => path.join(entryDir(id), 'undo.jsonl');

  /** Format 1: the intent rewritten whole (temp file, rename, directory fsync). */
  async function saveIntentV1(intent: IntentRecord): Promise<void> {
    await writeFileAtomic(intentPath(intent.id), JSON.stringify(intent, null, 1));
  }

  /** Saves an entry's new state (and after-state, error) the way its format keeps it; durable when it resolves. */
  async function saveState(loaded: LoadedEntry, intent: IntentRecord): Promise<void> {
    if (loaded.format === 1) return saveIntentV1(intent);
    const file = new EntryFile(entryFile(intent.id), loaded.validLength);
    try {
      const line = stateLine(intent);
      await file.append(line);
      loaded.validLength += Buffer.byteLength(line, 'utf8');
    } finally {
      file.close();
    }
  }

  // What a restore may touch: inside a root, never the companion's own data (its data directory, this journal).
  const bounds = { roots: policy.roots, reserved: [...(policy.reserved ?? []), path.resolve(dir)] };

  /** Reads an entry in either format; EntryRejected when it is not what apply writes (hand-edited, planted, corrupted). */
  async function loadEntry(id: string): Promise<LoadedEntry> {
    const empty: LoadedEntry = { format: 2, intent: undefined, records: [], inline: new Map(), expects: [], validLength: 0 };
    if (!ID_PATTERN.test(id)) return empty;
    let text: string | undefined;
    try {
      text = await fs.readFile(entryFile(id), 'utf8');
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    if (text === undefined) return { ...empty, format: 1, intent: await loadIntentV1(id), records: await loadUndoV1(id) };
    const parsed = parseEntryFile(id, text);
    if (!parsed.ok) throw new EntryRejected(id, `${id}.jsonl: ${parsed.reason}`);
    return { format: 2, intent: parsed.intent, records: parsed.records, inline: parsed.inline, expects: parsed.expects, validLength: parsed.validLength };
  }

  /** Format 1: parses intent.json. */
  async function loadIntentV1(id: string): Promise<IntentRecord | undefined> {
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

  /** Format 1: undo.jsonl, one record per line. */
  async function loadUndoV1(id: string): Promise<UndoRecord[]> {
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

  /** The entry, checked against the roots: the only way a restore reads one. */
  async function loadChecked(id: string): Promise<LoadedEntry> {
    const loaded = await loadEntry(id);
    const { intent, records } = loaded;
    if (intent) {
      for (const p of [...namedPaths(intent, records), ...loaded.expects.map((e) => e.path)]) {
        const why = outOfBounds(p, bounds);
        if (why !== undefined) throw new EntryRejected(id, why);
      }
    } else if (records.length > 0 || loaded.expects.length > 0) {
      throw new EntryRejected(id, 'undo records without an intent');
    }
    return loaded;
  }

  /** Moves a rejected entry aside, whole, so nothing in it is ever replayed and a person can look at it. */
  async function quarantine(rejected: EntryRejected): Promise<void> {
    const target = path.join(dir, 'quarantine', rejected.id);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rm(target, { recursive: true, force: true });
    try {
      await fs.rename(entryDir(rejected.id), target);
    } catch (error) {
      if (!isMissing(error)) throw error;
      await fs.mkdir(target);
    }
    await fs.rename(entryFile(rejected.id), path.join(target, 'entry.jsonl')).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
    options.onQuarantine?.(rejected.id, rejected.reason);
  }

  /** Removes every file of an entry: the entry file first, so a crash midway leaves a folder without an intent. */
  async function removeEntry(id: string): Promise<void> {
    await fs.rm(entryFile(id), { force: true });
    await fs.rm(entryDir(id), { recursive: true, force: true });
  }

  function refReader(id: string, loaded: Pick<LoadedEntry, 'inline'>): RefReader {
    const refPath = (ref: string) => path.join(entryDir(id), ref);
    return { path: refPath, read: async (ref) => loaded.inline.get(ref) ?? fs.readFile(refPath(ref)) };
  }

  /**
   * Replays the entry's undo records, newest first. One record that cannot be replayed (its directory is not
   * writable, a symlink appeared on its way) must not keep the others from restoring their paths: every record is
   * tried, and the ones that failed are returned. Records are idempotent, so a later retry redoes only what is left.
   */
  async function rollBack(id: string, loaded: Pick<LoadedEntry, 'records' | 'inline'>, afterCrash?: AfterCrash): Promise<RestoreFailure[]> {
    const refs = refReader(id, loaded);
    const failures: RestoreFailure[] = [];
    for (const record of [...loaded.records].reverse()) {
      const target = record.type === 'move-back' ? record.from : record.path;
      try {
        const changed = afterCrash && (await changedSinceCrash(record, refs, afterCrash.change));
        if (changed) {
          afterCrash.kept.push(`${JSON.stringify(target)} (${changed})`);
          continue;
        }
        await applyUndo(record, refs);
      } catch (error) {
        failures.push({ path: target, error: asToolError(error, target) });
      }
    }
    return failures;
  }

  /** Rolls back an entry this process is applying: its records were just written here, and are checked all the same. */
  async function rollBackOwn(id: string): Promise<RestoreFailure[]> {
    let loaded: LoadedEntry;
    try {
      loaded = await loadChecked(id);
    } catch (error) {
      return [{ path: entryFile(id), error: error instanceof EntryRejected ? new ToolError('INTERNAL', error.message) : asToolError(error, entryFile(id)) }];
    }
    return rollBack(id, loaded);
  }

  /** Every path an undo would touch, with whether a directory's listing must match too. */
  function watchedPaths(intent: IntentRecord, records: readonly UndoRecord[]): Map<string, boolean> {
    const watched = new Map<string, boolean>(intent.paths.map((p) => [p, false]));
    for (const record of records) {
      if (record.type === 'remove-created' && record.dir) watched.set(record.path, true);
    }
    return watched;
  }

  /** Entry ids, oldest first: format-1 folders and format-2 files (with or without a folder beside them). */
  async function listIds(): Promise<string[]> {
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const ids = new Set<string>();
    for (const name of names) {
      const id = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name;
      if (ID_PATTERN.test(id)) ids.add(id);
    }
    return [...ids].sort();
  }

  async function apply(label: string, ops: FileOp[], origin?: CallOrigin): Promise<JournalEntry> {
    if (ops.length === 0) throw new ToolError('INVALID_INPUT', `"${label}" has no changes to apply`);
    const time = now();
    const id = newId(time);
    const intent: IntentRecord = {
      id,
      time: time.toISOString(),
      label,
      ...(origin ? { origin } : {}),
      state: 'applying',
      ops: ops.map((op) => summarizeOp(op, sha256)),
      paths: pathsOf(ops),
    };
    // Nothing is on disk until the first op records: its undo records (with a before-image inline) go in the same
    // write as the intent, one fsync of the entry file and one of the journal directory in flight together
    // (entry-file.ts). No op changes anything before its record is durable, so no change is on disk before its
    // intent; a crash before the intent line is whole leaves a file without an intent, which recover() removes.
    const file = EntryFile.create(dir, entryFile(id));
    let closeLater = false;
    let counter = 0;
    // the undo records as written, so the after-state needs no read of the entry
    const written: UndoRecord[] = [];
    // fsyncs of directories after a rename, awaited with the applied state's save
    const deferred: Array<Promise<void>> = [];
    // folders under the entry's own folder made since the last record, whose names the next record's round syncs
    const madeDirs = new Set<string>();
    // a single write's after-state, known from the bytes it wrote (a batch's later ops may change a path again)
    const known = new Map<string, PathState>();
    const lone = ops.length === 1 && ops[0]!.op === 'write';
    // an overwrite's sha256 is the summary's (its content); an append's is the whole file's
    const hashOf = (content: Uint8Array) => {
      const summary = intent.ops[0]!;
      return ops.length === 1 && summary.op === 'write' && summary.mode === 'overwrite' ? summary.sha256 : sha256(content);
    };
    const delayMs = Number(process.env[DELAY_ENV] ?? 0);
    const pause = (step: string) => {
      options.onPause?.(step);
      return new Promise<void>((resolve) => setTimeout(resolve, delayMs));
    };
    const makeDir = (folder: string) => {
      if (madeDirs.has(folder)) return;
      mkdirSync(folder, { recursive: true });
      madeDirs.add(folder);
    };
    /** A record (and its before-image) made durable, with the intent the first time: see OpRuntime.record. */
    const writeRecords = async (undos: readonly UndoRecord[], before?: Uint8Array, expect?: ExpectedFile): Promise<void> => {
      let text = file.started ? '' : intentLine(intent);
      if (expect) text += expectLine(expect.path, hashOf(expect.content), expect.mode);
      const alongside: Array<Promise<void>> = [];
      for (const undo of undos) {
        if (undo.type === 'restore-file' && before !== undefined && before.byteLength <= INLINE_BEFORE_BYTES) {
          text += undoLine(undo, before);
          continue;
        }
        if (undo.type === 'restore-file' && before !== undefined) {
          // Too large to go inline: its own file beside the entry, whole and durable before the record that names
          // it is written. A record written first outlives a before-image cut short (the data dir's disk full, a
          // file size limit, a kill), and the rollback or recover() then put that truncated image in place of a
          // file the change never touched.
          makeDir(path.join(entryDir(id), 'before'));
          await writeFileDurable(path.join(entryDir(id), undo.ref), before);
        }
        text += undoLine(undo);
      }
      // a folder made under the entry since the last round: its name, and the entry folder's, synced with this one
      if (madeDirs.size > 0) {
        for (const folder of madeDirs) alongside.push(fsyncDir(folder));
        alongside.push(fsyncDir(entryDir(id)), fsyncDir(dir));
        madeDirs.clear();
      }
      await file.append(text, alongside);
      written.push(...undos);
    };
    const runtime: OpRuntime = {
      policy,
      lone,
      record: async (undos, before, expect) => {
        try {
          await writeRecords(undos, before, expect);
        } catch (error) {
          // the data dir's disk refused, not the person's: the answer names the journal's file, where there is no room
          throw asToolError(error, entryFile(id));
        }
      },
      newRef: (kind) => {
        // before/ is made only for a before-image too large to go inline (record above)
        if (kind === 'trash') makeDir(path.join(entryDir(id), 'trash'));
        return `${kind}/${counter++}`;
      },
      refPath: (ref) => path.join(entryDir(id), ref),
      defer: (sync) => {
        deferred.push(sync);
      },
      wrote: (target, content, mode) => {
        if (ops.length === 1) known.set(target, { kind: 'file', sha256: hashOf(content), mode });
      },
    };
    if (delayMs > 0) runtime.step = pause;
    try {
      for (const op of ops) {
        if (delayMs > 0) await pause('op');
        await runOp(op, runtime);
      }
      const after: Record<string, PathState> = {};
      // a folder a move put in place is moved back whole by undo: what is under it is part of its after-state
      const movedTo = new Set(ops.flatMap((op) => (op.op === 'mv' ? [op.to] : [])));
      for (const p of watchedPaths(intent, written).keys()) after[p] = known.get(p) ?? (await capturePathState(p, { tree: movedTo.has(p) }));
      intent.after = after;
      intent.state = 'applied';
      if (lone) {
        // A lone write answers once its content and the renamed file's directory entry are durable (the write's
        // own fsync round, ops.ts), without waiting for the applied line's fsync: 2 rounds instead of 3. That line
        // is written before the answer — a killed process leaves it in the page cache, so the entry reads applied —
        // and fsync'd meanwhile; the next change waits for it (exclusive). Should the machine stop before it is
        // durable, the entry reads `applying` while the file already holds what the `expect` line says, durably:
        // recover() then records it applied instead of rolling it back (deriveApplied). A file that does not hold
        // it — the rename lasted and the content did not — is rolled back to its before-image. Either way the
        // file ends as before or after, never torn, and an answered write is never undone by a restart.
        const { synced } = await file.appendThenSync(stateLine(intent));
        closeLater = true;
        tail = synced.then(
          () => file.close(),
          () => file.close(),
        );
        if (delayMs > 0) await pause('applied');
        return toEntry(intent);
      }
      // The applied state and the renamed file's directory entry are made durable together: the answer waits for
      // both. Should the machine stop between them, either the entry says applied of a rename that did not last —
      // the file holds its before-image, and undo refuses as the file changed — or recover() rolls back a change
      // whose entry says applying: no state in which a change stays without its before-image.
      await Promise.all([file.append(stateLine(intent)), ...deferred]);
      if (delayMs > 0) await pause('applied');
      return toEntry(intent);
    } catch (error) {
      await Promise.all(deferred.map((sync) => sync.catch(() => undefined)));
      const failure = asToolError(error);
      let failures: RestoreFailure[] = [];
      if (file.started) {
        failures = await rollBackOwn(id);
        if (failures.length === 0) intent.state = 'rolled-back';
        // Otherwise it stays `applying`, and recover() at the next start retries what is left.
      } else {
        // nothing was recorded, so nothing changed: the entry says why the change was refused
        intent.state = 'rolled-back';
      }
      intent.error = `${failure.code}: ${failure.message}${failures.length > 0 ? `; not yet restored: ${describeFailures(failures)}` : ''}`;
      // A full disk can refuse this write too; the entry then stays `applying` and the next start finishes it.
      await file.append(file.started ? stateLine(intent) : intentLine(intent)).catch(() => undefined);
      if (failures.length === 0) throw failure;
      // The cause keeps its code: the person needs to know the disk is full or the file is not theirs, and the
      // journal entry to see what is left.
      throw new ToolError(
        failure.code,
        `${failure.message}; restoring the previous state also failed for ${describeFailures(failures)}; entry ${id} is retried at the next start`,
        { ...failure.data, journalId: id, unrestored: failures.map((f) => f.path) },
      );
    } finally {
      if (!closeLater) file.close();
    }
  }

  async function undo(id: string): Promise<JournalEntry> {
    let loaded: LoadedEntry;
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
      throw new ToolError('CONFLICT', `journal entry ${id} is ${intent.state}; only an applied entry can be undone`, { journalId: id, reason: 'not-applied', state: intent.state });
    }
    for (const [p, compareEntries] of watchedPaths(intent, records)) {
      const expected = intent.after?.[p];
      if (!expected) continue;
      const change = describeChange(expected, await capturePathState(p, { tree: expected.kind === 'dir' && expected.tree !== undefined }), compareEntries);
      if (change !== undefined) {
        throw new ToolError('CONFLICT', `cannot undo ${id}: ${JSON.stringify(p)} was changed after this entry (${change})`, {
          journalId: id,
          // the reason and the path are what the extension words in the person's language
          reason: 'changed-since',
          path: p,
        });
      }
    }
    for (const record of records) await assertUndoTargetsUnmoved(record).catch((error: unknown) => Promise.reject(asToolError(error)));
    intent.state = 'undoing';
    await saveState(loaded, intent);
    const failures = await rollBack(id, loaded);
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
    await saveState(loaded, intent);
    return toEntry(intent);
  }

  async function list(limit = 50): Promise<JournalEntry[]> {
    const entries: JournalEntry[] = [];
    for (const id of (await listIds()).reverse()) {
      if (entries.length >= limit) break;
      const intent = (await loadEntry(id).catch(() => undefined))?.intent;
      if (intent && FINAL_STATES.has(intent.state)) entries.push(toEntry(intent));
    }
    return entries;
  }

  async function recover(): Promise<string[]> {
    const repaired: string[] = [];
    for (const id of await listIds()) {
      let loaded: LoadedEntry;
      try {
        loaded = await loadChecked(id);
      } catch (error) {
        // planted or corrupted: never replayed, kept aside for a person to look at; the start goes on
        if (error instanceof EntryRejected) await quarantine(error).catch(() => undefined);
        continue;
      }
      const { intent } = loaded;
      if (!intent) {
        // Died before the intent was durable: nothing ran yet (ops only start after it is written).
        await removeEntry(id);
        continue;
      }
      if (FINAL_STATES.has(intent.state)) continue;
      // temp files first: one left in a directory the entry created would keep that directory from going
      await removeStrayTempFiles(intent);
      if (await deriveApplied(loaded, intent)) continue;
      const records = intent.state === 'undoing' ? await recordsStillToUndo(intent, loaded.records) : loaded.records;
      // an undo's own rule is recordsStillToUndo; a change cut short keeps what was made on its paths since
      const afterCrash: AfterCrash | undefined = intent.state === 'undoing' ? undefined : { change: interruptedChange(intent.ops, await lastWrittenAt(id)), kept: [] };
      const failures = await rollBack(id, { ...loaded, records }, afterCrash);
      if (failures.length > 0) {
        // One entry that cannot be repaired (say, a directory swapped for a symlink) must not stop the start or
        // the other entries; its other paths are restored, it stays unfinished with the reason, and the next
        // recover() tries again.
        intent.error = `recovery failed: not restored: ${describeFailures(failures)}${afterCrash && afterCrash.kept.length > 0 ? `; kept as found, changed after the interruption: ${afterCrash.kept.join('; ')}` : ''}`;
        await saveState(loaded, intent).catch(() => undefined);
        continue;
      }
      intent.state = intent.state === 'undoing' ? 'undone' : 'rolled-back';
      if (afterCrash && afterCrash.kept.length > 0) {
        intent.error = `interrupted; rolled back at start, but for what was changed after the interruption, kept as found: ${afterCrash.kept.join('; ')}`;
        options.onKeptAsFound?.(id, afterCrash.kept);
      }
      intent.error ??= 'interrupted; rolled back at start';
      await saveState(loaded, intent);
      repaired.push(id);
    }
    return repaired;
  }

  /**
   * An undo that stopped half-way (one path could not be restored) is finished at the next start, but only where a
   * path still is as the change left it: one that is not was restored before the stop, or was changed since — the
   * person went on with the files the undo had given back — and is left as it is. Replaying its before-image wrote
   * it over what the person wrote after the failed undo, at every start until the undo could finish, and a file the
   * change had created and the person wrote again was removed. A folder the change created is still taken back
   * (rmdir takes only an empty one). The states are all read before anything is replayed.
   */
  async function recordsStillToUndo(intent: IntentRecord, records: readonly UndoRecord[]): Promise<UndoRecord[]> {
    const asLeft = new Map<string, Promise<boolean>>();
    const isAsLeft = (p: string): Promise<boolean> => {
      const expected = intent.after?.[p];
      if (!expected) return Promise.resolve(true);
      let known = asLeft.get(p);
      if (!known) {
        known = capturePathState(p, { tree: expected.kind === 'dir' && expected.tree !== undefined }).then(
          (now) => describeChange(expected, now, false) === undefined,
          // unreadable now: not known to be as the change left it, so not written over
          () => false,
        );
        asLeft.set(p, known);
      }
      return known;
    };
    const kept: UndoRecord[] = [];
    for (const record of records) {
      if (record.type === 'remove-created' && record.dir) {
        kept.push(record);
        continue;
      }
      const paths = record.type === 'move-back' ? [record.from, record.to] : [record.path];
      if ((await Promise.all(paths.map(isAsLeft))).every(Boolean)) kept.push(record);
    }
    return kept;
  }

  /**
   * A lone write whose applied line did not reach the disk (apply answers before its fsync): when its path holds
   * exactly what the entry's `expect` line says — the bytes by sha256, the mode when it was known — the write was
   * complete and its content durable (it is read back from the disk after the crash), so the entry is recorded as
   * applied, with the after-state read now, and stays undoable. Anything else (the before-image, a torn file,
   * nothing) is not, and the caller rolls the entry back as before.
   */
  async function deriveApplied(loaded: LoadedEntry, intent: IntentRecord): Promise<boolean> {
    if (intent.state !== 'applying' || loaded.expects.length === 0 || intent.ops.length !== 1) return false;
    for (const expected of loaded.expects) {
      const now = await capturePathState(expected.path).catch(() => undefined);
      if (now?.kind !== 'file' || now.sha256 !== expected.sha256) return false;
      if (expected.mode !== undefined && now.mode !== expected.mode) return false;
    }
    const after: Record<string, PathState> = {};
    for (const p of watchedPaths(intent, loaded.records).keys()) after[p] = await capturePathState(p);
    intent.after = after;
    intent.state = 'applied';
    await saveState(loaded, intent);
    return true;
  }

  /** When an entry was last written to: its file's (format 2) or its folder's files' (format 1) latest mtime, ms. */
  async function lastWrittenAt(id: string): Promise<number> {
    const times = await Promise.all([entryFile(id), intentPath(id), undoPath(id)].map((p) => fs.stat(p).then((stat) => stat.mtimeMs, () => 0)));
    return Math.max(...times);
  }

  /** A kill between writing a temp file and renaming it leaves `.<name>.<hex>.chatbridge-tmp` behind. */
  async function removeStrayTempFiles(intent: IntentRecord): Promise<void> {
    for (const op of intent.ops) {
      if (op.op !== 'write') continue;
      const folder = path.dirname(op.path);
      const prefix = tempNamePrefix(op.path);
      const names = await fs.readdir(folder).catch(() => [] as string[]);
      for (const name of names) {
        // best effort: one that cannot be removed is named by the rollback that follows if it matters
        if (name.startsWith(prefix) && name.endsWith(TEMP_SUFFIX)) await fs.rm(path.join(folder, name), { force: true }).catch(() => undefined);
      }
    }
  }

  async function prune(): Promise<void> {
    const cutoff = now().getTime() - policy.journal.maxAgeDays * 24 * 60 * 60 * 1000;
    const kept: Array<{ id: string; size: number }> = [];
    for (const id of await listIds()) {
      const loaded = await loadEntry(id).catch((error: unknown) => error);
      if (loaded instanceof EntryRejected) {
        await quarantine(loaded).catch(() => undefined);
        continue;
      }
      // Unreadable now (another user's file, an I/O error): kept. Taken for an entry without an intent, it was
      // removed — and with it the only way to undo that change.
      if (loaded instanceof Error) continue;
      const intent = (loaded as LoadedEntry).intent;
      if (intent && !FINAL_STATES.has(intent.state)) continue;
      if (!intent || Date.parse(intent.time) < cutoff) {
        await removeEntry(id);
        continue;
      }
      kept.push({ id, size: (await bytesUnder(entryDir(id))) + (await bytesUnder(entryFile(id))) });
    }
    let total = kept.reduce((sum, entry) => sum + entry.size, 0);
    for (const entry of kept) {
      if (total <= policy.journal.maxBytes) break;
      await removeEntry(entry.id);
      total -= entry.size;
    }
  }

  return {
    apply: (label, ops, origin, options) =>
      exclusive(async () => {
        await options?.check?.();
        return apply(label, ops, origin);
      }),
    undo: (id) => exclusive(() => undo(id)),
    list,
    recover: () => exclusive(recover),
    prune: () => exclusive(prune),
  };
}
