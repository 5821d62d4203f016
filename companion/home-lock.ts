import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { ToolError } from '../shared/errors';
import { asToolError, errnoOf } from './fsx/errno';
import { sameInstance } from './processes';
import { bootId, readProc } from './processes/proc-table';
import { commandHow } from './how-to-run';

interface LockRecord {
  pid: number;
  /** with the pid, names one process instance (Linux); a reused pid is not the holder */
  startTime?: string;
  bootId?: string;
}

/**
 * One companion per data dir. A second one started on the same home would take the first's unfinished journal
 * entries for a crash's and roll them back while the first is still applying them (half a batch undone under a
 * run that answers success), compact the run log under the first's appends, and take over its runtime file. So
 * `start` holds `<home>/companion.lock` (created exclusively) from before recovery until shutdown; a lock whose
 * holder is gone (SIGKILL, a crash, a reboot) is taken over. Returns the release.
 */
export function lockHome(home: string, file: string): () => void {
  const boot = bootId();
  const startTime = readProc(process.pid)?.startTime;
  const own: LockRecord = { pid: process.pid, ...(startTime ? { startTime } : {}), ...(boot ? { bootId: boot } : {}) };
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (error) {
      if (errnoOf(error) !== 'EEXIST' || attempt > 0) throw asToolError(error, file);
      fd = -1;
    }
    if (fd >= 0) {
      try {
        writeFileSync(fd, JSON.stringify(own));
      } catch (error) {
        // the data dir's disk is full: no empty lock is left behind, and the answer names where there is no room
        rmSync(file, { force: true });
        throw asToolError(error, file);
      } finally {
        closeSync(fd);
      }
      return () => {
        if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
      };
    }
    const holder = readHolder(file);
    if (holder && holderRuns(holder, boot)) {
      throw new ToolError(
        'CONFLICT',
        `another chatbridge companion (pid ${holder.pid}) is using the data dir ${home}; stop it first (${commandHow('status')} shows where it listens), or give this one its own CHATBRIDGE_HOME. If pid ${holder.pid} is not a chatbridge companion, remove ${file}`,
      );
    }
    // its holder is gone, or the file is torn: nobody holds the data dir
    rmSync(file, { force: true });
  }
}

function readHolder(file: string): LockRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockRecord>;
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
