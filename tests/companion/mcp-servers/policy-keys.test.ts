import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, makeMcpWorld, mcpCall, mcpJson, waitUntil, type McpWorld } from './world';

/*
 * A server's "policy.tools" as people write it: keyed by the tool's own name (the rule), or by the name they see
 * everywhere else, "<server>.<tool>". Either keeps the mode on the tool it names; a key that names no tool of the
 * server is said in the server's health, so a deny that holds nothing does not pass unseen.
 */
let world: McpWorld;

beforeAll(async () => {
  world = await makeMcpWorld({
    mcpServers: {
      keys: fixtureServer('features.mjs', { policy: { default: 'auto', tools: { 'keys.leak': 'deny', fial: 'deny', 'keys.added': 'deny', 'Keys.Progress': 'deny' } } }),
      twice: fixtureServer('features.mjs', { policy: { default: 'auto', tools: { leak: 'auto', 'twice.leak': 'deny' } } }),
    },
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

describe('policy.tools keys', () => {
  it('a key written with the server\'s prefix ("keys.leak") holds for that tool: the deny refuses the call', async () => {
    const run = await world.run('mcp-request', mcpCall('k1', 'keys.leak', {}));
    expect(mcpJson(run.resultText).error).toMatchObject({ data: { code: 'POLICY_BLOCKED' } });
    const other = await world.run('mcp-request', mcpCall('k2', 'keys.peek', { what: 'a' }));
    expect(mcpJson(other.resultText).result?.content[0]?.text).toBe('peeked a');
  });

  it('a key that names no tool of the server is named in its health', async () => {
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; notes: string[] }> };
    const notes = servers.find((s) => s.name === 'keys')?.notes ?? [];
    expect(notes.join('\n')).toContain('policy.tools."fial" names no tool of keys');
    expect(notes.join('\n')).not.toContain('"keys.leak"');
  });

  it('a deny keyed by the tool\'s name in another case ("Keys.Progress") holds for it, and the health says how to write it', async () => {
    const run = await world.run('mcp-request', mcpCall('k6', 'keys.progress', { steps: 1 }));
    expect(mcpJson(run.resultText).error).toMatchObject({ data: { code: 'POLICY_BLOCKED' } });
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; notes: string[] }> };
    expect(servers.find((s) => s.name === 'keys')?.notes.join('\n')).toContain('policy.tools."Keys.Progress" is not written as keys lists its tool "progress"');
  });

  it('a second key for the same tool does not take its deny away: of "leak": auto and "twice.leak": deny, the deny holds', async () => {
    const run = await world.run('mcp-request', mcpCall('k3', 'twice.leak', {}));
    expect(mcpJson(run.resultText).error).toMatchObject({ data: { code: 'POLICY_BLOCKED' } });
  });

  it('a key for a tool the server lists later (tools/list_changed) holds once it is there', async () => {
    const added = await world.run('mcp-request', mcpCall('k4', 'keys.add-tool', {}));
    expect(mcpJson(added.resultText).result).toBeDefined();
    await waitUntil('the new tool is listed', async () => {
      const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; notes: string[] }> };
      return !(servers.find((s) => s.name === 'keys')?.notes ?? []).join('\n').includes('"keys.added"');
    });
    const run = await world.run('mcp-request', mcpCall('k5', 'keys.added', {}));
    expect(mcpJson(run.resultText).error).toMatchObject({ data: { code: 'POLICY_BLOCKED' } });
  });
});
