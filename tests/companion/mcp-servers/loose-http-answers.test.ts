import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, makeMcpWorld, mcpCall, mcpJson, waitUntil, type McpWorld } from './world';

/*
 * A server over Streamable HTTP whose answer to a call is loosely written, as a JSON body or as an event of an event
 * stream: read as the stdio transport reads it (result-content.test.ts). The SDK's HTTP transport refused the whole
 * message and skipped it, so the call waited out its whole timeout and the model was told TIMEOUT of a tool that ran.
 */
let world: McpWorld;
let child: ChildProcess;

beforeAll(async () => {
  child = spawn(process.execPath, [fixture('meta-http.mjs')], { stdio: ['ignore', 'pipe', 'ignore'] });
  let output = '';
  child.stdout?.on('data', (d) => (output += String(d)));
  await waitUntil('meta-http.mjs listens', () => /listening on port \d+/.test(output));
  const port = Number(/listening on port (\d+)/.exec(output)?.[1]);
  world = await makeMcpWorld({ mcpServers: { meta: { url: `http://127.0.0.1:${port}/mcp`, timeoutMs: 20_000, policy: { default: 'auto' } } } });
  await waitUntil('meta is ready', async () => {
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string }> };
    return servers.some((s) => s.name === 'meta' && s.state === 'ready');
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
  child?.kill('SIGKILL');
});

describe('a loosely written answer over HTTP', () => {
  it.each(['note', 'note-stream'])('_meta sent as null (%s) is read as left out: the call succeeded', async (tool) => {
    const run = await world.run('mcp-request', mcpCall(`m-${tool}`, `meta.${tool}`, {}), { waitMs: 15_000 });
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('Filed the ticket.');
  });

  it.each(['list', 'list-stream'])('an answer that is no JSON-RPC result (%s) ends its call, saying so, not as a TIMEOUT', async (tool) => {
    const run = await world.run('mcp-request', mcpCall(`l-${tool}`, `meta.${tool}`, {}), { waitMs: 15_000 });
    expect(run.resultText).toContain('is not a valid JSON-RPC response: {\\"jsonrpc\\":\\"2.0\\",\\"id\\"');
    expect(run.resultText).not.toContain('TIMEOUT');
  });

  it("a call's event stream ended unanswered, with no event id to resume it by, ends the call saying so, not as a TIMEOUT", async () => {
    const run = await world.run('mcp-request', mcpCall('cut', 'meta.cut-stream', {}), { waitMs: 15_000 });
    expect(mcpJson(run.resultText).error).toMatchObject({
      message:
        "UNAVAILABLE: meta.cut-stream: MCP server meta ended the call's event stream without answering it, and gave no event id to resume it by, so no answer can come; whether the tool ran is not known",
      data: { code: 'UNAVAILABLE' },
    });
    // the server is not taken for gone: its next call is answered
    const next = await world.run('mcp-request', mcpCall('after-cut', 'meta.note', {}), { waitMs: 15_000 });
    expect(mcpJson(next.resultText).result?.content[0]?.text).toBe('Filed the ticket.');
  });
});
