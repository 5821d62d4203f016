import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../../shared/api';
import {
  ALL_AUTO,
  context,
  getRun,
  journalEntries,
  makeWorkspace,
  mcpRequestBlock,
  mcpResultText,
  postBlock,
  processesWith,
  snapshot,
  startCompanionProcess,
  undo,
  waitUntil,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';
import { REPO_ROOT } from '../../../bench/companion-process';

/**
 * The real companion killed with SIGKILL in the middle of a change — a writeBatch, an Axon plan, a running
 * program — then started again on the same home. The journal's test hook (CHATBRIDGE_JOURNAL_TEST_DELAY_MS)
 * slows each op down so the kill lands mid-change. After the restart the workspace is exactly what it was before
 * the interrupted change (never a mix), the interrupted run answers that it was interrupted instead of running
 * again, and the changes that completed before the kill still undo.
 */
const SLOW_JOURNAL = { CHATBRIDGE_JOURNAL_TEST_DELAY_MS: '60' };

let ws: Workspace;
let companion: CompanionProcess | undefined;
const markers: string[] = [];

afterEach(async () => {
  await companion?.kill();
  companion = undefined;
  for (const marker of markers.splice(0)) for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
  if (ws) rmSync(ws.base, { recursive: true, force: true });
});

async function start(env: Record<string, string> = {}): Promise<CompanionProcess> {
  companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: ALL_AUTO, env });
  return companion;
}

/** A completed change made before the crash: one overwrite, whose undo must still work after the restart. */
async function completedWrite(c: CompanionProcess): Promise<{ runId: string; path: string }> {
  const path = join(ws.root, 'completed.txt');
  writeFileSync(path, 'completed: before\n');
  const answer = await postBlock(c, 'mcp-request', mcpRequestBlock('done-1', 'fs.write', { path, mode: 'overwrite', content: 'completed: after\n' }), context('conv-crash', 'completed'));
  expect(mcpResultText(answer.resultText)).toBe('WRITE_SUCCESS');
  return { runId: answer.runId, path };
}

async function undoCompleted(c: CompanionProcess, completed: { runId: string; path: string }): Promise<void> {
  const entry = (await journalEntries(c)).find((e) => e.origin?.runId === completed.runId);
  expect(entry?.state).toBe('applied');
  const undone = await undo(c, entry!.id);
  expect(undone.status).toBe(200);
  expect(readFileSync(completed.path, 'utf8')).toBe('completed: before\n');
}

const tempFiles = (tree: Record<string, string>) => Object.keys(tree).filter((p) => p.includes('.chatbridge-tmp'));

