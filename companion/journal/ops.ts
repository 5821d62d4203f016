/** Runs one FileOp, writing ahead the undo records that reverse it; and replays undo records. */
import { createHash, randomUUID } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { ToolError } from '../../shared/errors';
import { createTempFile, fsyncDir, renameIntoPlace, renameThenSync, writeFileAtomic, writeTempFile } from '../fsx/atomic-write';
import { asToolError, errnoOf } from '../fsx/errno';
import { closeFile, fstatFile, lstatMaybe, makeDir, openFile, readWhole, renamePath } from '../fsx/fs-calls';
import { READ_NO_FOLLOW } from '../fsx/fd';
import { onMountOf } from '../fsx/mount-gate';
import { sha256, sha256File, shownSha256 } from '../fsx/sha256';
import { walkTreeBatches } from '../fsx/walk';
import { assertWithinFileLimit } from '../policy/file-limit';
import { assertNoPrivilegeBits, assertSingleLink, PRIVILEGE_BITS } from '../policy/mode-guard';
import { assertUnchanged, realpathLoose } from '../policy/path-guard';
import { bytesHoldSecret, refuseMarkerOverSecret } from '../policy/redact';
import type { Policy } from '../policy/schema';
import type { FileOp } from '../types';
import type { OpSummary, PathState, UndoRecord } from './records';

export interface OpRuntime {
  /** `redact` (when given) tells a file that holds a secret, whose digest is shown keyed (fsx/sha256 shownSha256) */
  policy: Pick<Policy, 'roots' | 'deny' | 'limits'> & Partial<Pick<Policy, 'redact' | 'journal'>>;
  /**
   * Writes the records (and a restore-file record's before-image, `before`) and resolves only once they are
   * durable, together with the entry's intent the first time. Nothing in a person's folder changes before its
   * record resolves — a temp file included, so recover() always has an intent to find a stray one by.
   */
  record(undos: readonly UndoRecord[], before?: Uint8Array, expect?: ExpectedFile): Promise<void>;
  /**
   * The entry's only op is this write: its content and directory are fsync'd together after the rename, and the
   * entry's record says what the file will hold (`expect`), so recover() can tell a finished write from a torn one.
   */
  lone: boolean;
  /** a directory fsync after a rename, which the entry awaits together with its applied state */
  defer(sync: Promise<void>): void;
  /** a fresh name under before/ or trash/, relative to the entry directory (a trash/ folder is made ready for it) */
  newRef(kind: 'before' | 'trash'): string;
  refPath(ref: string): string;
  /** a write's target now holds `content` with `mode`: the after-state, known without reading the file back */
  wrote?(target: string, content: Uint8Array, mode: number): void;
  /** test hook (CHATBRIDGE_JOURNAL_TEST_DELAY_MS): a pause after a durable step, so a test can kill the process there */
  step?(name: 'recorded' | 'temp-written' | 'renamed' | 'synced'): Promise<void>;
}

/** What a lone write leaves at its path: these bytes, with this mode when it is known beforehand (an overwrite). */
export interface ExpectedFile {
  path: string;
  content: Uint8Array;
  mode?: number;
}

const json = JSON.stringify;

/** Directories between the nearest existing ancestor and `dir`, outermost first. */
async function missingDirs(dir: string): Promise<string[]> {
  const missing: string[] = [];
  let current = dir;
  for (;;) {
    const stat = await lstatMaybe(current);
    if (stat) {
      if (!stat.isDirectory()) throw new ToolError('CONFLICT', `${json(current)} is a ${kindName(stat)}, not a directory`, { path: current });
      return missing.reverse();
    }
    missing.push(current);
    const parent = path.dirname(current);
    if (parent === current) return missing.reverse();
    current = parent;
  }
}

function kindName(stat: { isDirectory(): boolean; isSymbolicLink(): boolean }): string {
  return stat.isDirectory() ? 'directory' : stat.isSymbolicLink() ? 'symlink' : 'file';
}

/** Records every directory to create in one durable write, then creates them. */
async function createDirs(dirs: readonly string[], rt: OpRuntime): Promise<void> {
  if (dirs.length === 0) return;
  await rt.record(dirs.map((dir): UndoRecord => ({ type: 'remove-created', path: dir, dir: true })));
  await makeDirs(dirs, rt);
}

