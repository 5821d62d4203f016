/**
 * A Stop that reaches a run before its tool starts is kept: against the real companion process, a block stopped
 * right after it was posted (as the chip does before the companion has answered with a run id) was answered
 * `stopped`, and then its allow-listed program ran to the end all the same ("completed in 3 s"): its Stop listener
 * is added once it runs. Whatever the run had not started when it was stopped is not started; it answers CANCELLED.
 * (A program stopped after it started is killed, "stopped before it finished"; never does one complete.)
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../../shared/api';
import { call, context, makeWorkspace, mcpRequestBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

describe('attack: a Stop before the tool starts', () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-stop-early-');
    companion = await startCompanionProcess({
      root: ws.root,
      home: ws.home,
      config: { allowCommands: ['sleep 3'] },
    });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  const post = async (path: string, body: unknown) => (await call<RunResponse & { stopped?: string }>(companion, 'POST', path, body)).json;

  /** Posts the block and stops it at once, by the block; the run's answer, for each stop that found the run. */
  async function stoppedAtOnce(name: string, args: Record<string, unknown>, tries: number): Promise<RunResponse[]> {
    const answers: RunResponse[] = [];
    for (let i = 0; i < tries; i++) {
      const request = { kind: 'mcp-request', text: mcpRequestBlock(`${name}-${i}`, name, args), context: context('conv-stop-early', `${name}-${i}`) };
      const answered = post('/v1/run', request);
      const stopped = await post('/v1/runs/stop', request);
      const answer = await answered;
      if (stopped.stopped !== undefined) answers.push(answer);
    }
    return answers;
  }

  it('an allow-listed program stopped before it started does not run', async () => {
    const answers = await stoppedAtOnce('process.run', { command: 'sleep', args: ['3'] }, 4);
    expect(answers.length).toBeGreaterThan(0);
    for (const answer of answers) {
      expect(answer.resultText).not.toContain('completed in');
      expect(answer.resultText).toMatch(/CANCELLED|stopped before it finished/);
    }
  }, 60_000);
});
