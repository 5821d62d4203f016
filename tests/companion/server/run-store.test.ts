import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../../../companion/audit/audit-log';
import { createApprovalStore } from '../../../companion/approvals/store';
import { loadPolicy } from '../../../companion/policy/load-config';
import { createRunManager, type Job } from '../../../companion/runs/run-manager';
import { createRunStore, INTERRUPTED_TEXT, type RunRecord } from '../../../companion/runs/run-store';
import type { Journal, ProcessManager, ToolContext } from '../../../companion/types';

const dir = mkdtempSync(join(tmpdir(), 'cb-runstore-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (runId: string, status: RunRecord['status'], key?: string): RunRecord => ({
  runId,
  ...(key ? { key } : {}),
  kind: 'mcp-request',
  site: 's',
  conversationId: 'c',
  messageKey: 'm',
  status,
  resultText: status === 'done' ? `result of ${runId}` : '',
  auditId: `audit-${runId}`,
  createdAt: '2026-11-22T00:00:00.000Z',
  updatedAt: '2026-11-22T00:00:00.000Z',
});

describe('run store', () => {
  it('after a restart: final runs answer again, running ones are marked interrupted, pending ones are forgotten', () => {
    const file = join(dir, 'runs.jsonl');
    const store = createRunStore({ file });
    store.put(record('r1', 'running', 'k1'));
    store.put(record('r1', 'done', 'k1'));
    store.put(record('r2', 'running', 'k2'));
    store.put(record('r3', 'pending', 'k3'));
    appendFileSync(file, '{"runId":"torn'); // a crash in the middle of a line
    const reloaded = createRunStore({ file });
    expect(reloaded.byKey('k1')).toMatchObject({ runId: 'r1', status: 'done', resultText: 'result of r1' });
    expect(reloaded.byKey('k2')).toMatchObject({ runId: 'r2', status: 'error', resultText: INTERRUPTED_TEXT });
    expect(reloaded.byKey('k3')).toBeUndefined();
    expect(reloaded.get('r3')).toBeUndefined();
    // compacted at load: one line per remembered run
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('after compacting while it runs, the next line lands in the new file (the kept descriptor is reopened)', () => {
    const file = join(dir, 'runs-compacted.jsonl');
    const store = createRunStore({ file });
    // compaction happens past four lines per remembered run (2000 runs): 4001 runs of two lines each reach it
    for (let i = 0; i < 4001; i++) {
      store.put(record(`c${i}`, 'running', `ck${i}`));
      store.put(record(`c${i}`, 'done', `ck${i}`));
    }
    store.put(record('after', 'done', 'k-after'));
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThan(8000);
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ runId: 'after', status: 'done' });
    expect(createRunStore({ file }).byKey('k-after')).toMatchObject({ runId: 'after', resultText: 'result of after' });
  });

  it('a log it cannot append to: a running record is refused naming the file, an answer is kept in memory, nothing throws out of it', () => {
    const file = join(dir, 'cannot-append.jsonl');
    const store = createRunStore({ file });
    // the file replaced by a directory: every append fails, as on a full or read-only data dir
    mkdirSync(file);
    expect(() => store.put(record('r-running', 'running', 'k-running'))).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringContaining(file) }));
    expect(() => store.put(record('r-done', 'done', 'k-done'))).not.toThrow();
    expect(store.byKey('k-done')?.resultText).toBe('result of r-done');
  });

  it('forgetKey lets a key map to a new run', () => {
    const store = createRunStore();
    store.put(record('a', 'done', 'k'));
    store.forgetKey('k');
    expect(store.byKey('k')).toBeUndefined();
    expect(store.get('a')?.status).toBe('done');
  });
});

