/**
 * "Approve for this conversation" in a chat that has no conversation id yet. The page keys such a chat by
 * UNSAVED_CONVERSATION_PREFIX and its path (`new:/` on a chat site's start page, a temporary chat, a site that keeps
 * every chat at one address), so every such chat of a site sends the same conversationId. A grant there would let
 * the next new chat — another conversation, maybe with a prompt-injected document in it — write without a card.
 * Against the real companion process with the default modes (writes ask).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView } from '../../../shared/api';
import { UNSAVED_CONVERSATION_PREFIX } from '../../../shared/conversation-key';
import {
  decideApproval,
  getRun,
  makeWorkspace,
  mcpRequestBlock,
  postPending,
  startCompanionProcess,
  waitUntil,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

describe('approve for this conversation needs a conversation', () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;
  const context = (conversationId: string) => ({ site: 'chatgpt', url: 'https://chatgpt.com/', conversationId, messageKey: `m${++n}` });
  const write = (name: string) => mcpRequestBlock(n + 1, 'fs.write', { path: join(ws.root, name), content: name, mode: 'overwrite' });

  async function decide(approval: ApprovalView, decision: string): Promise<{ status: number; json: { error?: { code: string; message: string } } }> {
    const response = await fetch(`http://127.0.0.1:${companion.port}/v1/approvals/${approval.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${companion.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision, argsHash: approval.argsHash }),
    });
    return { status: response.status, json: (await response.json()) as { error?: { code: string; message: string } } };
  }

  beforeAll(async () => {
    ws = makeWorkspace('cb-unsaved-conv-');
    companion = await startCompanionProcess({ root: ws.root, home: join(ws.base, 'home') });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('in a chat without an id the conversation-wide approval is refused with the reason, the card stays, and approving once still works', async () => {
    const unsaved = `${UNSAVED_CONVERSATION_PREFIX}/`;
    const first = await postPending(companion, 'mcp-request', write('first.txt'), context(unsaved));
    const refused = await decide(first.approval, 'approve-conversation');
    expect(refused.status).toBe(400);
    expect(refused.json.error?.code).toBe('INVALID_INPUT');
    expect(refused.json.error?.message).toBe(
      `approval ${first.approval.id} cannot be given for the whole conversation: this chat has no conversation id yet (a new or temporary chat), and every such chat on chatgpt is keyed "new:/" alike; approve this call once`,
    );
    expect((await getRun(companion, first.run.runId)).status).toBe('pending');
    const done = await decideApproval(companion, first.approval, 'approve', first.run.runId);
    expect(done.status).toBe('done');
    expect(readFileSync(join(ws.root, 'first.txt'), 'utf8')).toBe('first.txt');
    // the next new chat (the same key) is asked again
    const next = await postPending(companion, 'mcp-request', write('second.txt'), context(unsaved));
    expect(next.run.status).toBe('pending');
    await decideApproval(companion, next.approval, 'deny', next.run.runId);
  });

  it('a chat with its id gets the conversation-wide approval as before (the refusal above is the missing id, not the setup)', async () => {
    const first = await postPending(companion, 'mcp-request', write('third.txt'), context('c-6f1e2d3c'));
    expect((await decide(first.approval, 'approve-conversation')).status).toBe(200);
    await waitUntil('the approved write ran', async () => (await getRun(companion, first.run.runId)).status === 'done');
    n++;
    const response = await fetch(`http://127.0.0.1:${companion.port}/v1/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${companion.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'mcp-request', text: write('fourth.txt'), context: context('c-6f1e2d3c'), waitMs: 5_000 }),
    });
    expect(((await response.json()) as { status: string }).status).toBe('done');
    expect(readFileSync(join(ws.root, 'fourth.txt'), 'utf8')).toBe('fourth.txt');
  });
});
