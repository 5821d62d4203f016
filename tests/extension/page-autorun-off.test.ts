import { afterEach, describe, expect, it } from 'vitest';
import { t } from '../../extension/ui/i18n';
import { RunLedger } from '../../extension/scanner/blocks';
import { READ, assistantRow, buildPage, catchChipRoots, clickChip, controllers, deepseekReadingItsComposer, memoryArea, renderReply, start, stopPages, twoBlocks, until, userRow } from './page-harness';

/**
 * The person turns auto-run off for the site (or switches chatbridge off on it) while an auto-run reply's first block
 * runs: the blocks whose turn has not come are not started by themselves — the person no longer lets blocks run
 * unasked. Their chips offer Run. Likewise auto-submit turned off while a result waits in the box to be sent: it is not
 * sent.
 */

afterEach(stopPages);

const roots = catchChipRoots();
const chips = (): Element[] => Array.from(document.querySelectorAll('[data-chatbridge-chip]'));
const CONVERSATION = '3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';

const script = { respond: (_run: unknown, n: number) => ({ runId: `run-${n}`, status: n === 1 ? ('running' as const) : ('done' as const), resultText: `RESULT ${n}`, auditId: 'a' }) };

describe('page: auto-run turned off while a reply’s blocks wait their turn', () => {
  it('the block after the running one is not started by itself: its chip says auto-run is off and offers Run', async () => {
    const area = memoryArea();
    const h = start(buildPage(), { area, script });
    await twoBlocks(h);
    expect(chips()[1]?.getAttribute('data-chatbridge-state')).toBe('queued');
    h.settings.autoRun = false;
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'RESULT 1', auditId: 'a' } } });
    await until(() => chips()[1]?.getAttribute('data-chatbridge-state') === 'ready');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs).toHaveLength(1);
    expect(chips()[1]?.getAttribute('data-chatbridge-note')).toBe(t('note.autoRunOff'));
    expect(chips()[1]?.getAttribute('data-chatbridge-actions')).toBe('run');
    // The first block's result still goes in: it ran.
    await until(() => h.page.submitted.length === 1);
    expect(h.page.submitted[0]).toContain('RESULT 1');
    // Never run: after a reload its chip offers Run, not Re-run.
    const ran = await new RunLedger(area).ranKeys(CONVERSATION);
    expect(ran.has(h.ctl.records().find((r) => r.blocks.length === 2)!.blocks[1]!.key)).toBe(false);
    clickChip(roots, chips()[1], 'run');
    await until(() => h.runs.length === 2);
  });

  it('…and chatbridge switched off on the site: nothing more is posted to the companion', async () => {
    const h = start(buildPage(), { script });
    await twoBlocks(h);
    // What start.ts does when the site is switched off: the page stops.
    controllers.at(-1)!.abort();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs).toHaveLength(1);
  });
});

describe('page: auto-submit turned off while a result waits in the box to be sent', () => {
  it('the result stays in the box unsent once the reply the page was writing ends', async () => {
    const h = start(buildPage(), {
      site: deepseekReadingItsComposer,
      script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }) },
    });
    h.page.list.append(userRow('read it'));
    const first = assistantRow();
    h.page.setGenerating(true);
    h.page.list.append(first.row);
    await h.settle();
    renderReply(first.answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    h.clock.now += 50;
    await h.settle();
    h.page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await until(() => h.runs.length === 1);
    // The person asks something else meanwhile; the read's result goes into the box while that reply streams.
    h.page.list.append(userRow('and meanwhile?'));
    const next = assistantRow();
    h.page.setGenerating(true);
    h.page.list.append(next.row);
    renderReply(next.answer, ['Meanwhile']);
    await h.settle();
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await until(() => h.page.state() === 'FINAL');
    // Before it ends, the person turns auto-submit off for the site: they will send it themselves.
    h.settings.autoSubmit = false;
    h.page.setGenerating(false);
    h.clock.now += 2_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(h.page.submitted).toEqual([]);
    expect(h.page.state()).toBe('FINAL');
    expect(chips()[0]?.getAttribute('data-chatbridge-note')).toBe(t('note.inserted'));
  });
});
