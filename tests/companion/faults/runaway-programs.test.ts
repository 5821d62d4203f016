import { readFileSync, rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_AUTO,
  context,
  getRun,
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
 * Programs that misbehave, run by the real companion: endless output on both streams, children and grandchildren
 * in the background, a subshell's orphan. The output kept for the result is capped (and the companion's memory
 * with it), and when the timeout or the person's Stop ends the program, every process it started is gone.
 * Each test marks its processes with a unique `sleep`/`yes` argument so /proc can prove none survived.
 */
let ws: Workspace;
let companion: CompanionProcess;
const markers: string[] = [];
let sequence = 0;

beforeAll(async () => {
  ws = makeWorkspace('cb-fault-runaway-');
  companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: ALL_AUTO });
}, 40_000);

afterEach(() => {
  for (const marker of markers.splice(0)) for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
});

afterAll(async () => {
  await companion?.kill();
  if (ws) rmSync(ws.base, { recursive: true, force: true });
});

/** A number no other process on the machine has on its command line, usable as a `sleep` duration. */
function marker(): string {
  sequence += 1;
  const value = `${60 + sequence}.${process.pid}${sequence}`;
  markers.push(value);
  return value;
}

function rssBytes(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

async function runExec(command: string, timeoutMs: number, key: string) {
  return postBlock(companion, 'mcp-request', mcpRequestBlock(key, 'shell.exec', { command, timeoutMs }), context('conv-runaway', key));
}

describe('runaway programs', () => {
  it('endless output on stdout and stderr: the result is capped, memory stays bounded, the timeout kills it all', async () => {
    const tag = marker();
    const rssBefore = rssBytes(companion.pid);
    const answer = await runExec(`yes ${tag} & yes ${tag} 1>&2; wait`, 2_500, 'flood');
    const text = mcpResultText(answer.resultText);
    expect(text).toMatch(/^exit code: none \(timed out after 2500 ms; the process tree was killed\)/);
    expect(text).toMatch(/stdout:\n(.|\n)*characters omitted(.|\n)*stderr:\n(.|\n)*characters omitted/);
    expect(text).toContain(tag);
    // the model gets a bounded answer whatever the program printed
    expect(answer.resultText.length).toBeLessThan(25_000);
    await waitUntil('no flooding process is left', () => processesWith(tag).length === 0, 10_000, 50);
    // yes writes hundreds of MB in 2.5 s; only the capped part (1 MiB per stream by default) may stay in memory
    expect(rssBytes(companion.pid) - rssBefore).toBeLessThan(150 * 1024 * 1024);
  }, 60_000);

  it('children, grandchildren and a subshell’s orphan in the background: all killed at the timeout', async () => {
    const tag = marker();
    const command = [
      `for i in 1 2 3 4 5 6 7 8; do sleep ${tag} & done`,
      `(sleep ${tag} &)`,
      `sh -c 'sleep ${tag} & sh -c "sleep ${tag}" & wait' &`,
      'echo spawned',
      'wait',
    ].join('\n');
    const answer = await runExec(command, 1_500, 'forks');
    expect(mcpResultText(answer.resultText)).toMatch(/^exit code: none \(timed out after 1500 ms; the process tree was killed\)\nstdout:\nspawned/);
    await waitUntil('every child and grandchild is gone', () => processesWith(tag).length === 0, 10_000, 50);
  }, 60_000);

  it('children and grandchildren: all killed by the person’s Stop', async () => {
    const tag = marker();
    const posted = runExec(`for i in 1 2 3 4; do sleep ${tag} & done; sh -c 'sleep ${tag} & wait' & echo started; wait`, 60_000, 'stop');
    await waitUntil('the program and its children run', () => processesWith(tag).length >= 5, 20_000, 20);
    const headers = { authorization: `Bearer ${companion.token}` };
    const { programs } = (await (await fetch(`http://127.0.0.1:${companion.port}/v1/programs`, { headers })).json()) as {
      programs: Array<{ id: string; status: string; command: string }>;
    };
    const program = programs.find((p) => p.status === 'running' && p.command.includes(tag));
    expect(program).toBeDefined();
    const stop = await fetch(`http://127.0.0.1:${companion.port}/v1/programs/${program!.id}/stop`, { method: 'POST', headers });
    expect(stop.status).toBe(200);
    const answer = await posted;
    expect(mcpResultText(answer.resultText)).toMatch(/^exit code: \S+ \(stopped before it finished; the process tree was killed\)/);
    expect((await getRun(companion, answer.runId)).resultText).toBe(answer.resultText);
    await waitUntil('every child and grandchild is gone', () => processesWith(tag).length === 0, 10_000, 50);
  }, 60_000);

  // Once a gap: the group kill missed a child that called setsid(). On Linux the kill now also walks /proc parent
  // links from the program. A double-forked daemon already reparented to init is found by its CHATBRIDGE_RUN
  // marker instead (double-fork.test.ts); one that also drops its environment is still out of reach.
  it.runIf(process.platform === 'linux')('a child that leaves the process group with setsid is killed at the timeout too', async () => {
    const tag = marker();
    const answer = await runExec(`setsid sleep ${tag} & echo started; wait`, 1_000, 'setsid');
    expect(mcpResultText(answer.resultText)).toMatch(/timed out after 1000 ms/);
    await waitUntil('the setsid child is gone', () => processesWith(tag).length === 0, 4_000, 50);
  }, 60_000);
});
