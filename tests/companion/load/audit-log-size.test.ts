/**
 * The audit log read back after a day of many calls: GET /v1/audit (the side panel's audit view, `chatbridge audit`)
 * asks for the newest records, and the day's file was read whole for them — a second of the companion's thread per
 * request at 100 MB (400 000 calls), and past 512 MB no string holds it, so the listing failed. It is read from the
 * end now, only as far as the records asked for.
 */
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, ftruncateSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../../shared/api';
import { createAuditLog } from '../../../companion/audit/audit-log';
import { call, makeWorkspace, mcpRequestBlock, postBlock, context, startCompanionProcess, type CompanionProcess, type Workspace } from './live-companion';

const workspaces: Workspace[] = [];
let companion: CompanionProcess | undefined;
afterAll(async () => {
  await companion?.stop();
  for (const ws of workspaces) rmSync(ws.base, { recursive: true, force: true });
});

function record(i: number, paths = 1): AuditRecord {
  return {
    time: `2026-11-27T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
    auditId: `audit-20261127-${i}`,
    runId: `run-${i}`,
    site: 'mcp',
    conversationId: 'c',
    kind: 'mcp',
    tool: 'fs.read',
    paths: Array.from({ length: paths }, (_, p) => `/w/file-${i}-${p}.txt`),
    commands: [],
    decision: 'auto',
    outcome: 'ok',
    durationMs: 1,
  };
}

describe('the audit log read from its end', () => {
  it('gives the newest records first across chunk edges, skipping a torn last line, and goes on into the day before', async () => {
    const ws = makeWorkspace('cb-audit-read-');
    workspaces.push(ws);
    const dir = join(ws.base, 'audit');
    mkdirSync(dir);
    // lines of every length around the reader's 64 KiB chunks: some far longer than one, most far shorter
    const today = Array.from({ length: 400 }, (_, i) => record(i, i % 37 === 0 ? 3_000 : 1 + (i % 5)));
    writeFileSync(join(dir, '2026-11-27.jsonl'), today.map((r) => JSON.stringify(r) + '\n').join('') + '{"time":"2026-11-27T00:01');
    const yesterday = [record(1_000), record(1_001)];
    writeFileSync(join(dir, '2026-11-26.jsonl'), yesterday.map((r) => JSON.stringify(r) + '\n').join(''));
    const audit = createAuditLog({ dir });
    const newestFirst = [...today].reverse();
    expect(await audit.recent(7)).toEqual(newestFirst.slice(0, 7));
    expect(await audit.recent(1_000)).toEqual([...newestFirst, ...[...yesterday].reverse()]);
  });

  it('GET /v1/audit answers the newest records of a day file larger than one string can hold', async () => {
    const ws = makeWorkspace('cb-audit-size-');
    workspaces.push(ws);
    mkdirSync(join(ws.home, 'audit'), { recursive: true, mode: 0o700 });
    // 600 MB of a day's file as a sparse hole (no disk taken): the size a busy day of calls reaches, then the calls below
    const file = join(ws.home, 'audit', `${new Date().toISOString().slice(0, 10)}.jsonl`);
    const fd = openSync(file, 'w', 0o600);
    ftruncateSync(fd, 600 * 1024 * 1024);
    closeSync(fd);
    appendFileSync(file, '\n');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: { modes: { read: 'auto' } } });
    const auditIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const run = await postBlock(companion, 'mcp-request', mcpRequestBlock(i, 'fs.ls', { path: ws.root }), context('conv-audit', `m${i}`));
      auditIds.push(run.auditId);
    }
    const answer = await call<{ records: AuditRecord[] }>(companion, 'GET', '/v1/audit?limit=3');
    expect(answer.status).toBe(200);
    expect(answer.json.records.map((r) => r.auditId)).toEqual([...auditIds].reverse());
  }, 60_000);
});