/** Creates directories already recorded, outermost first, each parent checked again just before. */
async function makeDirs(dirs: readonly string[], rt: OpRuntime): Promise<void> {
  for (const dir of dirs) {
    await assertUnchanged(path.dirname(dir), rt.policy);
    // a directory entry in the page cache (fs-calls.ts)
    await makeDir(dir);
  }
}

/**
 * The bytes of a regular file, opened without following a symlink at the end (the before-image of a change). With
 * `policy`, a file over limits.maxFileBytes is refused before any of it is read: a before-image is held whole in
 * memory and kept in the journal, and with no card (writes auto) nothing else had read it through the limit.
 */
async function readNoFollow(p: string, policy?: Pick<Policy, 'limits'>): Promise<Buffer> {
  // The path was just resolved and lstat'd a regular file (each caller refuses anything else before this open), so
  // opening it reads no disk, nor do fstat of the descriptor and closing it; all follow the io-mode rule (fs-calls.ts)
  const fd = await openFile(p, READ_NO_FOLLOW);
  try {
    const stat = await fstatFile(fd);
    const size = stat.size;
    if (!stat.isFile()) throw notOverwritten(p);
    if (policy) assertWithinFileLimit(p, size, policy, '; its before-image would be kept for undo, so it is not changed');
    return await readWhole(fd, size);
  } finally {
    await closeFile(fd);
  }
}

function notOverwritten(p: string): ToolError {
  return new ToolError('INVALID_INPUT', `${json(p)} is not a regular file (a FIFO, socket or device); it is not overwritten`, { path: p });
}

/**
 * rename, or copy + remove when the journal lives on another device than the roots. `beforeCopy` runs before such a
 * copy, and may refuse it.
 */
export async function moveAcross(from: string, to: string, beforeCopy?: () => Promise<void>): Promise<void> {
  try {
    await renamePath(from, to);
  } catch (error) {
    if (errnoOf(error) !== 'EXDEV') throw error;
    await beforeCopy?.();
    await fs.cp(from, to, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true, errorOnExist: true, force: false });
    try {
      await fs.rm(from, { recursive: true, force: true });
    } catch (error) {
      // A folder's files can be gone before a subfolder refuses (read-only, not ours, a mount point), and undo does
      // not return to a path that exists: what went is put back from the copy, then the copy goes, so the move did
      // not happen and the source is whole where it was. Should that fail too, the copy stays: it holds what went.
      try {
        await fs.cp(to, from, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true, errorOnExist: false, force: false });
        await fs.rm(to, { recursive: true, force: true });
      } catch {
        // the error below is the one to answer with
      }
      throw error;
    }
  }
}

/**
 * What a removal or a replaced target keeps for undo goes into the entry's trash: a rename, or a copy when the data
 * dir is on another file system than the path. A copy is refused past journal.maxBytes before a byte of it is made,
 * named with the size: a sparse file that says it is 100 GB would be written out whole, filling the data dir's disk
 * for a removal the person may not even have been asked about.
 */
async function moveToTrash(from: string, ref: string, rt: OpRuntime): Promise<void> {
  await moveAcross(from, rt.refPath(ref), async () => {
    const limit = rt.policy.journal?.maxBytes;
    if (limit === undefined) return;
    const bytes = await bytesUnder(from, limit);
    if (bytes > limit) {
      throw new ToolError(
        'LIMIT_EXCEEDED',
        `${json(from)} holds more than ${limit} bytes (journal.maxBytes), at least ${bytes}: removing or replacing it keeps a copy for undo, ` +
          'and the data dir is on another file system, so that copy would be written out whole. Nothing was changed; ' +
          'remove it yourself, or raise journal.maxBytes',
        { path: from },
      );
    }
  });
}

/**
 * The bytes of the regular files at or under `start` (as their sizes say, so a sparse file counts whole), counted
 * until past `limit`: an undo copy about to be made, a journal entry being pruned.
 */
export async function bytesUnder(start: string, limit = Number.POSITIVE_INFINITY): Promise<number> {
  const stat = await lstatMaybe(start);
  if (!stat?.isDirectory()) return stat?.isFile() ? stat.size : 0;
  let bytes = 0;
  for await (const batch of walkTreeBatches(start)) {
    for (const entry of batch) {
      if (!entry.dirent.isFile()) continue;
      bytes += (await lstatMaybe(entry.path))?.size ?? 0;
      if (bytes > limit) return bytes;
    }
  }
  return bytes;
}

