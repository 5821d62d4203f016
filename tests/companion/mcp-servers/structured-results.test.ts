import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, flycodeCall, makeMcpWorld, mcpCall, mcpJson, type McpWorld } from './world';

/*
 * A tool with an output schema answers with structuredContent, and with text: its JSON again (as the spec asks),
 * or a sentence for people. The model reads the data in both cases, once.
 */
let world: McpWorld;

beforeAll(async () => {
  world = await makeMcpWorld({
    mcpServers: {
      tracker: fixtureServer('structured.mjs', { policy: { default: 'auto' } }),
      loose: fixtureServer('loose-output.mjs', { policy: { default: 'auto' } }),
    },
  });
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

  it('many text parts of JSON beside a long list are each compared with the data once, not the whole list again per part', async () => {
    // written out again for each part, the list held the companion for four minutes; the call is answered
    const started = await world.run('mcp-request', mcpCall('s5', 'tracker.row-statuses', {}));
    const run = started.status === 'running' ? await world.final(started.runId) : started;
    expect(run.status).toBe('done');
    expect(mcpJson(run.resultText).result?.content[0]?.text).toMatch(/^\{"updated":0\}\n\{"updated":1\}\n/);
  });
});

describe("a result that does not keep to the tool's own output schema", () => {
  it('is given with the mismatch named, not lost after the tool ran', async () => {
    const wrong = await world.run('mcp-request', mcpCall('o1', 'loose.wrong-shape', {}));
    expect(mcpJson(wrong.resultText).result?.content[0]?.text).toBe(
      'Created 3 issues.\n[the server\'s structuredContent does not match the tool\'s own output schema: data/count must be number; shown as the server sent it]\n{"count":"three"}',
    );
    const textOnly = await world.run('flycode-call', flycodeCall('o2', 'loose.text-only', {}));
    expect(textOnly.resultText).toContain('[ok] true');
    expect(textOnly.resultText).toContain("Created 3 issues.\n[the tool declares an output schema but the server's result has no structuredContent; shown as the server sent it]");
  });

  it('an output schema that cannot be compiled does not keep the server from starting; the health says so', async () => {
    const health = world.servers.health().find((s) => s.name === 'loose');
    expect(health).toMatchObject({ state: 'ready', tools: 4, restarts: 0 });
    expect(health?.notes).toEqual([
      "the output schema of loose.unresolvable cannot be compiled, so its results are not checked against it: can't resolve reference #/nowhere from id #",
    ]);
    const run = await world.run('mcp-request', mcpCall('o3', 'loose.unresolvable', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('Created issue #4.\n{"a":4}');
  });
});
