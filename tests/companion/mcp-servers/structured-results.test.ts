import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, makeMcpWorld, mcpCall, mcpJson, type McpWorld } from './world';

/*
 * A tool with an output schema answers with structuredContent, and with text: its JSON again (as the spec asks),
 * or a sentence for people. The model reads the data in both cases, once.
 */
let world: McpWorld;

beforeAll(async () => {
  world = await makeMcpWorld({ mcpServers: { tracker: fixtureServer('structured.mjs', { policy: { default: 'auto' } }) } });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

describe('structured results', () => {
  it('a sentence in the text does not hide the data: structuredContent follows it', async () => {
    const run = await world.run('mcp-request', mcpCall('s1', 'tracker.create-issue', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('Created issue #12.\n{"number":12,"url":"https://tracker.example/issues/12","labels":["bug"]}');
  });

  it('text that is the same JSON (any layout, any key order) shows it once', async () => {
    const run = await world.run('mcp-request', mcpCall('s2', 'tracker.mirrored', {}));
    const text = mcpJson(run.resultText).result?.content[0]?.text ?? '';
    expect(JSON.parse(text)).toEqual({ number: 12, url: 'https://tracker.example/issues/12', labels: ['bug'] });
  });
});
