import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_AUTO,
  context,
  makeWorkspace,
  mcpRequestBlock,
  mcpResultText,
  postBlock,
  processesWith,
  startCompanionProcess,
  waitUntil,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

/**
 * Issue 9, finding 9: a double fork — `(setsid sh -c 'sleep 300' &)` — leaves the program's process group and,
 * once its parent subshell is gone, its parent links too, so neither the group kill nor the /proc walk reached it:
 * it survived the timeout, Stop and the companion's shutdown. Every program's environment now carries a per-program
 * marker (`CHATBRIDGE_RUN`) the call cannot set, and on Linux a kill also signals every process of ours that
 * carries it. Each test tags its processes with a unique `sleep` duration so /proc can prove none survived; the
 * escaped process is also checked to carry the marker (not the value the call tried to force).
 */
const RUN_MARKER = 'CHATBRIDGE_RUN';
let ws: Workspace;
let companion: CompanionProcess;
const tags: string[] = [];
let sequence = 0;

beforeAll(async () => {
  ws = makeWorkspace('cb-fault-double-fork-');
  companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: ALL_AUTO });
}, 40_000);

afterEach(() => {
  for (const tag of tags.splice(0)) for (const pid of processesWith(tag)) process.kill(pid, 'SIGKILL');
});

afterAll(async () => {
  await companion?.kill();
  if (ws) rmSync(ws.base, { recursive: true, force: true });
});

/** A number no other process on the machine has on its command line, usable as a `sleep` duration. */
function tag(): string {
  sequence += 1;
  const value = `${300 + sequence}.${process.pid}${sequence}`;
  tags.push(value);
  return value;
}

/** The value of the run marker in a process's environment, as /proc shows it. */
function markerOf(pid: number): string | undefined {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((e) => e.startsWith(`${RUN_MARKER}=`));
    return entry?.slice(RUN_MARKER.length + 1);
  } catch {
    return undefined;
  }
}

/** Live processes (not zombies) that carry this marker value: what a sweep by marker has to leave at zero. */
function processesMarked(value: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return markerOf(pid) === value && /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] !== 'Z';
      } catch {
        return false;
      }
    });
}

function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

function statOf(pid: number): { ppid: number; pgid: number; sid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [, ppid, pgid, sid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    return { ppid: ppid as number, pgid: pgid as number, sid: sid as number };
  } catch {
    return undefined;
  }
}

/**
 * Waits for the escaped process — the `sh -c '… sleep TAG'` that setsid started, not the program's own shell, whose
 * command line holds the tag too — and until its parent subshell is gone, so nothing links it to the program any
 * more (the /proc walk from the program would otherwise still find it), and its environment can be read: caught
 * in the middle of `sh` exec-ing `sleep`, /proc shows none for a moment. Checks it carries a marker the call did not
 * set.
 */
async function escapee(sleepTag: string): Promise<{ pid: number; marker: string }> {
  let pid: number | undefined;
  let marker: string | undefined;
  await waitUntil(
    'the double-forked process runs, reparented away from the program, with the run marker in its environment',
    () => {
      pid = processesWith(sleepTag).find((p) => !cmdlineOf(p).includes('setsid') && statOf(p)?.sid === p);
      const parent = pid === undefined ? undefined : statOf(pid)?.ppid;
      marker = pid === undefined ? undefined : markerOf(pid);
      return parent !== undefined && !cmdlineOf(parent).includes(sleepTag) && marker !== undefined;
    },
    20_000,
    20,
  );
  expect(marker).not.toBe('forged');
  return { pid: pid as number, marker: marker as string };
}

function exec(target: CompanionProcess, command: string, timeoutMs: number, key: string) {
  // the call tries to set the marker itself: it must not win, or it could pick a value no sweep looks for
  return postBlock(target, 'mcp-request', mcpRequestBlock(key, 'shell.exec', { command, timeoutMs, env: { [RUN_MARKER]: 'forged' } }), context('conv-double-fork', key));
}

async function programRunning(target: CompanionProcess, sleepTag: string): Promise<string> {
  const headers = { authorization: `Bearer ${target.token}` };
  let id: string | undefined;
  await waitUntil('the program is listed as running', async () => {
    const { programs } = (await (await fetch(`http://127.0.0.1:${target.port}/v1/programs`, { headers })).json()) as { programs: Array<{ id: string; status: string; command: string }> };
    id = programs.find((p) => p.status === 'running' && p.command.includes(sleepTag))?.id;
    return id !== undefined;
  }, 20_000, 50);
  return id as string;
}

