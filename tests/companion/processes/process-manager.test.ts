import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProcessManager } from '../../../companion/processes';
import type { ProcessManager, ProgramOutputEvent, ProgramSpec } from '../../../companion/types';
import { ToolError } from '../../../shared/errors';

const posix = process.platform !== 'win32';
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const origin = { runId: 'run-1', site: 'test', conversationId: 'conv-1' };

let dir: string;
let manager: ProcessManager;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'chatbridge-proc-')));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await manager?.stopAll();
});

function spec(overrides: Partial<ProgramSpec>): ProgramSpec {
  return { name: 'p', cwd: dir, env, timeoutMs: 10_000, maxOutputBytes: 1024 * 1024, origin, ...overrides };
}

function collect(pm: ProcessManager): ProgramOutputEvent[] {
  const events: ProgramOutputEvent[] = [];
  pm.onOutput((event) => events.push(event));
  return events;
}

function joined(events: ProgramOutputEvent[], programId: string, stream: 'stdout' | 'stderr'): string {
  return events
    .filter((e) => e.programId === programId && e.stream === stream)
    .map((e) => e.chunk)
    .join('');
}

function expectContiguous(events: ProgramOutputEvent[], programId: string, stream: 'stdout' | 'stderr'): void {
  let next = 0;
  for (const event of events.filter((e) => e.programId === programId && e.stream === stream)) {
    expect(event.offset).toBe(next);
    next += Buffer.byteLength(event.chunk);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntilGone(pids: number[], withinMs = 5_000): Promise<number[]> {
  const until = Date.now() + withinMs;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    alive = alive.filter(isAlive);
  }
  return alive;
}

/** Waits for a line of output matching `pattern` on a program and returns the match. */
function waitForOutput(pm: ProcessManager, programId: string, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve) => {
    let seen = '';
    const off = pm.onOutput((event) => {
      if (event.programId !== programId) return;
      seen += event.chunk;
      const match = pattern.exec(seen);
      if (match) {
        off();
        resolve(match);
      }
    });
  });
}

