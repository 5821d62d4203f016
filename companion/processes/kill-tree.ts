import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { descendantsOf, HAS_PROC, listProcs, processesWithEnv, readProc } from './proc-table';

/**
 * The variable every program's environment carries (issue 9, finding 9): a random value per program, set by the
 * process manager over whatever the call asked for, and inherited by everything the program starts — including
 * a double-forked daemon that left both the process group and every parent link. A kill looks it up in /proc.
 */
export const RUN_MARKER_VAR = 'CHATBRIDGE_RUN';

export function newRunMarker(): string {
  return randomBytes(16).toString('hex');
}

/**
 * Descendants of a program that left its process group (`setsid`, `setpgid`), as pid → start time, gathered at
 * each signal so a later SIGKILL still reaches the ones whose parent the SIGTERM already ended. The start times
 * keep a pid the system reused for someone else's process from being walked or signalled.
 */
export interface Strays {
  /** the program's own start time, read right after spawn; the walk only starts from that very process */
  leaderStartTime: string | undefined;
  /** the program's RUN_MARKER_VAR value, when it was started with one */
  marker?: string;
  found: Map<number, string>;
}

export function trackStrays(pid: number | undefined, marker?: string): Strays {
  return { leaderStartTime: pid === undefined ? undefined : readProc(pid)?.startTime, ...(marker !== undefined ? { marker } : {}), found: new Map() };
}

/**
 * Adds to `strays` what has left the group of the program led by `pid` (Linux): its descendants by parent links
 * while the program itself still runs, and every process of ours that carries its marker — those are found even
 * after the program is gone and they were reparented to init.
 */
export function gatherStrays(pid: number, strays: Strays): void {
  if (!HAS_PROC || strays.leaderStartTime === undefined) return;
  const procs = listProcs();
  if (sameInstance(pid, strays.leaderStartTime)) {
    for (const entry of descendantsOf(pid, procs)) if (entry.pgid !== pid) strays.found.set(entry.pid, entry.startTime);
  }
  if (strays.marker !== undefined) {
    for (const entry of processesWithEnv(RUN_MARKER_VAR, strays.marker, strays.leaderStartTime, procs)) {
      if (entry.pgid !== pid) strays.found.set(entry.pid, entry.startTime);
    }
  }
}

/**
 * Signals a program's whole process tree. Programs are spawned as the leaders of their own process group
 * (`detached: true`), so on POSIX one signal to `-pid` reaches the shell, its children and their children —
 * including ones whose parent already exited. On Windows there are no process groups; `taskkill /T` walks the tree.
 *
 * On Linux, with `strays` given, the descendants still linked to `pid` by parent links and the processes carrying
 * the program's marker are collected first (from /proc, see gatherStrays) and signalled too, so a child that called
 * setsid and a double-forked daemon already reparented to init are not missed. What still escapes: a process that
 * left the group *and* dropped the marker (exec'd with a cleaned environment, `env -i`) or made itself unreadable
 * (setuid, non-dumpable), and, on other systems, anything outside the group.
 * Returns whether any process received the signal.
 */
export function signalTree(pid: number, signal: 'SIGTERM' | 'SIGKILL', strays?: Strays): boolean {
  if (process.platform === 'win32') {
    try {
      spawn('taskkill', ['/pid', String(pid), '/T', ...(signal === 'SIGKILL' ? ['/F'] : [])], {
        stdio: 'ignore',
        windowsHide: true,
      }).on('error', () => {});
      return true;
    } catch {
      return false;
    }
  }
  if (strays) gatherStrays(pid, strays);
  let reached = false;
  try {
    process.kill(-pid, signal);
    reached = true;
  } catch {
    // ESRCH: the group is already gone
  }
  const found = strays?.found ?? new Map<number, string>();
  for (const [strayPid, startTime] of found) {
    if (!sameInstance(strayPid, startTime)) {
      found.delete(strayPid);
      continue;
    }
    try {
      process.kill(strayPid, signal);
      reached = true;
    } catch {
      found.delete(strayPid);
    }
  }
  return reached;
}

/** Whether `pid` is still the live process that started at `startTime` (a zombie has already ended). */
export function sameInstance(pid: number, startTime: string): boolean {
  const entry = readProc(pid);
  return entry !== undefined && entry.startTime === startTime && entry.state !== 'Z';
}

/** Whether any process of the group led by `pid` is still alive (POSIX); on Windows, whether `pid` is. */
export function treeAlive(pid: number, strays?: Strays): boolean {
  for (const [strayPid, startTime] of strays?.found ?? []) if (sameInstance(strayPid, startTime)) return true;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, 0);
    return true;
  } catch (error) {
    // EPERM means it exists but belongs to someone else, which cannot happen for our own group; treat as alive
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
