import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolHandlers } from '../../../companion/tools';
import type { ToolHandlers } from '../../../companion/runs/tool-call';
import { listen, makeWorld, removeWorld, type World } from '../server/harness';

/**
 * The SDK's own Client over Streamable HTTP against the real server with the real tools: initialize →
 * tools/list → tools/call (a read, a write that needs approval, an error).
 */
let world: World;
let served: Awaited<ReturnType<typeof listen>>;
let client: Client;

async function connect(token: string | null, port = served.port): Promise<Client> {
  const c = new Client({ name: 'conformance-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: token === null ? {} : { authorization: `Bearer ${token}` } },
  });
  await c.connect(transport);
  return c;
}

beforeAll(async () => {
  world = makeWorld({ tools: toolHandlers as ToolHandlers, config: { sites: { mcp: { approvalWaitMs: 200 } } } });
  served = await listen(world);
  client = await connect(world.token);
});
afterAll(async () => {
  await client.close();
  await served.close();
  await world.close();
  removeWorld(world);
});

describe('/mcp with the SDK client', () => {
  it('initialize: the server is chatbridge with tools', () => {
    expect(client.getServerVersion()?.name).toBe('chatbridge');
    expect(client.getServerCapabilities()?.tools).toBeDefined();
  });

  it('tools/list: every tool with an object input schema', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ['fs.read', 'fs.write', 'fs.search', 'shell.exec', 'filesystem']) expect(names).toContain(name);
    const read = tools.find((t) => t.name === 'fs.read');
    expect(read?.inputSchema.type).toBe('object');
    expect(read?.inputSchema.properties).toHaveProperty('path');
  });

  it('tools/call: a read answers the file text with an auditId', async () => {
    writeFileSync(join(world.root, 'hello.txt'), 'hello from disk\n');
    const result = await client.callTool({ name: 'fs.read', arguments: { path: join(world.root, 'hello.txt') } });
    expect(result.isError).toBeFalsy();
    expect((result.content as Array<{ text: string }>)[0]?.text).toContain('hello from disk');
    expect(String(result._meta?.auditId)).toMatch(/^audit-/);
  });

  it('tools/call: a write needing approval answers pending with pendingConfirmationId, then completes when approved', async () => {
    const path = join(world.root, 'approved.txt');
    const result = await client.callTool({ name: 'fs.write', arguments: { path, mode: 'overwrite', content: 'approved\n' } });
    const pendingId = String(result._meta?.pendingConfirmationId);
    expect(pendingId).toMatch(/^confirm-/);
    const text = (result.content as Array<{ text: string }>)[0]?.text;
    expect(text).toContain('Pending confirmation');
    // the client gets nothing more on this call, and the same call sent again would ask again and could run twice
    expect(text).toMatch(/^Pending confirmation in chatbridge \(.*approved\.txt\)\. Do not report success\. This call ends here: its result will not be sent to this client .* Do not send the same call again/);
    expect(text).not.toContain('wait for the result');
    expect(existsSync(path)).toBe(false);
    const approval = world.companion.approvals.get(pendingId);
    expect(approval?.preview.paths).toContain(path);
    world.companion.approvals.decide(pendingId, 'approve', approval!.argsHash);
    const runId = String(result._meta?.runId);
    const live = world.companion.runs.live(runId);
    const final = live ? await live.final : world.companion.runs.get(runId);
    expect(final?.status).toBe('done');
    expect(final?.resultText).toBe('WRITE_SUCCESS');
    expect(readFileSync(path, 'utf8')).toBe('approved\n');
  });

  it('tools/call: a write approved within the wait answers the real result', async () => {
    const stop = world.companion.hub.subscribe((event) => {
      if (event.type === 'approval' && event.change === 'created') world.companion.approvals.decide(event.approval.id, 'approve', event.approval.argsHash);
    });
    try {
      const path = join(world.root, 'quick.txt');
      const result = await client.callTool({ name: 'fs.write', arguments: { path, mode: 'overwrite', content: 'q' } });
      expect((result.content as Array<{ text: string }>)[0]?.text).toBe('WRITE_SUCCESS');
      expect(readFileSync(path, 'utf8')).toBe('q');
    } finally {
      stop();
    }
  });

  it('tools/call: an error is an isError result naming the code', async () => {
    const result = await client.callTool({ name: 'fs.read', arguments: { path: join(world.root, 'missing.txt') } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]?.text).toMatch(/^NOT_FOUND: /);
  });

  it('tools/call: bad arguments are INVALID_INPUT naming the argument', async () => {
    const result = await client.callTool({ name: 'fs.mv', arguments: { src: '/a', dest: '/b' } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]?.text).toContain('fromPath');
  });

  it('tools/call: the PromptX filesystem tool refusing a call answers in its manual\'s JSON, as an isError result', async () => {
    const result = await client.callTool({ name: 'filesystem', arguments: { action: 'delete', path: 'a.md' } });
    expect(result.isError).toBe(true);
    const reply = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}') as { success: boolean; error: { code: string } };
    expect(reply).toMatchObject({ success: false, error: { code: 'INVALID_ACTION' } });
  });

  it('tools/call: a denied path is POLICY_BLOCKED', async () => {
    const result = await client.callTool({ name: 'fs.read', arguments: { path: join(world.root, '.env') } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]?.text).toMatch(/^(POLICY_BLOCKED|FORBIDDEN): /);
  });

  it('missing token: the client cannot connect', async () => {
    await expect(connect(null)).rejects.toThrow();
  });

  it('wrong token: the client cannot connect', async () => {
    await expect(connect(world.token + 'x')).rejects.toThrow();
  });
});

