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

  it('JSON in the text that is not the data (a status) does not hide it: structuredContent follows it', async () => {
    const run = await world.run('mcp-request', mcpCall('s3', 'tracker.status-json', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('{"status": "created"}\n{"number":12,"url":"https://tracker.example/issues/12","labels":["bug"]}');
  });

  it('text parts that hold the data in parts (the items of a listed result) show it once', async () => {
    const run = await world.run('mcp-request', mcpCall('s4', 'tracker.listed', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('{"n": 1}\n{"n": 2}');
  });
});
