import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flycodeCall, makeMcpWorld, MEMORY, mcpCall, mcpJson, type McpWorld } from './world';

/*
 * The MCP project's "memory" reference server (a dev dependency, over stdio), with the policy knobs a person
 * sets per server: reading the graph automatic, deleting refused, everything else on approval — single-use and
 * bound to the arguments like any approval; "approve for this conversation" covers that tool there only.
 */
let world: McpWorld;
let memoryFile: string;

beforeAll(async () => {
  // the data file lives outside the workspace; the server is told where through its own env
  memoryFile = join(process.env.TMPDIR ?? '/tmp', `cb-memory-${process.pid}-${Date.now()}.jsonl`);
  world = await makeMcpWorld({
    mcpServers: {
      memory: {
        command: process.execPath,
        args: [MEMORY],
        env: { MEMORY_FILE_PATH: memoryFile },
        policy: { tools: { read_graph: 'auto', search_nodes: 'auto', delete_entities: 'deny' } },
      },
    },
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

const entities = [{ name: 'chatbridge', entityType: 'project', observations: ['runs tool blocks from web chats'] }];

describe('memory over stdio', () => {
  it('create_entities needs an approval whose card shows the arguments; after it the entity is in the graph file', async () => {
    const pending = await world.run('mcp-request', mcpCall('m1', 'memory.create_entities', { entities }));
    expect(pending.status).toBe('pending');
    expect(mcpJson(pending.resultText).result?.meta.pendingConfirmationId).toBeDefined();
    expect(mcpJson(pending.resultText).result?.content[0]?.text).toContain('Pending confirmation in chatbridge (memory.create_entities');
    const approval = await world.approvalOf(pending.runId);
    expect(JSON.parse(approval.preview.diff ?? '')).toEqual({ entities });
    const done = await world.decide(pending.runId, 'approve');
    expect(done.status).toBe('done');
    expect(JSON.parse(mcpJson(done.resultText).result?.content[0]?.text ?? '')).toEqual(entities);
    expect(existsSync(memoryFile)).toBe(true);
    expect(readFileSync(memoryFile, 'utf8')).toContain('"name":"chatbridge"');
  });

  it('read_graph and search_nodes run without asking (set to auto for this server)', async () => {
    const graph = await world.run('mcp-request', mcpCall('m2', 'memory.read_graph', {}));
    expect(graph.status).toBe('done');
    expect(JSON.parse(mcpJson(graph.resultText).result?.content[0]?.text ?? '')).toMatchObject({ entities });
    const search = await world.run('flycode-call', flycodeCall('m3', 'memory.search_nodes', { query: 'chatbridge' }));
    expect(search.status).toBe('done');
    expect(search.resultText).toContain('"entityType": "project"');
  });

  it('delete_entities is refused by the server policy before the server sees it', async () => {
    const refused = await world.run('mcp-request', mcpCall('m4', 'memory.delete_entities', { entityNames: ['chatbridge'] }));
    expect(refused.status).toBe('error');
    expect(mcpJson(refused.resultText).error).toMatchObject({ code: -32003, data: { code: 'POLICY_BLOCKED' } });
    expect(readFileSync(memoryFile, 'utf8')).toContain('"name":"chatbridge"');
  });

  it('a nested field the schema requires is named in INVALID_INPUT', async () => {
    const run = await world.run('mcp-request', mcpCall('m5', 'memory.create_entities', { entities: [{ name: 'x', observations: [] }] }));
    expect(mcpJson(run.resultText).error?.message).toBe('INVALID_INPUT: memory.create_entities is missing "entities[0].entityType" (a string)');
    const extra = await world.run('mcp-request', mcpCall('m6', 'memory.search_nodes', { query: 'a', limit: 3 }));
    expect(extra.status).toBe('done');
  });

  it('an approval is bound to the arguments: a decision quoting other arguments is refused', async () => {
    const pending = await world.run('mcp-request', mcpCall('m7', 'memory.add_observations', { observations: [{ entityName: 'chatbridge', contents: ['binds approvals'] }] }));
    const approval = await world.approvalOf(pending.runId);
    const forged = await world.post(`/v1/approvals/${approval.id}`, { decision: 'approve', argsHash: '0'.repeat(64) });
    expect(forged.status).toBe(409);
    const done = await world.decide(pending.runId, 'approve');
    expect(done.status).toBe('done');
    // single use: deciding again is refused
    const again = await world.post(`/v1/approvals/${approval.id}`, { decision: 'approve', argsHash: approval.argsHash });
    expect(again.status).toBeGreaterThanOrEqual(400);
  });

  it('approve for this conversation covers the same tool in that conversation only', async () => {
    const first = await world.run('mcp-request', mcpCall('m8', 'memory.create_relations', { relations: [{ from: 'chatbridge', to: 'chatbridge', relationType: 'is' }] }), { conversationId: 'conv-grant' });
    await world.decide(first.runId, 'approve-conversation');
    const second = await world.run('mcp-request', mcpCall('m9', 'memory.create_relations', { relations: [{ from: 'chatbridge', to: 'chatbridge', relationType: 'uses' }] }), { conversationId: 'conv-grant' });
    expect(second.status).toBe('done');
    const elsewhere = await world.run('mcp-request', mcpCall('m10', 'memory.create_relations', { relations: [{ from: 'chatbridge', to: 'chatbridge', relationType: 'x' }] }), { conversationId: 'conv-other' });
    expect(elsewhere.status).toBe('pending');
    await world.decide(elsewhere.runId, 'deny');
    const otherTool = await world.run('mcp-request', mcpCall('m11', 'memory.delete_observations', { deletions: [{ entityName: 'chatbridge', observations: ['x'] }] }), { conversationId: 'conv-grant' });
    expect(otherTool.status).toBe('pending');
    await world.decide(otherTool.runId, 'deny');
  });

  it('a site override can only make a server tool stricter (exec deny on a site refuses even an auto tool)', async () => {
    const strict = await makeMcpWorld({
      sites: { deepseek: { modes: { exec: 'deny' } }, chatgpt: { modes: { exec: 'auto' } } },
      mcpServers: { memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile }, policy: { tools: { read_graph: 'auto' } } } },
    });
    try {
      const onDeepseek = await strict.run('mcp-request', mcpCall('s1', 'memory.read_graph', {}), { site: 'deepseek' });
      expect(mcpJson(onDeepseek.resultText).error?.message).toContain('POLICY_BLOCKED: memory.read_graph refused by policy: the policy mode for exec is deny on site deepseek');
      // exec: auto on a site does not loosen the server's own default (confirm)
      const onChatgpt = await strict.run('mcp-request', mcpCall('s2', 'memory.create_entities', { entities: [] }), { site: 'chatgpt' });
      expect(onChatgpt.status).toBe('pending');
      await strict.decide(onChatgpt.runId, 'deny');
    } finally {
      await strict.close();
    }
  });
});