// The route hands the transport a body it parsed itself; a body the transport would refuse must still get its answer.
describe('/mcp bodies the transport refuses', () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${served.port}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
      body,
    });

  it('a body that is not JSON is a JSON-RPC parse error (-32700)', async () => {
    const response = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('JSON that is not a JSON-RPC message is a parse error too', async () => {
    const response = await post('{"hello": "world"}');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('a body the client says is not JSON is 415, and one that cannot accept a stream is 406, whatever it holds', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect((await post(ping, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(ping, { accept: 'application/json' })).status).toBe(406);
  });

  it('tools/call arguments that are not an object, or a name that is no string, are -32602 naming what came and the rule; null is no arguments', async () => {
    const call = async (args: unknown) => {
      const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'fs.ls', arguments: args } }));
      return (await response.json()) as { id: number; error?: { code: number; message: string }; result?: { isError?: boolean; content: Array<{ text: string }> } };
    };
    const asString = await call('{"path": "/a"}');
    expect(asString).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(asString.error?.message).toBe(
      'tools/call arguments must be an object of argument names and values, e.g. {"path": "/a"}; got a string: "{\\"path\\": \\"/a\\"}" (a string of JSON is not read as the object it writes)',
    );
    expect((await call([1, 2])).error).toEqual({ code: -32602, message: 'tools/call arguments must be an object of argument names and values, e.g. {"path": "/a"}; got an array: [1,2]' });
    const nameless = await post(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 5 } }));
    expect(await nameless.json()).toEqual({ jsonrpc: '2.0', id: 8, error: { code: -32602, message: 'tools/call needs "name", the tool\'s name as a string; got a number' } });
    // null is as no arguments: the tool's own check names what is missing
    const none = await call(null);
    expect(none.result?.isError).toBe(true);
    expect(none.result?.content[0]?.text).toBe('INVALID_INPUT: fs.ls is missing "path" (a string)');
  });

  it('a body over the transport limit (4 MiB) is 413', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(4 * 1024 * 1024) } });
    expect((await post(big)).status).toBe(413);
  });
});

