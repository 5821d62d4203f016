import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalView, RunResponse } from '../../../shared/api';
import { toolHandlers } from '../../../companion/tools';
import type { ToolHandlers } from '../../../companion/runs/tool-call';
import { context, flycodeCall, makeWorld, mcpCall, mcpJson, removeWorld, type World, type WorldOptions } from './harness';

/**
 * Issue 10 §4, end to end through POST /v1/run with the real tool handlers: PromptX's runner call
 * (`promptx_tool` + `@tool://filesystem` + parameters, seed 004) is answered exactly as the `filesystem` tool is —
 * same policy, same approval, same answer.
 */

const worlds: World[] = [];
function world(options: WorldOptions = {}): World {
  const w = makeWorld({ tools: toolHandlers as ToolHandlers, ...options });
  worlds.push(w);
  return w;
}
afterEach(async () => {
  for (const w of worlds.splice(0)) {
    await w.close();
    removeWorld(w);
  }
});

async function run(w: World, kind: string, text: string, conversationId = 'conv-1'): Promise<RunResponse> {
  const res = await w.post('/v1/run', { kind, text, context: context(conversationId), waitMs: 200 });
  expect(res.status).toBe(200);
  return (await res.json()) as RunResponse;
}

function put(w: World, path: string, content: string): void {
  mkdirSync(dirname(join(w.root, path)), { recursive: true });
  writeFileSync(join(w.root, path), content);
}

/** The answer without what differs between two calls by construction: the audit id. */
function sameAnswer(text: string): string {
  return text.replace(/"auditId":"[^"]*"/g, '"auditId":"…"').replace(/\[auditId\] \S+/g, '[auditId] …');
}

const runner = (parameters: Record<string, unknown>) => ({ tool_resource: '@tool://filesystem', parameters });

describe('promptx_tool @tool://filesystem through /v1/run', () => {
  it("the manual's write example writes the file and answers as the filesystem tool does", async () => {
    const parameters = { action: 'write', path: 'resource/role/assistant/assistant.role.md', content: '<role>...</role>' };
    const direct = world({ config: { modes: { write: 'auto' } } });
    const viaRunner = world({ config: { modes: { write: 'auto' } } });
    const a = await run(direct, 'mcp-request', mcpCall('call-1', 'filesystem', parameters));
    const b = await run(viaRunner, 'mcp-request', mcpCall('call-1', 'promptx_tool', runner(parameters)));
    expect(b.status).toBe('done');
    expect(sameAnswer(b.resultText)).toBe(sameAnswer(a.resultText));
    expect(JSON.parse(mcpJson(b.resultText).result?.content[0]?.text ?? '{}')).toMatchObject({ success: true });
    expect(readFileSync(join(viaRunner.root, 'resource/role/assistant/assistant.role.md'), 'utf8')).toBe('<role>...</role>');
  });

  it("the manual's read example, in a flycode-call", async () => {
    const w = world();
    put(w, 'resource/tool/calculator/calculator.tool.js', 'module.exports = { add: (a, b) => a + b };\n');
    const parameters = { action: 'read', path: 'resource/tool/calculator/calculator.tool.js' };
    const a = await run(w, 'flycode-call', flycodeCall('call-2', 'filesystem', parameters));
    const b = await run(w, 'flycode-call', flycodeCall('call-2', 'promptx_tool', runner(parameters)));
    expect(b.status).toBe('done');
    expect(b.resultText).toContain('[ok] true');
    expect(b.resultText).toContain('[tool] promptx_tool');
    expect(sameAnswer(b.resultText).replace('[tool] promptx_tool', '[tool] filesystem')).toBe(sameAnswer(a.resultText));
  });

  it("the manual's edit example with dryRun: a diff, nothing written", async () => {
    const w = world({ config: { modes: { write: 'auto' } } });
    put(w, 'resource/role/existing.md', '# 角色\n旧内容\n');
    const parameters = { action: 'edit', path: 'resource/role/existing.md', edits: [{ oldText: '旧内容', newText: '新内容' }], dryRun: true };
    const direct = await run(w, 'mcp-request', mcpCall('call-3', 'filesystem', parameters));
    const res = await run(w, 'mcp-request', mcpCall('call-3', 'promptx_tool', runner(parameters)));
    expect(res.status).toBe('done');
    expect(sameAnswer(res.resultText)).toBe(sameAnswer(direct.resultText));
    const reply = JSON.parse(mcpJson(res.resultText).result?.content[0]?.text ?? '{}') as { success: boolean; data: unknown };
    expect(reply.success).toBe(true);
    expect(JSON.stringify(reply.data)).toContain('+新内容');
    expect(readFileSync(join(w.root, 'resource/role/existing.md'), 'utf8')).toBe('# 角色\n旧内容\n');
  });

  it('a write asks for approval under the default policy, as the filesystem tool it is', async () => {
    const w = world();
    const res = await run(w, 'mcp-request', mcpCall('call-4', 'promptx_tool', runner({ action: 'write', path: 'a.md', content: 'x' })));
    expect(res.status).toBe('pending');
    const { approvals } = (await (await w.request('/v1/approvals')).json()) as { approvals: ApprovalView[] };
    expect(approvals[0]).toMatchObject({ tool: 'filesystem', risk: 'write' });
    expect(existsSync(join(w.root, 'a.md'))).toBe(false);
  });

  it('another resource is refused with its name and what is supported; nothing runs', async () => {
    const w = world({ config: { modes: { write: 'auto' } } });
    const res = await run(w, 'mcp-request', mcpCall('call-5', 'promptx_tool', { tool_resource: '@tool://calculator', parameters: { expression: '1+1' } }));
    expect(res.status).toBe('error');
    const answer = mcpJson(res.resultText);
    expect(answer.id).toBe('call-5');
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toContain('"@tool://calculator" is not available here: chatbridge runs only "@tool://filesystem"');
  });

  it('a parameter the filesystem tool does not know is refused by its own schema, naming the tool', async () => {
    const w = world();
    const res = await run(w, 'flycode-call', flycodeCall('call-6', 'promptx_tool', runner({ action: 'read', file: 'a.md' })));
    expect(res.status).toBe('error');
    expect(res.resultText).toContain('[ok] false');
    expect(res.resultText).toContain('filesystem');
  });
});