describe('audit log', () => {
  it('writes one JSON line per call in a file per UTC day and reads newest first, skipping torn lines', async () => {
    const auditDir = join(dir, 'audit');
    let now = Date.parse('2026-11-21T23:59:59.000Z');
    const audit = createAuditLog({ dir: auditDir, clock: () => now });
    const base = { runId: 'r', site: 's', conversationId: 'c', kind: 'mcp-request', tool: 'fs.read', paths: ['/w/a'], commands: [], decision: 'auto', outcome: 'ok', durationMs: 1 };
    const first = audit.newId();
    await audit.record({ ...base, time: new Date(now).toISOString(), auditId: first });
    now += 2_000;
    const second = audit.newId();
    await audit.record({ ...base, time: new Date(now).toISOString(), auditId: second });
    expect(readdirSync(auditDir).sort()).toEqual(['2026-11-21.jsonl', '2026-11-22.jsonl']);
    appendFileSync(join(auditDir, '2026-11-22.jsonl'), '{"time":');
    const recent = await audit.recent(10);
    expect(recent.map((r) => r.auditId)).toEqual([second, first]);
    expect(await audit.recent(1)).toHaveLength(1);
    expect(first).not.toBe(second);
    // the id names the UTC day it was made on, across midnight and back (a clock set back)
    expect(first).toMatch(/^audit-20261121-[0-9a-f]{12}$/);
    expect(second).toMatch(/^audit-20261122-[0-9a-f]{12}$/);
    now -= 2_000;
    expect(audit.newId()).toMatch(/^audit-20261121-/);
  });
});

describe('the run log while a run executes (run manager)', () => {
  const setup = (name: string) => {
    const file = join(dir, `${name}.jsonl`);
    const store = createRunStore({ file });
    const policy = loadPolicy({ cwd: dir, configFile: writeConfig(name, { modes: { write: 'auto' } }) });
    const runs = createRunManager({
      policy,
      journal: {} as Journal,
      processes: {} as ProcessManager,
      approvals: createApprovalStore({ ttlMs: 60_000 }),
      audit: createAuditLog({ dir: join(dir, `${name}-audit`) }),
      store,
      publish: () => {},
    });
    const linesOf = () => readFileSync(file, { encoding: 'utf8', flag: 'a+' }).split('\n').filter(Boolean).map((l) => JSON.parse(l) as RunRecord);
    return { file, store, runs, linesOf };
  };
  const writeConfig = (name: string, config: unknown) => {
    const path = join(dir, `${name}.config.json`);
    writeFileSync(path, JSON.stringify(config));
    return path;
  };
  const gatedJob = (key: string, risk: 'read' | 'write', seen: (ctx: ToolContext) => void) => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const job: Job = {
      kind: 'mcp-request',
      site: 's',
      conversationId: 'c',
      messageKey: key,
      key,
      async execute(ctx) {
        await ctx.authorize({ tool: 'fs.x', args: {}, actions: [{ risk, label: risk, paths: [dir] }], preview: { title: 'x', paths: [dir] } });
        seen(ctx);
        await gate;
        return { resultText: 'ok', status: 'done', outcome: 'ok' };
      },
      pendingText: () => 'pending',
    };
    return { job, release };
  };

  it('a run that only reads is found by its key while it runs but written once, when it ends', async () => {
    const { runs, store, linesOf } = setup('read-only');
    let during: RunRecord[] = [];
    const { job, release } = gatedJob('k-read', 'read', () => (during = linesOf()));
    const { run } = runs.start(job);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(during).toEqual([]);
    expect(store.byKey('k-read')?.runId).toBe(run.record.runId);
    expect(runs.start(job).reused).toBe(true);
    release();
    await run.final;
    expect(linesOf().map((r) => r.status)).toEqual(['done']);
  });

  it('a run about to write is in the log as running before it goes on (a crash then answers "result unknown")', async () => {
    const { runs, file, linesOf } = setup('writes');
    let during: RunRecord[] = [];
    const { job, release } = gatedJob('k-write', 'write', () => (during = linesOf()));
    const { run } = runs.start(job);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(during.map((r) => [r.runId, r.status])).toEqual([[run.record.runId, 'running']]);
    // what a companion started on the log as it is now would answer (a copy: loading compacts the file)
    const crashed = join(dir, 'writes-after-crash.jsonl');
    copyFileSync(file, crashed);
    expect(createRunStore({ file: crashed }).byKey('k-write')).toMatchObject({ status: 'error', resultText: INTERRUPTED_TEXT });
    release();
    await run.final;
    expect(linesOf().map((r) => r.status).at(-1)).toBe('done');
  });
});
