/**
 * limits.maxPendingApprovals against a real companion: each waiting card holds its preview (up to 200 000
 * characters of diff) until it is decided, and GET /v1/approvals lists them all. Without a limit 1 600 waiting
 * writes grew the companion past 1 GB and that list to 274 MB (9 s to answer); a few thousand more pass what one
 * string holds, and the side panel could decide none. A call that would make a card past the limit is refused,
 * naming the key and the limit, and does nothing; once a card is decided there is room again. The limit is set
 * low here: the refusal, not the flood, is what is checked.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView, RunResponse } from '../../../shared/api';
import {
  call,
  context,
  decideApproval,
  makeWorkspace,
  mcpRequestBlock,
  parseMcpResponse,
  postPending,
  startCompanionProcess,
  type CompanionProcess,
  type Workspace,
} from './live-companion';

const MAX = 2;
let ws: Workspace;
let companion: CompanionProcess;

beforeAll(async () => {
  ws = makeWorkspace('cb-pending-limit-');
  companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: { modes: { write: 'confirm' }, limits: { maxPendingApprovals: MAX } } });
}, 60_000);

afterAll(async () => {
  await companion?.stop();
  if (ws) rmSync(ws.base, { recursive: true, force: true });
});

const write = (name: string) => mcpRequestBlock(name, 'fs.write', { path: join(ws.root, name), content: `${name}\n`, mode: 'overwrite' });

describe('limits.maxPendingApprovals', () => {
  it('a call that would wait past the limit is refused naming it, and does nothing; a decided card makes room', async () => {
    const waiting = [];
    for (let i = 1; i <= MAX; i++) waiting.push(await postPending(companion, 'mcp-request', write(`w${i}.txt`), context(`conv-${i}`, `m${i}`)));

    // a short wait: without the limit this call's card would wait, and it is answered pending
    const over = (await call<RunResponse>(companion, 'POST', '/v1/run', { kind: 'mcp-request', text: write('over.txt'), context: context('conv-over', 'm-over'), waitMs: 300 })).json;
    expect(over.status).toBe('error');
    const error = parseMcpResponse(over.resultText ?? '').error;
    expect(error?.data?.code).toBe('LIMIT_EXCEEDED');
    expect(error?.message).toContain(`${MAX} approvals already wait for a decision, the limit (limits.maxPendingApprovals is ${MAX})`);
    expect(existsSync(join(ws.root, 'over.txt'))).toBe(false);
    const { approvals } = (await call<{ approvals: ApprovalView[] }>(companion, 'GET', '/v1/approvals')).json;
    expect(approvals.map((a) => a.id).sort()).toEqual(waiting.map((w) => w.approval.id).sort());

    // the waiting cards still decide as before, and a decided one makes room for the next card
    const approved = await decideApproval(companion, waiting[0]!.approval, 'approve', waiting[0]!.run.runId);
    expect(approved.status).toBe('done');
    expect(existsSync(join(ws.root, 'w1.txt'))).toBe(true);
    const next = await postPending(companion, 'mcp-request', write('next.txt'), context('conv-next', 'm-next'));
    expect(next.approval.state).toBe('pending');
  });
});