async function runWrite(op: Extract<FileOp, { op: 'write' }>, rt: OpRuntime): Promise<void> {
  const target = op.path;
  const dir = path.dirname(target);
  await assertUnchanged(dir, rt.policy);
  const stat = await lstatMaybe(target);
  if (stat?.isDirectory()) throw new ToolError('INVALID_INPUT', `${json(target)} is a directory; fs.write writes files`, { path: target });
  // refused from the lstat, never opened for its before-image: opening a device is itself an act (fd.ts)
  if (stat && !stat.isFile() && !stat.isSymbolicLink()) throw notOverwritten(target);
  const existing = stat ? await readNoFollow(target, rt.policy) : undefined;
  if (op.basedOn !== undefined && (existing === undefined ? null : existing.toString('utf8')) !== op.basedOn) {
    throw new ToolError(
      'CONFLICT',
      `${json(target)} changed after it was read for this change (${op.basedOn === null ? 'it was not there then' : 'it held other text then'}): written meanwhile by another call, a program or an editor. Nothing was changed; read it again and send the change again`,
      { path: target },
    );
  }
  if (op.expectedSha256 !== undefined) {
    // a file that holds a secret is known by its keyed digest only: its sha256 would be an offline oracle for the
    // secret, shown here or confirmed by a guess that matches
    const holdsSecret = existing !== undefined && rt.policy.redact !== undefined && bytesHoldSecret(existing, { redact: rt.policy.redact });
    const actual = existing ? shownSha256(existing, holdsSecret) : 'absent (no such file)';
    if (actual !== op.expectedSha256.toLowerCase()) {
      throw new ToolError(
        'CONFLICT',
        `${json(target)} changed since it was read: expectedSha256 is ${op.expectedSha256} but the file's sha256 is ${actual}`,
        { path: target, expectedSha256: op.expectedSha256, actualSha256: actual },
      );
    }
  }
  const added = typeof op.content === 'string' ? Buffer.from(op.content, 'utf8') : Buffer.from(op.content);
  // checked again here: the file may have gained its secret since the card (policy/redact.ts)
  if (op.mode !== 'append' && existing) refuseMarkerOverSecret(target, existing, added, rt.policy);
  const content = op.mode === 'append' && existing ? Buffer.concat([existing, added]) : added;
  if (content.byteLength > rt.policy.limits.maxFileBytes) {
    throw new ToolError(
      'LIMIT_EXCEEDED',
      `writing ${content.byteLength} bytes to ${json(target)} is over the limit of ${rt.policy.limits.maxFileBytes} bytes (limits.maxFileBytes)`,
      { path: target },
    );
  }
  // The new inode keeps the old mode, less setuid/setgid: write(2) to such a file clears them too, and new content
  // must not inherit the right to run as the file's owner or group. (Undo restores the full original mode.)
  const mode = stat ? stat.mode & 0o7777 & ~PRIVILEGE_BITS : undefined;
  const expect: ExpectedFile | undefined = rt.lone ? { path: target, content, ...(mode !== undefined ? { mode } : {}) } : undefined;
  if (existing && stat) {
    // The before-image goes with its record and the intent in one durable write (entry-file.ts); only then is
    // anything made in the person's folder: the temp file, then the rename.
    await rt.record([{ type: 'restore-file', path: target, ref: rt.newRef('before'), mode: stat.mode & 0o7777 }], existing, expect);
  } else {
    const dirs = await missingDirs(dir);
    await rt.record([...dirs.map((d): UndoRecord => ({ type: 'remove-created', path: d, dir: true })), { type: 'remove-created', path: target, dir: false }], undefined, expect);
    await makeDirs(dirs, rt);
  }
  await rt.step?.('recorded');
  const beforeRename = async () => {
    await rt.step?.('temp-written');
    await assertUnchanged(dir, rt.policy);
  };
  if (rt.lone) {
    const { temp, fd } = await createTempFile(target, content, mode);
    await renameThenSync(temp, fd, target, beforeRename, async () => rt.step?.('renamed'));
    await rt.step?.('synced');
  } else {
    const temp = await writeTempFile(target, content, mode);
    await renameIntoPlace(temp, target, beforeRename, (sync) => rt.defer(sync));
    await rt.step?.('renamed');
  }
  if (mode !== undefined) rt.wrote?.(target, content, mode);
}

