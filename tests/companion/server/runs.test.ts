import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalView, AuditRecord, RunResponse } from '../../../shared/api';
import { context, flycodeCall, makeWorld, mcpCall, mcpJson, removeWorld, testHandlers, type World } from './harness';

const worlds: World[] = [];
function world(options: Parameters<typeof makeWorld>[0] = {}): World {
  const w = makeWorld(options);
  worlds.push(w);
  return w;
}
afterEach(async () => {
  for (const w of worlds.splice(0)) {
    await w.close();
    removeWorld(w);
  }
});

async function run(w: World, kind: string, text: string, extra: Record<string, unknown> = {}): Promise<RunResponse> {
  const res = await w.post('/v1/run', { kind, text, context: context(), waitMs: 100, ...extra });
  expect(res.status).toBe(200);
  return (await res.json()) as RunResponse;
}

async function pendingApprovals(w: World): Promise<ApprovalView[]> {
  return ((await (await w.request('/v1/approvals')).json()) as { approvals: ApprovalView[] }).approvals;
}

async function decideApproval(w: World, id: string, decision: string, argsHash: string): Promise<Response> {
  return w.post(`/v1/approvals/${id}`, { decision, argsHash });
}

async function finalRun(w: World, runId: string): Promise<RunResponse> {
  for (let i = 0; i < 200; i++) {
    const body = (await (await w.request(`/v1/runs/${runId}`)).json()) as RunResponse;
    if (body.status === 'done' || body.status === 'error') return body;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`run ${runId} never finished`);
}

async function auditRecords(w: World): Promise<AuditRecord[]> {
  return ((await (await w.request('/v1/audit?limit=100')).json()) as { records: AuditRecord[] }).records;
}

