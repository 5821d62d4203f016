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

beforeAll(async () => {
  child = spawn(process.execPath, [fixture('resumable-http.mjs')], { stdio: ['ignore', 'pipe', 'ignore'] });
  let output = '';
  child.stdout?.on('data', (d) => (output += String(d)));
  await waitUntil('the resumable server listens', () => /listening on port \d+/.test(output));
  const port = Number(/listening on port (\d+)/.exec(output)?.[1]);
  // startTimeoutMs 1000: the ping after a broken stream waits 1 s, and this server answers it after 2.5 s
  world = await makeMcpWorld({ mcpServers: { slow: { url: `http://127.0.0.1:${port}/mcp`, startTimeoutMs: 1000, policy: { default: 'auto' } } } });
  await waitUntil('slow is ready', async () => {
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string }> };
    return servers.some((s) => s.name === 'slow' && s.state === 'ready');
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
  child?.kill('SIGKILL');
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