async function runRm(op: Extract<FileOp, { op: 'rm' }>, rt: OpRuntime): Promise<void> {
  await assertUnchanged(path.dirname(op.path), rt.policy);
  const stat = await lstatMaybe(op.path);
  if (!stat) throw new ToolError('NOT_FOUND', `${json(op.path)} does not exist (pass force: true to accept that)`, { path: op.path });
  if (stat.isDirectory() && !op.recursive) {
    throw new ToolError('INVALID_INPUT', `${json(op.path)} is a directory; removing a directory needs recursive: true`, { path: op.path });
  }
  const ref = rt.newRef('trash');
  await rt.record([{ type: 'return-from-trash', path: op.path, ref }]);
  await moveToTrash(op.path, ref, rt);
  rt.defer(fsyncDir(path.dirname(op.path)));
  rt.defer(fsyncDir(path.dirname(rt.refPath(ref))));
}

async function runMv(op: Extract<FileOp, { op: 'mv' }>, rt: OpRuntime): Promise<void> {
  const { from, to } = op;
  await assertUnchanged(path.dirname(from), rt.policy);
  await assertUnchanged(path.dirname(to), rt.policy);
  const source = await lstatMaybe(from);
  if (!source) throw new ToolError('NOT_FOUND', `fromPath ${json(from)} does not exist`, { path: from });
  if (from === to) throw new ToolError('INVALID_INPUT', `fromPath and toPath are the same path ${json(from)}`, { path: from });
  if (source.isDirectory() && to.startsWith(from + path.sep)) {
    throw new ToolError('INVALID_INPUT', `cannot move the directory ${json(from)} into itself (${json(to)})`, { path: from });
  }
  const target = await lstatMaybe(to);
  if (target) {
    if (!op.overwrite) throw new ToolError('CONFLICT', `toPath ${json(to)} already exists; pass overwrite: true to replace it`, { path: to });
    if (target.isDirectory() !== source.isDirectory()) {
      throw new ToolError('CONFLICT', `cannot replace the ${kindName(target)} ${json(to)} with the ${kindName(source)} ${json(from)}`, {
        path: to,
      });
    }
    const ref = rt.newRef('trash');
    await rt.record([{ type: 'return-from-trash', path: to, ref }]);
    await moveToTrash(to, ref, rt);
    rt.defer(fsyncDir(path.dirname(rt.refPath(ref))));
  } else {
    await createDirs(await missingDirs(path.dirname(to)), rt);
  }
  await rt.record([{ type: 'move-back', from, to }]);
  await moveAcross(from, to);
  rt.defer(fsyncDir(path.dirname(from)));
  rt.defer(fsyncDir(path.dirname(to)));
}

async function runMkdir(op: Extract<FileOp, { op: 'mkdir' }>, rt: OpRuntime): Promise<void> {
  await assertUnchanged(op.path, rt.policy);
  const stat = await lstatMaybe(op.path);
  if (stat) {
    if (stat.isDirectory() && op.parents) return;
    throw new ToolError('CONFLICT', `${json(op.path)} already exists (a ${kindName(stat)})`, { path: op.path });
  }
  const missing = await missingDirs(op.path);
  if (missing.length > 1 && !op.parents) {
    throw new ToolError('NOT_FOUND', `parent directory ${json(path.dirname(op.path))} does not exist; pass parents: true to create it`, {
      path: op.path,
    });
  }
  await createDirs(missing, rt);
}

async function runChmod(op: Extract<FileOp, { op: 'chmod' }>, rt: OpRuntime): Promise<void> {
  if (process.platform === 'win32') throw new ToolError('NOT_SUPPORTED', 'fs.chmod is not supported on Windows');
  assertNoPrivilegeBits(op.path, op.mode);
  await assertUnchanged(op.path, rt.policy);
  const stat = await lstatMaybe(op.path);
  if (!stat) throw new ToolError('NOT_FOUND', `${json(op.path)} does not exist`, { path: op.path });
  // again here, not only at plan: a second name may have been linked in while the approval waited
  assertSingleLink(op.path, stat);
  await rt.record([{ type: 'chmod', path: op.path, mode: stat.mode & 0o7777 }]);
  await chmodSingleLink(op.path, op.mode, stat);
}

