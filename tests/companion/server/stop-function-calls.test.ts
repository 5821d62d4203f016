/**
 * Stop ends a `<function_calls>` block, not only the call it is in: against the real companion process, the calls
 * after the one that was running when the person pressed Stop are not run (they were: a write where writes are
 * auto went ahead after the Stop), and each is answered CANCELLED.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../../shared/api';
import { call, context, getRun, makeWorkspace, startCompanionProcess, waitUntil, type CompanionProcess, type Workspace } from '../load/live-companion';

describe('attack: the calls of a <function_calls> block go on after Stop', () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-stop-calls-');
    companion = await startCompanionProcess({
      root: ws.root,
      home: ws.home,
      config: { modes: { read: 'auto', write: 'auto', delete: 'confirm', exec: 'confirm' }, allowCommands: ['sleep 5'] },
    });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  const post = (path: string, body: unknown) => call<Partial<RunResponse> & { stopped?: string }>(companion, 'POST', path, body);

  it('a Stop during the first call leaves the second unrun and answered CANCELLED', async () => {
    const target = join(ws.root, 'after-stop.txt');
    const text = [
      '```jsonl',
      JSON.stringify({ type: 'function_call_start', name: 'process.run', call_id: 1 }),
      JSON.stringify({ type: 'parameter', key: 'command', value: 'sleep' }),
      JSON.stringify({ type: 'parameter', key: 'args', value: ['5'] }),
      JSON.stringify({ type: 'function_call_end', call_id: 1 }),
      JSON.stringify({ type: 'function_call_start', name: 'fs.write', call_id: 2 }),
      JSON.stringify({ type: 'parameter', key: 'path', value: target }),
      JSON.stringify({ type: 'parameter', key: 'mode', value: 'overwrite' }),
      JSON.stringify({ type: 'parameter', key: 'content', value: 'written after the Stop' }),
      JSON.stringify({ type: 'function_call_end', call_id: 2 }),
      '```',
    ].join('\n');
    const request = { kind: 'function-calls', text, context: context('conv-stop-calls', 'm1') };
    // the block's answer comes when it ends; the page stops it by the block, as the chip does before it has a run id
    const answered = post('/v1/run', request);
    await new Promise((r) => setTimeout(r, 700));
    const stopped = await post('/v1/runs/stop', request);
    expect(stopped.status).toBe(200);
    const runId = stopped.json.stopped!;
    expect(runId).toMatch(/^run-/);
    await answered;
    let ended: RunResponse | undefined;
    await waitUntil('the stopped block answers', async () => {
      ended = await getRun(companion, runId);
      return ended.status === 'done' || ended.status === 'error';
    }, 15_000, 50);
    expect(existsSync(target)).toBe(false);
    expect(ended?.resultText).toMatch(/<function_result call_id="2" name="fs.write" status="error"[^>]*>\nCANCELLED: /);
  }, 30_000);
});
