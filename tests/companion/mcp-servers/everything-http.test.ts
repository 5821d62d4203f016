import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING, makeMcpWorld, mcpCall, mcpJson, waitUntil, type McpWorld } from './world';

/*
 * The "everything" reference server in its own HTTP modes, reached by URL: Streamable HTTP (`{url}`), and its
 * older HTTP+SSE mode, reached both by saying so (`type: "sse"`) and through the SDK's documented fallback (a URL
 * with no type that does not speak Streamable HTTP). A server that goes away is reported, retried, and used again
 * once it is back.
 */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

interface HttpServer {
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startEverything(mode: 'streamableHttp' | 'sse', port: number): Promise<HttpServer> {
  const child = spawn(process.execPath, [EVERYTHING, mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d) => (output += String(d)));
  child.stderr?.on('data', (d) => (output += String(d)));
  await waitUntil(`everything ${mode} listens on ${port}`, () => /listening on port|running on port/i.test(output), 20_000);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

let world: McpWorld;
let streamable: HttpServer;
let sse: HttpServer;
let streamablePort: number;

/** The problems the companion told of a server, in its ws events, in order. */
function problemsOf(name: string): unknown[] {
  return world.events.flatMap((e) => (e.type === 'mcp-server' && e.server.name === name && e.server.problem !== undefined ? [e.server.problem] : []));
}

beforeAll(async () => {
  streamablePort = await freePort();
  const ssePort = await freePort();
  [streamable, sse] = await Promise.all([startEverything('streamableHttp', streamablePort), startEverything('sse', ssePort)]);
  world = await makeMcpWorld({
    mcpServers: {
      remote: { url: `http://127.0.0.1:${streamablePort}/mcp`, headers: { 'x-chatbridge-test': 'header-value-secret' }, policy: { default: 'auto' } },
      oldsse: { url: `http://127.0.0.1:${ssePort}/sse`, type: 'sse', policy: { default: 'auto' } },
      fallback: { url: `http://127.0.0.1:${ssePort}/sse`, policy: { default: 'auto' } },
    },
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
  await Promise.all([streamable?.stop(), sse?.stop()]);
});

describe('everything over HTTP', () => {
  it('connects over Streamable HTTP, over HTTP+SSE, and falls back from one to the other', async () => {
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string; transport: string; tools: number }> };
    expect(servers.map((s) => [s.name, s.state, s.transport])).toEqual([
      ['fallback', 'ready', 'http'],
      ['oldsse', 'ready', 'sse'],
      ['remote', 'ready', 'http'],
    ]);
    for (const server of servers) expect(server.tools).toBeGreaterThanOrEqual(10);
    // a URL's header values never leave the config
    expect(JSON.stringify(servers)).not.toContain('header-value-secret');
  });

  it.each(['remote', 'oldsse', 'fallback'])('%s.echo answers through an mcp-request block', async (server) => {
    const run = await world.run('mcp-request', mcpCall(`h-${server}`, `${server}.echo`, { message: `over ${server}` }));
    expect(run.status).toBe('done');
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe(`Echo: over ${server}`);
  });

  it('structured content and sums come back over Streamable HTTP as over stdio', async () => {
    const sum = await world.run('mcp-request', mcpCall('h-sum', 'remote.get-sum', { a: 1.5, b: 2 }));
    expect(mcpJson(sum.resultText).result?.content[0]?.text).toBe('The sum of 1.5 and 2 is 3.5.');
    const invalid = await world.run('mcp-request', mcpCall('h-bad', 'remote.get-sum', { a: 1 }));
    expect(mcpJson(invalid.resultText).error?.message).toBe('INVALID_INPUT: remote.get-sum is missing "b" (a number)');
  });

  it('a server restarted between two calls (its session gone) answers the next call: the session is opened again and the call sent once more', async () => {
    const before = await world.run('mcp-request', mcpCall('s-before', 'remote.echo', { message: 'first' }));
    expect(mcpJson(before.resultText).result?.content[0]?.text).toBe('Echo: first');
    await streamable.stop();
    streamable = await startEverything('streamableHttp', streamablePort);
    const after = await world.run('mcp-request', mcpCall('s-after', 'remote.echo', { message: 'second' }), { waitMs: 10_000 });
    expect(mcpJson(after.resultText).error).toBeUndefined();
    expect(mcpJson(after.resultText).result?.content[0]?.text).toBe('Echo: second');
  });

  it('a server that goes away is UNAVAILABLE (coded), retried, and used again once it is back; the companion keeps serving', async () => {
    await streamable.stop();
    const down = await world.run('mcp-request', mcpCall('h-down', 'remote.echo', { message: 'anyone?' }));
    expect(down.status).toBe('error');
    expect(mcpJson(down.resultText).error).toMatchObject({ code: -32012, data: { code: 'UNAVAILABLE' } });
    // why it went, as facts the extension words in the person's language (the system's own words quoted)
    expect(problemsOf('remote')).toContainEqual({ code: 'call-failed', starting: false, tool: 'echo', cause: expect.stringContaining('fetch failed') });
    // the other servers and the built-ins are untouched
    const other = await world.run('mcp-request', mcpCall('h-other', 'oldsse.echo', { message: 'still here' }));
    expect(mcpJson(other.resultText).result?.content[0]?.text).toBe('Echo: still here');

    streamable = await startEverything('streamableHttp', streamablePort);
    // Retried with backoff meanwhile: back by itself once a retry finds it, or given up if the server took longer to
    // come back than the backoff lasts (a busy machine), when the next call to one of its tools starts it again.
    const remote = async () => {
      const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string; restarts: number }> };
      return servers.find((s) => s.name === 'remote');
    };
    await waitUntil('remote is ready again or given up', async () => ['ready', 'error'].includes((await remote())?.state ?? ''), 20_000);
    const back = await world.run('mcp-request', mcpCall('h-back', 'remote.echo', { message: 'back' }));
    expect(mcpJson(back.resultText).result?.content[0]?.text).toBe('Echo: back');
    const after = await remote();
    expect(after?.state).toBe('ready');
    expect(after?.restarts).toBeGreaterThan(0);
  });

  it('a server that goes away mid-call ends the call at once as UNAVAILABLE, not as a TIMEOUT once the call waited its whole limit', async () => {
    const started = Date.now();
    const told = problemsOf('remote').length;
    const killed = new Promise<void>((resolve) => setTimeout(() => void streamable.stop().then(resolve), 800));
    const run = await world.run('mcp-request', mcpCall('h-mid', 'remote.trigger-long-running-operation', { duration: 8, steps: 8 }), { waitMs: 30_000 });
    await killed;
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(mcpJson(run.resultText).error).toMatchObject({ code: -32012, data: { code: 'UNAVAILABLE' } });
    expect(mcpJson(run.resultText).error?.message).toContain('MCP server remote stopped during the call');
    // its call's event stream broke and a ping found nothing there
    expect(problemsOf('remote').slice(told)).toContainEqual(expect.objectContaining({ code: 'not-answering', starting: false, cause: expect.stringContaining('fetch failed') }));
  });
});
