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
  world = await makeMcpWorld({
    mcpServers: {
      deep: fixtureServer('deep-schema.mjs', { policy: { default: 'auto' } }),
      loose: fixtureServer('loose-schemas.mjs', { policy: { default: 'auto' } }),
    },
  });
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
      expect(listed.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['deep.ok', 'loose.untyped', 'loose.empty', 'loose.anything']));
    } finally {
      await client.close();
    }
  });
});

/*
 * A server on another SDK lists tools whose input schema is valid JSON Schema the MCP SDK's own tool schema does not
 * take: no "type" (properties alone, or {} for a tool without arguments), a property given as the schema true. The
 * SDK refused the whole list, so the server never started and was given up, its error a page of schema errors. So did
 * a tool's optional field written as null.
 */
describe('tools whose input schema is JSON Schema the SDK does not take', () => {
  it('are offered and checked as written; a tool described wrongly is left out alone, named', async () => {
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string; tools: number; notes: string[] }> };
    const loose = servers.find((s) => s.name === 'loose');
    expect(loose).toMatchObject({ state: 'ready', tools: 5 });
    expect(loose?.notes).toEqual([expect.stringMatching(/^tool "miswritten" is not offered: the server's description of it is not a valid tool \(annotations\.readOnlyHint: /)]);
    const text = async (id: string, tool: string, args: Record<string, unknown>) => {
      const answer = mcpJson((await world.run('mcp-request', mcpCall(id, tool, args))).resultText);
      return answer.result?.content[0]?.text ?? answer.error?.message;
    };
    expect(await text('u', 'loose.untyped', { path: 'a' })).toBe('called untyped with {"path":"a"}');
    expect(await text('u2', 'loose.untyped', { path: 5 })).toContain('loose.untyped argument "path" must be a string, got 5 (a number)');
    expect(await text('e', 'loose.empty', {})).toBe('called empty with {}');
    expect(await text('a', 'loose.anything', { value: [1] })).toBe('called anything with {"value":[1]}');
    expect(await text('o', 'loose.ok', {})).toBe('called ok with {}');
    expect(await text('m', 'loose.miswritten', {})).toContain('loose.miswritten is not offered');
  });
});