// attack: a JSON-RPC batch made one composite call of two, each decided alone — the write where writes are auto, the
// allow-listed command beside it running what the write put in place — where the same two in one <function_calls>
// block ask. A batch holding a tools/call is refused whole, however its body is sent.
describe('/mcp JSON-RPC batches', () => {
  let lax: World;
  let laxServed: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    lax = makeWorld({ tools: toolHandlers as ToolHandlers, config: { modes: { write: 'auto' }, allowCommands: ['npm test'] } });
    laxServed = await listen(lax);
  });
  afterAll(async () => {
    await laxServed.close();
    await lax.close();
    removeWorld(lax);
  });
  const post = (body: BodyInit, extra: RequestInit = {}) =>
    fetch(`http://127.0.0.1:${laxServed.port}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${lax.token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body,
      ...extra,
    });
  /** a body sent in pieces, with no Content-Length */
  const streamed = (text: string): RequestInit & { duplex: 'half' } => ({
    body: new ReadableStream({
      start(controller) {
        const bytes = new TextEncoder().encode(text);
        for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.subarray(at, at + 64 * 1024));
        controller.close();
      },
    }),
    duplex: 'half',
  });

  it('a batch of a write to package.json and the allow-listed npm test is refused whole, sent at once or streamed; nothing runs', async () => {
    const manifest = join(lax.root, 'package.json');
    const marker = join(lax.root, 'ran');
    writeFileSync(manifest, '{"scripts":{"test":"echo ok"}}\n');
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fs.write', arguments: { path: manifest, mode: 'overwrite', content: `{"scripts":{"test":"touch ${marker}"}}` } } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'shell.exec', arguments: { command: 'npm test', cwd: lax.root } } },
    ]);
    for (const response of [await post(batch), await post('', streamed(batch))]) {
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { id: unknown; error: { code: number; message: string } };
      expect(answer.id).toBeNull();
      expect(answer.error.code).toBe(-32600);
      expect(answer.error.message).toMatch(/^Invalid Request: a JSON-RPC batch may not hold tools\/call \(this one holds 2: fs\.write, shell\.exec\); send each tools\/call in a POST of its own\..* Nothing in this batch was run\.$/);
    }
    expect(readFileSync(manifest, 'utf8')).toBe('{"scripts":{"test":"echo ok"}}\n');
    expect(existsSync(marker)).toBe(false);
  });

  // the transport takes a Content-Type by its media type, in any case and with parameters: the route's check must too
  it('a batch sent as Application/JSON (a media type in another case) is refused whole too; nothing runs', async () => {
    const manifest = join(lax.root, 'package.json');
    const marker = join(lax.root, 'ran-cased');
    writeFileSync(manifest, '{"scripts":{"test":"echo ok"}}\n');
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fs.write', arguments: { path: manifest, mode: 'overwrite', content: `{"scripts":{"test":"touch ${marker}"}}` } } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'shell.exec', arguments: { command: 'npm test', cwd: lax.root } } },
    ]);
    for (const contentType of ['Application/JSON', 'APPLICATION/JSON; charset=utf-8']) {
      const response = await fetch(`http://127.0.0.1:${laxServed.port}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${lax.token}`, accept: 'application/json, text/event-stream', 'content-type': contentType },
        body: batch,
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: number; message: string } }).error).toMatchObject({ code: -32600, message: expect.stringMatching(/^Invalid Request: a JSON-RPC batch may not hold tools\/call/) });
    }
    expect(readFileSync(manifest, 'utf8')).toBe('{"scripts":{"test":"echo ok"}}\n');
    expect(existsSync(marker)).toBe(false);
  });

  it('one call per POST still runs; a streamed body over the 4 MiB limit is 413', async () => {
    writeFileSync(join(lax.root, 'one.txt'), 'one\n');
    const read = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fs.read', arguments: { path: join(lax.root, 'one.txt') } } };
    const answer = (await (await post('', streamed(JSON.stringify(read)))).json()) as { result: { content: Array<{ text: string }> } };
    expect(answer.result.content[0]?.text).toBe('one\n');
    const big = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping', params: { pad: 'x'.repeat(4 * 1024 * 1024) } });
    expect((await post('', streamed(big))).status).toBe(413);
  });
});

