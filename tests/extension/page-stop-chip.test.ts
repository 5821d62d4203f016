import { afterEach, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../extension/companion/api-types';
import { t } from '../../extension/ui/i18n';
import { RunLedger } from '../../extension/scanner/blocks';
import { APPROVAL, READ, WRITE, buildPage, catchChipRoots, clickChip, memoryArea, start, stopPages, twoBlocks, until, type Harness } from './page-harness';

/**
 * The person presses Stop on the chip of an auto-run reply's block while it runs or waits for approval (page-dispatch
 * onChipAction): like a Stop on a block whose turn had not come, the blocks after it in the reply are not started by
 * themselves — their chips offer Run.
 */

afterEach(stopPages);

const roots = catchChipRoots();
const chips = (): Element[] => Array.from(document.querySelectorAll('[data-chatbridge-chip]'));
const CONVERSATION = '3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';

async function expectSecondNotStarted(h: Harness, area: ReturnType<typeof memoryArea>): Promise<void> {
  await until(() => chips()[1]?.getAttribute('data-chatbridge-note') === t('note.notStartedAfterStop'));
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(h.runs).toHaveLength(1);
  expect(chips()[1]?.getAttribute('data-chatbridge-state')).toBe('ready');
  expect(chips()[1]?.getAttribute('data-chatbridge-actions')).toBe('run');
  // Never run: the ledger does not keep it as run (after a reload its chip offers Run, not Re-run).
  const ran = await new RunLedger(area).ranKeys(CONVERSATION);
  expect(ran.has(h.ctl.records().find((r) => r.blocks.length === 2)!.blocks[1]!.key)).toBe(false);
  // Run on it later runs it.
  clickChip(roots, chips()[1], 'run');
  await until(() => h.runs.length === 2);
}

describe("page: Stop on the chip of an auto-run reply's block while it runs", () => {
  it('the block after it is not started by itself when the stopped run ends: its chip offers Run', async () => {
    const area = memoryArea();
    const h = start(buildPage(), {
      area,
      script: { respond: (_run, n) => ({ runId: `run-${n}`, status: n === 1 ? 'running' : 'done', resultText: `RESULT ${n}`, auditId: 'a' }) },
    });
    await twoBlocks(h, READ);
    await until(() => roots.get(chips()[0]!)?.querySelector('button[data-action="stop"]') != null);
    clickChip(roots, chips()[0], 'stop');
    await until(() => h.stops.length > 0);
    expect(h.stops[0]).toEqual({ type: 'stop-run', request: { runId: 'run-1' } });
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'error', resultText: 'CANCELLED 1', auditId: 'a' } } });
    await expectSecondNotStarted(h, area);
  });

  it('…and while it waits for approval: the block after it is not started by itself once the Stop denied it', async () => {
    const area = memoryArea();
    const pending = (): RunResponse => ({ runId: 'run-1', status: 'pending', resultText: 'PENDING[ap-1]', auditId: 'a', pendingConfirmationId: 'ap-1' });
    const h = start(buildPage(), {
      area,
      settings: { approvalWaitMs: 60_000 },
      script: {
        respond: (_run, n) => (n === 1 ? pending() : { runId: `run-${n}`, status: 'done', resultText: `RESULT ${n}`, auditId: 'a' }),
        approvals: [APPROVAL],
      },
    });
    await twoBlocks(h, WRITE);
    await until(() => chips()[0]?.getAttribute('data-chatbridge-state') === 'approval');
    await until(() => roots.get(chips()[0]!)?.querySelector('button[data-action="stop"]') != null);
    clickChip(roots, chips()[0], 'stop');
    await until(() => h.stops.length > 0);
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'error', resultText: 'DENIED 1', auditId: 'a' } } });
    await expectSecondNotStarted(h, area);
  });
});
