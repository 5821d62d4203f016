import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { descendantsOf, parseStat, processesWithEnv, readProc, type ProcEntry } from '../../../companion/processes/proc-table';

/** A /proc/<pid>/stat line: pid (comm) state ppid pgrp session … with starttime as the 22nd field. */
function statLine(pid: number, comm: string, ppid: number, pgid: number, sid: number, startTime: number, state = 'S'): string {
  const middle = Array.from({ length: 15 }, (_, i) => String(i)).join(' ');
  return `${pid} (${comm}) ${state} ${ppid} ${pgid} ${sid} ${middle} ${startTime} 4096 100 18446744073709551615`;
}

describe('parseStat', () => {
  const cases = [
    { comm: 'sleep', why: 'a plain name' },
    { comm: 'my prog', why: 'a space in the name' },
    { comm: 'a) 9 9 9 (b', why: 'parentheses and numbers in the name (the last ")" ends it)' },
  ];
  for (const { comm, why } of cases) {
    it(`reads pid, parent, group, session and start time with ${why}`, () => {
      expect(parseStat(statLine(4242, comm, 1, 4242, 4242, 987654))).toEqual({ pid: 4242, ppid: 1, pgid: 4242, sid: 4242, startTime: '987654', state: 'S' });
    });
  }

  it('a truncated line is undefined, not a guess', () => {
    expect(parseStat('4242 (sleep) S 1 4242')).toBeUndefined();
    expect(parseStat('garbage')).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('reads this very process from /proc', () => {
    const self = readProc(process.pid);
    expect(self?.pid).toBe(process.pid);
    expect(self?.ppid).toBe(process.ppid);
    expect(Number(self?.startTime)).toBeGreaterThan(0);
  });
});

describe('descendantsOf', () => {
  const entry = (pid: number, ppid: number): ProcEntry => ({ pid, ppid, pgid: pid, sid: pid, startTime: String(pid), state: 'S' });
  // 10 → 11 → 13 → 14 and 10 → 12; 20 is someone else's; 30 ↔ 31 is a cycle (a snapshot read while pids were reused)
  const table = [entry(1, 0), entry(10, 1), entry(11, 10), entry(12, 10), entry(13, 11), entry(14, 13), entry(20, 1), entry(30, 31), entry(31, 30)];

  it('follows parent links all the way down, and only from the given process', () => {
    expect(descendantsOf(10, table).map((e) => e.pid).sort((a, b) => a - b)).toEqual([11, 12, 13, 14]);
    expect(descendantsOf(13, table).map((e) => e.pid)).toEqual([14]);
    expect(descendantsOf(20, table)).toEqual([]);
  });

  it('a cycle in a racing snapshot does not loop', () => {
    expect(descendantsOf(30, table).map((e) => e.pid)).toEqual([31]);
  });
});

describe.runIf(process.platform === 'linux')('processesWithEnv', () => {
  it('finds a process by a whole NAME=value entry, not by the same text inside another variable, and not one older than since', async () => {
    const value = `m${process.pid}${Date.now()}`;
    const since = readProc(process.pid)!.startTime;
    const marked = spawn('sleep', ['30'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', CHATBRIDGE_RUN: value }, stdio: 'ignore' });
    const lookalike = spawn('sleep', ['30'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', OTHER: `CHATBRIDGE_RUN=${value}x`, NOTE: `CHATBRIDGE_RUN=${value}` }, stdio: 'ignore' });
    try {
      // /proc shows the new environment once the child has exec'd sleep
      const deadline = Date.now() + 10_000;
      while (processesWithEnv('CHATBRIDGE_RUN', value, since).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(processesWithEnv('CHATBRIDGE_RUN', value, since).map((p) => p.pid)).toEqual([marked.pid]);
      expect(processesWithEnv('CHATBRIDGE_RUN', `${value}x`, since)).toEqual([]);
      // a start time after the child's: it cannot have inherited a value made later, so it is not even read
      const later = String(BigInt(readProc(marked.pid!)!.startTime) + 1n);
      expect(processesWithEnv('CHATBRIDGE_RUN', value, later)).toEqual([]);
    } finally {
      marked.kill('SIGKILL');
      lookalike.kill('SIGKILL');
    }
  });
});