describe('POST /v1/run — tool calls', () => {
  it('a flycode-call written on one line in three backticks, as the page gives it back (inline code), runs when sent', async () => {
    const w = world();
    writeFileSync(join(w.root, 'a.txt'), 'hello\n');
    const res = await run(w, 'flycode-call', `\`flycode-call {"id":"call-001","tool":"fs.read","args":{"path":"${join(w.root, 'a.txt')}"}}\``);
    expect(res.status).toBe('done');
    expect(res.resultText).toContain('[id] call-001\n');
    expect(res.resultText).toContain('[ok] true\n');
    expect(res.resultText).toContain('hello');
  });

  it('an mcp-request the page shows with "``` Done." as its last line (a closing fence with words) runs the call before it', async () => {
    const w = world();
    writeFileSync(join(w.root, 'a.txt'), 'hello\n');
    const json = JSON.stringify({ jsonrpc: '2.0', id: 'call-001', method: 'tools/call', params: { name: 'fs.read', arguments: { path: join(w.root, 'a.txt') } } });
    const res = await run(w, 'mcp-request', '````mcp-request\n' + json + '\n``` Done, reading it.\n````');
    expect(res.status).toBe('done');
    expect(mcpJson(res.resultText).result?.content[0]?.text).toContain('hello');
  });

  it('an mcp-request whose JSON starts after a zero-width space (pasted, or put there by the page) runs the call', async () => {
    const w = world();
    writeFileSync(join(w.root, 'a.txt'), 'hello\n');
    const res = await run(w, 'mcp-request', mcpCall('call-001', 'fs.read', { path: join(w.root, 'a.txt') }).replace('\n{', '\n\u200B{'));
    expect(res.status).toBe('done');
    expect(mcpJson(res.resultText).result?.content[0]?.text).toContain('hello');
  });

  it('a read runs at once (read is auto) and answers in the flycode-result form with its auditId', async () => {
    const w = world();
    writeFileSync(join(w.root, 'a.txt'), 'hello\nworld\n');
    const res = await run(w, 'flycode-call', flycodeCall('call-001', 'fs.read', { path: join(w.root, 'a.txt') }));
    expect(res.status).toBe('done');
    expect(res.resultText).toContain('[id] call-001');
    expect(res.resultText).toContain('[ok] true');
    expect(res.resultText).toContain(`[auditId] ${res.auditId}`);
    expect(res.resultText).toContain('hello\nworld');
    const [record] = await auditRecords(w);
    expect(record).toMatchObject({ auditId: res.auditId, runId: res.runId, site: 'chatgpt', conversationId: 'conv-1', kind: 'flycode-call', tool: 'fs.read', decision: 'auto', outcome: 'ok', paths: [join(w.root, 'a.txt')] });
    // the audit never holds file contents
    const day = readdirSync(join(w.home, 'audit'))[0] as string;
    expect(readFileSync(join(w.home, 'audit', day), 'utf8')).not.toContain('hello');
  });

  it('a write waits for approval: pending with pendingConfirmationId, then the real result after approve', async () => {
    const w = world();
    const path = join(w.root, 'new.txt');
    const res = await run(w, 'mcp-request', mcpCall('call-006', 'fs.write', { path, mode: 'overwrite', content: 'x' }));
    expect(res.status).toBe('pending');
    expect(res.pendingConfirmationId).toMatch(/^confirm-/);
    const pending = mcpJson(res.resultText);
    expect(pending.id).toBe('call-006');
    expect(pending.result?.meta.pendingConfirmationId).toBe(res.pendingConfirmationId);
    expect(pending.result?.content[0]?.text).toContain('Pending confirmation');
    expect(existsSync(path)).toBe(false);

    const [approval] = await pendingApprovals(w);
    expect(approval).toMatchObject({ id: res.pendingConfirmationId, runId: res.runId, tool: 'fs.write', risk: 'write', site: 'chatgpt', conversationId: 'conv-1' });
    expect(approval?.preview.diff).toBe('+x');
    expect((await decideApproval(w, approval!.id, 'approve', approval!.argsHash)).status).toBe(200);

    const final = await finalRun(w, res.runId);
    expect(final.status).toBe('done');
    expect(mcpJson(final.resultText).result?.content[0]?.text).toBe('WRITE_SUCCESS');
    expect(readFileSync(path, 'utf8')).toBe('x');
    const [record] = await auditRecords(w);
    expect(record).toMatchObject({ auditId: res.auditId, decision: 'approve', outcome: 'ok', tool: 'fs.write' });
  });

  it('an approval decided within the wait answers the final result directly', async () => {
    const w = world();
    const unsubscribe = w.companion.hub.subscribe((event) => {
      if (event.type === 'approval' && event.change === 'created') {
        w.companion.approvals.decide(event.approval.id, 'approve', event.approval.argsHash);
      }
    });
    const res = await run(w, 'mcp-request', mcpCall('c1', 'fs.write', { path: join(w.root, 'quick.txt'), mode: 'overwrite', content: 'q' }), { waitMs: 5000 });
    unsubscribe();
    expect(res.status).toBe('done');
    expect(res.pendingConfirmationId).toBeUndefined();
  });

  it('approval replay: a second decision on the same approval is refused (409)', async () => {
    const w = world();
    const res = await run(w, 'mcp-request', mcpCall('c1', 'fs.write', { path: join(w.root, 'r.txt'), mode: 'overwrite', content: '1' }));
    const [approval] = await pendingApprovals(w);
    expect((await decideApproval(w, approval!.id, 'approve', approval!.argsHash)).status).toBe(200);
    await finalRun(w, res.runId);
    const replay = await decideApproval(w, approval!.id, 'approve', approval!.argsHash);
    expect(replay.status).toBe(409);
    expect(w.runs['fs.write']).toBe(1);
  });

  it('argument swap: a decision quoting the hash of other arguments is refused and nothing runs', async () => {
    const w = world();
    const path = join(w.root, 'swap.txt');
    const res = await run(w, 'mcp-request', mcpCall('c1', 'fs.write', { path, mode: 'overwrite', content: 'harmless' }));
    const [approval] = await pendingApprovals(w);
    const other = 'f'.repeat(64);
    const swapped = await decideApproval(w, approval!.id, 'approve', other);
    expect(swapped.status).toBe(409);
    expect(((await swapped.json()) as { error: { code: string } }).error.code).toBe('MISMATCH');
    expect(existsSync(path)).toBe(false);
    expect((await w.request(`/v1/runs/${res.runId}`).then((r) => r.json())) as RunResponse).toMatchObject({ status: 'pending' });
  });

  it('a changed block is a new call that needs its own approval', async () => {
    const w = world();
    await run(w, 'mcp-request', mcpCall('c1', 'fs.write', { path: join(w.root, 'a'), mode: 'overwrite', content: '1' }));
    await run(w, 'mcp-request', mcpCall('c1', 'fs.write', { path: join(w.root, 'a'), mode: 'overwrite', content: '2' }));
    const approvals = await pendingApprovals(w);
    expect(approvals).toHaveLength(2);
    expect(approvals[0]?.argsHash).not.toBe(approvals[1]?.argsHash);
  });

  it('deny: the run ends with DENIED in the protocol form', async () => {
    const w = world();
    const res = await run(w, 'flycode-call', flycodeCall('call-9', 'fs.write', { path: join(w.root, 'd.txt'), mode: 'overwrite', content: 'x' }));
    expect(res.status).toBe('pending');
    expect(res.resultText).toContain('[pendingConfirmationId] ' + res.pendingConfirmationId);
    const [approval] = await pendingApprovals(w);
    await decideApproval(w, approval!.id, 'deny', approval!.argsHash);
    const final = await finalRun(w, res.runId);
    expect(final.status).toBe('error');
    expect(final.resultText).toContain('[ok] false');
    expect(final.resultText).toContain('DENIED');
    expect(existsSync(join(w.root, 'd.txt'))).toBe(false);
    expect((await auditRecords(w))[0]).toMatchObject({ decision: 'deny', outcome: 'DENIED' });
  });

  it('expired approval: the run ends DENIED and a late decision is refused', async () => {
    const w = world({ config: { approvalTtlMs: 150 } });
    const res = await run(w, 'mcp-request', mcpCall('c1', 'fs.write', { path: join(w.root, 'e.txt'), mode: 'overwrite', content: 'x' }), { waitMs: 10 });
    expect(res.status).toBe('pending');
    const final = await finalRun(w, res.runId);
    expect(final.status).toBe('error');
    const error = mcpJson(final.resultText).error;
    expect(error?.data.code).toBe('DENIED');
    expect(error?.message).toContain('expired');
    const late = await w.post(`/v1/approvals/${res.pendingConfirmationId}`, { decision: 'approve', argsHash: '0'.repeat(64) });
    expect(late.status).toBe(409);
    expect(existsSync(join(w.root, 'e.txt'))).toBe(false);
  });

  it('approve-conversation: the same tool in the same conversation runs without asking; another tool still asks', async () => {
    const w = world();
    const first = await run(w, 'mcp-request', mcpCall('c1', 'fs.write', { path: join(w.root, '1.txt'), mode: 'overwrite', content: '1' }));
    const [approval] = await pendingApprovals(w);
    await decideApproval(w, approval!.id, 'approve-conversation', approval!.argsHash);
    await finalRun(w, first.runId);
    const second = await run(w, 'mcp-request', mcpCall('c2', 'fs.write', { path: join(w.root, '2.txt'), mode: 'overwrite', content: '2' }));
    expect(second.status).toBe('done');
    expect((await auditRecords(w))[0]).toMatchObject({ decision: 'conversation-grant' });
    const otherConversation = await w.post('/v1/run', { kind: 'mcp-request', text: mcpCall('c3', 'fs.write', { path: join(w.root, '3.txt'), mode: 'overwrite', content: '3' }), context: context('conv-2'), waitMs: 50 });
    expect(((await otherConversation.json()) as RunResponse).status).toBe('pending');
    const exec = await run(w, 'mcp-request', mcpCall('c4', 'shell.exec', { command: 'make' }));
    expect(exec.status).toBe('pending');
  });

  it('approve-conversation can be taken back: GET /v1/grants lists it, POST /v1/grants/forget removes it and the next call asks again; a grant that is not there is named', async () => {
    const w = world();
    const first = await run(w, 'mcp-request', mcpCall('c1', 'fs.write', { path: join(w.root, '1.txt'), mode: 'overwrite', content: '1' }));
    const [approval] = await pendingApprovals(w);
    await decideApproval(w, approval!.id, 'approve-conversation', approval!.argsHash);
    await finalRun(w, first.runId);
    const grant = { site: approval!.site, conversationId: approval!.conversationId, tool: 'fs.write', risk: 'write' };
    expect(((await (await w.request('/v1/grants')).json()) as { grants: unknown[] }).grants).toEqual([grant]);

    const forgot = await w.post('/v1/grants/forget', grant);
    expect(forgot.status).toBe(200);
    expect(((await (await w.request('/v1/grants')).json()) as { grants: unknown[] }).grants).toEqual([]);
    const next = await run(w, 'mcp-request', mcpCall('c2', 'fs.write', { path: join(w.root, '2.txt'), mode: 'overwrite', content: '2' }));
    expect(next.status).toBe('pending');
    expect(existsSync(join(w.root, '2.txt'))).toBe(false);

    const again = await w.post('/v1/grants/forget', grant);
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { message: string } }).error.message).toContain(JSON.stringify(grant.conversationId));
    const bad = await w.post('/v1/grants/forget', { ...grant, risk: 'everything' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('risk');
  });

  it('policy deny: a path matching a deny glob is POLICY_BLOCKED without asking', async () => {
    const w = world();
    const res = await run(w, 'mcp-request', mcpCall('c1', 'fs.read', { path: join(w.root, '.env') }));
    expect(res.status).toBe('error');
    const error = mcpJson(res.resultText).error;
    expect(error?.code).toBe(-32003);
    expect(error?.data.code).toBe('POLICY_BLOCKED');
    expect(error?.message).toContain('**/.env');
    expect(await pendingApprovals(w)).toHaveLength(0);
    expect((await auditRecords(w))[0]).toMatchObject({ decision: 'policy-deny', outcome: 'POLICY_BLOCKED' });
  });

  it('allow-listed command runs without asking; the same command chained asks', async () => {
    const w = world({ config: { allowCommands: ['npm test'] } });
    const allowed = await run(w, 'mcp-request', mcpCall('c1', 'shell.exec', { command: 'npm test' }));
    expect(allowed.status).toBe('done');
    const chained = await run(w, 'mcp-request', mcpCall('c2', 'shell.exec', { command: 'npm test; rm -rf ~' }));
    expect(chained.status).toBe('pending');
    const substituted = await run(w, 'mcp-request', mcpCall('c3', 'shell.exec', { command: 'npm test $(rm -rf ~)' }));
    expect(substituted.status).toBe('pending');
    expect(w.runs['shell.exec']).toBe(1);
  });

  it('results are redacted and capped with a marker saying how to read more', async () => {
    const w = world({ config: { limits: { maxResultChars: 200 } } });
    writeFileSync(join(w.root, 'secrets.txt'), `password=hunter2\nkey sk-proj-Abcdefghijklmnopqrstuvwxyz0123\n${'filler line\n'.repeat(50)}`);
    const res = await run(w, 'mcp-request', mcpCall('c1', 'fs.read', { path: join(w.root, 'secrets.txt') }));
    const result = mcpJson(res.resultText).result;
    const text = result?.content[0]?.text ?? '';
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('abcdefghijklmnop');
    expect(text).toContain('[REDACTED]');
    expect(text).toContain('truncated');
    expect(text).toContain('range');
    expect(result?.meta.truncated).toBe(true);
  });

  it('argument errors come back as INVALID_INPUT naming the argument', async () => {
    const w = world();
    const res = await run(w, 'mcp-request', mcpCall('c1', 'fs.read', { file: '/x' }));
    const error = mcpJson(res.resultText).error;
    expect(error?.code).toBe(-32602);
    expect(error?.message).toContain('file');
    expect(res.status).toBe('error');
  });

  it('a known tool without a handler here is NOT_SUPPORTED, not a crash', async () => {
    const w = world();
    const res = await run(w, 'mcp-request', mcpCall('c1', 'fs.ls', { path: w.root }));
    expect(mcpJson(res.resultText).error?.data.code).toBe('NOT_SUPPORTED');
  });
});

