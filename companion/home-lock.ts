import { closeSync, fstatSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, type BigIntStats } from 'node:fs';
import { ToolError } from '../shared/errors';
import { asToolError, errnoOf, isMissing } from './fsx/errno';
import { READ_NO_FOLLOW } from './fsx/fd';
import { sameInstance } from './processes';
import { bootId, readProc } from './processes/proc-table';
import { randomId } from './random-id';
import { commandHow } from './how-to-run';

interface LockRecord {
  pid: number;
  /** with the pid, names one process instance (Linux); a reused pid is not the holder */
  startTime?: string;
  bootId?: string;
}

/** The lock as one read saw it: which file it was (a lock is never written again once in place) and who wrote it. */
interface SeenLock {
  /** device, inode and modification time: what a takeover checks the lock still is */
  identity: string;
  /** undefined when the file holds no record (one left torn by an older version) */
  holder: LockRecord | undefined;
}

/** How long a start waits on another start that is taking over the same stale lock before it says so. */
const TAKEOVER_WAIT_MS = 2000;

/**
 * One companion per data dir. A second one started on the same home would take the first's unfinished journal
 * entries for a crash's and roll them back while the first is still applying them (half a batch undone under a
 * run that answers success), compact the run log under the first's appends, and take over its runtime file. So
 * `start` holds `<home>/companion.lock` from before recovery until shutdown; a lock whose holder is gone (SIGKILL, a
 * crash, a reboot) is taken over. Returns the release.
 *
 * Starts at the same moment (two terminals, a service manager and a person) once each ran: the lock was created
 * empty and filled a moment later, and a start that read it empty in between took it for a torn one and removed it;
 * two starts that both read a stale lock each removed "it", the second removing the lock the first had just made.
 * Now the lock is written whole to a file of this start's own and link(2)ed into place, which fails when a lock is
 * there, and a stale lock is replaced by rename(2) only by the one start that linked the takeover mark named after
 * that very file (device, inode, modification time): whoever else read it stale finds the mark taken, reads again,
 * and meets the new holder.
 */
export function lockHome(home: string, file: string): () => void {
  const boot = bootId();
  const startTime = readProc(process.pid)?.startTime;
  const own: LockRecord = { pid: process.pid, ...(startTime ? { startTime } : {}), ...(boot ? { bootId: boot } : {}) };
  const release = () => {
    try {
      if (readLock(file)?.holder?.pid === process.pid) rmSync(file, { force: true });
    } catch {
      // something else than a lock is there now: not this start's to remove
    }
  };
  let waitedSince: number | undefined;
  for (;;) {
    if (claim(file, own, file)) return release;
    const seen = readLock(file);
    // released in between: claim it again
    if (!seen) continue;
    if (seen.holder && holderRuns(seen.holder, boot)) {
      throw new ToolError(
        'CONFLICT',
        `another chatbridge companion (pid ${seen.holder.pid}) is using the data dir ${home}; stop it first (${commandHow('status')} shows where it listens), or give this one its own CHATBRIDGE_HOME. If pid ${seen.holder.pid} is not a chatbridge companion, remove ${file}`,
      );
    }
    // its holder is gone, or the file is torn: nobody holds the data dir
    const mark = `${file}.takeover-${seen.identity}`;
    if (claim(mark, own, file)) {
      try {
        if (takeOver(file, seen, own)) return release;
      } finally {
        rmSync(mark, { force: true });
      }
      continue;
    }
    // another start is taking this very lock over: its new lock is in place a moment later
    waitedSince ??= Date.now();
    if (Date.now() - waitedSince > TAKEOVER_WAIT_MS) {
      throw new ToolError(
        'CONFLICT',
        `the data dir ${home} is locked by ${file}, left by pid ${seen.holder?.pid ?? '(none)'}, which is gone, and ${mark} says another start is taking it over, which has not done so in ${TAKEOVER_WAIT_MS / 1000} s. If no other chatbridge companion is starting, remove both files`,
      );
    }
    pause(5);
  }
}

