import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, flycodeCall, makeMcpWorld, mcpCall, mcpJson, type McpWorld } from './world';

/*
 * What of an MCP server's result reaches the chat when it holds more than text the SDK's own reading knows: the tool
 * has run by the time its result arrives, so a part that cannot be shown is named, and the rest of the result is kept.
 */
let world: McpWorld;

beforeAll(async () => {
  world = await makeMcpWorld({ mcpServers: { kinds: fixtureServer('content-kinds.mjs', { policy: { default: 'auto' } }) } });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

describe('content the SDK does not know', () => {
  it('a part of a newer kind is named beside the text; the server is not taken for unreachable and restarted', async () => {
    const run = await world.run('mcp-request', mcpCall('k1', 'kinds.newer-kind', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('Recorded the meeting.\n[video content (video/mp4, 293.0 KB) — not shown in the chat]');
    const flycode = await world.run('flycode-call', flycodeCall('k2', 'kinds.newer-kind', {}));
    expect(flycode.resultText).toContain('[ok] true');
    expect(world.servers.health()[0]).toMatchObject({ state: 'ready', restarts: 0 });
  });

  it('loosely written parts (an image without its type, a text part without text) keep the rest of the result', async () => {
    const run = await world.run('mcp-request', mcpCall('k3', 'kinds.loose', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('Chart:\n[image of unknown type, 2.0 KB — not shown in the chat]\n');
  });

  it('_meta sent as null is read as left out: the call succeeded, at once', async () => {
    const run = await world.run('mcp-request', mcpCall('k5', 'kinds.null-meta', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('Filed the ticket.');
  });

  it('an answer that is no JSON-RPC result ends its call at once, saying so, not as a TIMEOUT of a tool that ran', async () => {
    const run = await world.run('mcp-request', mcpCall('k6', 'kinds.list-answer', {}));
    expect(run.resultText).toContain('is not a valid JSON-RPC response: {\\"jsonrpc\\":\\"2.0\\",\\"id\\"');
    expect(run.resultText).not.toContain('TIMEOUT');
  });

  it('colour codes in a text result are not typed into the chat, and a secret they split is still redacted', async () => {
    const run = await world.run('mcp-request', mcpCall('k7', 'kinds.colour', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('PASSWORD=[REDACTED]\ndone');
  });

  it('isError sent as null is read as left out: the call succeeded', async () => {
    const run = await world.run('mcp-request', mcpCall('k4', 'kinds.nulls', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('Sent the mail.');
  });
});
