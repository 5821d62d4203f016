import { readdirSync, readFileSync } from 'node:fs';

/**
 * The Linux process table as /proc shows it: enough to find a program's descendants and to tell whether a pid is
 * still the same process instance. Elsewhere (no /proc) every reader answers "unknown", and callers do nothing they
 * could not verify.
 */
export interface ProcEntry {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** field 22 of /proc/<pid>/stat: clock ticks after boot when the process started; with the pid, it names one instance */
  startTime: string;
  /** R, S, D, Z, … — a zombie has already exited and cannot be signalled away */
  state: string;
}

export const HAS_PROC = process.platform === 'linux';

/** Parses /proc/<pid>/stat. The command name is in parentheses and may itself hold spaces and parentheses. */
export function parseStat(text: string): ProcEntry | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  // fields from the 3rd on (state, ppid, pgrp, session, …); starttime is the 22nd
  const rest = text.slice(close + 1).trim().split(/\s+/);
  const [state, ppid, pgid, sid] = [rest[0], Number(rest[1]), Number(rest[2]), Number(rest[3])];
  const startTime = rest[19];
  if (!Number.isInteger(pid) || state === undefined || startTime === undefined || ![ppid, pgid, sid].every(Number.isInteger)) return undefined;
  return { pid, ppid, pgid, sid, startTime, state };
}

export function readProc(pid: number): ProcEntry | undefined {
  if (!HAS_PROC) return undefined;
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    // gone, or never was
    return undefined;
  }
}

export function listProcs(): ProcEntry[] {
  if (!HAS_PROC) return [];
  const entries: ProcEntry[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readProc(Number(name));
    if (entry) entries.push(entry);
  }
  return entries;
}

/** Every live process below `pid`, found by following parent links down; the pid itself is not included. */
export function descendantsOf(pid: number, procs: readonly ProcEntry[] = listProcs()): ProcEntry[] {
  const children = new Map<number, ProcEntry[]>();
  for (const entry of procs) {
    const list = children.get(entry.ppid);
    if (list) list.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const found: ProcEntry[] = [];
  const queue = [pid];
  const seen = new Set<number>([pid]);
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** Identifies this boot: start times count from boot, so a record from before a reboot matches nothing now. */
export function bootId(): string | undefined {
  if (!HAS_PROC) return undefined;
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Live processes whose environment, as /proc/<pid>/environ shows it, holds exactly `name=value` — the way a CI
 * server finds what a build left behind. Only processes that started at or after `since` (a start time) are read:
 * nothing older can have inherited a value made after it started. The file is readable only for processes of the
 * same user (and not for setuid or non-dumpable ones); what cannot be read is skipped. It shows the environment
 * the process was started with: a process that execs itself with a cleaned environment is not found.
 */
export function processesWithEnv(name: string, value: string, since: string, procs: readonly ProcEntry[] = listProcs()): ProcEntry[] {
  if (!HAS_PROC) return [];
  const wanted = Buffer.from(`${name}=${value}\0`);
  const from = BigInt(since);
  const found: ProcEntry[] = [];
  for (const entry of procs) {
    if (entry.state === 'Z' || entry.pid === process.pid || BigInt(entry.startTime) < from) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${entry.pid}/environ`);
    } catch {
      // gone, or not ours to read
      continue;
    }
    // a whole entry, not the same text inside another variable's value
    for (let at = environ.indexOf(wanted); at >= 0; at = environ.indexOf(wanted, at + 1)) {
      if (at === 0 || environ[at - 1] === 0) {
        found.push(entry);
        break;
      }
    }
  }
  return found;
}
