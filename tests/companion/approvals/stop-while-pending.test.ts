/**
 * Stop ends a run that waits for the person, its approval with it: against the real companion process, a run
 * stopped while its card waited must not go on when someone approves the card afterwards (in the side panel, the
 * popup or another tab, where the card was still shown).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView, RunResponse } from '../../../shared/api';
import {
  call,
  context,
  getRun,
  makeWorkspace,
  mcpRequestBlock,
  postPending,
  startCompanionProcess,
  waitUntil,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

describe('attack: approving a card whose run was stopped', () => {
  let ws: Workspace;
  let outside: string;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-stop-pending-');
    outside = join(ws.base, 'outside');
    mkdirSync(outside);
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: {} });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  const post = (path: string, body: unknown) => call<{ error?: { code: string; message: string } }>(companion, 'POST', path, body);

  async function stoppedThenApproved(run: RunResponse, approval: ApprovalView, stop: () => Promise<{ status: number }>): Promise<RunResponse> {
    expect((await stop()).status).toBe(200);
    let ended = await getRun(companion, run.runId);
    await waitUntil('the stopped run ends', async () => {
      ended = await getRun(companion, run.runId);
      return ended.status === 'done' || ended.status === 'error';
    }, 5_000);
    const pending = (await call<{ approvals: ApprovalView[] }>(companion, 'GET', '/v1/approvals')).json;
    expect(pending.approvals.map((a) => a.id)).not.toContain(approval.id);
    const late = await post(`/v1/approvals/${approval.id}`, { decision: 'approve', argsHash: approval.argsHash });
    expect(late.status).toBe(409);
    expect(late.json.error?.code).toBe('CONFLICT');
    expect(late.json.error?.message).toMatch(/stopped/);
    return ended;
  }

  it('an fs.write stopped by its run id is answered CANCELLED, and approving its card afterwards writes nothing', async () => {
    const target = join(ws.root, 'stopped.txt');
    const { run, approval } = await postPending(companion, 'mcp-request', mcpRequestBlock(1, 'fs.write', { path: target, mode: 'overwrite', content: 'x' }), context('conv-stop', 'm1'));
    const ended = await stoppedThenApproved(run, approval, () => post(`/v1/runs/${run.runId}/stop`, {}));
    expect(ended.resultText).toContain('CANCELLED');
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(target)).toBe(false);
  });

  it('an auto_coder plan stopped by its block (before the page knew its run id) runs none of its programs when its card is approved afterwards', async () => {
    const marker = join(outside, 'pwned');
    const text = `#####--\n${JSON.stringify({ type: 'operate', metadata: { step_id: 's', reason: 'r' }, file_operations: [], program_operations: [{ name: 'p', command: `echo x > '${marker}'` }] })}\n--#####`;
    const ctx = context('conv-stop', 'm2');
    const { run, approval } = await postPending(companion, 'autocoder', text, ctx);
    await stoppedThenApproved(run, approval, () => post('/v1/runs/stop', { kind: 'autocoder', text, context: ctx }));
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(marker)).toBe(false);
  });
});
