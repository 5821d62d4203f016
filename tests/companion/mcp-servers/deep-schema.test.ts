import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NESTING } from '../../../shared/protocols/json';
import { fixtureServer, makeMcpWorld, mcpCall, mcpJson, type McpWorld } from './world';

/*
 * A server (on another SDK than JavaScript's, whose JSON.stringify could not send it) lists a tool whose input schema
 * is nested 100 000 levels deep. Every tool list walks the schemas to redact their texts, and overflowed the stack:
 * /v1/tools (what prompts and the extension's tool names come from), /mcp's tools/list and a tools/list block failed
 * whole, the built-in tools' with them.
 */
let world: McpWorld;

beforeAll(async () => {
  world = await makeMcpWorld({ mcpServers: { deep: fixtureServer('deep-schema.mjs', { policy: { default: 'auto' } }) } });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

const NOT_OFFERED = `its input schema nests deeper than ${MAX_NESTING} levels of objects and arrays`;

describe("a tool whose input schema nests beyond any call's arguments", () => {
  it('is not offered, and the health says why; the server and its other tools are', async () => {
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string; tools: number; notes: string[] }> };
    expect(servers.find((s) => s.name === 'deep')).toMatchObject({ state: 'ready', tools: 1, notes: [`tool deep is not offered: ${NOT_OFFERED}`] });
    const ok = await world.run('mcp-request', mcpCall('o', 'deep.ok', {}));
    expect(mcpJson(ok.resultText).result?.content[0]?.text).toBe('called ok');
    const deep = await world.run('mcp-request', mcpCall('d', 'deep.deep', { a: {} }));
    expect(mcpJson(deep.resultText).error?.message).toContain(`deep.deep is not offered: ${NOT_OFFERED}`);
  });

  it('every tool list is still given: /v1/tools, a tools/list block and /mcp', async () => {
    const response = await world.request('/v1/tools');
    expect(response.status).toBe(200);
    const { tools } = (await response.json()) as { tools: Array<{ name: string }> };
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['fs.read', 'deep.ok']));
    const block = await world.run('mcp-request', '```mcp-request\n{"jsonrpc":"2.0","id":"l","method":"tools/list"}\n```');
    expect(block.status).toBe('done');
    expect(block.resultText).toContain('deep.ok');
    const client = await world.mcpClient();
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name)).toContain('deep.ok');
    } finally {
      await client.close();
    }
  });
});