describe('the manual\'s own tool name, "@tool://filesystem", as the name of a call', () => {
  // Seed 004 names the tool "@tool://filesystem" (## 工具名称); a model given it with seed 000 or 001 calls that name.
  it('an mcp-request tools/call named "@tool://filesystem" runs the filesystem tool', async () => {
    const w = world();
    put(w, 'resource/tool/example.js', 'module.exports = 1;\n');
    const parameters = { action: 'read', path: 'resource/tool/example.js' };
    const a = await run(w, 'mcp-request', mcpCall('call-9', 'filesystem', parameters));
    const b = await run(w, 'mcp-request', mcpCall('call-9', '@tool://filesystem', parameters));
    expect(b.status).toBe('done');
    expect(sameAnswer(b.resultText)).toBe(sameAnswer(a.resultText));
  });

  it('a flycode-call with tool "@tool://filesystem" runs the filesystem tool', async () => {
    const w = world();
    put(w, 'resource/tool/example.js', 'module.exports = 1;\n');
    const b = await run(w, 'flycode-call', flycodeCall('call-10', '@tool://filesystem', { action: 'read', path: 'resource/tool/example.js' }));
    expect(b.status).toBe('done');
    expect(b.resultText).toContain('[ok] true');
    expect(b.resultText).toContain('module.exports = 1;');
  });
});