describe('SIGKILL in the middle of a change, then a restart on the same home', () => {
  it('during a writeBatch: every file is back to its before-state, the run says it was interrupted, undo of earlier changes works', async () => {
    ws = makeWorkspace('cb-fault-batch-');
    const FILES = 16;
    for (let i = 0; i < FILES; i += 2) writeFileSync(join(ws.root, `file-${i}.txt`), `original ${i}\n`);
    let c = await start(SLOW_JOURNAL);
    const completed = await completedWrite(c);
    const before = snapshot(ws.root);

    const files = Array.from({ length: FILES }, (_, i) => ({ path: join(ws.root, `file-${i}.txt`), content: `batch wrote ${i}\n` }));
    const text = mcpRequestBlock('batch-1', 'fs.writeBatch', { files });
    const ctx = context('conv-crash', 'batch');
    const posted = postBlock(c, 'mcp-request', text, ctx).catch((error: unknown) => error);
    // kill once part of the batch is on disk, so a restart that did nothing would leave a mix
    await waitUntil('some batch files are written', () => files.filter((f) => existsSync(f.path) && readFileSync(f.path, 'utf8') === f.content).length >= 4, 20_000, 5);
    await c.kill();
    expect(await posted).toBeInstanceOf(Error);
    const torn = snapshot(ws.root);
    expect(Object.values(torn).filter((content) => content.startsWith('batch wrote')).length).toBeGreaterThanOrEqual(4);

    c = await start();
    const after = snapshot(ws.root);
    expect(tempFiles(after)).toEqual([]);
    expect(after).toEqual(before);
    expect(c.output()).toMatch(/journal: rolled back 1 unfinished change/);

    const entry = (await journalEntries(c)).find((e) => e.paths.includes(files[0]!.path));
    expect(entry?.state).toBe('rolled-back');
    const interrupted = await getRun(c, entry!.origin!.runId);
    expect(interrupted.status).toBe('error');
    expect(interrupted.resultText).toMatch(/restarted while this run was executing/);
    // the same block posted again (a reload) answers the interrupted run; it does not half-run again
    const again = await postBlock(c, 'mcp-request', text, ctx);
    expect(again.runId).toBe(entry!.origin!.runId);
    expect(again.reused).toBe(true);
    expect(snapshot(ws.root)).toEqual(before);

    await undoCompleted(c, completed);
  }, 60_000);

  it('during an Axon plan: the plan is rolled back whole, an earlier applied plan still undoes', async () => {
    ws = makeWorkspace('cb-fault-axon-');
    writeFileSync(join(ws.root, 'main.py'), 'print("old")\n');
    mkdirSync(join(ws.root, 'docs'));
    writeFileSync(join(ws.root, 'docs', 'keep.md'), '# keep\n');
    let c = await start(SLOW_JOURNAL);

    // a plan that completes before the crash
    const firstPlan = ['```act\nwrite_file\n```', '```path\ndocs/first.md\n```', '```markdown\n# first\n```'].join('\n');
    const first = await postBlock(c, 'axon', firstPlan, context('conv-axon', 'first'));
    expect(first.status).toBe('done');
    expect(first.resultText).toContain('plan: applied');
    const before = snapshot(ws.root);

    const acts: string[] = [];
    for (let i = 0; i < 12; i++) acts.push('```act\nwrite_file\n```', `\`\`\`path\ndocs/page-${i}.md\n\`\`\``, `\`\`\`markdown\n# page ${i}\n\`\`\``, '');
    acts.push('```act\nreplace\n```', '```path\nmain.py\n```', '```python\nprint("old")\n```', '```python\nprint("new")\n```');
    const plan = acts.join('\n');
    const posted = postBlock(c, 'axon', plan, context('conv-axon', 'second')).catch((error: unknown) => error);
    await waitUntil('part of the plan is on disk', () => Array.from({ length: 12 }, (_, i) => existsSync(join(ws.root, 'docs', `page-${i}.md`))).filter(Boolean).length >= 4, 20_000, 5);
    await c.kill();
    expect(await posted).toBeInstanceOf(Error);

    c = await start();
    const after = snapshot(ws.root);
    expect(tempFiles(after)).toEqual([]);
    expect(after).toEqual(before);

    const entries = await journalEntries(c);
    const rolledBack = entries.find((e) => e.paths.includes(join(ws.root, 'main.py')));
    expect(rolledBack?.state).toBe('rolled-back');
    const applied = entries.find((e) => e.origin?.runId === first.runId);
    expect(applied?.state).toBe('applied');
    expect((await undo(c, applied!.id)).status).toBe(200);
    expect(existsSync(join(ws.root, 'docs', 'first.md'))).toBe(false);
    expect(readFileSync(join(ws.root, 'docs', 'keep.md'), 'utf8')).toBe('# keep\n');
  }, 60_000);

  it('during a running program: the run answers that it was interrupted, is not started again, and undo of earlier changes works', async () => {
    ws = makeWorkspace('cb-fault-program-');
    const marker = `40.${process.pid}${Date.now() % 100000}`;
    markers.push(marker);
    let c = await start();
    const completed = await completedWrite(c);

    const text = mcpRequestBlock('prog-1', 'shell.exec', { command: `echo started >> started.txt; sleep ${marker}`, timeoutMs: 60_000 });
    const ctx = context('conv-program', 'program');
    const posted = postBlock(c, 'mcp-request', text, ctx).catch((error: unknown) => error);
    await waitUntil('the program has started', () => existsSync(join(ws.root, 'started.txt')), 20_000);
    const { programs } = (await (await fetch(`http://127.0.0.1:${c.port}/v1/programs`, { headers: { authorization: `Bearer ${c.token}` } })).json()) as {
      programs: Array<{ status: string; origin: { runId: string } }>;
    };
    const runId = programs.find((p) => p.status === 'running')?.origin.runId;
    expect(runId).toBeDefined();
    await c.kill();
    expect(await posted).toBeInstanceOf(Error);

    c = await start();
    const interrupted: RunResponse = await getRun(c, runId!);
    expect(interrupted.status).toBe('error');
    expect(interrupted.resultText).toMatch(/restarted while this run was executing/);
    const again = await postBlock(c, 'mcp-request', text, ctx);
    expect(again.reused).toBe(true);
    expect(readFileSync(join(ws.root, 'started.txt'), 'utf8')).toBe('started\n');
    await undoCompleted(c, completed);
  }, 60_000);

  // Once a gap: programs were known only to the companion's memory, so after a SIGKILL they kept running. Each
  // running program is now recorded in <home>/programs and the next start stops what is still the same process.
  it('a program still running when the companion was SIGKILLed is killed at the restart, children included', async () => {
    ws = makeWorkspace('cb-fault-orphan-');
    const marker = `41.${process.pid}${Date.now() % 100000}`;
    markers.push(marker);
    let c = await start();
    const command = `sleep ${marker} & sleep ${marker} & wait`;
    const posted = postBlock(c, 'mcp-request', mcpRequestBlock('orphan-1', 'shell.exec', { command, timeoutMs: 60_000 }), context('conv-orphan', 'program')).catch(
      (error: unknown) => error,
    );
    await waitUntil('the program and its children run', () => processesWith(marker).length >= 3, 20_000);
    expect(readdirSync(join(ws.home, 'programs')).filter((name) => name.endsWith('.json'))).toHaveLength(1);
    await c.kill();
    await posted;
    // the crash left them running: nothing else stops them but the next start
    expect(processesWith(marker).length).toBeGreaterThanOrEqual(3);
    c = await start();
    await waitUntil('the orphaned program is gone', () => processesWith(marker).length === 0, 5_000, 50);
    expect(c.output()).toMatch(/stopped 1 program left running by a previous run/);
    expect(readdirSync(join(ws.home, 'programs'))).toEqual([]);
    // a program of this run is recorded while it runs and forgotten once it ends
    const quick = await postBlock(c, 'mcp-request', mcpRequestBlock('after-1', 'shell.exec', { command: 'echo fine' }), context('conv-orphan', 'after'));
    expect(mcpResultText(quick.resultText)).toMatch(/fine/);
    await waitUntil('the finished program is forgotten', () => readdirSync(join(ws.home, 'programs')).length === 0, 5_000, 20);
  }, 60_000);

  it('a restart kills nothing when the recorded pid now belongs to another process (pid reuse)', async () => {
    ws = makeWorkspace('cb-fault-reuse-');
    const marker = `42.${process.pid}${Date.now() % 100000}`;
    markers.push(marker);
    // an unrelated process, not started by any companion, whose pid a stale record names with another start time
    const bystander = spawn('sleep', [marker], { detached: true, stdio: 'ignore' });
    bystander.unref();
    await waitUntil('the bystander runs', () => processesWith(marker).length === 1, 5_000);
    mkdirSync(join(ws.home, 'programs'), { recursive: true });
    const stale = {
      id: 'prog-00000000-0000-4000-8000-000000000000',
      pid: bystander.pid,
      pgid: bystander.pid,
      command: 'sleep 1000',
      startedAt: new Date(0).toISOString(),
      startTime: '1',
      bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      owner: { pid: 999_999_999, startTime: '1' },
    };
    writeFileSync(join(ws.home, 'programs', `${stale.id}.json`), JSON.stringify(stale));
    const c = await start();
    expect(c.output()).not.toMatch(/left running by a previous run/);
    expect(processesWith(marker)).toEqual([bystander.pid]);
    expect(readdirSync(join(ws.home, 'programs'))).toEqual([]);
  }, 60_000);
});