// Stateless: every answer goes back on its own POST, so there is no event stream to offer on a GET. One opened and
// closed at once read as a dropped connection to the SDK's client, which opened it again and again for as long as it
// stayed connected (every second with its default delays).
describe('/mcp GET', () => {
  it('is 405 allowing POST, so a connected SDK client asks for an event stream once and never again', async () => {
    const gets: number[] = [];
    const c = new Client({ name: 'conformance-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${served.port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${world.token}` } },
      // the client's default waits 1 s before opening the stream again; 20 ms shows the same in a short test
      reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 20, reconnectionDelayGrowFactor: 1, maxRetries: 2 },
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        if (init?.method === 'GET') gets.push(response.status);
        return response;
      },
    });
    await c.connect(transport);
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(gets).toEqual([405]);
      // still connected and answering
      expect((await c.callTool({ name: 'fs.ls', arguments: { path: world.root } })).isError).toBeFalsy();
    } finally {
      await c.close();
    }
  });

  it('answers 405 with an Allow header and a JSON-RPC error, and still needs the token', async () => {
    const get = (token: string) =>
      fetch(`http://127.0.0.1:${served.port}/mcp`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
    const response = await get(world.token);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, DELETE');
    expect(((await response.json()) as { error: { code: number; message: string } }).error.message).toMatch(/no event stream/);
    expect((await get(world.token + 'x')).status).toBe(401);
    // no other method's 405 says GET is allowed
    for (const method of ['HEAD', 'PUT', 'PATCH', 'OPTIONS']) {
      const other = await fetch(`http://127.0.0.1:${served.port}/mcp`, { method, headers: { authorization: `Bearer ${world.token}` } });
      expect([method, other.status, other.headers.get('allow')]).toEqual([method, 405, 'POST, DELETE']);
    }
  });
});