describe.runIf(process.platform === 'linux')('double-forked programs (issue 9, finding 9)', () => {
  it('a double-forked daemon holding the output pipe is killed at the timeout', async () => {
    const daemon = tag();
    const answered = exec(companion, `(setsid sh -c 'sleep ${daemon}' &); echo started`, 1_500, 'timeout');
    const { marker } = await escapee(daemon);
    const answer = await answered;
    expect(mcpResultText(answer.resultText)).toMatch(/timed out after 1500 ms/);
    await waitUntil('no process carries the program’s marker', () => processesMarked(marker).length === 0 && processesWith(daemon).length === 0, 10_000, 50);
  }, 60_000);

  it('a double-forked daemon is killed by the person’s Stop', async () => {
    const daemon = tag();
    const foreground = tag();
    const answered = exec(companion, `(setsid sh -c 'sleep ${daemon}' >/dev/null 2>&1 &); echo started; sleep ${foreground}`, 120_000, 'stop');
    const { marker } = await escapee(daemon);
    const id = await programRunning(companion, foreground);
    const stop = await fetch(`http://127.0.0.1:${companion.port}/v1/programs/${id}/stop`, { method: 'POST', headers: { authorization: `Bearer ${companion.token}` } });
    expect(stop.status).toBe(200);
    expect(mcpResultText((await answered).resultText)).toMatch(/stopped before it finished/);
    await waitUntil('no process carries the program’s marker', () => processesMarked(marker).length === 0 && processesWith(daemon).length === 0, 10_000, 50);
  }, 60_000);

  it('a double-forked daemon with its output redirected does not outlive a program that exits at once', async () => {
    const daemon = tag();
    // the program waits until the daemon has left (it touches a file after setsid), so its exit never races the escape
    const started = `escaped-${daemon}`;
    const answered = exec(companion, `(setsid sh -c 'touch ${started}; sleep ${daemon}' >/dev/null 2>&1 </dev/null &); while [ ! -e ${started} ]; do sleep 0.05; done; echo started`, 60_000, 'finished');
    const answer = await answered;
    expect(mcpResultText(answer.resultText)).toMatch(/^exit code: 0 /);
    await waitUntil('the daemon is gone after its program finished', () => processesWith(daemon).length === 0, 10_000, 50);
  }, 60_000);

  it('a double-forked daemon that ignores SIGTERM is killed all the same', async () => {
    const daemon = tag();
    const answered = exec(companion, `(setsid sh -c 'trap "" TERM; sleep ${daemon}' &); echo started`, 1_500, 'ignores-term');
    const { marker } = await escapee(daemon);
    expect(mcpResultText((await answered).resultText)).toMatch(/timed out after 1500 ms/);
    await waitUntil('no process carries the program’s marker', () => processesMarked(marker).length === 0 && processesWith(daemon).length === 0, 10_000, 50);
  }, 60_000);

  it('the companion’s shutdown (SIGTERM, Ctrl-C) kills a double-forked daemon of a running program', async () => {
    const own = makeWorkspace('cb-fault-double-fork-shutdown-');
    const target = await startCompanionProcess({ root: own.root, home: own.home, config: ALL_AUTO });
    try {
      const daemon = tag();
      const foreground = tag();
      void exec(target, `(setsid sh -c 'trap "" TERM; sleep ${daemon}' >/dev/null 2>&1 &); echo started; sleep ${foreground}`, 120_000, 'shutdown').catch(() => {});
      const { marker } = await escapee(daemon);
      await waitUntil('the program runs', () => processesWith(foreground).length > 0, 20_000, 20);
      await target.stop(30_000);
      expect((await target.exited).signal).toBeNull();
      await waitUntil('nothing the companion started survives its shutdown', () => processesMarked(marker).length === 0 && processesWith(daemon).length === 0 && processesWith(foreground).length === 0, 10_000, 50);
    } finally {
      await target.kill();
      rmSync(own.base, { recursive: true, force: true });
    }
  }, 90_000);

  it('a double-forked daemon of a program running when the companion was SIGKILLed is killed at the next start', async () => {
    const own = makeWorkspace('cb-fault-double-fork-crash-');
    let target = await startCompanionProcess({ root: own.root, home: own.home, config: ALL_AUTO });
    try {
      const daemon = tag();
      const foreground = tag();
      void exec(target, `(setsid sh -c 'sleep ${daemon}' >/dev/null 2>&1 &); echo started; sleep ${foreground}`, 120_000, 'crash').catch(() => {});
      const { marker } = await escapee(daemon);
      await waitUntil('the program runs', () => processesWith(foreground).length > 0, 20_000, 20);
      await target.kill();
      // nothing stopped them: only the next start can
      expect(processesMarked(marker).length).toBeGreaterThan(0);
      target = await startCompanionProcess({ root: own.root, home: own.home, config: ALL_AUTO });
      await waitUntil('nothing of the crashed companion’s program survives the restart', () => processesMarked(marker).length === 0 && processesWith(daemon).length === 0 && processesWith(foreground).length === 0, 10_000, 50);
    } finally {
      await target.kill();
      rmSync(own.base, { recursive: true, force: true });
    }
  }, 90_000);
});