/**
 * Puts `record` at `path` whole, unless something is there already: written to a file of this start's own first,
 * then linked into place. False when `path` exists. `subject` is the file a failed write is told about.
 */
function claim(path: string, record: LockRecord, subject: string): boolean {
  let temp: string | undefined;
  try {
    temp = ownTempFile(path, record);
    pauseForTest();
    linkSync(temp, path);
    return true;
  } catch (error) {
    if (errnoOf(error) === 'EEXIST') return false;
    if (temp && NO_HARD_LINKS.has(errnoOf(error) ?? '')) return claimByCreate(path, record, subject);
    throw asToolError(error, subject);
  } finally {
    if (temp) rmSync(temp, { force: true });
  }
}

/** what link(2) answers on a file system that has no hard links (FAT and exFAT, some network and FUSE mounts) */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * `claim` where the data dir's file system cannot link: the file created exclusively and written at once. A start
 * reading it in the moment between could take it for torn; the data dir still gets a lock rather than no start.
 */
function claimByCreate(path: string, record: LockRecord, subject: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if (errnoOf(error) === 'EEXIST') return false;
    throw asToolError(error, subject);
  }
  try {
    writeFileSync(fd, JSON.stringify(record));
    return true;
  } catch (error) {
    // the data dir's disk is full: no empty lock is left behind, and the answer names where there is no room
    rmSync(path, { force: true });
    throw asToolError(error, subject);
  } finally {
    closeSync(fd);
  }
}

/** Holding the takeover mark of the stale lock `seen`: replaces that lock with this start's, if it is still the one. */
function takeOver(file: string, seen: SeenLock, own: LockRecord): boolean {
  // the mark may be left from an earlier takeover of a lock now gone: only the very file judged stale is replaced
  if (readLock(file)?.identity !== seen.identity) return false;
  let temp: string | undefined;
  try {
    temp = ownTempFile(file, own);
    pauseForTest();
    renameSync(temp, file);
    return true;
  } catch (error) {
    if (temp) rmSync(temp, { force: true });
    throw asToolError(error, file);
  }
}

/** A new file beside `path` holding `record`; a failed write (the data dir's disk full) leaves nothing behind. */
function ownTempFile(path: string, record: LockRecord): string {
  const temp = `${path}.${process.pid}.${randomId(6, 'hex')}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify(record), { mode: 0o600, flag: 'wx' });
    return temp;
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** The lock as it is now, or undefined when there is none. */
function readLock(file: string): SeenLock | undefined {
  let fd: number;
  try {
    fd = openSync(file, READ_NO_FOLLOW);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw asToolError(error, file);
  }
  try {
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile()) throw new ToolError('CONFLICT', `${file} is not a file, so it cannot be the data dir's lock; remove it`);
    return { identity: identityOf(stat), holder: parseHolder(readFileSync(fd, 'utf8')) };
  } finally {
    closeSync(fd);
  }
}

function identityOf(stat: BigIntStats): string {
  // not the ctime: linking and unlinking the claim's own file change it after the lock is in place
  return `${stat.dev}-${stat.ino}-${stat.mtimeNs}`;
}

function parseHolder(text: string): LockRecord | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<LockRecord>;
    return Number.isInteger(parsed.pid) && (parsed.pid as number) > 0 ? (parsed as LockRecord) : undefined;
  } catch {
    return undefined;
  }
}

function holderRuns(holder: LockRecord, boot: string | undefined): boolean {
  if (holder.pid === process.pid) return false;
  // a start time counts from boot: after a reboot the recorded process is gone whatever runs under its pid now
  if (holder.bootId && boot && holder.bootId !== boot) return false;
  if (holder.startTime && readProc(holder.pid)) return sameInstance(holder.pid, holder.startTime);
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists under another user
    return errnoOf(error) === 'EPERM';
  }
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Test hook: pause this many milliseconds before each step of a claim (a lock linked into place, a stale one
 * replaced), so starts at the same moment come in between each other's steps. Unset in normal use.
 */
function pauseForTest(): void {
  const ms = Number(process.env.CHATBRIDGE_LOCK_TEST_DELAY_MS);
  if (ms > 0) pause(ms);
}
