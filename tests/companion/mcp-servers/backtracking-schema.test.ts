import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, makeWorkspace, mcpRequestBlock, parseMcpResponse, postBlock, serversReady, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';
import { fixture } from './world';

/*
 * A tool whose input schema holds a pattern that backtracks (`^([a-z]+\s?)+$`). The companion checks a call's
 * arguments against the schema before anything is decided, with V8's backtracking engine on its own thread: a
 * model that writes 40 letters and a `!` once held the real companion process for hours (27 letters took 0.9 s,
 * each one more doubles it) — no status, no run, no approval answered. The check now gives up after 250 ms and
 * refuses the call. The same holds for a result checked against the tool's output schema (the client does that, on
 * the same thread): a server — a remote service, say — that answers with structured content made to backtrack on its
 * own pattern held the companion the same way; the result is now given with the check named as given up.
 */
let ws: Workspace;
let companion: CompanionProcess;

beforeAll(async () => {
  ws = makeWorkspace('cb-mcp-backtrack-');
  companion = await startCompanionProcess({
    root: ws.root,
    home: ws.home,
    config: {
      mcpServers: {
        schema: { command: process.execPath, args: [fixture('backtracking-schema.mjs')], policy: { default: 'auto' } },
        output: { command: process.execPath, args: [fixture('backtracking-output.mjs')], policy: { default: 'auto' } },
      },
    },
  });
  await serversReady(companion, ['schema', 'output']);
}, 60_000);

afterAll(async () => {
  await companion?.kill();
  if (ws) rmSync(ws.base, { recursive: true, force: true });
});

/**
 * Posts a call and, while the companion checks it, asks for its status: the answer must come. Resolves to the
 * call's run and how long it took.
 */
async function callWhileAsking(text: string, message: string): Promise<{ run: { status: string; resultText: string }; ms: number }> {
  const started = Date.now();
  const posted = postBlock(companion, 'mcp-request', text, context('c1', message));
  await new Promise((r) => setTimeout(r, 100));
  const status = await fetch(`http://127.0.0.1:${companion.port}/v1/status`, { signal: AbortSignal.timeout(3_000) });
  expect(status.status).toBe(200);
  const run = await posted;
  return { run, ms: Date.now() - started };
}

describe('a tool schema whose pattern backtracks', () => {
  it('an argument chosen to make it backtrack is refused within a second; the companion keeps answering', async () => {
    const { run, ms } = await callWhileAsking(mcpRequestBlock(1, 'schema.lookup', { words: `${'a'.repeat(40)}!` }), 'm1');
    expect(ms).toBeLessThan(3_000);
    expect(run.status).toBe('error');
    const error = parseMcpResponse(run.resultText).error;
    expect(error?.data?.code).toBe('INVALID_INPUT');
    expect(error?.message).toMatch(/took more than 250 ms/);
    // an ordinary value still passes the same check and reaches the server
    const ok = await postBlock(companion, 'mcp-request', mcpRequestBlock(2, 'schema.lookup', { words: 'abc def' }), context('c1', 'm2'));
    expect(parseMcpResponse(ok.resultText).result?.content[0]?.text).toBe('looked up 7 characters');
  }, 30_000);
});

describe("a tool output schema whose pattern backtracks", () => {
  it('a result made to backtrack is given within a second with the check named as given up; the companion keeps answering', async () => {
    const { run, ms } = await callWhileAsking(mcpRequestBlock(3, 'output.report', {}), 'm3');
    expect(ms).toBeLessThan(3_000);
    const text = parseMcpResponse(run.resultText).result?.content[0]?.text;
    expect(text).toContain(`{"words":"${'a'.repeat(40)}!"}`);
    expect(text).toMatch(/checking the result against the tool's output schema took more than 250 ms/);
  }, 30_000);
});