describe("failures refused before the filesystem tool runs answer in the manual's JSON (seed 004, 错误处理格式)", () => {
  type ManualFailure = { success: false; error: { code: string; message: string; details: unknown } };
  const manualFailure = (text: string | undefined): ManualFailure => JSON.parse(text ?? '{}') as ManualFailure;

  async function finalRun(w: World, runId: string): Promise<RunResponse> {
    for (let i = 0; i < 200; i++) {
      const body = (await (await w.request(`/v1/runs/${runId}`)).json()) as RunResponse;
      if (body.status === 'done' || body.status === 'error') return body;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`run ${runId} never finished`);
  }

  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ['no action', { path: 'a.md' }, 'MISSING_PARAMETER', 'needs "action"'],
    ['an action the manual does not have', { action: 'delete', path: 'a.md' }, 'INVALID_ACTION', 'got "delete"'],
    ['a read without its path', { action: 'read' }, 'MISSING_PARAMETER', 'missing "path"'],
    ['a write without its content', { action: 'write', path: 'a.md' }, 'MISSING_PARAMETER', 'missing "content"'],
    ['a move without its destination', { action: 'move', source: 'a.md' }, 'MISSING_PARAMETER', 'missing "destination"'],
    ['an encoding the tool does not have', { action: 'read', path: 'a.md', encoding: 'gbk' }, 'ENCODING_ERROR', 'got "gbk"'],
    ['a file that is not there', { action: 'read', path: 'resource/role/test.md' }, 'FILE_NOT_FOUND', 'resource/role/test.md'],
    ['a path out of the workspace', { action: 'read', path: '../outside.md' }, 'PATH_TRAVERSAL', '"../outside.md" escapes the workspace root'],
    ['a path the policy denies', { action: 'read', path: '.env' }, 'PERMISSION_DENIED', '**/.env'],
  ];

  it.each(cases)('%s (%j): an mcp-request tools/call result holding the manual\'s %s', async (_label, parameters, code, said) => {
    const w = world();
    put(w, 'a.md', 'a\n');
    put(w, '.env', 'TOKEN=x\n');
    const res = await run(w, 'mcp-request', mcpCall('call-20', 'promptx_tool', runner(parameters)));
    expect(res.status).toBe('error');
    const answer = mcpJson(res.resultText);
    expect(answer.id).toBe('call-20');
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatchObject({ isError: true });
    const reply = manualFailure(answer.result?.content[0]?.text);
    expect(reply).toMatchObject({ success: false, error: { code } });
    expect(reply.error.message).toContain(said);
    expect(reply.error.message.startsWith(`${code}:`)).toBe(false);
  });

  it('the same in a flycode-call: [ok] false, and the manual JSON after [data]', async () => {
    const w = world();
    const res = await run(w, 'flycode-call', flycodeCall('call-21', 'promptx_tool', runner({ action: 'remove', path: 'a.md' })));
    expect(res.status).toBe('error');
    expect(res.resultText).toContain('[id] call-21');
    expect(res.resultText).toContain('[ok] false');
    const data = res.resultText.slice(res.resultText.indexOf('[data]\n') + '[data]\n'.length, res.resultText.lastIndexOf('\n```'));
    expect(manualFailure(data)).toMatchObject({ success: false, error: { code: 'INVALID_ACTION' } });
  });

  const flycodeFailures: Array<[string, string, Record<string, unknown>, string]> = [
    ['a file that is not there', 'filesystem', { action: 'read', path: 'nope.md' }, 'FILE_NOT_FOUND'],
    ['a path out of the workspace', 'promptx_tool', runner({ action: 'read', path: '../../etc/passwd' }), 'PATH_TRAVERSAL'],
    ['a missing parameter', 'filesystem', { action: 'read' }, 'MISSING_PARAMETER'],
    ['an action it does not have', 'promptx_tool', runner({ action: 'remove', path: 'a.md' }), 'INVALID_ACTION'],
  ];
  it.each(flycodeFailures)("%s: flycode's [error] line names the manual's code once, as the JSON after [data] does", async (_label, tool, args, code) => {
    const w = world();
    const res = await run(w, 'flycode-call', flycodeCall('call-27', tool, args));
    const error = /^\[error\] (.*)$/m.exec(res.resultText)?.[1] ?? '';
    const data = res.resultText.slice(res.resultText.indexOf('[data]\n') + '[data]\n'.length, res.resultText.lastIndexOf('\n```'));
    const reply = manualFailure(data);
    expect(reply.error.code).toBe(code);
    expect(error).toBe(`${code}: ${reply.error.message}`);
  });

  it('a failure found while the action runs (an edit whose text is not there) is a failure in every protocol, not [ok] true', async () => {
    const w = world({ config: { modes: { write: 'auto' } } });
    put(w, 'e.md', 'abc\n');
    const edit = { action: 'edit', path: 'e.md', edits: [{ oldText: 'zzz', newText: 'y' }] };
    const fly = await run(w, 'flycode-call', flycodeCall('call-28', 'filesystem', edit));
    expect(fly.status).toBe('error');
    expect(fly.resultText).toContain('[ok] false');
    const data = fly.resultText.slice(fly.resultText.indexOf('[data]\n') + '[data]\n'.length, fly.resultText.lastIndexOf('\n```'));
    const reply = manualFailure(data);
    expect(reply).toMatchObject({ success: false, error: { code: 'MISMATCH' } });
    expect(/^\[error\] (.*)$/m.exec(fly.resultText)?.[1]).toBe(`MISMATCH: ${reply.error.message}`);
    const mcp = await run(w, 'mcp-request', mcpCall('call-29', 'promptx_tool', runner(edit)));
    expect(mcp.status).toBe('error');
    expect(mcpJson(mcp.resultText).result).toMatchObject({ isError: true });
    expect(manualFailure(mcpJson(mcp.resultText).result?.content[0]?.text)).toEqual(reply);
    expect(readFileSync(join(w.root, 'e.md'), 'utf8')).toBe('abc\n');
  });

  it('the same for the tool called by its own name, and in <function_calls>', async () => {
    const w = world();
    const direct = await run(w, 'mcp-request', mcpCall('call-22', 'filesystem', { action: 'read' }));
    expect(manualFailure(mcpJson(direct.resultText).result?.content[0]?.text)).toMatchObject({ error: { code: 'MISSING_PARAMETER' } });
    const xml = '<function_calls>\n<invoke name="filesystem">\n<parameter name="action">list</parameter>\n</invoke>\n</function_calls>';
    const res = await run(w, 'function-calls', xml);
    expect(res.status).toBe('error');
    expect(res.resultText).toContain('status="error"');
    const body = res.resultText.slice(res.resultText.indexOf('>\n') + 2, res.resultText.lastIndexOf('\n</function_result>'));
    expect(manualFailure(body)).toMatchObject({ success: false, error: { code: 'MISSING_PARAMETER' } });
  });

  const envelopes: Array<[string, Record<string, unknown>, string]> = [
    ['parameters as a string that is not JSON', { tool_resource: '@tool://filesystem', parameters: '{"action": "read", "path": resource/a.md}' }, 'is a string that is not JSON'],
    ['parameters that are not an object', { tool_resource: '@tool://filesystem', parameters: ['read', 'a.md'] }, 'must be an object'],
    ['an argument beside the parameters', { tool_resource: '@tool://filesystem', parameters: { action: 'read' }, path: 'a.md' }, '"path" belongs inside "parameters"'],
  ];
  it.each(envelopes)('%s: INVALID_INPUT in the manual JSON, in mcp-request and flycode-call', async (_label, args, said) => {
    const w = world();
    const res = await run(w, 'mcp-request', mcpCall('call-24', 'promptx_tool', args));
    expect(res.status).toBe('error');
    const reply = manualFailure(mcpJson(res.resultText).result?.content[0]?.text);
    expect(reply).toMatchObject({ success: false, error: { code: 'INVALID_INPUT' } });
    expect(reply.error.message).toContain(said);
    const fly = await run(w, 'flycode-call', flycodeCall('call-25', 'promptx_tool', args));
    expect(fly.status).toBe('error');
    expect(fly.resultText).toContain('[ok] false');
    expect(fly.resultText).toContain('"success": false');
  });

  it('another resource is still refused by the parser as a protocol error: it is not the filesystem tool', async () => {
    const w = world();
    const res = await run(w, 'mcp-request', mcpCall('call-26', 'promptx_tool', { tool_resource: '@tool://calculator', parameters: {} }));
    expect(mcpJson(res.resultText).error?.code).toBe(-32602);
  });

  it('a write the person denies is PERMISSION_DENIED in the manual JSON; nothing is written', async () => {
    const w = world();
    const res = await run(w, 'mcp-request', mcpCall('call-23', 'promptx_tool', runner({ action: 'write', path: 'b.md', content: 'x' })));
    expect(res.status).toBe('pending');
    const { approvals } = (await (await w.request('/v1/approvals')).json()) as { approvals: ApprovalView[] };
    await w.post(`/v1/approvals/${approvals[0]!.id}`, { decision: 'deny', argsHash: approvals[0]!.argsHash });
    const final = await finalRun(w, res.runId);
    expect(final.status).toBe('error');
    const reply = manualFailure(mcpJson(final.resultText).result?.content[0]?.text);
    expect(reply).toMatchObject({ success: false, error: { code: 'PERMISSION_DENIED' } });
    expect(reply.error.message).toContain('denied');
    expect(existsSync(join(w.root, 'b.md'))).toBe(false);
  });
});