// Calls here wait for their cards up to 5 s, longer than each test takes to decide them, cancel them or go away.
describe('/mcp calls that wait', () => {
  let slow: World;
  let slowServed: Awaited<ReturnType<typeof listen>>;
  let c: Client;
  beforeAll(async () => {
    slow = makeWorld({ tools: toolHandlers as ToolHandlers, config: { sites: { mcp: { approvalWaitMs: 5000 } } }, mcpProgressMs: 100 });
    slowServed = await listen(slow);
    c = await connect(slow.token, slowServed.port);
  });
  afterAll(async () => {
    await c.close();
    await slowServed.close();
    await slow.close();
    removeWorld(slow);
  });

  function nextApproval(): Promise<{ id: string; argsHash: string; runId: string }> {
    return new Promise((resolve) => {
      const stop = slow.companion.hub.subscribe((event) => {
        if (event.type === 'approval' && event.change === 'created') {
          stop();
          resolve(event.approval);
        }
      });
    });
  }

  // The client gives up on a call — its timeout, a Cancel the person pressed — with notifications/cancelled, sent on a
  // POST of its own. A card still showing for that call would run it when approved, its result going to nobody, and a
  // program it started would run on to its own timeout.
  describe('notifications/cancelled', () => {
    it('withdraws the card of a call the client cancelled while it waited for approval: nothing is written', async () => {
      const path = join(slow.root, 'cancelled.txt');
      const controller = new AbortController();
      const created = nextApproval();
      const call = c.callTool({ name: 'fs.write', arguments: { path, mode: 'overwrite', content: 'late' } }, undefined, { signal: controller.signal });
      const approval = await created;
      controller.abort('the person pressed Cancel');
      await expect(call).rejects.toThrow();
      await expect.poll(() => slow.companion.approvals.get(approval.id)?.state, { timeout: 2000 }).not.toBe('pending');
      expect(() => slow.companion.approvals.decide(approval.id, 'approve', approval.argsHash)).toThrow(/can no longer be decided: .*cancelled by the MCP client/);
      await expect.poll(() => slow.companion.runs.get(approval.runId)?.resultText, { timeout: 2000 }).toMatch(/^CANCELLED: /);
      expect(existsSync(path)).toBe(false);
    });

    it('ends the program of a call the client cancelled while it ran', async () => {
      const created = nextApproval();
      const controller = new AbortController();
      const call = c.callTool(
        { name: 'process.run', arguments: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], cwd: slow.root } },
        undefined,
        { signal: controller.signal },
      );
      const approval = await created;
      slow.companion.approvals.decide(approval.id, 'approve', approval.argsHash);
      const running = () => slow.processes.list().filter((p) => p.origin.runId === approval.runId && p.status === 'running');
      await expect.poll(() => running().length, { timeout: 5000 }).toBe(1);
      controller.abort('Request timed out');
      await expect(call).rejects.toThrow();
      await expect.poll(running, { timeout: 3000 }).toEqual([]);
      await expect.poll(() => slow.companion.runs.get(approval.runId)?.resultText, { timeout: 2000 }).toMatch(/stopped before it finished/);
    });

    it.each([
      ['answered in JSON', {}],
      ['answered with an event stream of progress', { onprogress: () => undefined }],
    ])('withdraws the card of a call whose client closed its connection while it waited (%s)', async (_, options) => {
      const path = join(slow.root, 'closed.txt');
      const closing = await connect(slow.token, slowServed.port);
      const created = nextApproval();
      const call = closing.callTool({ name: 'fs.write', arguments: { path, mode: 'overwrite', content: 'late' } }, undefined, options);
      const approval = await created;
      await closing.close();
      await expect(call).rejects.toThrow();
      await expect.poll(() => slow.companion.approvals.get(approval.id)?.state, { timeout: 2000 }).not.toBe('pending');
      expect(() => slow.companion.approvals.decide(approval.id, 'approve', approval.argsHash)).toThrow(/can no longer be decided: .*closed its connection/);
      expect(existsSync(path)).toBe(false);
    });

    it('a cancel sent with another token stops nothing: the call is found by the token that sent it', async () => {
      const path = join(slow.root, 'kept.txt');
      let answered = false;
      const created = nextApproval();
      const call = c.callTool({ name: 'fs.write', arguments: { path, mode: 'overwrite', content: 'kept' } }).finally(() => (answered = true));
      call.catch(() => undefined);
      const approval = await created;
      // the SDK's client numbers its requests from 0: every id this client has used, in one batch
      const other = slow.companion.tokens.issue('other');
      const cancels = Array.from({ length: 64 }, (_, id) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'not yours' } }));
      const response = await fetch(`http://127.0.0.1:${slowServed.port}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify(cancels),
      });
      expect(response.status).toBe(202);
      // sent while the call still waited, and its card still waits
      expect(answered).toBe(false);
      expect(slow.companion.approvals.get(approval.id)?.state).toBe('pending');
      slow.companion.approvals.decide(approval.id, 'approve', approval.argsHash);
      expect(((await call).content as Array<{ text: string }>)[0]?.text).toBe('WRITE_SUCCESS');
      expect(readFileSync(path, 'utf8')).toBe('kept');
    });
  });

  // MCP Inspector gives up on a call after 10 s unless progress comes (it asks for progress on every call), the SDK's
  // client after 60 s when asked to: a card waits up to the site's approval wait, 120 s by default.
  describe('progress', () => {
    it('a call that asked for progress is told it waits for approval, so a client with a short timeout gets the real result', async () => {
      const messages: string[] = [];
      const path = join(slow.root, 'progress.txt');
      const created = nextApproval();
      const call = c.callTool({ name: 'fs.write', arguments: { path, mode: 'overwrite', content: 'p' } }, undefined, {
        timeout: 400,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => messages.push(progress.message ?? ''),
      });
      // a failed expectation below closes the client, which rejects the call: that is not the failure to report
      call.catch(() => undefined);
      const approval = await created;
      // told what it waits for, past the client's own timeout twice over
      const waiting = () => messages.filter((m) => /^waiting for the person's approval in chatbridge: .*progress\.txt, pendingConfirmationId=confirm-/.test(m));
      await expect.poll(() => waiting().length, { timeout: 5000 }).toBeGreaterThanOrEqual(8);
      slow.companion.approvals.decide(approval.id, 'approve', approval.argsHash);
      const result = await call;
      expect((result.content as Array<{ text: string }>)[0]?.text).toBe('WRITE_SUCCESS');
      expect(readFileSync(path, 'utf8')).toBe('p');
    });
  });
});
