import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { UNSAVED_CONVERSATION_PREFIX } from '../../shared/conversation-key';
import type { Approval, RunResponse } from '../../extension/companion/api-types';
import { BackgroundRefusal } from '../../extension/messaging';
import { RunLedger } from '../../extension/scanner/blocks';
import { deepseek } from '../../extension/sites';
import { defineSite } from '../../extension/sites/define-site';
import { t } from '../../extension/ui/i18n';
import { useLocale } from './i18n-fake';
import {
  APPROVAL,
  LIST,
  READ,
  SERVE_PLAN,
  SERVE_PROGRAM,
  assistantRow,
  buildPage,
  catchChipRoots,
  chipStates,
  clickChip,
  controllers,
  deepseekReadingItsComposer,
  memoryArea,
  renderReply,
  start,
  stopPages,
  streamReply,
  tabStorage,
  until,
  useWebLocks,
  userRow,
  WRITE,
} from './page-harness';

/**
 * The content script's page logic end to end inside happy-dom: a DeepSeek-like page (virtual-list rows, a React-like
 * controlled textarea whose send control is disabled while the state is empty and turns into a stop button while a
 * reply streams), a fake background that records what would reach the companion, and a shared ledger area.
 */

afterEach(stopPages);

const roots = catchChipRoots();

