import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_MARKER_VAR } from './kill-tree';
import { bootId, HAS_PROC, listProcs, processesWithEnv, readProc, type ProcEntry } from './proc-table';

/**
 * One file per running program in `<home>/programs/`, written when it starts and removed once its tree is gone, so
 * that a companion killed without a chance to stop its programs (SIGKILL, a crash, power to the terminal cut) can
 * stop them at its next start. The process instance is pinned by its start time, so a pid the system has since
 * given to an unrelated process is never signalled.
 */
export interface ProgramRecord {
  id: string;
  pid: number;
  /** the program leads its own process group and session, so both equal pid; kept apart for clarity */
  pgid: number;
  command: string;
  startedAt: string;
  /** /proc/<pid>/stat start time; absent where there is no /proc (then the record is never acted on) */
  startTime?: string;
  bootId?: string;
  /** the companion that started it: while that companion still runs, its programs are its own business */
  owner: { pid: number; startTime?: string };
  /** the program's CHATBRIDGE_RUN value: finds what it double-forked out of its group and session (kill-tree.ts) */
  marker?: string;
}

const FILE_PATTERN = /^prog-[0-9a-f-]+\.json$/;

export interface ProgramRecords {
  add(record: Omit<ProgramRecord, 'startTime' | 'bootId' | 'owner'>): void;
  remove(id: string): void;
}

/**
 * Writes and removes the records. Best effort by design: a program runs even when its record cannot be written
 * (a full disk), it is then only not stopped after a crash.
 */
export function createProgramRecords(dir: string): ProgramRecords {
  const owner = { pid: process.pid, ...startTimeField(process.pid) };
  const boot = bootId();
  return {
    add(record) {
      const full: ProgramRecord = { ...record, ...startTimeField(record.pid), ...(boot ? { bootId: boot } : {}), owner };
      const file = join(dir, `${record.id}.json`);
      const temp = `${file}.${process.pid}.tmp`;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        writeFileSync(temp, JSON.stringify(full), { mode: 0o600 });
        renameSync(temp, file);
      } catch {
        rmSync(temp, { force: true });
      }
    },
    remove(id) {
      try {
        rmSync(join(dir, `${id}.json`), { force: true });
      } catch {
        // a record left behind is checked and dropped at the next start
      }
    },
  };
}

function startTimeField(pid: number): { startTime?: string } {
  const entry = readProc(pid);
  return entry ? { startTime: entry.startTime } : {};
}

/** What a start found: programs it stopped, and records it could not act on (no /proc to verify them). */
export interface LeftoverReport {
  stopped: ProgramRecord[];
  unverifiable: ProgramRecord[];
}

export interface StopLeftoversOptions {
  /** how long the processes have between SIGTERM and SIGKILL */
  graceMs?: number;
}

/**
 * At start: for every record whose owning companion is gone, signals what is left of the program — the leader
 * when it is still the same instance, and the members of its process group (and session) that started after it —
 * with SIGTERM, then SIGKILL after the grace period, and drops the record. A record whose process is gone or is now
 * someone else is just dropped.
 */
export async function stopLeftoverPrograms(dir: string, options: StopLeftoversOptions = {}): Promise<LeftoverReport> {
  const graceMs = options.graceMs ?? 1_000;
  const report: LeftoverReport = { stopped: [], unverifiable: [] };
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => FILE_PATTERN.test(name));
  } catch {
    return report;
  }
  const procs = listProcs();
  const boot = bootId();
  const targets: Array<{ pid: number; startTime: string }> = [];
  const groups: number[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const record = readRecord(file);
    if (record && ownerStillRuns(record, procs)) continue;
    if (record && !HAS_PROC) {
      report.unverifiable.push(record);
    } else if (record && record.startTime !== undefined && record.bootId === boot) {
      const left = [...leftoverProcesses(record, procs), ...markedLeftovers(record, procs)];
      if (left.length > 0) {
        report.stopped.push(record);
        targets.push(...left.map((p) => ({ pid: p.pid, startTime: p.startTime })));
        // the group too: it also reaches a member forked after the table was read
        groups.push(record.pgid);
      }
    }
    rmSync(file, { force: true });
  }
  if (targets.length === 0) return report;
  signalAll(targets, groups, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && targets.some(alive)) await new Promise((resolve) => setTimeout(resolve, 25));
  // a group id is only trusted while a verified member still holds it; otherwise it may be a new group by now
  const heldGroups = groups.filter((pgid) => targets.some((t) => alive(t) && readProc(t.pid)?.pgid === pgid));
  signalAll(targets, heldGroups, 'SIGKILL');
  return report;
}

function readRecord(file: string): ProgramRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<ProgramRecord>;
    if (!Number.isInteger(parsed.pid) || !Number.isInteger(parsed.pgid) || typeof parsed.owner?.pid !== 'number') return undefined;
    return parsed as ProgramRecord;
  } catch {
    // torn (a crash while writing it) or not ours: nothing to verify it against
    return undefined;
  }
}

function ownerStillRuns(record: ProgramRecord, procs: readonly ProcEntry[]): boolean {
  if (record.owner.pid === process.pid) return false;
  if (!HAS_PROC) {
    // no start times to compare: a live pid may be the owner, so its records are left for it
    try {
      process.kill(record.owner.pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  const owner = procs.find((p) => p.pid === record.owner.pid);
  return owner !== undefined && owner.startTime === record.owner.startTime && owner.state !== 'Z';
}

/**
 * The processes of a recorded program that are still there. The leader counts when its start time matches. Members
 * of its group count even when the leader has exited — the kernel does not hand out a pid while a group of that
 * id exists — provided they are also in its session (programs are started with setsid) and started no earlier
 * than the leader; a group the same id could have got after the original one ended fails one of those.
 */
export function leftoverProcesses(record: ProgramRecord, procs: readonly ProcEntry[]): ProcEntry[] {
  if (record.startTime === undefined) return [];
  const leader = procs.find((p) => p.pid === record.pid);
  if (leader && leader.startTime !== record.startTime) return [];
  const since = BigInt(record.startTime);
  return procs.filter(
    (p) => p.state !== 'Z' && p.pgid === record.pgid && p.sid === record.pgid && (p.pid === record.pid ? p.startTime === record.startTime : BigInt(p.startTime) >= since),
  );
}

/**
 * Processes that carry the recorded program's marker and started no earlier than it: a daemon it double-forked,
 * which left its group and session. A pid is listed once even when it is also in the group.
 */
function markedLeftovers(record: ProgramRecord, procs: readonly ProcEntry[]): ProcEntry[] {
  const { marker, startTime } = record;
  if (typeof marker !== 'string' || !/^[0-9a-f]{32}$/.test(marker) || startTime === undefined || !/^\d+$/.test(startTime)) return [];
  return processesWithEnv(RUN_MARKER_VAR, marker, startTime, procs).filter((p) => p.pgid !== record.pgid);
}

function alive(target: { pid: number; startTime: string }): boolean {
  const entry = readProc(target.pid);
  return entry !== undefined && entry.startTime === target.startTime && entry.state !== 'Z';
}

function signalAll(targets: ReadonlyArray<{ pid: number; startTime: string }>, groups: readonly number[], signal: NodeJS.Signals): void {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, signal);
    } catch {
      // the group is gone
    }
  }
  for (const target of targets) {
    if (!alive(target)) continue;
    try {
      process.kill(target.pid, signal);
    } catch {
      // ended meanwhile
    }
  }
}