// Once a gap: the signal handlers were installed once each, so a second Ctrl-C during the shutdown ended the
// process at once, with the batch it was waiting for half applied until the next start rolled it back.
describe('Ctrl-C pressed again while the shutdown waits for a change', () => {
  it('the batch still completes whole, the companion exits 0, and the run is answered after a restart', async () => {
    ws = makeWorkspace('cb-fault-sigint-twice-');
    const FILES = 10;
    for (let i = 0; i < FILES; i++) writeFileSync(join(ws.root, `file-${i}.txt`), `original ${i}\n`);
    const c = await start(SLOW_JOURNAL);
    // its signal handlers are in place once it has printed everything
    await waitUntil('the pairing code is printed', () => c.output().includes('pairing code:'));
    const files = Array.from({ length: FILES }, (_, i) => ({ path: join(ws.root, `file-${i}.txt`), content: `batch wrote ${i}\n` }));
    const text = mcpRequestBlock('batch-twice', 'fs.writeBatch', { files });
    const ctx = context('conv-sigint', 'batch');
    const posted = postBlock(c, 'mcp-request', text, ctx).catch((error: unknown) => error);
    await waitUntil('part of the batch is written', () => files.filter((f) => readFileSync(f.path, 'utf8') === f.content).length >= 3, 20_000, 5);
    c.child.kill('SIGINT');
    await waitUntil('the shutdown has begun', () => c.output().includes('SIGINT: stopping'));
    c.child.kill('SIGINT');
    c.child.kill('SIGTERM');
    expect(await c.exited).toEqual({ code: 0, signal: null });
    await posted;
    expect(c.output()).toContain('SIGINT: still stopping');
    expect(Object.values(snapshot(ws.root)).sort()).toEqual(files.map((f) => f.content).sort());

    const again = await start();
    expect(again.output()).not.toMatch(/journal: rolled back/);
    expect(snapshot(ws.root)).toEqual(Object.fromEntries(files.map((f, i) => [`file-${i}.txt`, f.content])));
    const answer = await postBlock(again, 'mcp-request', text, ctx);
    expect(answer.reused).toBe(true);
    expect(mcpResultText(answer.resultText)).toBe('WRITE_BATCH_SUCCESS');
  }, 60_000);
});