describe('page: auto-run rules on a DeepSeek-like page', () => {
  it('a block already on the page at load is history: Run button, nothing runs', async () => {
    const page = buildPage();
    page.list.append(userRow('earlier'));
    const { row, answer } = assistantRow();
    renderReply(answer, ['old reply', { lang: 'mcp-request', code: READ }]);
    page.list.append(row);
    const h = start(page);
    h.clock.now += 10_000;
    await h.settle();
    await h.settle();
    expect(h.runs).toEqual([]);
    const chip = row.querySelector('[data-chatbridge-chip]')!;
    expect(chip.getAttribute('data-chatbridge-state')).toBe('ready');
    expect(chip.getAttribute('data-chatbridge-origin')).toBe('history');
    expect(chip.getAttribute('data-chatbridge-actions')).toBe('run');
  });

  it('on a site whose reasoning card reuses the message class, the outer message is the one read and run', async () => {
    // Claude, Qwen and Kimi nest message-like elements; this is the same page with that nesting.
    const { messages: _innermost, ...definition } = deepseek;
    const nested = defineSite({ ...definition, messageNesting: 'outermost' });
    const withCard = (row: HTMLElement): void => {
      const card = document.createElement('div');
      card.className = 'ds-message ds-think-content';
      card.innerHTML = '<div class="ds-markdown"><p>thinking about it</p></div>';
      row.prepend(card);
    };
    const page = buildPage();
    const old = assistantRow();
    withCard(old.row);
    renderReply(old.answer, ['old reply', { lang: 'mcp-request', code: READ }]);
    page.list.append(userRow('earlier'), old.row);
    const h = start(page, { site: nested });
    await h.settle();
    expect(chipStates(old.row)).toEqual(['ready']);

    page.list.append(userRow('do it'));
    const fresh = assistantRow();
    withCard(fresh.row);
    page.setGenerating(true);
    page.list.append(fresh.row);
    await h.settle();
    renderReply(fresh.answer, ['Listing.', { lang: 'mcp-request', code: LIST }]);
    h.clock.now += 50;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await until(() => page.submitted.length === 1);
    expect(h.runs.map((r) => r.text)).toEqual([`\`\`\`mcp-request\n${LIST}\n\`\`\``]);
  });

  it('a streamed reply runs once when it finishes; its result is typed in and sent', async () => {
    const h = start(buildPage());
    await streamReply(h, ['Reading the file.', { lang: 'mcp-request', code: READ }]);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs).toHaveLength(1);
    expect(h.runs[0]).toMatchObject({
      kind: 'mcp-request',
      text: '```mcp-request\n' + READ + '\n```',
      context: { site: 'deepseek', conversationId: '3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8' },
    });
    expect(h.page.submitted).toEqual(['RESULT[mcp-request:1]']);
    await until(() => chipStates().includes('done'));
    // More scans and time change nothing: it ran once.
    h.clock.now += 10_000;
    await h.settle();
    expect(h.runs).toHaveLength(1);
  });

  it('nothing runs while the reply streams, even once the block itself is complete', async () => {
    const h = start(buildPage());
    h.page.list.append(userRow('go'));
    const { row, answer } = assistantRow();
    h.page.setGenerating(true);
    h.page.list.append(row);
    await h.settle();
    renderReply(answer, [{ lang: 'mcp-request', code: READ }, 'and more text is still coming']);
    h.clock.now += 60_000;
    await h.settle();
    expect(h.runs).toEqual([]);
    expect(chipStates()).toEqual(['ready']);
  });

  it('reloading the page runs nothing again (history, and the ledger remembers)', async () => {
    const area = memoryArea();
    const first = start(buildPage(), { area });
    await streamReply(first, [{ lang: 'mcp-request', code: READ }]);
    await until(() => first.page.submitted.length === 1);
    const html = first.page.list.outerHTML;
    controllers.splice(0).forEach((c) => c.abort());

    const page = buildPage();
    page.list.outerHTML; // fresh composer
    page.list.innerHTML = new DOMParser().parseFromString(html, 'text/html').body.firstElementChild!.innerHTML;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const second = start(page, { area });
    second.clock.now += 10_000;
    await second.settle();
    await second.settle();
    expect(second.runs).toEqual([]);
    await until(() => page.list.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-actions') === 'rerun');
  });

  it('a run still going when the page reloads is delivered after the reload, though the virtual list mounts fewer rows', async () => {
    const area = memoryArea();
    let done = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-long', status: 'running', resultText: '', auditId: 'a' }),
      getRun: (runId: string): RunResponse =>
        done ? { runId, status: 'done', resultText: 'LONG RESULT', auditId: 'a' } : { runId, status: 'running', resultText: '', auditId: 'a' },
    };
    const page = buildPage();
    // Earlier messages of a long conversation, as many as the virtual list has mounted.
    for (let i = 0; i < 3; i++) {
      const old = assistantRow();
      renderReply(old.answer, [`answer ${i}`]);
      page.list.append(userRow(`question ${i}`), old.row);
    }
    const first = start(page, { area, script });
    await first.settle();
    const row = await streamReply(first, ['Building it.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.runs.length === 1);
    // The run is owed to the chat (the ledger's pending runs) before the reload.
    const pendingKey = 'ledger:r:3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';
    for (let i = 0; i < 100 && !(await area.get([pendingKey]))[pendingKey]; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const user = row.previousElementSibling!.outerHTML;
    const reply = row.outerHTML;
    controllers.splice(0).forEach((c) => c.abort());

    // Reloaded: the list opens at the bottom and mounts only the last rows.
    done = true;
    const again = buildPage();
    again.list.innerHTML = user + reply;
    for (const chip of Array.from(again.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const second = start(again, { area, script });
    await second.settle();
    await until(() => again.submitted.length === 1, 5_000);
    expect(second.runs).toEqual([]);
    expect(again.submitted).toEqual(['LONG RESULT']);
  });

  it('the site turned off while a program runs and on again after it ended: its result is delivered once', async () => {
    const area = memoryArea();
    let done = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-long', status: 'running', resultText: '', auditId: 'a' }),
      getRun: (runId: string): RunResponse =>
        done ? { runId, status: 'done', resultText: 'LONG RESULT', auditId: 'a' } : { runId, status: 'running', resultText: '', auditId: 'a' },
    };
    const page = buildPage();
    const first = start(page, { area, script });
    await first.settle();
    await streamReply(first, ['Building it.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.runs.length === 1);
    const pendingKey = 'ledger:r:3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';
    for (let i = 0; i < 100 && !(await area.get([pendingKey]))[pendingKey]; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    // Off: the page stops (its chips go); the program goes on in the companion and ends.
    controllers.splice(0).forEach((c) => c.abort());
    await new Promise((resolve) => setTimeout(resolve, 100));
    done = true;
    // On again, in the same tab.
    const second = start(page, { area, script });
    await second.settle();
    await until(() => page.submitted.length === 1, 5_000);
    expect(page.submitted).toEqual(['LONG RESULT']);
    expect(first.runs).toHaveLength(1);
    expect(second.runs).toEqual([]);
    expect((await area.get([pendingKey]))[pendingKey]).toBeUndefined();
  });

  it('a result that ended while the person was in another conversation is delivered once when they come back to its own', async () => {
    const area = memoryArea();
    const h = start(buildPage(), { area, script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }), getRun: (runId) => ({ runId, status: 'done', resultText: 'FINAL', auditId: 'a' }) } });
    const row = await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.runs.length === 1);
    const rows = row.previousElementSibling!.outerHTML + row.outerHTML;
    // Another conversation; the run ends meanwhile (nothing lands there).
    h.navigate('/a/chat/s/33333333-2222-4333-8444-555555555555');
    h.page.list.replaceChildren(userRow('another question'));
    await h.settle();
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.page.submitted).toEqual([]);
    // Back to the first conversation: the site renders it in again.
    h.navigate('/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8');
    h.page.list.innerHTML = rows;
    for (const chip of Array.from(h.page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    await until(() => h.page.submitted.length === 1, 5_000);
    expect(h.page.submitted).toEqual(['FINAL']);
    expect(h.runs).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.page.submitted).toHaveLength(1);
  });

  it('…also when it ends as the person switches, before the page polled the new address: owed to its own, not lost', async () => {
    const area = memoryArea();
    const h = start(buildPage(), { area, script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }), getRun: (runId) => ({ runId, status: 'done', resultText: 'FINAL', auditId: 'a' }) } });
    const row = await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.runs.length === 1);
    const rows = row.previousElementSibling!.outerHTML + row.outerHTML;
    // The person opens another conversation, and the run ends in the same moment: the result reaches the deliverer
    // before the page's tick or address poll noticed the switch.
    h.navigate('/a/chat/s/33333333-2222-4333-8444-555555555555');
    h.page.list.replaceChildren(userRow('another question'));
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Still owed to its own conversation.
    expect(Object.keys((await area.get(['ledger:r:3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8']))['ledger:r:3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8'] ?? {})).toHaveLength(1);
    expect(h.page.submitted).toEqual([]);
    expect(h.page.state()).toBe('');
    // Back to the first conversation: the result it is owed is typed in there.
    h.navigate('/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8');
    h.page.list.innerHTML = rows;
    for (const chip of Array.from(h.page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    await until(() => h.page.submitted.length === 1, 3_000);
    expect(h.page.submitted).toEqual(['FINAL']);
    expect(h.runs).toHaveLength(1);
  });

  it('a run followed after a reload never lands in the conversation the person went to; it stays owed to its own', async () => {
    const area = memoryArea();
    let done = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-long', status: 'running', resultText: '', auditId: 'a' }),
      getRun: (runId: string): RunResponse =>
        done ? { runId, status: 'done', resultText: 'LONG RESULT', auditId: 'a' } : { runId, status: 'running', resultText: '', auditId: 'a' },
    };
    const page = buildPage();
    const first = start(page, { area, script });
    await first.settle();
    const row = await streamReply(first, ['Building it.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.runs.length === 1);
    const pendingKey = 'ledger:r:3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';
    for (let i = 0; i < 100 && !(await area.get([pendingKey]))[pendingKey]; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const user = row.previousElementSibling!.outerHTML;
    const reply = row.outerHTML;
    controllers.splice(0).forEach((c) => c.abort());

    // Reloaded while the program still runs: the page follows the run.
    const again = buildPage();
    again.list.innerHTML = user + reply;
    for (const chip of Array.from(again.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const second = start(again, { area, script });
    await second.settle();
    await until(() => chipStates().includes('running'));
    // The person opens another conversation; the run ends meanwhile.
    second.navigate('/a/chat/s/55555555-2222-4333-8444-555555555555');
    again.list.replaceChildren(userRow('another question'));
    await second.settle();
    done = true;
    second.push({ type: 'event', event: { type: 'run', run: { runId: 'run-long', status: 'done', resultText: 'LONG RESULT', auditId: 'a' } } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(again.textarea.value).toBe('');
    expect(again.submitted).toEqual([]);
    // Still owed to its own conversation: delivered when that one is open next.
    expect(Object.values(await new RunLedger(area).pendingRuns('3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8')).map((run) => run.runId)).toEqual(['run-long']);
  });

  it('a page reloaded while the companion cannot be reached keeps the run owed, and delivers its result once it is back', async () => {
    const area = memoryArea();
    let reachable = true;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-away', status: 'running', resultText: '', auditId: 'a' }),
      getRun: (runId: string): RunResponse => {
        // what the background answers while the companion is stopped (client.ts: UNREACHABLE)
        if (!reachable) throw new BackgroundRefusal('chatbridge companion is not reachable at http://127.0.0.1:1', 'UNREACHABLE');
        return { runId, status: 'done', resultText: 'RESULT AFTER RESTART', auditId: 'a' };
      },
    };
    const page = buildPage();
    const first = start(page, { area, script });
    await first.settle();
    const row = await streamReply(first, ['Building it.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.runs.length === 1);
    const conv = '3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';
    for (let i = 0; i < 100 && Object.keys(await new RunLedger(area).pendingRuns(conv)).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const rows = row.previousElementSibling!.outerHTML + row.outerHTML;
    controllers.splice(0).forEach((c) => c.abort());

    // The companion is stopped (restarting) when the tab is reloaded.
    reachable = false;
    const again = buildPage();
    again.list.innerHTML = rows;
    for (const chip of Array.from(again.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const second = start(again, { area, script });
    await second.settle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(Object.values(await new RunLedger(area).pendingRuns(conv)).map((run) => run.runId)).toEqual(['run-away']);
    expect(again.submitted).toEqual([]);

    // Back: the result goes in once, and nothing ran again.
    reachable = true;
    await until(() => again.submitted.length === 1, 8_000);
    expect(again.submitted).toEqual(['RESULT AFTER RESTART']);
    expect(second.runs).toEqual([]);
    expect(await new RunLedger(area).pendingRuns(conv)).toEqual({});
  });

  it('a page reloaded after the companion lost the run it owes says on the chip that the result is lost, and owes it no more', async () => {
    const area = memoryArea();
    let cleared = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-gone', status: 'running', resultText: '', auditId: 'a' }),
      getRun: (runId: string): RunResponse => {
        // the companion's data directory was reset: GET /v1/runs/<id> answers NOT_FOUND
        if (cleared) throw new BackgroundRefusal(`no run "${runId}"`, 'NOT_FOUND');
        return { runId, status: 'running', resultText: '', auditId: 'a' };
      },
    };
    const first = start(buildPage(), { area, script });
    await first.settle();
    const row = await streamReply(first, ['Building it.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.runs.length === 1);
    const conv = '3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';
    for (let i = 0; i < 100 && Object.keys(await new RunLedger(area).pendingRuns(conv)).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const rows = row.previousElementSibling!.outerHTML + row.outerHTML;
    controllers.splice(0).forEach((c) => c.abort());

    cleared = true;
    const again = buildPage();
    again.list.innerHTML = rows;
    for (const chip of Array.from(again.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const second = start(again, { area, script });
    await second.settle();
    await until(() => chipStates().includes('failed'));
    expect(document.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-note')).toBe(t('note.runUnknown'));
    expect(await new RunLedger(area).pendingRuns(conv)).toEqual({});
    expect(again.submitted).toEqual([]);
    expect(second.runs).toEqual([]);
  });

  it('a reply streamed to two browser profiles paired with one companion: the one posting second types nothing in, its chip shows the result', async () => {
    // The companion's answer to a block it already had (its run key): the earlier run, marked reused.
    const posted = new Set<string>();
    const script = {
      respond: (run: { text: string }): RunResponse => {
        const reused = posted.has(run.text);
        posted.add(run.text);
        return { runId: 'run-shared', status: 'done', resultText: 'SHARED RESULT', auditId: 'a', ...(reused ? { reused: true } : {}) };
      },
    };
    // Each profile has its own ledger.
    const first = start(buildPage(), { area: memoryArea(), script });
    await first.settle();
    await streamReply(first, ['Reading.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.page.submitted.length === 1);
    controllers.splice(0).forEach((c) => c.abort());

    const area = memoryArea();
    const second = start(buildPage(), { area, script });
    await second.settle();
    await streamReply(second, ['Reading.', { lang: 'mcp-request', code: READ }]);
    await until(() => chipStates().includes('done'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(second.runs).toHaveLength(1);
    expect(second.page.submitted).toEqual([]);
    expect(second.page.textarea.value).toBe('');
    expect(await new RunLedger(area).pendingRuns('3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8')).toEqual({});
  });

  it('two calls in one reply run in order and go back in ONE message', async () => {
    const h = start(buildPage());
    await streamReply(h, [{ lang: 'mcp-request', code: READ }, 'then', { lang: 'mcp-request', code: LIST }]);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + READ + '\n```', '```mcp-request\n' + LIST + '\n```']);
    expect(h.page.submitted).toEqual(['RESULT[mcp-request:1]\n\nRESULT[mcp-request:2]']);
  });

  it('all Axon statements of a reply are sent as ONE run', async () => {
    const h = start(buildPage());
    await streamReply(h, [
      { lang: 'act', code: 'write_file' },
      { lang: 'path', code: 'a.txt' },
      { lang: 'content', code: 'hello' },
      { lang: 'act', code: 'write_file' },
      { lang: 'path', code: 'b.txt' },
      { lang: 'content', code: 'world' },
    ]);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs).toHaveLength(1);
    expect(h.runs[0]!.kind).toBe('axon');
    expect(h.runs[0]!.text).toBe('```act\nwrite_file\n```\n\n```path\na.txt\n```\n\n```content\nhello\n```\n\n```act\nwrite_file\n```\n\n```path\nb.txt\n```\n\n```content\nworld\n```');
  });

  it('a new chat that gets its id while the first reply streams is the same conversation: it runs', async () => {
    const h = start(buildPage(), { pathname: '/' });
    h.page.list.append(userRow('hello'));
    const { row, answer } = assistantRow();
    h.page.setGenerating(true);
    h.page.list.append(row);
    await h.settle();
    h.navigate('/a/chat/s/11111111-2222-4333-8444-555555555555');
    renderReply(answer, [{ lang: 'mcp-request', code: READ }]);
    h.clock.now += 50;
    await h.settle();
    h.page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await until(() => h.page.submitted.length === 1);
    expect(h.ctl.conversationId()).toBe('11111111-2222-4333-8444-555555555555');
    expect(h.runs[0]!.context.conversationId).toBe('11111111-2222-4333-8444-555555555555');
  });

  it("a new chat the site opens by emptying the page, keeping the last conversation's address until the first send, runs its first reply under its own id", async () => {
    const page = buildPage();
    page.list.append(userRow('an old question'));
    const old = assistantRow();
    renderReply(old.answer, ['an old answer']);
    page.list.append(old.row);
    const h = start(page);
    h.clock.now += 10_000;
    await h.settle();
    // "New chat": the list empties, the address stays; the person sends, and the site gives the chat its address.
    page.list.replaceChildren();
    h.clock.now += 5_000;
    await h.settle();
    page.list.append(userRow('do it'));
    h.clock.now += 100;
    await h.settle();
    h.navigate('/a/chat/s/99999999-2222-4333-8444-555555555555');
    const { row, answer } = assistantRow();
    page.setGenerating(true);
    page.list.append(row);
    await h.settle();
    renderReply(answer, ['Reading it.']);
    h.clock.now += 400;
    await h.settle();
    renderReply(answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    h.clock.now += 400;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await until(() => page.submitted.length === 1);
    expect(h.runs.map((r) => r.context.conversationId)).toEqual(['99999999-2222-4333-8444-555555555555']);
  });

  it('…while a reply of a chat begun in the page, ending after the person opened another conversation, runs nothing there', async () => {
    const h = start(buildPage());
    h.page.list.append(userRow('do it'));
    const { row, answer } = assistantRow();
    h.page.setGenerating(true);
    h.page.list.append(row);
    await h.settle();
    renderReply(answer, ['Reading it.']);
    h.clock.now += 400;
    await h.settle();
    // The person opens another conversation; the site changes the address before it draws that conversation.
    h.navigate('/a/chat/s/99999999-2222-4333-8444-555555555555');
    renderReply(answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    h.clock.now += 400;
    await h.settle();
    h.page.setGenerating(false);
    h.clock.now += 2_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual([]);
  });

  it('a chat without an id yet sends a key the companion grants nothing conversation-wide for, its own in each tab', async () => {
    const keys: string[] = [];
    for (let chat = 0; chat < 2; chat++) {
      const h = start(buildPage(), { pathname: '/' });
      h.page.list.append(userRow(`question ${chat}`));
      const { row, answer } = assistantRow();
      h.page.setGenerating(true);
      h.page.list.append(row);
      renderReply(answer, [{ lang: 'mcp-request', code: READ }]);
      h.clock.now += 50;
      await h.settle();
      h.page.setGenerating(false);
      h.clock.now += 500;
      await h.settle();
      await until(() => h.runs.length === 1);
      keys.push(h.runs[0]!.context.conversationId);
      stopPages();
      document.body.replaceChildren();
    }
    for (const key of keys) expect(key.startsWith(`${UNSAVED_CONVERSATION_PREFIX}/#`)).toBe(true);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('a new chat reloaded while its block runs is the same chat: the run is delivered after the reload', async () => {
    const area = memoryArea();
    const tab = tabStorage();
    let done = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-long', status: 'running', resultText: '', auditId: 'a' }),
      getRun: (runId: string): RunResponse =>
        done ? { runId, status: 'done', resultText: 'LONG RESULT', auditId: 'a' } : { runId, status: 'running', resultText: '', auditId: 'a' },
    };
    const first = start(buildPage(), { area, script, pathname: '/', tabStorage: tab });
    const row = await streamReply(first, ['Building it.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.runs.length === 1);
    const conversation = first.runs[0]!.context.conversationId;
    const pendingKey = `ledger:r:${conversation}`;
    for (let i = 0; i < 100 && !(await area.get([pendingKey]))[pendingKey]; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const html = row.previousElementSibling!.outerHTML + row.outerHTML;
    stopPages();

    done = true;
    const again = buildPage();
    again.list.innerHTML = html;
    for (const chip of Array.from(again.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const second = start(again, { area, script, pathname: '/', tabStorage: tab });
    await second.settle();
    await until(() => again.submitted.length === 1, 5_000);
    expect(second.runs).toEqual([]);
    expect(again.submitted).toEqual(['LONG RESULT']);
  });

  it('a new chat whose page crashed while its block ran, reloaded then, is the same chat: the run is delivered after the reload', async () => {
    const locks = useWebLocks();
    const area = memoryArea();
    const tab = tabStorage();
    let done = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-long', status: 'running', resultText: '', auditId: 'a' }),
      getRun: (runId: string): RunResponse =>
        done ? { runId, status: 'done', resultText: 'LONG RESULT', auditId: 'a' } : { runId, status: 'running', resultText: '', auditId: 'a' },
    };
    const first = start(buildPage(), { area, script, pathname: '/', tabStorage: tab });
    const row = await streamReply(first, ['Building it.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.runs.length === 1);
    const conversation = first.runs[0]!.context.conversationId;
    const pendingKey = `ledger:r:${conversation}`;
    for (let i = 0; i < 100 && !(await area.get([pendingKey]))[pendingKey]; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const html = row.previousElementSibling!.outerHTML + row.outerHTML;
    // The renderer crashes: no pagehide runs, so the tab's storage keeps what the live page had written; the browser
    // lets go of the page's Web Locks.
    const leftByCrash = tab.duplicate();
    stopPages();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await locks.query()).held).toEqual([]);

    done = true;
    const again = buildPage();
    again.list.innerHTML = html;
    for (const chip of Array.from(again.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const second = start(again, { area, script, pathname: '/', tabStorage: leftByCrash });
    await second.settle();
    await until(() => again.submitted.length === 1, 5_000);
    expect(second.runs).toEqual([]);
    expect(again.submitted).toEqual(['LONG RESULT']);
  });

  it('a tab the browser duplicated from a new chat (its storage copied) opens another new chat: the block the first tab ran there runs in the copy too', async () => {
    const locks = useWebLocks();
    const area = memoryArea();
    const tab = tabStorage();
    const first = start(buildPage(), { area, pathname: '/', tabStorage: tab });
    await streamReply(first, [{ lang: 'mcp-request', code: READ }]);
    await until(() => first.page.submitted.length === 1);
    // Duplicated while the first tab's page runs: the copy shows the site's new chat at the same address, and the first
    // tab's page goes on in its own tab.
    const copy = tab.duplicate();
    onTestFinished(locks.heldElsewhere());
    stopPages();
    document.body.replaceChildren();
    const second = start(buildPage(), { area, pathname: '/', tabStorage: copy });
    await second.settle();
    second.clock.now += 10_000;
    await streamReply(second, [{ lang: 'mcp-request', code: READ }]);
    await until(() => second.page.submitted.length === 1);
    expect(second.runs).toHaveLength(1);
    expect(second.runs[0]!.context.conversationId).not.toBe(first.runs[0]!.context.conversationId);
  });

  it('a new chat that got its id while its block ran, reloaded then: the run is delivered after the reload and the block shows it ran', async () => {
    const area = memoryArea();
    let done = false;
    const script = {
      respond: (): RunResponse => ({ runId: 'run-long', status: 'running', resultText: '', auditId: 'a' }),
      getRun: (runId: string): RunResponse =>
        done ? { runId, status: 'done', resultText: 'LONG RESULT', auditId: 'a' } : { runId, status: 'running', resultText: '', auditId: 'a' },
    };
    const first = start(buildPage(), { area, script, pathname: '/' });
    const row = await streamReply(first, ['Building it.', { lang: 'mcp-request', code: READ }]);
    await until(() => first.runs.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The site names the chat once the reply has ended; the person reloads while the run goes on.
    first.navigate('/a/chat/s/11111111-2222-4333-8444-555555555555');
    await first.settle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const html = row.previousElementSibling!.outerHTML + row.outerHTML;
    stopPages();

    done = true;
    const again = buildPage();
    again.list.innerHTML = html;
    for (const chip of Array.from(again.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const second = start(again, { area, script, pathname: '/a/chat/s/11111111-2222-4333-8444-555555555555' });
    await second.settle();
    await until(() => again.submitted.length === 1, 5_000);
    expect(second.runs).toEqual([]);
    expect(again.submitted).toEqual(['LONG RESULT']);

    // Loaded once more: the block is one that ran (Re-run, which asks first), and nothing is delivered again.
    await new Promise((resolve) => setTimeout(resolve, 50));
    stopPages();
    const third = buildPage();
    third.list.innerHTML = html;
    for (const chip of Array.from(third.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    start(third, { area, script, pathname: '/a/chat/s/11111111-2222-4333-8444-555555555555' });
    await until(() => third.list.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-actions') === 'rerun');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(third.submitted).toEqual([]);
  });

  it('the next new chat opened in the same tab is another chat: the block the first one ran before it had its id runs there too', async () => {
    const h = start(buildPage(), { pathname: '/', tabStorage: tabStorage() });
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.page.submitted.length === 1);
    // The site names the chat once the reply has ended; later the person opens a new chat in the tab.
    h.navigate('/a/chat/s/11111111-2222-4333-8444-555555555555');
    await h.settle();
    h.navigate('/');
    h.page.list.replaceChildren();
    await h.settle();
    h.clock.now += 10_000;
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.page.submitted.length === 2);
    expect(h.runs).toHaveLength(2);
    expect(h.runs[1]!.context.conversationId).not.toBe(h.runs[0]!.context.conversationId);
  });

  it('switching conversation makes what renders in history, even a reply the site resumes streaming', async () => {
    const h = start(buildPage());
    h.navigate('/a/chat/s/99999999-2222-4333-8444-555555555555');
    await h.settle();
    h.page.list.replaceChildren(userRow('old question'));
    const { row, answer } = assistantRow();
    h.page.setGenerating(true);
    h.page.list.append(row);
    renderReply(answer, [{ lang: 'mcp-request', code: READ }]);
    h.clock.now += 100;
    await h.settle();
    h.page.setGenerating(false);
    h.clock.now += 5_000;
    await h.settle();
    await h.settle();
    expect(h.runs).toEqual([]);
    expect(document.querySelector('[data-chatbridge-chip]')!.getAttribute('data-chatbridge-origin')).toBe('history');
  });

  it('a virtual-list row re-mounted with an old block (scrolling) is not a new reply', async () => {
    const page = buildPage();
    page.list.append(userRow('earlier'));
    const { row, answer } = assistantRow();
    renderReply(answer, [{ lang: 'mcp-request', code: READ }]);
    page.list.append(row);
    const h = start(page);
    await h.settle();
    // Scrolled away and back: the row is unmounted, then mounted again as a new element at the end.
    row.remove();
    await h.settle();
    page.list.append(row.cloneNode(true));
    h.clock.now += 10_000;
    await h.settle();
    await h.settle();
    expect(h.runs).toEqual([]);
    // …and one re-mounted above a reply that is streaming is not that reply either.
    const { row: streaming, answer: streamingAnswer } = assistantRow();
    page.setGenerating(true);
    page.list.append(streaming);
    renderReply(streamingAnswer, ['thinking…']);
    await h.settle();
    const old = assistantRow();
    renderReply(old.answer, [{ lang: 'mcp-request', code: LIST }]);
    page.list.prepend(old.row);
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 10_000;
    await h.settle();
    await h.settle();
    expect(h.runs).toEqual([]);
  });

  it('old turns the list mounts while the person is scrolled up from a streaming reply (its row unmounted) are not that reply: nothing of them runs', async () => {
    const page = buildPage();
    page.list.append(userRow('earlier'));
    const first = assistantRow();
    renderReply(first.answer, ['ok']);
    page.list.append(first.row);
    const h = start(page);
    await h.settle();
    h.clock.now += 10_000;
    // The person sends; the reply streams.
    const user = userRow('now');
    const { row: streaming, answer: streamingAnswer } = assistantRow();
    page.list.append(user);
    page.setGenerating(true);
    page.list.append(streaming);
    renderReply(streamingAnswer, ['Reading']);
    await h.settle();
    h.clock.now += 50;
    renderReply(streamingAnswer, ['Reading it.']);
    await h.settle();
    // Scrolled up while it streams: the list unmounts the bottom rows and mounts older turns above the ones it shows.
    user.remove();
    streaming.remove();
    await h.settle();
    const older = assistantRow();
    renderReply(older.answer, [{ lang: 'mcp-request', code: LIST }]);
    page.list.prepend(userRow('long ago'), older.row);
    h.clock.now += 50;
    await h.settle();
    // The reply ends while the person reads up there.
    page.setGenerating(false);
    h.clock.now += 10_000;
    await h.settle();
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.runs).toEqual([]);
    expect(older.row.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-origin')).toBe('history');
  });

  it('…and where the list jumped up and shows none of the rows it showed (the person pressed Home): the old turns it mounts are still not that reply', async () => {
    const page = buildPage();
    page.list.append(userRow('earlier'));
    const first = assistantRow();
    renderReply(first.answer, ['ok']);
    page.list.append(first.row);
    const h = start(page);
    await h.settle();
    h.clock.now += 10_000;
    page.list.append(userRow('now'));
    const { row: streaming, answer: streamingAnswer } = assistantRow();
    page.setGenerating(true);
    page.list.append(streaming);
    renderReply(streamingAnswer, ['Reading']);
    await h.settle();
    h.clock.now += 50;
    renderReply(streamingAnswer, ['Reading it.']);
    await h.settle();
    // The list now shows the conversation's first turns only, each body drawn a render after its row.
    const older = assistantRow();
    page.list.replaceChildren(userRow('long ago'), older.row);
    await h.settle();
    renderReply(older.answer, [{ lang: 'mcp-request', code: LIST }]);
    h.clock.now += 50;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 10_000;
    await h.settle();
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.runs).toEqual([]);
  });

  it('a list drawn anew while a reply streams (every row a new element) still runs that reply once it ends', async () => {
    const page = buildPage();
    page.list.append(userRow('earlier'));
    const first = assistantRow();
    renderReply(first.answer, ['ok']);
    page.list.append(first.row);
    const h = start(page);
    await h.settle();
    h.clock.now += 10_000;
    page.list.append(userRow('now'));
    const { row: streaming, answer: streamingAnswer } = assistantRow();
    page.setGenerating(true);
    page.list.append(streaming);
    renderReply(streamingAnswer, ['Reading']);
    await h.settle();
    h.clock.now += 50;
    renderReply(streamingAnswer, ['Reading it.']);
    await h.settle();
    const drawn = { first: assistantRow(), reply: assistantRow() };
    renderReply(drawn.first.answer, ['ok']);
    page.list.replaceChildren(userRow('earlier'), drawn.first.row, userRow('now'), drawn.reply.row);
    await h.settle();
    renderReply(drawn.reply.answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    h.clock.now += 50;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 10_000;
    await h.settle();
    await until(() => h.runs.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + READ + '\n```']);
  });

  it.each([
    ['a table, its rows written as text while it streamed', ['| file | size |', '|---|---|', '| a.txt | 3 |'], () => {
      const table = document.createElement('table');
      table.innerHTML = '<thead><tr><th>file</th><th>size</th></tr></thead><tbody><tr><td>a.txt</td><td>3</td></tr></tbody>';
      return table;
    }],
    ['a link, its address written out while it streamed', ['See [the notes](https://example.com/notes'], () => {
      const p = document.createElement('p');
      p.className = 'ds-markdown-paragraph';
      p.innerHTML = 'See <a href="https://example.com/notes">the notes</a> first.';
      return p;
    }],
  ] as const)('a reply whose row the list draws anew while it streams, its start finished as %s, still runs once it ends', async (_name, streamed, finished) => {
    const page = buildPage();
    page.list.append(userRow('earlier'));
    const first = assistantRow();
    renderReply(first.answer, ['ok']);
    page.list.append(first.row);
    const h = start(page);
    await h.settle();
    h.clock.now += 10_000;
    page.list.append(userRow('now'));
    const { row: streaming, answer: streamingAnswer } = assistantRow();
    page.setGenerating(true);
    page.list.append(streaming);
    renderReply(streamingAnswer, [streamed[0]!.slice(0, 6)]);
    await h.settle();
    h.clock.now += 50;
    renderReply(streamingAnswer, [...streamed]);
    await h.settle();
    // The list draws every row anew; the reply's start is drawn finished now.
    const drawn = { first: assistantRow(), reply: assistantRow() };
    renderReply(drawn.first.answer, ['ok']);
    page.list.replaceChildren(userRow('earlier'), drawn.first.row, userRow('now'), drawn.reply.row);
    await h.settle();
    renderReply(drawn.reply.answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    drawn.reply.answer.prepend(finished());
    h.clock.now += 50;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 10_000;
    await h.settle();
    await until(() => h.runs.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + READ + '\n```']);
  });

  it('a user message full of example blocks (a pasted seed prompt) runs nothing and gets no chip', async () => {
    const h = start(buildPage());
    h.page.list.append(userRow('```mcp-request\n' + READ + '\n```'));
    h.clock.now += 10_000;
    await h.settle();
    await h.settle();
    expect(h.runs).toEqual([]);
    expect(chipStates()).toEqual([]);
  });

  it('with auto-run off a streamed block waits for a Run click', async () => {
    const h = start(buildPage(), { settings: { autoRun: false } });
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    h.clock.now += 10_000;
    await h.settle();
    expect(h.runs).toEqual([]);
    expect(chipStates()).toEqual(['ready']);
    expect(document.querySelector('[data-chatbridge-chip]')!.getAttribute('data-chatbridge-origin')).toBe('live');
  });

  it('with auto-submit off the result is inserted but not sent', async () => {
    const h = start(buildPage(), { settings: { autoSubmit: false } });
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.page.state() === 'RESULT[mcp-request:1]');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(h.page.submitted).toEqual([]);
  });

  it("never overwrites the person's draft: the result waits until the box is empty", async () => {
    const h = start(buildPage());
    h.page.type('my own half-written question');
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.runs.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.page.state()).toBe('my own half-written question');
    expect(h.page.submitted).toEqual([]);
    await until(() => document.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-note')?.includes('draft') === true);
    h.page.type('');
    await until(() => h.page.submitted.length === 1, 3_000);
    expect(h.page.submitted).toEqual(['RESULT[mcp-request:1]']);
  });

  it('the site draws its chat box anew while a result waits for the draft: the result goes into the box on the page once the draft is gone, and is sent', async () => {
    const h = start(buildPage());
    h.page.type('my own half-written question');
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => document.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-note') === t('note.draft'));
    // A re-render: the box taken out still holds the draft, the one drawn in its place holds the page's state.
    const old = h.page.textarea;
    h.page.remountBox();
    h.page.type('');
    await until(() => h.page.submitted.length === 1, 3_000);
    expect(h.page.submitted).toEqual(['RESULT[mcp-request:1]']);
    expect(old.value).toBe('my own half-written question');
  });

  it('a call a reply writes twice in a row runs once by itself; the second says why and runs again on Re-run', async () => {
    const h = start(buildPage());
    const again = READ.replace('call-001', 'call-002');
    await streamReply(h, ['Reading it.', { lang: 'mcp-request', code: READ }, 'Reading it.', { lang: 'mcp-request', code: again }]);
    await until(() => h.page.submitted.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + READ + '\n```']);
    const second = Array.from(document.querySelectorAll('[data-chatbridge-chip]'))[1]!;
    expect(second.getAttribute('data-chatbridge-state')).toBe('ready');
    expect(second.getAttribute('data-chatbridge-note')).toBe(t('note.repeatedInReply'));
    expect(second.getAttribute('data-chatbridge-actions')).toBe('rerun');
    // Re-run asks first (a second click), then the call runs again as a new request.
    clickChip(roots, second, 'rerun');
    clickChip(roots, second, 'rerun');
    await until(() => h.runs.length === 2);
    expect(h.runs[1]!.text).toBe('```mcp-request\n' + again + '\n```');
    expect(h.runs[1]!.context.messageKey).not.toBe(h.runs[0]!.context.messageKey);
  });

  it('a call a reply writes twice in a row in two formats (an mcp-request, then the same call as a flycode-call) runs once by itself', async () => {
    const h = start(buildPage());
    const same = '{"id":"call-002","tool":"fs.read","args":{"path":"README.md"}}';
    const other = '{"id":"call-003","tool":"fs.read","args":{"path":"NOTES.md"}}';
    await streamReply(h, ['Reading it.', { lang: 'mcp-request', code: READ }, 'Or, in the other format:', { lang: 'flycode-call', code: same }, { lang: 'flycode-call', code: other }]);
    await until(() => h.page.submitted.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + READ + '\n```', '```flycode-call\n' + other + '\n```']);
    const second = Array.from(document.querySelectorAll('[data-chatbridge-chip]'))[1]!;
    expect(second.getAttribute('data-chatbridge-note')).toBe(t('note.repeatedInReply'));
    expect(second.getAttribute('data-chatbridge-actions')).toBe('rerun');
  });

  it("the person edits their message: the new branch's reply, at the same place and writing the same call, runs it and sends its result", async () => {
    const h = start(buildPage());
    await streamReply(h, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await until(() => h.page.submitted.length === 1);
    // The person edits their first message: the site takes that branch away and writes the new one from there.
    h.page.list.replaceChildren();
    await h.settle();
    h.page.list.append(userRow('read it and list the TODOs'));
    const { row, answer } = assistantRow();
    h.page.setGenerating(true);
    h.page.list.append(row);
    await h.settle();
    renderReply(answer, ['Reading it again.', { lang: 'mcp-request', code: READ }]);
    h.clock.now += 50;
    await h.settle();
    h.page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await until(() => h.page.submitted.length === 2);
    expect(h.runs).toHaveLength(2);
    // a run of its own in the companion too (the companion answers a block it ran with that run)
    expect(h.runs[1]!.context.messageKey).not.toBe(h.runs[0]!.context.messageKey);
    expect(chipStates()).toEqual(['done']);
  });

  it('a result typed in while the next reply streams, whose branch the person then edits away, waits in the box unsent', async () => {
    // (A module that reads its composer types a result in while a reply streams; DeepSeek's own keeps one out of the box
    // until the reply ends: page-deliver-attachment.test.ts.)
    const h = start(buildPage(), {
      site: deepseekReadingItsComposer,
      script: { respond: (_run, n) => ({ runId: `run-${n}`, status: 'running', resultText: '', auditId: 'a' }) },
    });
    await streamReply(h, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await until(() => h.runs.length === 1);
    // The person asks something else meanwhile; its reply streams when the slow read ends.
    h.page.list.append(userRow('and meanwhile?'));
    const { row, answer } = assistantRow();
    h.page.setGenerating(true);
    h.page.list.append(row);
    renderReply(answer, ['Meanwhile']);
    await h.settle();
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'OLD RESULT', auditId: 'a' } } });
    await until(() => h.page.state() === 'OLD RESULT');
    // The person edits their first message: the site draws the new branch in place of all of it.
    h.page.list.replaceChildren(userRow('something else'));
    const next = assistantRow();
    h.page.list.append(next.row);
    renderReply(next.answer, ['Something else.']);
    await h.settle();
    h.page.setGenerating(false);
    h.clock.now += 2_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.page.submitted).toEqual([]);
    expect(h.page.state()).toBe('OLD RESULT');
  });

  it('a call a reply writes three times in a row runs once by itself: each copy after the first says why', async () => {
    const h = start(buildPage());
    const copies = ['call-001', 'call-002', 'call-003'].map((id) => ({ lang: 'mcp-request', code: READ.replace('call-001', id) }));
    await streamReply(h, copies);
    await until(() => h.page.submitted.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + READ + '\n```']);
    const notes = Array.from(document.querySelectorAll('[data-chatbridge-chip]'), (chip) => chip.getAttribute('data-chatbridge-note'));
    expect(notes.slice(1)).toEqual([t('note.repeatedInReply'), t('note.repeatedInReply')]);
  });

  it("a call written twice in a row runs once in all the conversation's tabs: the tab that finds the first copy ran in another does not run the second", async () => {
    const area = memoryArea();
    const copies = [{ lang: 'mcp-request', code: READ }, { lang: 'mcp-request', code: READ.replace('call-001', 'call-002') }];
    const here = start(buildPage(), { area });
    await streamReply(here, copies);
    await until(() => here.page.submitted.length === 1);
    expect(here.runs).toHaveLength(1);
    stopPages();

    // The conversation's other tab, which the site streamed the same reply to.
    const other = start(buildPage(), { area });
    await streamReply(other, copies);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await other.settle();
    expect(other.runs).toEqual([]);
    const notes = Array.from(document.querySelectorAll('[data-chatbridge-chip]'), (chip) => chip.getAttribute('data-chatbridge-note'));
    expect(notes).toEqual([t('note.alreadyRan'), t('note.repeatedInReply')]);
  });

  it('the same call again after another one in the reply (read, write, read again) runs each by itself', async () => {
    const h = start(buildPage());
    await streamReply(h, [{ lang: 'mcp-request', code: READ }, { lang: 'mcp-request', code: LIST }, { lang: 'mcp-request', code: READ }]);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs).toHaveLength(3);
  });

  it('the loop guard stops the same call coming back again and again', async () => {
    const h = start(buildPage());
    for (let i = 0; i < 4; i++) {
      await streamReply(h, [{ lang: 'mcp-request', code: READ.replace('call-001', `call-00${i}`) }]);
      await until(() => h.page.submitted.length === Math.min(i + 1, 3));
    }
    expect(h.runs).toHaveLength(3);
    const last = Array.from(document.querySelectorAll('[data-chatbridge-chip]')).at(-1)!;
    expect(last.getAttribute('data-chatbridge-note')).toMatch(/same call came 3 times/);
  });
});


const pending = (): RunResponse => ({
  runId: 'run-1',
  status: 'pending',
  resultText: 'PENDING[ap-1]',
  auditId: 'a',
  pendingConfirmationId: 'ap-1',
});

describe('page: approvals and long runs', () => {
  it('a write waits for approval on the chip; the real result is sent once it is decided', async () => {
    const h = start(buildPage(), { script: { respond: pending, approvals: [APPROVAL] } });
    await streamReply(h, [{ lang: 'mcp-request', code: WRITE }]);
    await until(() => chipStates().includes('approval'));
    const chip = document.querySelector('[data-chatbridge-chip]')!;
    const buttons = JSON.parse(chip.getAttribute('data-chatbridge-buttons')!) as Array<{ action: string }>;
    expect(buttons.map((b) => b.action)).toEqual(['stop', 'approve', 'approve-conversation', 'deny']);
    expect(h.page.submitted).toEqual([]);
    // Decided (in the popup or by a trusted click): the companion pushes the final run.
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN', auditId: 'a' } } });
    await until(() => h.page.submitted.length === 1);
    expect(h.page.submitted).toEqual(['WRITTEN']);
    expect(chip.getAttribute('data-chatbridge-state')).toBe('done');
  });

  it("on a Chinese screen the chat's card words the approval's title and hidden-characters warning in Chinese", async () => {
    useLocale('zh_CN');
    const worded: Approval = {
      ...APPROVAL,
      preview: {
        ...APPROVAL.preview,
        warning: 'This holds a character you could not see (U+202E RIGHT-TO-LEFT OVERRIDE); …',
        hidden: [{ codePoint: 0x202e, count: 1 }],
        title: 'Overwrite /w/a⟨U+202E⟩.txt',
        heading: { kind: 'write', mode: 'overwrite', path: '/w/a⟨U+202E⟩.txt' },
      },
    };
    const h = start(buildPage(), { script: { respond: pending, approvals: [worded] } });
    await streamReply(h, [{ lang: 'mcp-request', code: WRITE }]);
    await until(() => chipStates().includes('approval'));
    const card = roots.get(document.querySelector('[data-chatbridge-chip]')!)!.querySelector('.card')!;
    expect(card.querySelector('.title')!.textContent).toBe('fs.write: 覆盖 /w/a⟨U+202E⟩.txt');
    expect(card.querySelector('.warning')!.textContent).toBe(
      '这里有 1 个你看不见、或会改变周围文字显示方式的字符（U+202E 从右到左强制）；每个都在所在位置显示为 ⟨U+…⟩。实际运行时它们原样保留。',
    );
  });

  it("the chat's card names an MCP server tool's arguments so, not changes: the box that scrolls is read by that name", async () => {
    const mcp: Approval = {
      ...APPROVAL,
      tool: 'notes.add',
      preview: { title: 'notes: add', paths: [], diff: '{\n  "text": "hi"\n}', heading: { kind: 'mcp', server: 'notes', tool: 'add' } },
    };
    const h = start(buildPage(), { script: { respond: pending, approvals: [mcp] } });
    await streamReply(h, [{ lang: 'mcp-request', code: WRITE }]);
    await until(() => chipStates().includes('approval'));
    const box = roots.get(document.querySelector('[data-chatbridge-chip]')!)!.querySelector('.card pre')!;
    expect(box.textContent).toContain('"text": "hi"');
    expect(box.getAttribute('aria-label')).toBe('The arguments the tool is called with');
  });

  it('in a chat without a conversation id the chip offers no "approve for this conversation" (the companion grants nothing there)', async () => {
    const unsaved = { ...APPROVAL, conversationId: `${UNSAVED_CONVERSATION_PREFIX}/` };
    const h = start(buildPage(), { pathname: '/', script: { respond: pending, approvals: [unsaved] } });
    await streamReply(h, [{ lang: 'mcp-request', code: WRITE }]);
    await until(() => chipStates().includes('approval'));
    const chip = document.querySelector('[data-chatbridge-chip]')!;
    const buttons = JSON.parse(chip.getAttribute('data-chatbridge-buttons')!) as Array<{ action: string }>;
    expect(buttons.map((b) => b.action)).toEqual(['stop', 'approve', 'deny']);
  });

  it('an approval decided in the side panel: the chat\'s card goes and its chip says the run goes on', async () => {
    const approvals = [APPROVAL];
    const h = start(buildPage(), { script: { respond: pending, approvals } });
    await streamReply(h, [{ lang: 'mcp-request', code: WRITE }]);
    await until(() => chipStates().includes('approval'));
    const chip = document.querySelector('[data-chatbridge-chip]')!;
    // an answer older than the approval (a poll that crossed its event) takes nothing away: the approval still waits
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'running', resultText: '', auditId: 'a' } } });
    await h.settle();
    expect(chip.getAttribute('data-chatbridge-state')).toBe('approval');
    expect(roots.get(chip)!.querySelector('.card')).not.toBeNull();
    // decided in the side panel: the companion waits for it no longer, and the run goes on
    approvals.splice(0);
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'running', resultText: '', auditId: 'a' } } });
    await until(() => chip.getAttribute('data-chatbridge-state') === 'running');
    await until(() => roots.get(chip)!.querySelector('.card') === null); // drawn once the chip held the state a moment
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN', auditId: 'a' } } });
    await until(() => h.page.submitted.length === 1);
    expect(chip.getAttribute('data-chatbridge-state')).toBe('done');
  });

  it('while the companion cannot be reached the chip says so and its Run and approval buttons do nothing; back, it shows where the run stands', async () => {
    const asked: string[] = [];
    const approvals = [APPROVAL];
    let companion: RunResponse | null = null; // null: not reachable
    const page = buildPage();
    page.list.append(userRow('earlier'));
    const old = assistantRow();
    renderReply(old.answer, ['old reply', { lang: 'mcp-request', code: READ }]);
    page.list.append(old.row);
    const h = start(page, {
      script: {
        respond: pending,
        approvals,
        asked: (type) => asked.push(type),
        getRun: () => {
          if (!companion) throw new Error('companion not reachable');
          return companion;
        },
      },
    });
    const row = await streamReply(h, [{ lang: 'mcp-request', code: WRITE }]);
    const chip = row.querySelector('[data-chatbridge-chip]')!;
    const history = old.row.querySelector('[data-chatbridge-chip]')!;
    await until(() => chip.getAttribute('data-chatbridge-state') === 'approval');

    h.push({ type: 'connection', connection: { state: 'disconnected', companionUrl: 'http://127.0.0.1:1' } });
    await until(() => chip.hasAttribute('data-chatbridge-away'));
    const root = roots.get(chip)!;
    // the connection badge's words: why, and what to do
    const why = 'The companion does not answer: start it on this computer (npm start in the chatbridge folder); chatbridge connects again by itself';
    expect(`${why}.`).toBe(t('conn.disconnectedTip'));
    expect(root.querySelector('.away')?.textContent).toBe(t('chipView.decideWhenConnected', [why]));
    for (const action of ['approve', 'approve-conversation', 'deny']) {
      const button = root.querySelector(`button[data-action="${action}"]`)!;
      expect(button.getAttribute('aria-disabled'), action).toBe('true');
      expect(button.getAttribute('aria-describedby'), action).toBe('away');
      clickChip(roots, chip, action);
    }
    expect(roots.get(history)!.querySelector('.away')?.textContent).toBe(`This cannot run now. ${why}.`);
    clickChip(roots, history, 'run');
    await h.settle();
    expect(asked.filter((type) => type === 'decide' || type === 'run')).toEqual(['run']); // the streamed reply's own run
    expect(chip.getAttribute('data-chatbridge-state')).toBe('approval');
    expect(chip.getAttribute('data-chatbridge-note') ?? '').toBe('');

    // Meanwhile the approval was decided (another browser paired with the companion): back, the chip shows the run going on.
    companion = { runId: 'run-1', status: 'running', resultText: '', auditId: 'a' };
    approvals.splice(0);
    h.push({ type: 'connection', connection: { state: 'connected', companionUrl: 'http://127.0.0.1:1' } });
    await until(() => chip.getAttribute('data-chatbridge-state') === 'running');
    expect(chip.hasAttribute('data-chatbridge-away')).toBe(false);
    await until(() => root.querySelector('.card') === null); // drawn once the chip held the state a moment
    expect(roots.get(history)!.querySelector('button[data-action="run"]')!.hasAttribute('aria-disabled')).toBe(false);
  });

  it('an approval that expired while the companion could not be reached: back, its chip shows how the run ended', async () => {
    let companion: RunResponse | null = null;
    const h = start(buildPage(), {
      script: {
        respond: pending,
        approvals: [APPROVAL],
        getRun: () => {
          if (!companion) throw new Error('companion not reachable');
          return companion;
        },
      },
    });
    const row = await streamReply(h, [{ lang: 'mcp-request', code: WRITE }]);
    const chip = row.querySelector('[data-chatbridge-chip]')!;
    await until(() => chip.getAttribute('data-chatbridge-state') === 'approval');
    h.push({ type: 'connection', connection: { state: 'unpaired', companionUrl: 'http://127.0.0.1:1' } });
    await until(() => chip.hasAttribute('data-chatbridge-away'));
    companion = { runId: 'run-1', status: 'error', resultText: 'EXPIRED', auditId: 'a' };
    h.push({ type: 'connection', connection: { state: 'connected', companionUrl: 'http://127.0.0.1:1' } });
    await until(() => chip.getAttribute('data-chatbridge-state') === 'failed');
    expect(chip.hasAttribute('data-chatbridge-away')).toBe(false);
    expect(roots.get(chip)!.querySelector('.card')).toBeNull();
    await until(() => h.page.submitted.length === 1);
    expect(h.page.submitted).toEqual(['EXPIRED']);
  });

  it('nobody decides within the approval wait: the pending answer goes in, the real result follows', async () => {
    const h = start(buildPage(), { settings: { approvalWaitMs: 100 }, script: { respond: pending, approvals: [APPROVAL] } });
    await streamReply(h, [{ lang: 'mcp-request', code: WRITE }]);
    await until(() => h.page.submitted.length === 1);
    expect(h.page.submitted).toEqual(['PENDING[ap-1]']);
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' } } });
    await until(() => h.page.submitted.length === 2);
    expect(h.page.submitted[1]).toBe('WRITTEN LATER');
  });

  it('a decision that comes while a later block of the reply still runs: the pending answer goes in first, the real result after it', async () => {
    const h = start(buildPage(), {
      settings: { approvalWaitMs: 100 },
      script: {
        approvals: [APPROVAL],
        respond: (_run, n) => (n === 1 ? pending() : { runId: 'run-2', status: 'running', resultText: '', auditId: 'b' }),
      },
    });
    await streamReply(h, [{ lang: 'mcp-request', code: WRITE }, 'then', { lang: 'mcp-request', code: LIST }]);
    // the write's approval wait ran out (its pending answer is owed) and the second call is running
    await until(() => h.runs.length === 2);
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' } } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-2', status: 'done', resultText: 'LISTED', auditId: 'b' } } });
    await until(() => h.page.submitted.length === 2);
    // the model never reads "pending" for a call after it has read that call's result
    expect(h.page.submitted).toEqual(['PENDING[ap-1]\n\nLISTED', 'WRITTEN LATER']);
  });

  it('auto_coder runtime feedback carries only output new since the last feedback, then the final result', async () => {
    const h = start(buildPage(), {
      settings: { feedbackIntervalMs: 60 },
      script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }), programs: [SERVE_PROGRAM] },
    });
    // In a code block, as the page shows it verbatim: a plan in a plain paragraph never auto-runs (page-stop.test.ts).
    await streamReply(h, [{ lang: 'json', code: SERVE_PLAN }]);
    await until(() => h.runs.length === 1);
    expect(h.runs[0]!.kind).toBe('autocoder');
    h.push({ type: 'event', event: { type: 'program-output', programId: 'p1', name: 'serve', stream: 'stdout', chunk: 'first line\n', offset: 0 } });
    await until(() => h.page.submitted.length >= 1);
    const first = JSON.parse(h.page.submitted[0]!.replace(/^#####--\n/, '').replace(/\n--#####$/, ''));
    expect(first).toMatchObject({ type: 'program_runtime_feedback', programs: { serve: { name: 'serve', stdout: 'first line\n', stderr: '' } } });
    h.push({ type: 'event', event: { type: 'program-output', programId: 'p1', name: 'serve', stream: 'stdout', chunk: 'second\n', offset: 11 } });
    await until(() => h.page.submitted.some((text) => text.includes('second')));
    const second = h.page.submitted.find((text) => text.includes('second'))!;
    expect(second).not.toContain('first line');
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await until(() => h.page.submitted.includes('FINAL'));
  });

  it('a result still arrives when the chat got its id while the block ran (new chat, first send was ours)', async () => {
    const h = start(buildPage(), {
      pathname: '/',
      script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }) },
    });
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.runs.length === 1);
    h.navigate('/a/chat/s/22222222-2222-4333-8444-555555555555');
    await h.settle();
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await until(() => h.page.submitted.includes('FINAL'));
  });

  it('…and a reload under the id after it arrived delivers nothing again, and shows the block ran', async () => {
    const area = memoryArea();
    const script = {
      respond: (): RunResponse => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }),
      getRun: (runId: string): RunResponse => ({ runId, status: 'done', resultText: 'FINAL', auditId: 'a' }),
    };
    const h = start(buildPage(), { area, pathname: '/', script });
    const row = await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.runs.length === 1);
    h.navigate('/a/chat/s/22222222-2222-4333-8444-555555555555');
    await h.settle();
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await until(() => h.page.submitted.includes('FINAL'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const html = row.previousElementSibling!.outerHTML + row.outerHTML;
    stopPages();

    const page = buildPage();
    page.list.innerHTML = html;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    start(page, { area, script, pathname: '/a/chat/s/22222222-2222-4333-8444-555555555555' });
    await until(() => page.list.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-actions') === 'rerun');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(page.submitted).toEqual([]);
    expect(page.textarea.value).toBe('');
  });

  it('a result never crosses into another conversation the person switched to', async () => {
    const h = start(buildPage(), { script: { respond: () => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }) } });
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.runs.length === 1);
    h.navigate('/a/chat/s/33333333-2222-4333-8444-555555555555');
    await h.settle();
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.page.submitted).toEqual([]);
    expect(h.page.state()).toBe('');
  });

  it('a result decided after the approval wait never lands in the conversation the person switched to', async () => {
    const h = start(buildPage(), { settings: { approvalWaitMs: 100 }, script: { respond: pending, approvals: [APPROVAL] } });
    await streamReply(h, [{ lang: 'mcp-request', code: WRITE }]);
    await until(() => h.page.submitted.length === 1);
    expect(h.page.submitted).toEqual(['PENDING[ap-1]']);
    h.navigate('/a/chat/s/44444444-2222-4333-8444-555555555555');
    await h.settle();
    // decided in the side panel while the person reads the other conversation
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' } } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.page.submitted).toEqual(['PENDING[ap-1]']);
    expect(h.page.state()).toBe('');
  });

  it('a result decided after the approval wait, waiting for the person\'s draft when they switch away: owed to its own conversation, typed in there when they come back', async () => {
    const area = memoryArea();
    const h = start(buildPage(), {
      area,
      settings: { approvalWaitMs: 100 },
      script: { respond: pending, approvals: [APPROVAL], getRun: (runId) => ({ runId, status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' }) },
    });
    const row = await streamReply(h, [{ lang: 'mcp-request', code: WRITE }]);
    await until(() => h.page.submitted.length === 1);
    const rows = row.previousElementSibling!.outerHTML + row.outerHTML;
    // The person starts a question of their own; the approval is decided meanwhile, and its result waits for the box.
    h.page.type('my half-written question');
    h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'WRITTEN LATER', auditId: 'a' } } });
    await until(() => document.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-note') === t('note.draft'));
    // They open another conversation, with its own (empty) box.
    h.navigate('/a/chat/s/44444444-2222-4333-8444-555555555555');
    h.page.list.replaceChildren(userRow('another topic'));
    h.page.type('');
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(h.page.submitted).toEqual(['PENDING[ap-1]']);
    expect(h.page.state()).toBe('');
    // Back to the first: the result it is owed goes in there.
    h.navigate('/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8');
    h.page.list.innerHTML = rows;
    for (const chip of Array.from(h.page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    await until(() => h.page.submitted.length === 2, 3_000);
    expect(h.page.submitted).toEqual(['PENDING[ap-1]', 'WRITTEN LATER']);
  });

  it('a result waiting for the person\'s draft never lands in the conversation the person switched to', async () => {
    const h = start(buildPage());
    h.page.type('my half-written question');
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.runs.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The person opens another conversation: the site shows it, with its own (empty) chat box.
    h.navigate('/a/chat/s/33333333-2222-4333-8444-555555555555');
    h.page.list.replaceChildren(userRow('another topic'));
    h.page.type('');
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(h.page.submitted).toEqual([]);
    expect(h.page.state()).toBe('');
  });
});
