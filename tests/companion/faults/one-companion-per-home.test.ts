import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALL_AUTO,
  context,
  journalEntries,
  makeWorkspace,
  mcpRequestBlock,
  mcpResultText,
  postBlock,
  snapshot,
  startCompanionProcess,
  waitUntil,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

/**
 * A second companion started on the data dir of a running one — `npm start` typed twice, a second terminal — is
 * refused before it reads anything there. Once a gap: it ran the journal's crash recovery first, took the running
 * companion's unfinished batch for a crash's and rolled half of it back while the first went on applying the rest
 * and answered success; and then, with its own port, took over the runtime file the CLI reads.
 */
let ws: Workspace;
const started: CompanionProcess[] = [];

afterEach(async () => {
  for (const companion of started.splice(0)) await companion.kill();
  if (ws) rmSync(ws.base, { recursive: true, force: true });
});

async function start(env: Record<string, string> = {}, extraArgs: string[] = []): Promise<CompanionProcess> {
  const companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: ALL_AUTO, env, launcher: (argv) => [...argv, ...extraArgs] });
  started.push(companion);
  return companion;
}

async function refused(extraArgs: string[]): Promise<string> {
  const error = await start({}, extraArgs).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error).toBeInstanceOf(Error);
  return error!.message;
}

describe('one companion per data dir', () => {
  it('a second start during a batch is refused naming the running one; the batch completes whole and stays applied', async () => {
    ws = makeWorkspace('cb-fault-second-');
    const FILES = 10;
    for (let i = 0; i < FILES; i++) writeFileSync(join(ws.root, `file-${i}.txt`), `original ${i}\n`);
    const first = await start({ CHATBRIDGE_JOURNAL_TEST_DELAY_MS: '80' });
    const files = Array.from({ length: FILES }, (_, i) => ({ path: join(ws.root, `file-${i}.txt`), content: `batch wrote ${i}\n` }));
    const posted = postBlock(first, 'mcp-request', mcpRequestBlock('batch', 'fs.writeBatch', { files }), context('conv-second', 'batch'));
    await waitUntil('part of the batch is written', () => files.filter((f) => readFileSync(f.path, 'utf8') === f.content).length >= 3, 20_000, 5);

    // the same port (the default case: `npm start` twice), then any free port
    for (const args of [['--port', String(first.port)], []]) {
      const message = await refused(args);
      expect(message).toContain(`another chatbridge companion (pid ${first.pid}) is using the data dir ${ws.home}; stop it first (\`npx chatbridge status\` in the chatbridge folder shows where it listens)`);
      expect(message).toContain(`If pid ${first.pid} is not a chatbridge companion, remove ${join(ws.home, 'companion.lock')}`);
      expect(message).not.toMatch(/journal: rolled back/);
    }

    expect(mcpResultText((await posted).resultText)).toBe('WRITE_BATCH_SUCCESS');
    expect(Object.values(snapshot(ws.root)).sort()).toEqual(files.map((f) => f.content).sort());
    expect((await journalEntries(first)).map((e) => e.state)).toEqual(['applied']);
    // the CLI still finds the running one
    expect(JSON.parse(readFileSync(join(ws.home, 'companion.json'), 'utf8'))).toMatchObject({ port: first.port, pid: first.pid });
  }, 60_000);

  it('the data dir is free again after a clean shutdown and after a SIGKILL; a lock naming another process instance is taken over', async () => {
    ws = makeWorkspace('cb-fault-relock-');
    const first = await start();
    // its signal handlers are in place from before it starts (a SIGTERM right after the pairing code once killed it)
    await waitUntil('the pairing code is printed', () => first.output().includes('pairing code:'));
    await first.stop();
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(join(ws.home, 'companion.lock'))).toBe(false);
    const second = await start();
    await second.kill();
    expect(existsSync(join(ws.home, 'companion.lock'))).toBe(true);
    const third = await start();
    await third.kill();
    // a reused pid: a live process that is not the one that wrote the lock
    writeFileSync(join(ws.home, 'companion.lock'), JSON.stringify({ pid: process.pid, startTime: '1' }));
    const fourth = await start();
    expect(JSON.parse(readFileSync(join(ws.home, 'companion.lock'), 'utf8'))).toMatchObject({ pid: fourth.pid });
  }, 60_000);
});

describe('one companion per data dir: starts at the same moment', () => {
  const STARTS = 3;

  async function startTogether(): Promise<{ running: CompanionProcess[]; refusals: string[] }> {
    // each start pauses at every step of its claim, so the claims of the others come in between
    const settled = await Promise.allSettled(Array.from({ length: STARTS }, () => start({ CHATBRIDGE_LOCK_TEST_DELAY_MS: '300' })));
    const running = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const refusals = settled.flatMap((s) => (s.status === 'rejected' ? [(s.reason as Error).message] : []));
    return { running, refusals };
  }

  function expectOneRuns({ running, refusals }: { running: CompanionProcess[]; refusals: string[] }): void {
    expect(running.map((c) => c.pid), refusals.join('\n----\n')).toHaveLength(1);
    const [holder] = running as [CompanionProcess];
    expect(refusals).toHaveLength(STARTS - 1);
    for (const message of refusals) expect(message).toContain(`another chatbridge companion (pid ${holder.pid}) is using the data dir ${ws.home}`);
    expect(JSON.parse(readFileSync(join(ws.home, 'companion.lock'), 'utf8'))).toMatchObject({ pid: holder.pid });
    // no claim's own file nor takeover mark is left beside it
    expect(readdirSync(ws.home).filter((name) => name.startsWith('companion.lock'))).toEqual(['companion.lock']);
  }

  it('on a fresh data dir: exactly one runs, the others name it', async () => {
    ws = makeWorkspace('cb-fault-together-');
    expectOneRuns(await startTogether());
  }, 90_000);

  it('on a data dir whose lock was left by a process that is gone: exactly one takes it over, the others name it', async () => {
    ws = makeWorkspace('cb-fault-together-stale-');
    const first = await start();
    await first.kill();
    expectOneRuns(await startTogether());
  }, 90_000);
});