// Once a gap: only SIGINT and SIGTERM were handled. Closing the terminal window sends SIGHUP, which ended the
// companion without its shutdown: the programs it ran (each in its own process group, so the hangup missed them)
// went on running until the next start, and the runtime file stayed behind.
describe('the terminal closed (SIGHUP) while a program runs', () => {
  it('the companion shuts down as on Ctrl-C: the program and its children are stopped, the runtime file is removed', async () => {
    ws = makeWorkspace('cb-fault-sighup-');
    const marker = `43.${process.pid}${Date.now() % 100000}`;
    markers.push(marker);
    const c = await start();
    await waitUntil('the pairing code is printed', () => c.output().includes('pairing code:'));
    const command = `sleep ${marker} & sleep ${marker} & wait`;
    const posted = postBlock(c, 'mcp-request', mcpRequestBlock('hup-1', 'shell.exec', { command, timeoutMs: 60_000 }), context('conv-hup', 'program')).catch(
      (error: unknown) => error,
    );
    await waitUntil('the program and its children run', () => processesWith(marker).length >= 3, 20_000);
    c.child.kill('SIGHUP');
    expect(await c.exited).toEqual({ code: 0, signal: null });
    await posted;
    expect(c.output()).toContain('SIGHUP: stopping programs and shutting down');
    expect(processesWith(marker)).toEqual([]);
    expect(existsSync(join(ws.home, 'companion.json'))).toBe(false);
    expect(readdirSync(join(ws.home, 'programs'))).toEqual([]);
  }, 60_000);
});

const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) console.warn('\n!!! SKIPPED: the closed-terminal test needs util-linux script(1) for a pseudo-terminal !!!\n');

// Once a gap: with its terminal gone, the companion's next line of output failed with EIO, and the unhandled stream
// error ended it in the middle of the shutdown the hangup had started — the runtime file, the CLI token and the
// data dir's lock stayed behind.
describe.skipIf(!hasScript)('the terminal itself closed', () => {
  it('the shutdown completes: the runtime file, the CLI token and the lock are removed', async () => {
    ws = makeWorkspace('cb-fault-tty-gone-');
    const argv = [process.execPath, '--import', 'tsx', join(REPO_ROOT, 'companion', 'main.ts'), 'start', '--root', ws.root, '--port', '0', '--no-build'];
    const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    // script(1) runs it on a pseudo-terminal; killing script closes the terminal's other end, as closing a window does
    const terminal = spawn('script', ['-qfc', quoted, '/dev/null'], { cwd: REPO_ROOT, env: { ...process.env, CHATBRIDGE_HOME: ws.home }, stdio: 'ignore', detached: true });
    const terminalGone = new Promise((resolve) => terminal.once('exit', resolve));
    try {
      await waitUntil('the companion wrote its runtime file', () => existsSync(join(ws.home, 'companion.json')), 30_000, 50);
      // its signal handlers go in place as soon as it has printed its pairing code, just after that file
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      terminal.kill('SIGKILL');
      await terminalGone;
      await waitUntil('the companion has ended', () => processesWith(ws.root).length === 0, 15_000, 50);
      expect(readdirSync(ws.home).sort()).toEqual(['audit', 'journal', 'programs']);
    } finally {
      if (terminal.exitCode === null && terminal.signalCode === null) terminal.kill('SIGKILL');
      for (const pid of processesWith(ws.root)) process.kill(pid, 'SIGKILL');
    }
  }, 60_000);
});
