import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESCRIPTION_CHARS } from '../../../companion/mcp-servers/registry';
import { fixtureServer, makeMcpWorld, mcpJson, type McpWorld } from './world';

/*
 * A server's own texts in tool lists: the descriptions of real servers quote what they were configured with (a
 * database URL with its password, a key) or hold a whole manual. A tools/list block types the list into the chat, a
 * generated prompt is pasted there, MCP clients hand it to their model: every one gets them redacted and bounded.
 */
let world: McpWorld;

beforeAll(async () => {
  world = await makeMcpWorld({ mcpServers: { described: fixtureServer('described.mjs', { policy: { default: 'auto' } }) } });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

const SECRETS = ['hunter2-db-pass', 'sk-ant-api03-BBBB', 'hunter3-in-schema'];

interface Listed {
  name: string;
  description: string;
  inputSchema: { properties?: Record<string, { description?: string }> };
}

function check(tools: Listed[]): void {
  const query = tools.find((t) => t.name === 'described.query');
  const manual = tools.find((t) => t.name === 'described.manual');
  expect(query?.description).toMatch(/^Runs SQL on postgres:\/\/app:.*REDACTED/);
  expect(query?.inputSchema.properties?.sql?.description).toMatch(/^the query; password=.*REDACTED/);
  expect(manual?.description.startsWith('The manual. Lorem ipsum')).toBe(true);
  expect(manual?.description.length).toBeLessThanOrEqual(DESCRIPTION_CHARS);
  const text = JSON.stringify(tools);
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe("a server's tool descriptions in tool lists", () => {
  it('a tools/list block, typed into the chat, shows them redacted and cut', async () => {
    const run = await world.run('mcp-request', '```mcp-request\n{"jsonrpc":"2.0","id":"l1","method":"tools/list"}\n```');
    for (const secret of SECRETS) expect(run.resultText).not.toContain(secret);
    expect(run.resultText.length).toBeLessThan(20_000);
    check((mcpJson(run.resultText).result as unknown as { tools: Listed[] }).tools);
  });

  it('GET /v1/tools (what prompts are made from) and /mcp tools/list show them the same way', async () => {
    const listed = (await (await world.request('/v1/tools')).json()) as { tools: Listed[] };
    check(listed.tools);
    const client = await world.mcpClient();
    try {
      check((await client.listTools()).tools as Listed[]);
    } finally {
      await client.close();
    }
  });

  it('a call still checks its arguments against the schema as the server sent it, and runs', async () => {
    const run = await world.run('mcp-request', '```mcp-request\n{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"described.query","arguments":{"sql":"select 1"}}}\n```');
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('ok');
  });
});
