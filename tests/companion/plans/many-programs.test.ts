/**
 * Attack: one auto_coder plan that starts an allow-listed command hundreds of times at once. The allow-list lets
 * `npm test` run without a card; an auto_coder plan's programs all start together (seed 002), and nothing bounded how
 * many a plan may hold — so one block, one call (the loop guard counts calls), started 300 copies of it on the real
 * companion at once, each with its own output buffer: a fork bomb the person never saw a card for. A plan now holds
 * at most MAX_PROGRAMS programs; one with more is refused before anything runs.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROGRAMS } from '../../../companion/plans/autocoder-plan';
import { context, makeWorkspace, postBlock, processesWith, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const MARKER = '7.31459';
let ws: Workspace;
let companion: CompanionProcess;

beforeAll(async () => {
  ws = makeWorkspace('cb-many-programs-');
  companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: { allowCommands: [`sleep ${MARKER}`] } });
}, 40_000);

afterAll(async () => {
  for (const pid of processesWith(`sleep ${MARKER}`)) process.kill(pid, 'SIGKILL');
  await companion?.kill();
  if (ws) rmSync(ws.base, { recursive: true, force: true });
});

function plan(count: number): string {
  return `#####--\n${JSON.stringify({
    type: 'operate',
    metadata: { step_id: `many-${count}`, reason: 'run the checks' },
    program_operations: Array.from({ length: count }, (_, i) => ({ name: `check-${i}`, command: `sleep ${MARKER}` })),
  })}\n--#####`;
}

describe.runIf(process.platform === 'linux')('a plan with very many programs', { timeout: 60_000 }, () => {
  it('300 copies of an allow-listed command: refused, nothing started', async () => {
    const posted = postBlock(companion, 'autocoder', plan(300), context('c1', 'm1'));
    let most = 0;
    const watch = setInterval(() => {
      most = Math.max(most, processesWith(`sleep ${MARKER}`).length);
    }, 50);
    const run = await Promise.race([posted, new Promise<undefined>((r) => setTimeout(r, 3000))]);
    await new Promise((r) => setTimeout(r, 300));
    clearInterval(watch);
    most = Math.max(most, processesWith(`sleep ${MARKER}`).length);
    expect(most, `${most} copies ran at once`).toBe(0);
    expect(run?.resultText).toContain(`at most ${MAX_PROGRAMS} programs`);
  });

  it('a plan within the bound still runs its allow-listed programs without a card', async () => {
    const run = await postBlock(companion, 'autocoder', plan(2).replace(MARKER, MARKER), context('c1', 'm2'));
    expect(run.status === 'running' || run.status === 'done').toBe(true);
  });
});

