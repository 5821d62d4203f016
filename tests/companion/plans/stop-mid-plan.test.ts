/**
 * Stop during an approved auto_coder plan stops the plan: against the real companion process, with each journal
 * step slowed down (CHATBRIDGE_JOURNAL_TEST_DELAY_MS) so the Stop lands while the first file action is applied, the
 * plan's later file actions are not applied and its programs are not started (they used to start and be killed at
 * once, after whatever they did in between).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../../shared/api';
import { context, getRun, makeWorkspace, postPending, startCompanionProcess, waitUntil, type CompanionProcess, type Workspace } from '../load/live-companion';

describe('attack: an auto_coder plan goes on after Stop', () => {
  let ws: Workspace;
  let outside: string;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-stop-plan-');
    outside = join(ws.base, 'outside');
    mkdirSync(outside);
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: {}, env: { CHATBRIDGE_JOURNAL_TEST_DELAY_MS: '300' } });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  const request = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${companion.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${companion.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  it('a Stop while the first file action is applied leaves the later ones undone and starts no program', async () => {
    const marker = join(outside, 'ran');
    const text = `#####--\n${JSON.stringify({
      type: 'operate',
      metadata: { step_id: 'stop-me', reason: 'set up and build' },
      file_operations: [
        { action_type: 'create_file', path: 'first.txt', file_content: '1' },
        { action_type: 'create_file', path: 'second.txt', file_content: '2' },
      ],
      program_operations: [{ name: 'build', command: `echo x > '${marker}'` }],
    })}\n--#####`;
    const { run, approval } = await postPending(companion, 'autocoder', text, context('conv-stop-plan', 'm1'));
    expect((await request('POST', `/v1/approvals/${approval.id}`, { decision: 'approve', argsHash: approval.argsHash })).status).toBe(200);
    // the first create_file is under way (each of its journal steps pauses 300 ms)
    await waitUntil('the plan applies its first file action', async () => (await getRun(companion, run.runId)).status === 'running', 5_000);
    await new Promise((r) => setTimeout(r, 200));
    expect((await request('POST', `/v1/runs/${run.runId}/stop`, {})).status).toBe(200);
    let ended: RunResponse | undefined;
    await waitUntil('the stopped plan answers', async () => {
      ended = await getRun(companion, run.runId);
      return ended.status === 'done' || ended.status === 'error';
    }, 20_000, 50);
    expect(existsSync(join(ws.root, 'second.txt'))).toBe(false);
    const programs = (await request('GET', '/v1/programs')).json.programs as Array<{ origin: { runId: string } }>;
    expect(programs.filter((p) => p.origin.runId === run.runId)).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    expect(ended?.resultText).toMatch(/stopped/);
  }, 60_000);
});
