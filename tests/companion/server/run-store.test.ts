import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../../../companion/audit/audit-log';
import { createRunStore, INTERRUPTED_TEXT, type RunRecord } from '../../../companion/runs/run-store';

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
  });
});