describe("a listing, search or read longer than one result is cut by the tool itself, its JSON whole", () => {
  const fsCall = (parameters: Record<string, unknown>) =>
    `<function_calls>\n<invoke name="filesystem">\n${Object.entries(parameters).map(([key, value]) => `<parameter name="${key}">${value}</parameter>`).join('\n')}\n</invoke>\n</function_calls>`;
  const replyOf = (resultText: string) => /<function_result[^>]*>\n?([\s\S]*?)\n?<\/function_result>$/.exec(resultText)?.[1] ?? '';

  it.each([
    ['list', { action: 'list', path: 'resource/role' }, 'list a folder inside it (a longer path), or find the files you need with action "search" and a pattern'],
    ['list_with_sizes', { action: 'list_with_sizes', path: 'resource/role' }, 'list a folder inside it (a longer path), or find the files you need with action "search" and a pattern'],
    ['search', { action: 'search', path: 'resource', pattern: '*.md' }, 'search a narrower path or with a narrower pattern, or leave folders out with excludePatterns'],
  ])('%s: whole entries that parse, how many were left out and how to see them', async (action, parameters, said) => {
    const w = world({ config: { modes: { read: 'auto' }, limits: { maxResultChars: 2000 } } });
    for (let i = 0; i < 200; i++) put(w, `resource/role/role-number-${i}.role.md`, 'x');
    const res = await run(w, 'function-calls', fsCall(parameters));
    expect(res.status).toBe('done');
    expect(res.resultText).toContain('truncated="true"');
    const reply = JSON.parse(replyOf(res.resultText)) as { success: boolean; data: Array<string | { name: string }>; message: string };
    expect(reply.success).toBe(true);
    expect(reply.data.length).toBeGreaterThan(10);
    expect(reply.data.length).toBeLessThan(200);
    for (const entry of reply.data) expect(typeof entry === 'string' ? entry : entry.name).toMatch(/role-number-\d+\.role\.md$/);
    expect(reply.message).toContain(`showed ${reply.data.length} of 200 ${action === 'search' ? 'files matching *.md' : 'entries'}, ${200 - reply.data.length} left out`);
    expect(reply.message).toContain(said);
    expect(res.resultText).not.toContain('fs.read');
  });

  it('read: a file whose text JSON escapes (newlines, quotes) is cut inside its content, and the reply parses', async () => {
    const w = world({ config: { modes: { read: 'auto' }, limits: { maxResultChars: 2000 } } });
    const text = Array.from({ length: 400 }, (_, i) => `"${i}"`).join('\n');
    put(w, 'resource/quoted.txt', text);
    const res = await run(w, 'function-calls', fsCall({ action: 'read', path: 'resource/quoted.txt' }));
    expect(res.status).toBe('done');
    const reply = JSON.parse(replyOf(res.resultText)) as { success: boolean; data: string; message: string };
    expect(reply.success).toBe(true);
    expect(text.startsWith(reply.data)).toBe(true);
    expect(reply.data.length).toBeGreaterThan(500);
    expect(reply.message).toContain(`truncated at ${reply.data.length} of ${text.length} characters`);
  });
});
