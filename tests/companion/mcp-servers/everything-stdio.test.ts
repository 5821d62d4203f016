import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING, flycodeCall, makeMcpWorld, mcpCall, mcpJson, waitUntil, type McpWorld } from './world';

/*
 * The MCP project's "everything" reference server (a dev dependency, started over stdio by the companion) mounted
 * as `everything`: its tools are in every tool list with their schemas and callable from every block kind that
 * names a tool and through the companion's own /mcp, under the policy (confirm by default; its read-only tools
 * automatic once the person trusts its annotations).
 */
let world: McpWorld;

beforeAll(async () => {
  world = await makeMcpWorld({
    envAllow: ['PATH', 'HOME'],
    mcpServers: {
      everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { CHATBRIDGE_TEST_OWN_ENV: 'given-by-config' } },
      trusting: { command: process.execPath, args: [EVERYTHING, 'stdio'], policy: { trustAnnotations: true, tools: { 'get-env': 'deny' } } },
    },
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

describe('everything over stdio', () => {
  it('starts with the companion and reports its health (state, tools, no error)', async () => {
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string; tools: number; transport: string; log?: string }> };
    const everything = servers.find((s) => s.name === 'everything');
    expect(everything).toMatchObject({ state: 'ready', transport: 'stdio' });
    expect(everything?.tools).toBeGreaterThanOrEqual(10);
    expect(everything?.log).toBe(`${world.home}/mcp-logs/everything.log`);
  });

  it('lists its tools as everything.<tool> with their input schemas, in /v1/tools, tools/list blocks and /mcp', async () => {
    const { tools } = (await (await world.request('/v1/tools')).json()) as { tools: Array<{ name: string; server?: string; risk: string; inputSchema: Record<string, unknown> }> };
    const echo = tools.find((t) => t.name === 'everything.echo');
    expect(echo).toMatchObject({ server: 'everything', risk: 'exec' });
    expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
    expect(tools.find((t) => t.name === 'trusting.echo')?.risk).toBe('read');
    expect(tools.some((t) => t.name === 'fs.read')).toBe(true);
    // a tool that only runs as a task is not offered, and its health says so
    expect(tools.some((t) => t.name === 'everything.simulate-research-query')).toBe(false);

    const listed = await world.run('mcp-request', '```mcp-request\n{"jsonrpc":"2.0","id":"l1","method":"tools/list"}\n```');
    const names = (mcpJson(listed.resultText).result as unknown as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toContain('everything.get-sum');

    const client = await world.mcpClient();
    try {
      const viaMcp = await client.listTools();
      expect(viaMcp.tools.map((t) => t.name)).toContain('everything.echo');
    } finally {
      await client.close();
    }
  });

  it('an mcp-request tools/call waits for approval (server default: confirm), the card names server, tool and the arguments as JSON', async () => {
    const pending = await world.run('mcp-request', mcpCall('c1', 'everything.echo', { message: 'hello from a chat' }));
    expect(pending.status).toBe('pending');
    const approval = await world.approvalOf(pending.runId);
    expect(approval).toMatchObject({ tool: 'everything.echo', risk: 'exec' });
    expect(approval.preview.title).toBe('everything.echo — MCP server "everything", tool "echo"');
    expect(approval.preview.diff).toBe(JSON.stringify({ message: 'hello from a chat' }, null, 2));
    const done = await world.decide(pending.runId, 'approve');
    expect(done.status).toBe('done');
    const response = mcpJson(done.resultText);
    expect(response.id).toBe('c1');
    expect(response.result?.content[0]?.text).toBe('Echo: hello from a chat');
    expect(response.result?.meta.auditId).toBe(done.auditId);
  });

  it('a flycode-call reaches the same tool; a denied approval is the protocol error DENIED', async () => {
    const pending = await world.run('flycode-call', flycodeCall('f1', 'everything.get-sum', { a: 2, b: 40 }));
    const done = await world.decide(pending.runId, 'approve');
    expect(done.resultText).toContain('[tool] everything.get-sum');
    expect(done.resultText).toContain('[ok] true');
    expect(done.resultText).toContain('The sum of 2 and 40 is 42.');

    const denied = await world.run('flycode-call', flycodeCall('f2', 'everything.get-sum', { a: 1, b: 1 }));
    const refused = await world.decide(denied.runId, 'deny');
    expect(refused.status).toBe('error');
    expect(refused.resultText).toContain('[ok] false');
    expect(refused.resultText).toContain('[error] DENIED:');
  });

  it('read-only tools of a server whose annotations are trusted run without asking; a per-tool deny refuses', async () => {
    const echo = await world.run('mcp-request', mcpCall('t1', 'trusting.echo', { message: 'auto' }));
    expect(echo.status).toBe('done');
    expect(mcpJson(echo.resultText).result?.content[0]?.text).toBe('Echo: auto');
    const env = await world.run('mcp-request', mcpCall('t2', 'trusting.get-env', {}));
    expect(env.status).toBe('error');
    expect(mcpJson(env.resultText).error).toMatchObject({ code: -32003, data: { code: 'POLICY_BLOCKED' } });
    expect(mcpJson(env.resultText).error?.message).toContain("is set to deny in its server's policy");
    // a tool the server does not mark read-only stays exec → confirm, trusted annotations or not
    const toggle = await world.run('mcp-request', mcpCall('t3', 'trusting.toggle-simulated-logging', {}));
    expect(toggle.status).toBe('pending');
    await world.decide(toggle.runId, 'deny');
  });

  it('arguments are checked against the tool schema before anything is asked: INVALID_INPUT names the field', async () => {
    const wrongType = await world.run('mcp-request', mcpCall('v1', 'everything.get-sum', { a: 'two', b: 3 }));
    expect(wrongType.status).toBe('error');
    const error = mcpJson(wrongType.resultText).error;
    expect(error).toMatchObject({ code: -32602, data: { code: 'INVALID_INPUT' } });
    expect(error?.message).toBe('INVALID_INPUT: everything.get-sum argument "a" must be a number, got "two" (a string)');
    const missing = await world.run('mcp-request', mcpCall('v2', 'everything.echo', {}));
    expect(mcpJson(missing.resultText).error?.message).toBe('INVALID_INPUT: everything.echo is missing "message" (a string)');
    const badEnum = await world.run('flycode-call', flycodeCall('v3', 'everything.get-structured-content', { location: 'Paris' }));
    expect(badEnum.resultText).toContain('[error] INVALID_INPUT: everything.get-structured-content argument "location" must be one of "New York", "Chicago", "Los Angeles", got "Paris" (a string)');
    // nothing waited for the person
    expect((await (await world.request('/v1/approvals')).json()).approvals).toEqual([]);
  });

  it('arguments written under another key than the protocol\'s are refused, saying where they go, not run as none', async () => {
    // trigger-long-running-operation has defaults for every argument: with none it would run for 10 s in 5 steps
    const wanted = { duration: 1, steps: 1 };
    const fly = await world.run('flycode-call', '```flycode-call\n' + JSON.stringify({ id: 'a1', tool: 'everything.trigger-long-running-operation', arguments: wanted }) + '\n```');
    expect(fly.status).toBe('error');
    expect(fly.resultText).toContain(`[error] INVALID_INPUT: the call's arguments go under "args" (seed 001: {"id", "tool", "args"}); it puts them under "arguments"`);
    const params = { name: 'everything.trigger-long-running-operation', args: wanted };
    const mcp = await world.run('mcp-request', '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id: 'a2', method: 'tools/call', params }) + '\n```');
    expect(mcpJson(mcp.resultText).error?.message).toBe(
      'INVALID_INPUT: the arguments of everything.trigger-long-running-operation go under params.arguments (seed 000); the call puts them under params.args',
    );
    expect((await (await world.request('/v1/approvals')).json()).approvals).toEqual([]);
  });

  it('an unknown tool is NOT_FOUND naming the tools and the closest one', async () => {
    const typo = await world.run('mcp-request', mcpCall('u1', 'everything.ehco', { message: 'x' }));
    expect(mcpJson(typo.resultText).error?.message).toMatch(/^NOT_FOUND: MCP server everything has no tool "ehco"; its tools are .*everything\.echo.* \(did you mean "everything\.echo"\?\)$/);
    const nowhere = await world.run('mcp-request', mcpCall('u2', 'nosuch.tool', {}));
    expect(mcpJson(nowhere.resultText).error?.message).toMatch(/^NOT_FOUND: unknown tool "nosuch\.tool"; chatbridge's own tools are fs\.ls, .*; from your MCP servers: .*everything\.echo/);
  });

  it('results: structuredContent once, images as a placeholder with type and size, resource links as text', async () => {
    const structured = await world.run('mcp-request', mcpCall('r1', 'trusting.get-structured-content', { location: 'Chicago' }));
    const text = mcpJson(structured.resultText).result?.content[0]?.text ?? '';
    expect(JSON.parse(text)).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });

    const image = await world.run('mcp-request', mcpCall('r2', 'trusting.get-tiny-image', {}));
    const imageText = mcpJson(image.resultText).result?.content[0]?.text ?? '';
    expect(imageText).toMatch(/\[image image\/png, \d+(\.\d)? KB — not shown in the chat\]/);
    expect(imageText).not.toMatch(/iVBORw0KGgo/);

    const links = await world.run('mcp-request', mcpCall('r3', 'trusting.get-resource-links', { count: 2 }));
    const linksText = mcpJson(links.resultText).result?.content[0]?.text ?? '';
    expect(linksText).toContain('[resource link] Text Resource 2 — demo://resource/dynamic/text/2 (text/plain): Resource 2: plaintext resource');
  });

  it('the server gets the minimal environment (envAllow) plus its own env, nothing else', async () => {
    const pending = await world.run('mcp-request', mcpCall('e1', 'everything.get-env', {}));
    const done = await world.decide(pending.runId, 'approve');
    const env = JSON.parse(mcpJson(done.resultText).result?.content[0]?.text ?? '{}') as Record<string, string>;
    expect(Object.keys(env).sort()).toEqual(['CHATBRIDGE_TEST_OWN_ENV', 'HOME', 'PATH'].filter((k) => k !== 'HOME' || process.env.HOME !== undefined).sort());
    expect(env.CHATBRIDGE_TEST_OWN_ENV).toBe('given-by-config');
  });

  it('progress notifications are published over the ws hub as tool-progress events of the run', async () => {
    const run = await world.run('mcp-request', mcpCall('p1', 'trusting.trigger-long-running-operation', { duration: 0.3, steps: 3 }), { waitMs: 10_000 });
    expect(run.status).toBe('done');
    expect(mcpJson(run.resultText).result?.content[0]?.text).toContain('Long running operation completed');
    const progressOf = () => world.events.filter((e) => e.type === 'tool-progress' && e.runId === run.runId);
    // the events come over the ws, which may still carry them when the run's HTTP answer is in
    await waitUntil('two progress events of the run', () => progressOf().length >= 2);
    const progress = progressOf();
    // the last step's notification races the result itself (the SDK drops progress for a request already answered)
    const steps = progress.map((e) => (e as { progress: number }).progress);
    expect(steps.length).toBeGreaterThanOrEqual(2);
    expect(steps).toEqual([1, 2, 3].slice(0, steps.length));
    expect(progress[0]).toMatchObject({ tool: 'trusting.trigger-long-running-operation', total: 3 });
  });

  it('/mcp serves the external tools to MCP clients under the same policy', async () => {
    const client = await world.mcpClient();
    try {
      const result = await client.callTool({ name: 'trusting.get-sum', arguments: { a: 20, b: 22 } });
      expect(result.isError).toBe(false);
      expect((result.content as Array<{ text: string }>)[0]?.text).toBe('The sum of 20 and 22 is 42.');
      const refused = await client.callTool({ name: 'trusting.get-env', arguments: {} });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]?.text).toMatch(/^POLICY_BLOCKED: /);
    } finally {
      await client.close();
    }
  });

  it('every call is audited under its <server>.<tool> name', async () => {
    await waitUntil('the audit holds the calls', async () => {
      const { records } = (await (await world.request('/v1/audit?limit=200')).json()) as { records: Array<{ tool: string; outcome: string; decision: string }> };
      return records.some((r) => r.tool === 'everything.echo' && r.outcome === 'ok' && r.decision === 'approve') && records.some((r) => r.tool === 'trusting.get-env' && r.outcome === 'POLICY_BLOCKED');
    });
  });

  it('/v1/status (no token) carries counts only, never server names or errors', async () => {
    const response = await fetch(`http://127.0.0.1:${world.port}/v1/status`);
    const status = (await response.json()) as Record<string, unknown>;
    expect(status.mcp).toMatchObject({ servers: 2, ready: 2, starting: 0, failing: 0 });
    expect(JSON.stringify(status)).not.toContain('everything');
  });
});