/**
 * chmod on the inode that was checked: opened without following a symlink, its device, inode and link count
 * confirmed on the descriptor, then fchmod — so neither a symlink nor a hard link swapped in after the lstat can
 * take the change elsewhere. What cannot be opened for reading (mode 000, a socket) is changed by path after the
 * same checks by lstat, which leaves the few microseconds between them.
 */
async function chmodSingleLink(p: string, mode: number, checked: Stats, done?: string): Promise<void> {
  if (checked.isSymbolicLink()) throw new ToolError('FORBIDDEN', `${json(p)} is a symlink; a mode is changed on a file or directory itself`, { path: p });
  let handle: fs.FileHandle | undefined;
  if (checked.isFile() || checked.isDirectory()) {
    try {
      handle = await fs.open(p, READ_NO_FOLLOW);
    } catch (error) {
      if (errnoOf(error) === 'ELOOP') throw new ToolError('FORBIDDEN', `${json(p)} became a symlink after it was checked`, { path: p });
      if (errnoOf(error) !== 'EACCES' && errnoOf(error) !== 'EPERM') throw error;
    }
  }
  try {
    const now = handle ? await handle.stat() : await fs.lstat(p);
    if (now.dev !== checked.dev || now.ino !== checked.ino) {
      throw new ToolError('CONFLICT', `${json(p)} was replaced by another file after it was checked; its mode was not changed`, { path: p });
    }
    assertSingleLink(p, now, done);
    await (handle ? handle.chmod(mode) : fs.chmod(p, mode));
  } finally {
    await handle?.close();
  }
}

export async function runOp(op: FileOp, rt: OpRuntime): Promise<void> {
  try {
    switch (op.op) {
      case 'write':
        return await runWrite(op, rt);
      case 'rm':
        return await runRm(op, rt);
      case 'mv':
        return await runMv(op, rt);
      case 'mkdir':
        return await runMkdir(op, rt);
      case 'chmod':
        return await runChmod(op, rt);
    }
  } catch (error) {
    throw asToolError(error, op.op === 'mv' ? op.from : op.path);
  }
}

/** Idempotent: applying it when its change never happened (a crash before the op) leaves the path alone. */
export interface RefReader {
  /** where a trash/ or before/ file of the entry is */
  path(ref: string): string;
  /** a before-image: inline in the entry file (format 2), or its file */
  read(ref: string): Promise<Buffer>;
}

export async function applyUndo(undo: UndoRecord, refs: RefReader): Promise<void> {
  await assertUndoTargetsUnmoved(undo);
  const refPath = (ref: string) => refs.path(ref);
  switch (undo.type) {
    case 'restore-file': {
      const bytes = await refs.read(undo.ref);
      const current = await lstatMaybe(undo.path);
      // The op this reverses may never have changed the file (it failed, or the crash came first). Rewriting it
      // anyway would need a temp file in its directory — which fails where the op failed for lack of permission.
      if (current?.isFile() && (current.mode & 0o7777) === undo.mode && (await holdsBytes(undo.path, current.size, bytes))) return;
      if (current?.isDirectory()) await fs.rm(undo.path, { recursive: true, force: true });
      await writeFileAtomic(undo.path, bytes, { mode: undo.mode });
      return;
    }
    case 'remove-created': {
      const current = await lstatMaybe(undo.path);
      if (!current) return;
      if (undo.dir && current.isDirectory()) {
        await fs.rmdir(undo.path);
      } else if (!undo.dir && !current.isDirectory()) {
        await fs.rm(undo.path, { force: true });
      }
      return;
    }
    case 'return-from-trash': {
      const stored = refPath(undo.ref);
      if (!(await lstatMaybe(stored)) || (await lstatMaybe(undo.path))) return;
      await moveAcross(stored, undo.path);
      return;
    }
    case 'move-back': {
      if (!(await lstatMaybe(undo.to)) || (await lstatMaybe(undo.from))) return;
      await moveAcross(undo.to, undo.from);
      return;
    }
    case 'chmod': {
      const current = await lstatMaybe(undo.path);
      if (current && (current.mode & 0o7777) !== undo.mode) {
        // the name may have become a second link to another file since: restoring a mode would change that file
        await chmodSingleLink(undo.path, undo.mode, current, 'restored');
      }
      return;
    }
  }
}