describe.skipIf(!posix)('process manager (real child processes)', () => {
  it('exit 0 is completed with the output and returncode', async () => {
    manager = createProcessManager();
    const handle = manager.start(spec({ shell: 'echo hello; echo oops >&2' }));
    expect(handle.info.status).toBe('running');
    const result = await handle.done;
    expect(result).toMatchObject({ status: 'completed', returncode: 0, stdout: 'hello\n', stderr: 'oops\n', truncated: false });
    expect(result.runtime).toBeGreaterThanOrEqual(0);
    expect(manager.get(handle.info.id)?.info.status).toBe('completed');
  });

  it('a non-zero exit is failure with its code', async () => {
    manager = createProcessManager();
    const result = await manager.start(spec({ shell: 'echo bad >&2; exit 3' })).done;
    expect(result).toMatchObject({ status: 'failure', returncode: 3, stderr: 'bad\n' });
  });

  it('argv runs without a shell: metacharacters are plain text', async () => {
    manager = createProcessManager();
    const result = await manager.start(spec({ argv: ['/bin/echo', '$HOME; ls', '`id`'] })).done;
    expect(result).toMatchObject({ status: 'completed', stdout: '$HOME; ls `id`\n' });
  });

  it('the environment is exactly the one given', async () => {
    manager = createProcessManager();
    const result = await manager.start(spec({ shell: 'echo "[$FOO][$HOME][$CHATBRIDGE_SECRET]"', env: { ...env, FOO: 'bar' } }))
      .done;
    expect(result.stdout).toBe('[bar][][]\n');
  });

  it('runs in the cwd given', async () => {
    manager = createProcessManager();
    const result = await manager.start(spec({ shell: 'pwd -P' })).done;
    expect(result.stdout.trim()).toBe(dir);
  });

  it('stdin is closed: a program reading it sees end-of-file instead of hanging', async () => {
    manager = createProcessManager();
    const result = await manager.start(spec({ shell: 'cat; echo after-eof', timeoutMs: 20_000 })).done;
    expect(result).toMatchObject({ status: 'completed', stdout: 'after-eof\n' });
  });

  it('a command that does not exist (argv) is failure with the reason in stderr', async () => {
    manager = createProcessManager();
    const result = await manager.start(spec({ argv: ['/nonexistent/chatbridge-no-such-binary', '-x'] })).done;
    expect(result.status).toBe('failure');
    expect(result.returncode).toBeNull();
    expect(result.stderr).toContain('/nonexistent/chatbridge-no-such-binary');
    expect(result.stderr).toContain('ENOENT');
  });

  it('a command that does not exist (shell) is failure with the shell\'s message', async () => {
    manager = createProcessManager();
    const result = await manager.start(spec({ shell: 'chatbridge-no-such-command-xyz' })).done;
    expect(result.status).toBe('failure');
    expect(result.returncode).toBe(127);
    expect(result.stderr).toMatch(/not found/);
  });

  it('a missing cwd is failure naming the directory', async () => {
    manager = createProcessManager();
    const result = await manager.start(spec({ shell: 'echo hi', cwd: join(dir, 'missing') })).done;
    expect(result.status).toBe('failure');
    expect(result.stderr).toContain(join(dir, 'missing'));
  });

  it('a spec with both or neither of argv/shell is refused before anything runs', () => {
    manager = createProcessManager();
    expect(() => manager.start(spec({}))).toThrow(ToolError);
    expect(() => manager.start(spec({ shell: 'echo', argv: ['echo'] }))).toThrow(/exactly one of argv or shell/);
    expect(() => manager.start(spec({ argv: [] }))).toThrow(/non-empty/);
    expect(() => manager.start(spec({ shell: 'echo', timeoutMs: 0 }))).toThrow(/timeoutMs 0/);
    expect(manager.list()).toEqual([]);
  });

  it('a program killed by a signal it did not get from us is failure and says so', async () => {
    manager = createProcessManager();
    const result = await manager.start(spec({ shell: 'kill -9 $$' })).done;
    expect(result.status).toBe('failure');
    expect(result.returncode).toBeNull();
    expect(result.stderr).toContain('[killed by signal SIGKILL]');
  });

  it('timeout ends the program as timeout and kills it', async () => {
    manager = createProcessManager({ killGraceMs: 500 });
    const handle = manager.start(spec({ shell: 'echo started; sleep 30', timeoutMs: 300 }));
    const result = await handle.done;
    expect(result.status).toBe('timeout');
    expect(result.stdout).toBe('started\n');
    expect(result.runtime).toBeLessThan(30);
  });

  it('stop kills the whole tree: the shell and its sleeping grandchildren are gone', async () => {
    manager = createProcessManager({ killGraceMs: 500 });
    const handle = manager.start(spec({ shell: 'sleep 60 & echo "kid $!"; sleep 61 & echo "kid $!"; echo "sh $$"; wait' }));
    const match = await waitForOutput(manager, handle.info.id, /kid (\d+)\nkid (\d+)\nsh (\d+)\n/);
    const pids = [Number(match[1]), Number(match[2]), Number(match[3])];
    expect(pids.every(isAlive)).toBe(true);
    await manager.stop(handle.info.id, 'test');
    const result = await handle.done;
    expect(result.status).toBe('terminated');
    expect(await waitUntilGone(pids)).toEqual([]);
  });

  it('timeout kills the tree too', async () => {
    manager = createProcessManager({ killGraceMs: 500 });
    const handle = manager.start(spec({ shell: 'sleep 60 & echo "kid $!"; wait', timeoutMs: 400 }));
    const match = await waitForOutput(manager, handle.info.id, /kid (\d+)\n/);
    const result = await handle.done;
    expect(result.status).toBe('timeout');
    expect(await waitUntilGone([Number(match[1])])).toEqual([]);
  });

  it('a tree that ignores SIGTERM is killed with SIGKILL after the grace period', async () => {
    manager = createProcessManager({ killGraceMs: 300 });
    const handle = manager.start(spec({ shell: "trap '' TERM; echo ready; sleep 60; echo survived" }));
    await waitForOutput(manager, handle.info.id, /ready\n/);
    await manager.stop(handle.info.id);
    const result = await handle.done;
    expect(result.status).toBe('terminated');
    expect(result.stdout).toBe('ready\n');
  });

  it('a fork that keeps printing after its parent exits is stopped at the timeout, and is gone', async () => {
    manager = createProcessManager({ killGraceMs: 300 });
    const events = collect(manager);
    const handle = manager.start(
      spec({ shell: '(echo "printer $(exec sh -c \'echo $PPID\')"; while :; do echo tick; sleep 0.01; done) & exit 0', timeoutMs: 600 }),
    );
    const match = await waitForOutput(manager, handle.info.id, /printer (\d+)\n/);
    const result = await handle.done;
    expect(result.status).toBe('timeout');
    expect(result.stdout).toContain('tick\n');
    expect(joined(events, handle.info.id, 'stdout')).toBe(result.stdout);
    expect(await waitUntilGone([Number(match[1])])).toEqual([]);
  });

  it('a fork storm (bounded: 40 shells each with a sleeping child) is killed whole at the timeout', async () => {
    manager = createProcessManager({ killGraceMs: 300 });
    const storm =
      'spawn() { if [ "$1" -gt 0 ]; then for i in 1 2 3; do (spawn $(($1 - 1))) & done; fi; ' +
      'sleep 60 & echo "pid $!"; echo "pid $(sh -c \'echo $PPID\')"; wait; }; spawn 3';
    const handle = manager.start(spec({ shell: storm, timeoutMs: 3_000 }));
    const result = await handle.done;
    expect(result.status).toBe('timeout');
    const pids = [...result.stdout.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));
    expect(pids.length).toBe(80);
    expect(await waitUntilGone(pids)).toEqual([]);
  });

  it('a flood of output is capped to head + tail while every byte is still emitted, in order', async () => {
    manager = createProcessManager();
    const events = collect(manager);
    const total = 3_000_000;
    const handle = manager.start(
      spec({ argv: [process.execPath, '-e', `process.stdout.write('H\\n' + 'x'.repeat(${total - 4}) + '\\nT')`], maxOutputBytes: 10_000 }),
    );
    const result = await handle.done;
    expect(result.status).toBe('completed');
    expect(result.truncated).toBe(true);
    // the cuts fall at line breaks (output-buffer.ts): the line each would go through is omitted whole
    expect(result.stdout).toBe(`H\n[… ${total - 2} bytes omitted …]\nT`);
    const streamed = joined(events, handle.info.id, 'stdout');
    expect(streamed.length).toBe(total);
    expect(streamed.startsWith('H') && streamed.endsWith('T')).toBe(true);
    expectContiguous(events, handle.info.id, 'stdout');
  });

  it('emitted chunks of both streams are contiguous and add up to the full output', async () => {
    manager = createProcessManager();
    const events = collect(manager);
    const script = `
      let i = 0;
      const timer = setInterval(() => {
        process.stdout.write('out ' + i + ' ' + 'é'.repeat(i % 7) + '\\n');
        process.stderr.write('err ' + i + '\\n');
        if (++i === 200) clearInterval(timer);
      }, 1);`;
    const handle = manager.start(spec({ argv: [process.execPath, '-e', script] }));
    const result = await handle.done;
    const expectedOut = Array.from({ length: 200 }, (_, i) => `out ${i} ${'é'.repeat(i % 7)}\n`).join('');
    const expectedErr = Array.from({ length: 200 }, (_, i) => `err ${i}\n`).join('');
    expect(result.stdout).toBe(expectedOut);
    expect(result.stderr).toBe(expectedErr);
    expect(joined(events, handle.info.id, 'stdout')).toBe(expectedOut);
    expect(joined(events, handle.info.id, 'stderr')).toBe(expectedErr);
    expectContiguous(events, handle.info.id, 'stdout');
    expectContiguous(events, handle.info.id, 'stderr');
    expect(events.every((e) => e.name === 'p')).toBe(true);
  });

  it('a character split across two writes arrives whole', async () => {
    manager = createProcessManager();
    const events = collect(manager);
    const script = `process.stdout.write(Buffer.from([0xe2])); setTimeout(() => process.stdout.write(Buffer.from([0x82, 0xac, 0x0a])), 50);`;
    const handle = manager.start(spec({ argv: [process.execPath, '-e', script] }));
    const result = await handle.done;
    expect(result.stdout).toBe('€\n');
    expect(joined(events, handle.info.id, 'stdout')).toBe('€\n');
    expectContiguous(events, handle.info.id, 'stdout');
  });

  it('list, get and onExit follow a program from running to its end; stopAll ends everything', async () => {
    manager = createProcessManager({ killGraceMs: 300 });
    const exits: string[] = [];
    manager.onExit((info, result) => exits.push(`${info.name}:${result.status}`));
    const a = manager.start(spec({ name: 'a', shell: 'sleep 30' }));
    const b = manager.start(spec({ name: 'b', argv: ['sleep', '30'] }));
    expect(manager.list().map((p) => [p.name, p.status, p.origin.conversationId])).toEqual([
      ['a', 'running', 'conv-1'],
      ['b', 'running', 'conv-1'],
    ]);
    expect(manager.get(b.info.id)?.info.command).toBe('sleep 30');
    await manager.stopAll();
    expect((await a.done).status).toBe('terminated');
    expect((await b.done).status).toBe('terminated');
    expect(exits.sort()).toEqual(['a:terminated', 'b:terminated']);
    expect(manager.list().map((p) => p.status)).toEqual(['terminated', 'terminated']);
  });

  it('stopping an unknown program is NOT_FOUND; stopping a finished one is a no-op', async () => {
    manager = createProcessManager();
    await expect(manager.stop('prog-nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const handle = manager.start(spec({ shell: 'true' }));
    await handle.done;
    await manager.stop(handle.info.id);
    expect((await handle.done).status).toBe('completed');
  });

  it('a listener that throws does not break the program or other listeners', async () => {
    manager = createProcessManager();
    manager.onOutput(() => {
      throw new Error('broken socket');
    });
    const events = collect(manager);
    const result = await manager.start(spec({ shell: 'echo fine' })).done;
    expect(result.stdout).toBe('fine\n');
    expect(events.map((e) => e.chunk).join('')).toBe('fine\n');
  });
});
