import { afterEach, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../extension/companion/api-types';
import { BackgroundRefusal } from '../../extension/messaging';
import { RunLedger } from '../../extension/scanner/blocks';
import { t } from '../../extension/ui/i18n';
import type { KeyValueArea } from '../../extension/scanner/blocks';
import { READ, buildPage, catchChipRoots, chipStates, clickChip, controllers, memoryArea, start, stopPages, streamReply, twoBlocks, until, useWebLocks, type Harness } from './page-harness';

/**
 * A result the chat is owed is delivered once, or the chip says plainly where it is: across a reload that came before
 * the companion answered, a browser unpaired meanwhile, and another tab that posted the block.
 */

afterEach(stopPages);

const CONV = '3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';

/** The page reloaded: the same rows drawn again without our chips, and a new page started on them. */
function reload(rows: string, options: Parameters<typeof start>[1]): Harness {
  controllers.splice(0).forEach((c) => c.abort());
  const page = buildPage();
  page.list.innerHTML = rows;
  for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
  return start(page, options);
}

const rowsOf = (row: HTMLElement): string => row.previousElementSibling!.outerHTML + row.outerHTML;

describe('page: a result owed across a reload', () => {
  it('a tab reloaded before the companion first answered its run posts the same block again and delivers that run once', async () => {
    const area = memoryArea();
    // The companion has the run but has not answered POST /v1/run yet when the tab goes away.
    const first = start(buildPage(), { area, script: { respond: () => new Promise<RunResponse>(() => undefined) } });
    const row = await streamReply(first, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.runs.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));

    // Posted again, the same block is answered with the same run (the companion keys it by block); the background
    // knows its first request started it, so it is this browser's (callers.ts StartedRuns), not marked reused.
    const second = reload(rowsOf(row), { area, script: { respond: () => ({ runId: 'run-1', status: 'done', resultText: 'THE RESULT', auditId: 'a' }) } });
    await second.settle();
    await until(() => second.page.submitted.length === 1, 5_000);
    expect(second.page.submitted).toEqual(['THE RESULT']);
    expect(second.runs).toHaveLength(1);
    const [posted, again] = [first.runs[0]!, second.runs[0]!];
    expect({ kind: again.kind, text: again.text, context: again.context }).toEqual({ kind: posted.kind, text: posted.text, context: posted.context });
    expect(again.rerun).toBeUndefined();
    await until(() => chipStates().includes('done'));
    expect(await new RunLedger(area).pendingRuns(CONV)).toEqual({});
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(second.page.submitted).toHaveLength(1);
    expect(second.runs).toHaveLength(1);
  });

  it('a tab opened while another still waits for the companion to answer its run posts nothing; once that tab is closed unanswered, it posts the block again and delivers it', async () => {
    const locks = useWebLocks();
    const area = memoryArea();
    const first = start(buildPage(), { area, script: { respond: () => new Promise<RunResponse>(() => undefined) } });
    const row = await streamReply(first, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.runs.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // That tab goes on waiting (its locks stay held) while another tab of the conversation opens.
    const closeFirst = locks.heldElsewhere();
    const second = reload(rowsOf(row), { area, script: { respond: () => ({ runId: 'run-1', status: 'done', resultText: 'THE RESULT', auditId: 'a' }) } });
    await second.settle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(second.runs).toEqual([]);
    expect(second.page.submitted).toEqual([]);

    closeFirst();
    await until(() => second.page.submitted.length === 1, 5_000);
    expect(second.page.submitted).toEqual(['THE RESULT']);
    expect(second.runs).toHaveLength(1);
    expect(await new RunLedger(area).pendingRuns(CONV)).toEqual({});
  });

  it('a tab reloaded before the companion answered, whose block another browser profile had posted first, types nothing in: its chip follows that run', async () => {
    const area = memoryArea();
    const first = start(buildPage(), { area, script: { respond: () => new Promise<RunResponse>(() => undefined) } });
    const row = await streamReply(first, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.runs.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));

    // The other browser's run: answered reused, as the background passes on a run this browser did not start.
    const second = reload(rowsOf(row), { area, script: { respond: () => ({ runId: 'run-x', status: 'done', resultText: 'THEIR RESULT', auditId: 'a', reused: true }) } });
    await second.settle();
    await until(() => chipStates().includes('done'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(second.runs).toHaveLength(1);
    expect(second.page.submitted).toEqual([]);
    expect(second.page.textarea.value).toBe('');
    expect(second.page.list.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-note')).toBe(t('note.ranInAnotherBrowserEnded'));
    expect(await new RunLedger(area).pendingRuns(CONV)).toEqual({});
  });

  it('a page reloaded while the browser is not paired says so on the chip, and delivers the result once paired again', async () => {
    const area = memoryArea();
    let paired = true;
    let done = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-long', status: 'running', resultText: '', auditId: 'a' }),
      getRun: (runId: string): RunResponse => {
        // what the background answers once the companion no longer takes the token (client.ts: 401 UNAUTHORIZED)
        if (!paired) throw new BackgroundRefusal(t('conn.tokenRefused'), 'UNAUTHORIZED');
        return done ? { runId, status: 'done', resultText: 'RESULT WHEN PAIRED', auditId: 'a' } : { runId, status: 'running', resultText: '', auditId: 'a' };
      },
    };
    const first = start(buildPage(), { area, script });
    const row = await streamReply(first, ['Building it.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.runs.length === 1);
    for (let i = 0; i < 100 && Object.keys(await new RunLedger(area).pendingRuns(CONV)).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));

    paired = false;
    done = true;
    const second = reload(rowsOf(row), { area, script });
    await second.settle();
    const chip = (): Element | null => second.page.list.querySelector('[data-chatbridge-chip]');
    await until(() => chip()?.getAttribute('data-chatbridge-note')?.includes(t('conn.tokenRefused')) === true);
    expect(chip()?.getAttribute('data-chatbridge-note')).toBe(t('note.owedUnpaired', [t('conn.tokenRefused')]));
    expect(second.page.submitted).toEqual([]);
    expect(Object.values(await new RunLedger(area).pendingRuns(CONV)).map((run) => run.runId)).toEqual(['run-long']);

    // Paired again: the background tells its pages it is connected.
    paired = true;
    second.push({ type: 'connection', connection: { state: 'connected', companionUrl: 'http://127.0.0.1:1' } });
    await until(() => second.page.submitted.length === 1, 5_000);
    expect(second.page.submitted).toEqual(['RESULT WHEN PAIRED']);
    expect(second.runs).toEqual([]);
    expect(await new RunLedger(area).pendingRuns(CONV)).toEqual({});
  });
});

describe('page: a result owed while the page stays open', () => {
  it('a reply another browser profile ran: once its run ends, the chip here says where the result is should that browser have been closed first', async () => {
    let done = false;
    const script = {
      // the companion had the block from the other browser first: its run, still going
      respond: (): RunResponse => ({ runId: 'run-x', status: 'running', resultText: '', auditId: 'a', reused: true }),
      getRun: (runId: string): RunResponse => (done ? { runId, status: 'done', resultText: 'THEIR RESULT', auditId: 'a' } : { runId, status: 'running', resultText: '', auditId: 'a' }),
    };
    const h = start(buildPage(), { area: memoryArea(), script });
    await streamReply(h, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await until(() => chipStates().includes('running'));
    const chip = (): Element | null => h.page.list.querySelector('[data-chatbridge-chip]');
    expect(chip()?.getAttribute('data-chatbridge-note')).toBe(t('note.ranInAnotherBrowser'));
    // That browser is closed before the run ends: nothing is typed in here, and the chip says where the result is.
    done = true;
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-x', status: 'done', resultText: 'THEIR RESULT', auditId: 'a' } } });
    await until(() => chipStates().includes('done'));
    expect(chip()?.getAttribute('data-chatbridge-note')).toBe(t('note.ranInAnotherBrowserEnded'));
    expect(chip()?.getAttribute('data-chatbridge-preview')).toBe('folded');
    expect(h.page.submitted).toEqual([]);
    expect(h.runs).toHaveLength(1);
  });

  it('a run the companion no longer has once it restarted (a read it held only in memory) ends on a chip that says its result is lost, not one running for hours', async () => {
    let restarted = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-read', status: 'running', resultText: '', auditId: 'a' }),
      getRun: (runId: string): RunResponse => {
        if (restarted) throw new BackgroundRefusal(`no run "${runId}"`, 'NOT_FOUND');
        return { runId, status: 'running', resultText: '', auditId: 'a' };
      },
    };
    const area = memoryArea();
    const h = start(buildPage(), { area, script });
    await streamReply(h, ['Searching.', { lang: 'mcp-request', code: READ }]);
    await until(() => chipStates().includes('running'));
    restarted = true;
    await until(() => chipStates().includes('failed'), 8_000);
    expect(h.page.list.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-note')).toBe(t('note.runUnknown'));
    expect(h.page.submitted).toEqual([]);
    expect(h.runs).toHaveLength(1);
    for (let i = 0; i < 100 && Object.keys(await new RunLedger(area).pendingRuns(CONV)).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await new RunLedger(area).pendingRuns(CONV)).toEqual({});
  }, 15_000);
});

describe('page: a run whose request the background never answered', () => {
  /** what a content script's sendMessage rejects with when the background's service worker stops before it answered */
  const CHANNEL_CLOSED = 'A listener indicated an asynchronous response by returning true, but the message channel closed before a response was received';

  it('the service worker stopped before its answer, the block is posted again once the background answers: a run it starts then is delivered once', async () => {
    const area = memoryArea();
    const h = start(buildPage(), {
      area,
      script: {
        respond: (_run, n) => {
          if (n === 1) throw new Error(CHANNEL_CLOSED);
          return { runId: 'run-1', status: 'done', resultText: 'THE RESULT', auditId: 'a' };
        },
      },
    });
    await streamReply(h, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await until(() => h.page.submitted.length === 1, 8_000);
    expect(h.page.submitted).toEqual(['THE RESULT']);
    expect(h.runs).toHaveLength(2);
    expect(h.runs[1]).toEqual(h.runs[0]);
    await until(() => chipStates().includes('done'));
    for (let i = 0; i < 100 && Object.keys(await new RunLedger(area).pendingRuns(CONV)).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await new RunLedger(area).pendingRuns(CONV)).toEqual({});
  }, 15_000);

  it.each([
    ['another browser started (the companion says so)', { startedByYou: false }, 'note.ranInAnotherBrowserEnded'],
    ['the companion cannot say who started (a run it logged before it kept that)', {}, 'note.unansweredRunEnded'],
  ] as const)('…and one the companion had already that %s is followed on the chip, typed in nowhere by itself, its result shown there', async (_name, whose, note) => {
    const area = memoryArea();
    const h = start(buildPage(), {
      area,
      script: {
        respond: (_run, n) => {
          if (n === 1) throw new Error(CHANNEL_CLOSED);
          // what the background passes on: it answers a run this browser's token started as its own (callers.ts StartedRuns)
          return { runId: 'run-1', status: 'done', resultText: 'THE RESULT', auditId: 'a', reused: true, ...whose };
        },
      },
    });
    await streamReply(h, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await until(() => chipStates().includes('done'), 8_000);
    const chip = h.page.list.querySelector('[data-chatbridge-chip]');
    expect(chip?.getAttribute('data-chatbridge-note')).toBe(t(note));
    expect(chip?.getAttribute('data-chatbridge-preview')).toBe('folded');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.page.submitted).toEqual([]);
    expect(h.runs).toHaveLength(2);
    expect(await new RunLedger(area).pendingRuns(CONV)).toEqual({});
  }, 15_000);
});

describe('page: a result neither the chat box nor the clipboard took', () => {
  const roots = catchChipRoots();
  const script = {
    respond: (): RunResponse => ({ runId: 'run-1', status: 'done', resultText: 'THE RESULT', auditId: 'a' }),
    getRun: (runId: string): RunResponse => ({ runId, status: 'done', resultText: 'THE RESULT', auditId: 'a' }),
  };
  /** The page shows no chat box, and the window is not focused: the clipboard refuses the copy. */
  async function notDelivered(area: ReturnType<typeof memoryArea>, copied: string[]): Promise<{ h: Harness; row: HTMLElement }> {
    const page = buildPage();
    page.textarea.remove();
    let focused = false;
    const h = start(page, {
      area,
      script,
      deliverWaitMs: { editor: 50 },
      // Refused while the window is not focused (as the page tries it by itself); a click on the chip focuses it.
      copy: async (text) => {
        if (!focused) {
          focused = true;
          throw new Error('Document is not focused.');
        }
        copied.push(text);
      },
    });
    const row = await streamReply(h, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await until(() => h.page.list.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-note') === t('note.copyFailedOffered'));
    // (a done chip is drawn a moment after it changed)
    await until(() => !!roots.get(h.page.list.querySelector('[data-chatbridge-chip]')!)?.querySelector('button[data-action="copy"]'));
    return { h, row };
  }

  it('is still owed across a reload: the page loaded again, showing the chat box, types it in once', async () => {
    const area = memoryArea();
    const { h, row } = await notDelivered(area, []);
    expect(h.page.submitted).toEqual([]);
    const second = reload(rowsOf(row), { area, script, settings: { autoSubmit: false } });
    await second.settle();
    await until(() => second.page.state() === 'THE RESULT', 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(second.page.state()).toBe('THE RESULT');
    expect(second.runs).toEqual([]);
    expect(await new RunLedger(area).pendingRuns(CONV)).toEqual({});
  });

  it('its chip offers Insert and Copy: a click on Copy puts it on the clipboard, and it is owed no more', async () => {
    const area = memoryArea();
    const copied: string[] = [];
    const { h } = await notDelivered(area, copied);
    const chip = h.page.list.querySelector('[data-chatbridge-chip]')!;
    expect(chip.getAttribute('data-chatbridge-actions')?.split(' ')).toEqual(expect.arrayContaining(['insert', 'copy']));
    clickChip(roots, chip, 'copy');
    await until(() => copied.includes('THE RESULT'));
    await until(() => chip.getAttribute('data-chatbridge-note') === t('note.copiedByClick'));
    for (let i = 0; i < 100 && Object.keys(await new RunLedger(area).pendingRuns(CONV)).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await new RunLedger(area).pendingRuns(CONV)).toEqual({});
    expect(chip.getAttribute('data-chatbridge-actions')?.split(' ')).not.toContain('copy');
  });

  it('…and once the page shows a chat box, a click on Insert types it in there, unsent', async () => {
    const area = memoryArea();
    const { h } = await notDelivered(area, []);
    const chip = h.page.list.querySelector('[data-chatbridge-chip]')!;
    h.page.remountBox();
    document.body.lastElementChild!.prepend(h.page.textarea);
    // The page's own script clicks it (the chip's host is in the page): only the person's click counts.
    (roots.get(chip)!.querySelector('button[data-action="insert"]') as HTMLElement).click();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.page.state()).toBe('');
    clickChip(roots, chip, 'insert');
    await until(() => h.page.state() === 'THE RESULT');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.page.submitted).toEqual([]);
    expect(h.runs).toHaveLength(1);
    expect(await new RunLedger(area).pendingRuns(CONV)).toEqual({});
  });
});

describe('page: the blocks of a reply after a reload that came while they ran', () => {
  /** The tab's storage as its page sees it: once the tab reloads, the page that was in it writes nothing more (it is gone). */
  function tabArea(area: KeyValueArea): { area: KeyValueArea; gone(): void } {
    let gone = false;
    return {
      area: {
        get: (keys) => area.get(keys),
        set: async (items) => void (gone || (await area.set(items))),
        remove: async (keys) => void (gone || (await area.remove(keys))),
      },
      gone: () => void (gone = true),
    };
  }

  it('a block claimed with its reply but never sent (its turn had not come) offers Run, not Re-run; the one that ran shows its result', async () => {
    const area = memoryArea();
    const before = tabArea(area);
    let ended = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }),
      getRun: (runId: string): RunResponse => (ended ? { runId, status: 'done', resultText: 'RESULT ONE', auditId: 'a' } : { runId, status: 'running', resultText: '', auditId: 'a' }),
    };
    const first = start(buildPage(), { area: before.area, script, settings: { autoSubmit: false } });
    await twoBlocks(first);
    await until(() => chipStates().join() === 'running,queued');
    for (let i = 0; i < 100 && Object.keys(await new RunLedger(area).pendingRuns(CONV)).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const rows = first.page.list.innerHTML;

    // The tab reloads: its page is gone at once, and the first block's run ends meanwhile.
    before.gone();
    ended = true;
    const second = reload(rows, { area, script, settings: { autoSubmit: false } });
    await second.settle();
    await until(() => second.page.state() === 'RESULT ONE', 5_000);
    const chips = (): Element[] => Array.from(document.querySelectorAll('[data-chatbridge-chip]'));
    await until(() => chips()[1]?.getAttribute('data-chatbridge-actions') === 'run');
    expect(chips()[1]?.getAttribute('data-chatbridge-state')).toBe('ready');
    expect(second.runs).toEqual([]);

    // Loaded once more: the block that ran shows its run as it ended, with its result; the other still offers Run.
    const third = reload(rows, { area, script, settings: { autoSubmit: false } });
    await third.settle();
    await until(() => chips()[0]?.getAttribute('data-chatbridge-state') === 'done');
    expect(chips()[0]?.getAttribute('data-chatbridge-actions')).toBe('rerun');
    expect(third.ctl.records().flatMap((r) => r.blocks)[0]?.preview).toBe('RESULT ONE');
    await until(() => chips()[1]?.getAttribute('data-chatbridge-actions') === 'run');
    expect(third.runs).toEqual([]);
  });
});
