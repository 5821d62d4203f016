import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TOOLS_PER_SERVER } from '../../../companion/mcp-servers/connection';
import { fixtureServer, makeMcpWorld, mcpCall, mcpJson, type McpWorld } from './world';

/*
 * A server listing 130 000 tools in one page: compiling each tool's schema held the whole companion (about a minute for
 * this list on a quiet machine, again at each change of the list), and before that the list did not even start, as
 * its page was spread into a call's arguments.
 */
let world: McpWorld;

beforeAll(async () => {
  world = await makeMcpWorld({ mcpServers: { huge: fixtureServer('many-tools.mjs', { policy: { default: 'auto' }, env: { MANY_TOOLS: '130000' } }) } });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

describe('a server that lists a huge number of tools', () => {
  it('is up with the first tools it lists, as many as one server may offer; the health says the rest are not', async () => {
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string; tools: number; notes: string[] }> };
    const huge = servers.find((s) => s.name === 'huge');
    expect(huge).toMatchObject({ state: 'ready', tools: MAX_TOOLS_PER_SERVER });
    expect(huge?.notes).toContain(
      `the server lists more than ${MAX_TOOLS_PER_SERVER} tools: only its first ${MAX_TOOLS_PER_SERVER} are offered (chatbridge offers at most ${MAX_TOOLS_PER_SERVER} tools of one server, in the order it lists them)`,
    );
    const { tools } = (await (await world.request('/v1/tools')).json()) as { tools: Array<{ name: string }> };
    expect(tools.filter((t) => t.name.startsWith('huge.'))).toHaveLength(MAX_TOOLS_PER_SERVER);
  });

  it('a tool it offers is called; one past them is NOT_FOUND saying why, and nothing is sent', async () => {
    const offered = await world.run('mcp-request', mcpCall('h1', 'huge.t5', {}));
    expect(mcpJson(offered.resultText).result?.content[0]?.text).toBe('called t5');
    const past = await world.run('mcp-request', mcpCall('h2', 'huge.t120000', {}));
    expect(mcpJson(past.resultText).error?.message).toContain(`huge.t120000 is not offered: chatbridge offers at most ${MAX_TOOLS_PER_SERVER} tools of one server`);
  });
});
