import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, makeMcpWorld, mcpCall, mcpJson, waitUntil, type McpWorld } from './world';

/*
 * A slow but healthy server over Streamable HTTP: the call's event stream breaks (a proxy cutting a quiet stream)
 * after the server's priming event, so the client resumes it (GET with Last-Event-ID) and the answer comes that way.
 * A broken stream is checked with a ping; the server is busy and answers it late. Late is not gone: the call gets
 * its answer, and the server is not restarted under it.
 */
let world: McpWorld;
let child: ChildProcess;
let forgetful: ChildProcess;

async function listening(file: string): Promise<{ child: ChildProcess; port: number }> {
  const started = spawn(process.execPath, [fixture(file)], { stdio: ['ignore', 'pipe', 'ignore'] });
  let output = '';
  started.stdout?.on('data', (d) => (output += String(d)));
  await waitUntil(`${file} listens`, () => /listening on port \d+/.test(output));
  return { child: started, port: Number(/listening on port (\d+)/.exec(output)?.[1]) };
}

beforeAll(async () => {
  const [resumable, forgets] = await Promise.all([listening('resumable-http.mjs'), listening('forgetful-http.mjs')]);
  child = resumable.child;
  forgetful = forgets.child;
  world = await makeMcpWorld({
    mcpServers: {
      // startTimeoutMs 1000: the ping after a broken stream waits 1 s, and this server answers it after 2.5 s
      slow: { url: `http://127.0.0.1:${resumable.port}/mcp`, startTimeoutMs: 1000, policy: { default: 'auto' } },
      // a new session takes it 5 s, longer than a call may take
      forgets: { url: `http://127.0.0.1:${forgets.port}/mcp`, startTimeoutMs: 20_000, timeoutMs: 1000, policy: { default: 'auto' } },
    },
  });
  await waitUntil('slow is ready', async () => {
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string }> };
    return servers.some((s) => s.name === 'slow' && s.state === 'ready');
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
  child?.kill('SIGKILL');
  forgetful?.kill('SIGKILL');
});

describe('a call whose event stream breaks on a healthy server', () => {
  it('gets its answer through the resumed stream though the server answers the ping late, and the server is not restarted', async () => {
    const run = await world.run('mcp-request', mcpCall('r1', 'slow.slow', {}), { waitMs: 15_000 });
    expect(mcpJson(run.resultText).error?.message).toBeUndefined();
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('done after the stream broke (call-1)');
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string; restarts: number }> };
    expect(servers.find((s) => s.name === 'slow')).toMatchObject({ state: 'ready', restarts: 0 });
  });
});

describe('a call refused for a session the server no longer knows', () => {
  it('waits for the new session and the call sent again only as long as the call may take, not the server\'s start timeout on top', async () => {
    const started = Date.now();
    const run = await world.run('mcp-request', mcpCall('f1', 'forgets.note', {}), { waitMs: 15_000 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(mcpJson(run.resultText).error?.message).toBe(
      'TIMEOUT: forgets.note did not answer within 1000 ms: MCP server forgets no longer knew its session (it restarted?) and had not opened a new one in that time',
    );
  });
});