/** A change a crash cut short, as a rollback at the next start sees it. */
export interface Interrupted {
  /** what each write of the entry put at its path: the sha256 of its content (an append's: of the bytes it added) */
  written: ReadonlyMap<string, readonly Extract<OpSummary, { op: 'write' }>[]>;
  /** when the entry was last written to (its file's mtime, ms): the change stopped about then */
  at: number;
}

export function interruptedChange(ops: readonly OpSummary[], at: number): Interrupted {
  const written = new Map<string, Extract<OpSummary, { op: 'write' }>[]>();
  for (const op of ops) if (op.op === 'write') written.set(op.path, [...(written.get(op.path) ?? []), op]);
  return { written, at };
}

/**
 * A file changed no later than this after the entry's last line is taken for the change's own, cut short (a machine
 * that stopped can leave a renamed file empty or torn); one changed later, for the person's. An op's file is written
 * within moments of the line before it; a person edits after the companion stopped, and before it starts again.
 */
const OWN_WRITE_MARGIN_MS = 5000;

/**
 * Why replaying `undo` at a start after a crash would throw away what was made since — its path holds neither what
 * the interrupted change wrote there nor what was there before it, and was changed after the change stopped — or
 * undefined when replaying it loses nothing. The companion was not running meanwhile, but the person was: a file they
 * edited, or made in a folder the change had made, is theirs, and a rollback must not put an older file over it nor
 * remove it.
 */