describe('POST /v1/run — protocol methods and invalid blocks', () => {
  const rpc = (body: unknown) => '```mcp-request\n' + JSON.stringify(body) + '\n```';

  it('initialize answers serverInfo chatbridge and tools capability', async () => {
    const w = world();
    const res = await run(w, 'mcp-request', rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }));
    const json = mcpJson(res.resultText) as unknown as { id: number; result: { serverInfo: { name: string }; capabilities: { tools: object } } };
    expect(json.id).toBe(1);
    expect(json.result.serverInfo.name).toBe('chatbridge');
    expect(json.result.capabilities.tools).toEqual({});
  });

  it('tools/list answers every tool with a JSON Schema', async () => {
    const w = world();
    const res = await run(w, 'mcp-request', rpc({ jsonrpc: '2.0', id: 'l', method: 'tools/list' }));
    const tools = (mcpJson(res.resultText) as unknown as { result: { tools: Array<{ name: string; inputSchema: { type: string; properties: object } }> } }).result.tools;
    expect(tools.map((t) => t.name)).toContain('fs.read');
    expect(tools.map((t) => t.name)).toContain('filesystem');
    const read = tools.find((t) => t.name === 'fs.read');
    expect(read?.inputSchema.type).toBe('object');
    expect(read?.inputSchema.properties).toHaveProperty('path');
  });

  it('ping answers {}', async () => {
    const w = world();
    const res = await run(w, 'mcp-request', rpc({ jsonrpc: '2.0', id: 'p', method: 'ping' }));
    expect((mcpJson(res.resultText) as unknown as { result: Record<string, unknown> }).result).toMatchObject({});
    expect(res.status).toBe('done');
  });

  it('a notification gets no reply', async () => {
    const w = world();
    const res = await run(w, 'mcp-request', rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(res).toMatchObject({ status: 'done', resultText: '' });
  });

  // [name, kind, text, check]
  const invalid: Array<[string, string, string, (text: string) => void]> = [
    ['mcp-request that is not JSON → -32700', 'mcp-request', '```mcp-request\nfs.read /tmp/a.txt\n```', (t) => expect(mcpJson(t).error?.code).toBe(-32700)],
    ['unknown method → -32601', 'mcp-request', rpc({ jsonrpc: '2.0', id: 3, method: 'resources/list' }), (t) => expect(mcpJson(t).error?.code).toBe(-32601)],
    ['wrong jsonrpc version → error', 'mcp-request', rpc({ jsonrpc: '1.0', id: 3, method: 'ping' }), (t) => expect(mcpJson(t).error).toBeDefined()],
    ['no block at all → error in mcp form', 'mcp-request', 'just some words', (t) => expect(mcpJson(t).error?.code).toBe(-32602)],
    ['two blocks → error in mcp form', 'mcp-request', rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }) + '\n\n' + rpc({ jsonrpc: '2.0', id: 2, method: 'ping' }), (t) => expect(mcpJson(t).error?.message).toContain('2 complete')],
    ['unclosed block → error', 'mcp-request', '```mcp-request\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n', (t) => expect(mcpJson(t).error).toBeDefined()],
    ['flycode-call without id → [id] (none), [ok] false', 'flycode-call', flycodeCall(undefined, 'fs.read', { path: '/tmp/a' }), (t) => {
      expect(t).toContain('[id] (none)');
      expect(t).toContain('[ok] false');
    }],
    ['flycode-call with a number for its id → that id echoed, [ok] false, saying the id must be a string', 'flycode-call', '```flycode-call\n{"id":7,"tool":"fs.read","args":{"path":"/tmp/a"}}\n```', (t) => {
      // seed 001 tells the model to ignore an answer with [id] (none): it would never learn what to write instead
      expect(t).toContain('[id] 7\n');
      expect(t).toContain('[ok] false\n[error] INVALID_REQUEST: id must be a non-empty string such as "call-001"; got 7\n');
    }],
    ['flycode-call with its JSON on the fence line, which the page drops → [ok] false, saying where the JSON goes', 'flycode-call', '```flycode-call\n```', (t) => {
      expect(t).toContain('[ok] false\n');
      expect(t).toContain("flycode-call block is empty; it must hold one JSON object, on the lines after the ```flycode-call line (JSON written on that line is part of the block's label, which the page does not show)");
    }],
    ['flycode-call not JSON → [ok] false', 'flycode-call', '```flycode-call\n/fs.read /tmp/a.txt --head 200\n```', (t) => expect(t).toContain('[ok] false')],
    ['flycode-call unknown tool → names the tool', 'flycode-call', flycodeCall('c1', 'fs.delete', {}), (t) => expect(t).toContain('fs.delete')],
    ['autocoder without a plan → INVALID_INPUT in #####-- form', 'autocoder', 'no plan here', (t) => {
      expect(t).toContain('#####--');
      expect(t).toContain('INVALID_INPUT');
    }],
    ['axon without statements → axon-result', 'axon', 'nothing', (t) => expect(t).toContain('axon-result')],
    ['axon plan whose act block is labelled action → axon-result naming the label to write, nothing ran', 'axon', '~~~~~action\nwrite_file\n~~~~~\n~~~~~path\nmain.py\n~~~~~\n~~~~~python\nprint(1)\n~~~~~\n', (t) => {
      expect(t).toMatch(/^```axon-result\n/);
      expect(t).toContain('the act block is labelled "action" ("~~~~~action"): a statement is read only from a block labelled act, so nothing in this plan ran; open the act block with ~~~~~act');
    }],
    ['autocoder plan between ####-- and --#### (a # short) → the executor\'s error naming the markers to write', 'autocoder', '####--\n{"type":"operate","metadata":{"step_id":"s1","reason":"r"},"file_operations":[{"action_type":"list_tree","path":"."}]}\n--####', (t) => {
      const summary = (JSON.parse(/^#####--\s*(.*?)\s*--#####$/s.exec(t)![1]!) as { metadata: { summary: string } }).metadata.summary;
      expect(summary).toBe(
        'INVALID_INPUT: the plan\'s markers are not the seed\'s ("####--"): a plan is read only between the ASCII #####-- and --##### (five half-width # and two -, nothing between), so nothing in it ran; write those markers',
      );
    }],
  ];
  it.each(invalid)('%s (never a 500)', async (_name, kind, text, check) => {
    const w = world();
    const res = await run(w, kind, text);
    expect(res.status).toBe('error');
    check(res.resultText);
  });
});

describe('POST /v1/run — plans', () => {
  const plan = '#####--\n{"type":"operate","metadata":{"step_id":"s1","reason":"r"},"file_operations":[]}\n--#####';

  it('an autocoder plan that needs approval answers pending in its own delimiters, then completes', async () => {
    const w = world();
    const res = await run(w, 'autocoder', plan);
    expect(res.status).toBe('pending');
    expect(res.resultText).toMatch(/^#####--[\s\S]*--#####$/);
    expect(res.resultText).toContain(res.pendingConfirmationId);
    expect(res.resultText).toContain('"step_id": "s1"');
    const [approval] = await pendingApprovals(w);
    expect(approval?.tool).toBe('autocoder');
    await decideApproval(w, approval!.id, 'approve', approval!.argsHash);
    const final = await finalRun(w, res.runId);
    expect(final.status).toBe('done');
    expect(final.resultText).toContain('applied');
    expect(w.runs.autocoder).toBe(1);
  });

  it('a finish plan answers nothing', async () => {
    const w = world();
    const res = await run(w, 'autocoder', '#####--\n{"type":"finish","metadata":{"step_id":"s9"}}\n--#####');
    expect(res).toMatchObject({ status: 'done', resultText: '' });
  });

  it('an axon plan that needs approval answers pending — not aborted — with its pendingConfirmationId, then applies', async () => {
    const w = world();
    const text = '```act\nwrite_file\n```\n```path\na.txt\n```\n```content\nhi\n```\n';
    const res = await run(w, 'axon', text);
    expect(res.status).toBe('pending');
    expect(res.resultText).toMatch(/^```axon-result\n[\s\S]*\n```$/);
    // the Axon prompt tells the model an aborted plan changed nothing and is to be sent again, corrected: a plan that
    // waits for the person is not aborted
    expect(res.resultText).not.toContain('aborted');
    expect(res.resultText).toMatch(/^plan: pending\b/m);
    expect(res.resultText).toContain(res.pendingConfirmationId);
    const [approval] = await pendingApprovals(w);
    await decideApproval(w, approval!.id, 'approve', approval!.argsHash);
    const final = await finalRun(w, res.runId);
    expect(final.resultText).toContain('plan: applied');
  });

  it('axon: every statement in the text is one plan, authorized once', async () => {
    const w = world({ config: { modes: { write: 'auto' } } });
    const text = '```act\nwrite_file\n```\n```path\na.txt\n```\n```content\nhi\n```\n\n```act\nwrite_file\n```\n```path\nb.txt\n```\n```content\nho\n```\n';
    const res = await run(w, 'axon', text);
    expect(res.status).toBe('done');
    expect(res.resultText).toContain('plan: applied');
    expect(w.runs.axon).toBe(1);
  });

  it('axon: a content block closed by "~~~~~ 完成" (as the page shows it) is refused, and no statement of the plan runs', async () => {
    const w = world({ config: { modes: { write: 'auto' } } });
    const text = '```act\nwrite_file\n```\n```path\na.txt\n```\n```content\nhi\n```\n\n```act\nwrite_file\n```\n```path\nb.txt\n```\n```content\nho\n~~~~~ 完成\n```\n';
    const res = await run(w, 'axon', text);
    expect(res.status).toBe('error');
    expect(res.resultText).toContain('write_file parameter 2 (content) ends with the line "~~~~~ 完成"');
    expect(res.resultText).toContain('nothing changed');
    expect(w.runs.axon).toBeUndefined();
  });
});

describe('idempotent runs', () => {
  it('the same block posted twice returns the first run and executes once', async () => {
    const w = world({ config: { modes: { write: 'auto' } } });
    const text = mcpCall('c1', 'fs.write', { path: join(w.root, 'once.txt'), mode: 'append', content: 'x' });
    const first = await run(w, 'mcp-request', text);
    const second = await run(w, 'mcp-request', text);
    expect(second.runId).toBe(first.runId);
    expect(second.reused).toBe(true);
    expect(second.resultText).toBe(first.resultText);
    expect(readFileSync(join(w.root, 'once.txt'), 'utf8')).toBe('x');
    expect(w.runs['fs.write']).toBe(1);
  });

  it('a block posted again is told whether its own token started the run: the same browser delivers it, another paired browser follows it', async () => {
    const w = world({ config: { modes: { write: 'auto' } } });
    const other = w.companion.tokens.issue('another browser');
    const text = mcpCall('c1', 'fs.write', { path: join(w.root, 'whose.txt'), mode: 'append', content: 'x' });
    const first = await run(w, 'mcp-request', text);
    expect(first.startedByYou).toBeUndefined();
    const mine = await run(w, 'mcp-request', text);
    expect(mine).toMatchObject({ runId: first.runId, reused: true, startedByYou: true });
    const res = await w.post('/v1/run', { kind: 'mcp-request', text, context: context(), waitMs: 100 }, other);
    expect((await res.json()) as RunResponse).toMatchObject({ runId: first.runId, reused: true, startedByYou: false });
    expect(readFileSync(join(w.root, 'whose.txt'), 'utf8')).toBe('x');
    // the run log keeps a digest of the starter's token, never the token
    const log = readdirSync(w.home).filter((name) => name.startsWith('runs')).map((name) => readFileSync(join(w.home, name), 'utf8')).join('');
    expect(log).toContain(first.runId);
    expect(log).not.toContain(w.token);
  });

  it('whose request started a run holds across a restart of the app over the same home', async () => {
    const w1 = makeWorld({ config: { modes: { write: 'auto' } } });
    const other = w1.companion.tokens.issue('another browser');
    const text = mcpCall('c1', 'fs.write', { path: join(w1.root, 'whose.txt'), mode: 'append', content: 'x' });
    const res = await w1.post('/v1/run', { kind: 'mcp-request', text, context: context(), waitMs: 100 }, other);
    const first = (await res.json()) as RunResponse;
    await w1.close();
    const w2 = world({ config: { modes: { write: 'auto' } }, reuse: { base: w1.base } });
    expect(await run(w2, 'mcp-request', text)).toMatchObject({ runId: first.runId, reused: true, startedByYou: false });
    const again = await w2.post('/v1/run', { kind: 'mcp-request', text, context: context(), waitMs: 100 }, other);
    expect((await again.json()) as RunResponse).toMatchObject({ runId: first.runId, reused: true, startedByYou: true });
  });

  it('a different messageKey or conversation is a different call', async () => {
    const w = world({ config: { modes: { write: 'auto' } } });
    const text = mcpCall('c1', 'fs.write', { path: join(w.root, 'twice.txt'), mode: 'append', content: 'x' });
    await run(w, 'mcp-request', text);
    await w.post('/v1/run', { kind: 'mcp-request', text, context: context('conv-1', 'msg-2'), waitMs: 100 });
    await w.post('/v1/run', { kind: 'mcp-request', text, context: context('conv-2', 'msg-1'), waitMs: 100 });
    expect(readFileSync(join(w.root, 'twice.txt'), 'utf8')).toBe('xxx');
  });

  it('rerun: true runs it again on purpose', async () => {
    const w = world({ config: { modes: { write: 'auto' } } });
    const text = mcpCall('c1', 'fs.write', { path: join(w.root, 'rerun.txt'), mode: 'append', content: 'x' });
    const first = await run(w, 'mcp-request', text);
    const again = await run(w, 'mcp-request', text, { rerun: true });
    expect(again.runId).not.toBe(first.runId);
    expect(readFileSync(join(w.root, 'rerun.txt'), 'utf8')).toBe('xx');
    const third = await run(w, 'mcp-request', text);
    expect(third.runId).toBe(again.runId);
  });

  it('a pending run posted again answers the same pending run, not a second approval', async () => {
    const w = world();
    const text = mcpCall('c1', 'fs.write', { path: join(w.root, 'p.txt'), mode: 'overwrite', content: 'x' });
    const first = await run(w, 'mcp-request', text);
    const second = await run(w, 'mcp-request', text);
    expect(second).toMatchObject({ runId: first.runId, status: 'pending', pendingConfirmationId: first.pendingConfirmationId, reused: true });
    expect(await pendingApprovals(w)).toHaveLength(1);
  });

  it('holds across a restart of the app over the same home', async () => {
    const w1 = makeWorld({ config: { modes: { write: 'auto' } } });
    const text = mcpCall('c1', 'fs.write', { path: join(w1.root, 'restart.txt'), mode: 'append', content: 'x' });
    const first = await run(w1, 'mcp-request', text);
    await w1.close();
    const w2 = world({ config: { modes: { write: 'auto' } }, reuse: { base: w1.base } });
    const second = await run(w2, 'mcp-request', text);
    expect(second).toMatchObject({ runId: first.runId, reused: true, resultText: first.resultText });
    expect(readFileSync(join(w2.root, 'restart.txt'), 'utf8')).toBe('x');
    expect(w2.runs['fs.write']).toBeUndefined();
    expect(((await (await w2.request(`/v1/runs/${first.runId}`)).json()) as RunResponse).status).toBe('done');
  });

  it('a run that was waiting for approval when the companion stopped is asked again after a restart', async () => {
    const w1 = makeWorld();
    const text = mcpCall('c1', 'fs.write', { path: join(w1.root, 'again.txt'), mode: 'overwrite', content: 'x' });
    const first = await run(w1, 'mcp-request', text);
    expect(first.status).toBe('pending');
    // a hard stop: the approval dies with the process; nothing ran
    const w2 = world({ reuse: { base: w1.base } });
    const second = await run(w2, 'mcp-request', text);
    expect(second.status).toBe('pending');
    expect(second.runId).not.toBe(first.runId);
    await w1.close();
  });
});

describe('other routes', () => {
  it('GET /v1/runs/:id for an unknown run is 404', async () => {
    const w = world();
    expect((await w.request('/v1/runs/run-nope')).status).toBe(404);
  });

  it('GET /v1/tools lists the catalogue with risk and schema', async () => {
    const w = world();
    const { tools } = (await (await w.request('/v1/tools')).json()) as { tools: Array<{ name: string; risk: string }> };
    expect(tools.find((t) => t.name === 'fs.rm')?.risk).toBe('delete');
    expect(tools.find((t) => t.name === 'filesystem')?.risk).toBe('depends');
  });

  it('journal list and undo go through the journal; an unknown entry is an error, not a 500', async () => {
    const w = world();
    const path = join(w.root, 'j.txt');
    writeFileSync(path, 'before');
    const { entries: none } = (await (await w.request('/v1/journal')).json()) as { entries: unknown[] };
    expect(none).toEqual([]);
    const events: string[] = [];
    w.companion.hub.subscribe((event) => {
      if (event.type === 'journal') events.push(`${event.entry.id}:${event.entry.state}`);
    });
    const entry = await w.companion.journal.apply('test write', [{ op: 'write', path, content: 'after' }]);
    expect(readFileSync(path, 'utf8')).toBe('after');
    const { entries } = (await (await w.request('/v1/journal')).json()) as { entries: Array<{ id: string }> };
    expect(entries.map((e) => e.id)).toContain(entry.id);
    const undone = await w.post(`/v1/journal/${entry.id}/undo`, {});
    expect(undone.status).toBe(200);
    expect(readFileSync(path, 'utf8')).toBe('before');
    expect(events).toEqual([`${entry.id}:applied`, `${entry.id}:undone`]);
    const undoUnknown = await w.post('/v1/journal/nope/undo', {});
    expect(undoUnknown.status).toBeGreaterThanOrEqual(400);
    expect(undoUnknown.status).toBeLessThan(500);
  });

  it('programs: list, and stopping an unknown one is 404', async () => {
    const w = world();
    expect(((await (await w.request('/v1/programs')).json()) as { programs: unknown[] }).programs).toEqual([]);
    expect((await w.post('/v1/programs/nope/stop', {})).status).toBe(404);
  });
});

describe('run manager waits', () => {
  it('a run still executing past the hold answers `running`; the final result follows', async () => {
    const w = world();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { run } = w.companion.runs.start({
      kind: 'test',
      site: 's',
      conversationId: 'c',
      messageKey: 'm',
      async execute() {
        await gate;
        return { resultText: 'finished', status: 'done', outcome: 'ok' };
      },
      pendingText: () => 'pending',
    });
    const early = await w.companion.runs.wait(run, 10, 50);
    expect(early.status).toBe('running');
    release();
    expect(await run.final).toMatchObject({ status: 'done', resultText: 'finished' });
    expect(w.companion.runs.get(run.record.runId)?.status).toBe('done');
  });

  it('a run names the tool it runs while it waits and while it runs, as its audit record will once it ends', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runs: Record<string, number> = {};
    const tools = testHandlers(runs);
    const shell = tools['shell.exec']!;
    // a command that takes long (a build, a test suite): approved, it runs on with no card naming it
    const w = world({ tools: { ...tools, 'shell.exec': { ...shell, run: async (args, ctx) => (await gate, shell.run(args, ctx)) } } as typeof tools });
    const asked = await run(w, 'mcp-request', mcpCall('c1', 'shell.exec', { command: 'make' }));
    expect(asked).toMatchObject({ status: 'pending', tool: 'shell.exec' });
    const [approval] = await pendingApprovals(w);
    expect((await decideApproval(w, approval!.id, 'approve', approval!.argsHash)).status).toBe(200);
    const running = async (): Promise<RunResponse> => {
      for (let i = 0; i < 200; i++) {
        const body = (await (await w.request(`/v1/runs/${asked.runId}`)).json()) as RunResponse;
        if (body.status === 'running') return body;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error('the run never ran');
    };
    expect((await running()).tool).toBe('shell.exec');
    release();
    expect(await finalRun(w, asked.runId)).toMatchObject({ status: 'done', tool: 'shell.exec' });
    expect((await auditRecords(w))[0]).toMatchObject({ runId: asked.runId, tool: 'shell.exec' });
  });

  it('a job that throws still ends as an error run with an audit record', async () => {
    const w = world();
    const { run } = w.companion.runs.start({
      kind: 'test',
      site: 's',
      conversationId: 'c',
      messageKey: 'm',
      execute: async () => {
        throw new Error('boom');
      },
      pendingText: () => 'pending',
    });
    expect(await run.final).toMatchObject({ status: 'error' });
    expect((await auditRecords(w))[0]).toMatchObject({ outcome: 'INTERNAL', runId: run.record.runId });
  });
});