export async function changedSinceCrash(undo: UndoRecord, refs: RefReader, change: Interrupted): Promise<string | undefined> {
  if (undo.type !== 'restore-file' && undo.type !== 'remove-created') return undefined;
  const current = await lstatMaybe(undo.path);
  if (!current) return undefined;
  if (undo.type === 'remove-created' && undo.dir) {
    if (!current.isDirectory()) return undefined;
    const names = await fs.readdir(undo.path).catch(() => [] as string[]);
    return names.length === 0 ? undefined : `the folder holds what was made in it since: ${names.slice(0, 3).map((name) => json(name)).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more` : ''}`;
  }
  if (current.isDirectory()) return undo.type === 'remove-created' ? undefined : 'a folder is there now';
  if (!current.isFile()) return current.isSymbolicLink() ? 'a symlink is there now' : 'a FIFO, socket or device is there now';
  let bytes: Buffer;
  try {
    bytes = await readNoFollow(undo.path);
  } catch {
    // unreadable now: the replay says why when it fails; nothing is read to compare
    return undefined;
  }
  // torn by a machine stop, not made by a person since: rolled back to its before-image, as it always was
  if (current.mtimeMs <= change.at + OWN_WRITE_MARGIN_MS) return undefined;
  const before = undo.type === 'restore-file' ? await refs.read(undo.ref) : undefined;
  if (before?.equals(bytes)) return undefined;
  const whole = sha256(bytes);
  const own = (change.written.get(undo.path) ?? []).some(
    (op) =>
      op.sha256 === whole ||
      (op.mode === 'append' &&
        before !== undefined &&
        bytes.byteLength === before.byteLength + op.bytes &&
        bytes.subarray(0, before.byteLength).equals(before) &&
        sha256(bytes.subarray(before.byteLength)) === op.sha256),
  );
  return own ? undefined : 'the file was changed after the change was interrupted';
}

/** Whether the regular file at `p` (of `size` bytes, per lstat) holds exactly `bytes`; read without following a link. */
async function holdsBytes(p: string, size: number, bytes: Buffer): Promise<boolean> {
  if (size !== bytes.byteLength) return false;
  try {
    return (await readNoFollow(p)).equals(bytes);
  } catch {
    // unreadable or swapped meanwhile: not known to be equal, so the restore goes ahead (and says why if it fails)
    return false;
  }
}

/** A directory on the way replaced by a symlink since the entry ran would send the restore elsewhere. */
export async function assertUndoTargetsUnmoved(undo: UndoRecord): Promise<void> {
  for (const p of undo.type === 'move-back' ? [undo.from, undo.to] : [undo.path]) await assertNoSymlinkOnTheWay(path.dirname(p));
}

async function assertNoSymlinkOnTheWay(dir: string): Promise<void> {
  const real = await realpathLoose(dir);
  if (real !== dir) {
    throw new ToolError('FORBIDDEN', `cannot restore into ${json(dir)}: it now leads to ${json(real)} through a symlink`, { path: dir });
  }
}

/**
 * `tree`: for a directory, also a digest of everything under it (see treeDigest) — the after-state of a folder a
 * move put in place, whose undo moves back whatever the folder holds by then.
 */
export async function capturePathState(p: string, options: { tree?: boolean } = {}): Promise<PathState> {
  const stat = await lstatMaybe(p);
  if (!stat) return { kind: 'absent' };
  if (stat.isSymbolicLink()) return { kind: 'symlink', target: await onMountOf(p, () => fs.readlink(p)) };
  if (stat.isDirectory()) {
    const entries = (await onMountOf(p, () => fs.readdir(p))).sort();
    // a tree that cannot be read (a folder made unreadable meanwhile) gets a digest nothing equals: undo then refuses;
    // a mount inside that did not answer in its turn (mount-gate.ts) is said as it is, not as a change to the folder
    const tree = options.tree
      ? await treeDigest(p).catch((error: unknown) => {
          if (error instanceof ToolError) throw error;
          return `unreadable ${randomUUID()}`;
        })
      : undefined;
    return { kind: 'dir', entries, mode: stat.mode & 0o7777, ...(tree !== undefined ? { tree } : {}) };
  }
  if (!stat.isFile()) return { kind: 'other' };
  return { kind: 'file', sha256: await sha256File(p, stat.size), mode: stat.mode & 0o7777 };
}

/**
 * A digest of everything under a directory: each path below it (sorted), its kind, mode, and for a file its size,
 * inode and modification time, for a symlink its target. A file written by chatbridge is a new inode (temp file +
 * rename); one changed in place has a new size or time. Read with lstat only: a moved folder has at most the
 * 10 000 entries the move's check allows (policy/subtree-guard.ts). A network or FUSE mount inside the folder is
 * walked in its turns (mount-gate.ts).
 */
export async function treeDigest(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (folder: string, relative: string): Promise<void> => {
    for (const name of (await onMountOf(folder, () => fs.readdir(folder))).sort()) {
      const full = path.join(folder, name);
      const rel = relative === '' ? name : `${relative}/${name}`;
      const stat = await onMountOf(full, () => fs.lstat(full, { bigint: true }));
      const mode = (stat.mode & 0o7777n).toString(8);
      if (stat.isSymbolicLink()) hash.update(`l ${rel} ${await onMountOf(full, () => fs.readlink(full))}\0`);
      else if (stat.isDirectory()) {
        hash.update(`d ${rel} ${mode}\0`);
        await walk(full, rel);
      } else if (stat.isFile()) hash.update(`f ${rel} ${mode} ${stat.size} ${stat.ino} ${stat.mtimeNs}\0`);
      else hash.update(`o ${rel}\0`);
    }
  };
  await walk(dir, '');
  return hash.digest('hex');
}

/** Undefined when `now` still is the after-state; otherwise a phrase saying what changed. */
export function describeChange(after: PathState, now: PathState, compareEntries: boolean): string | undefined {
  if (after.kind !== now.kind) return `was ${after.kind} after the change, is ${now.kind} now`;
  if (after.kind === 'file' && now.kind === 'file') {
    if (after.sha256 !== now.sha256) return `content changed (sha256 ${after.sha256} after the change, ${now.sha256} now)`;
    if (after.mode !== now.mode) return `mode changed (${after.mode.toString(8)} → ${now.mode.toString(8)})`;
  }
  if (after.kind === 'dir' && now.kind === 'dir') {
    if (after.mode !== now.mode) return `mode changed (${after.mode.toString(8)} → ${now.mode.toString(8)})`;
    if (compareEntries && after.entries.join('\0') !== now.entries.join('\0')) return 'its entries changed';
    if (after.tree !== undefined && now.tree !== after.tree) return 'what is inside it changed (a file under it was written, added, removed or changed)';
  }
  if (after.kind === 'symlink' && now.kind === 'symlink' && after.target !== now.target) return 'the symlink points elsewhere';
  return undefined;
}
