import { afterEach, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../extension/companion/api-types';
import { READ, assistantRow, buildPage, deepseekReadingItsComposer, memoryArea, renderReply, start, stopPages, streamReply, until, userRow, type Harness, type Page } from './page-harness';

/**
 * A result typed into the chat box and not sent yet (it waits for the reply the page is writing to end) is still owed
 * to the chat: a reload, or the person going to another conversation and back, delivers it again. Sites keep a
 * conversation's unsent text in its box across both: the result the box holds again is the one owed, typed in once and
 * sent once.
 */

afterEach(stopPages);

const script = {
  respond: (): RunResponse => ({ runId: 'run-1', status: 'running', resultText: '', auditId: 'a' }),
  getRun: (runId: string): RunResponse => ({ runId, status: 'done', resultText: 'FINAL', auditId: 'a' }),
};

/** A read runs long; the person asks something else meanwhile, and the read's result goes into the box while that reply streams. */
async function resultWaitsInTheBox(page: Page, area: ReturnType<typeof memoryArea>): Promise<Harness> {
  const h = start(page, { area, site: deepseekReadingItsComposer, script });
  await streamReply(h, ['Reading it.', { lang: 'mcp-request', code: READ }]);
  await until(() => h.runs.length === 1);
  page.list.append(userRow('and meanwhile?'));
  const { row, answer } = assistantRow();
  page.setGenerating(true);
  page.list.append(row);
  renderReply(answer, ['Meanwhile']);
  await h.settle();
  h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' } } });
  await until(() => page.state() === 'FINAL');
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(page.submitted).toEqual([]);
  return h;
}

describe('page: a result left unsent in the box, which the site keeps there', () => {
  it('reloaded while it waited: the box the site restored is sent once — not taken for a draft and the result typed in again after it', async () => {
    const area = memoryArea();
    const page = buildPage();
    await resultWaitsInTheBox(page, area);
    // The tab reloads; the site restores the conversation's unsent text into its box.
    stopPages();
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    const after = start(page, { area, site: deepseekReadingItsComposer, script });
    await after.settle();
    page.setGenerating(false);
    after.clock.now += 5_000;
    await after.settle();
    await until(() => page.submitted.length === 1);
    // The person presses send on whatever the box holds: there is nothing more of it to send.
    page.send.click();
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(page.submitted).toEqual(['FINAL']);
    expect(page.state()).toBe('');
  });

  it('the person went to another conversation and back: the result the site kept in its box is not typed in a second time', async () => {
    const area = memoryArea();
    const page = buildPage();
    const h = await resultWaitsInTheBox(page, area);
    const rows = page.list.innerHTML;
    // Another conversation, with its own (empty) box; its reply is not being written.
    h.navigate('/a/chat/s/33333333-2222-4333-8444-555555555555');
    page.list.replaceChildren(userRow('another question'));
    page.type('');
    page.setGenerating(false);
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(page.submitted).toEqual([]);
    expect(page.state()).toBe('');
    // Back: the site renders the first conversation in again, its unsent text back in the box.
    h.navigate('/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8');
    page.list.innerHTML = rows;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    page.type('FINAL');
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    await until(() => page.submitted.length === 1, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(page.submitted).toEqual(['FINAL']);
  });

  it('…and where the site empties the box on the way, the result is typed in again there and sent once', async () => {
    const area = memoryArea();
    const page = buildPage();
    const h = await resultWaitsInTheBox(page, area);
    const rows = page.list.innerHTML;
    h.navigate('/a/chat/s/33333333-2222-4333-8444-555555555555');
    page.list.replaceChildren(userRow('another question'));
    page.type('');
    page.setGenerating(false);
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 700));
    h.navigate('/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8');
    page.list.innerHTML = rows;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    await until(() => page.submitted.length === 1, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(page.submitted).toEqual(['FINAL']);
  });
});

describe('page: a site with one chat box for every conversation', () => {
  const A = '/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8';
  const B = '/a/chat/s/33333333-2222-4333-8444-555555555555';
  const done = { respond: (): RunResponse => ({ runId: 'run-1', status: 'done', resultText: 'FINAL', auditId: 'a' }), getRun: (runId: string): RunResponse => ({ runId, status: 'done', resultText: 'FINAL', auditId: 'a' }) };

  /** The person goes to B: the site draws B's messages and leaves its one box as it is. */
  async function toB(h: Harness, page: Page): Promise<string> {
    const rows = page.list.innerHTML;
    h.navigate(B);
    page.list.replaceChildren(userRow('another question'));
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    return rows;
  }

  async function backToA(h: Harness, page: Page, rows: string): Promise<void> {
    h.navigate(A);
    page.list.innerHTML = rows;
    for (const chip of Array.from(page.list.querySelectorAll('[data-chatbridge-chip]'))) chip.remove();
    await h.settle();
    h.clock.now += 2_000;
    await h.settle();
  }

  it('a result typed into the box unsent (auto-submit off) is not carried into the conversation the person goes to: it stays owed to its own, and is typed in there again', async () => {
    const page = buildPage();
    const h = start(page, { area: memoryArea(), settings: { autoSubmit: false }, script: done });
    await streamReply(h, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    await until(() => page.state() === 'FINAL');

    const rows = await toB(h, page);
    expect(page.state()).toBe('');
    expect(page.textarea.value).toBe('');

    await backToA(h, page, rows);
    await until(() => page.state() === 'FINAL', 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(page.state()).toBe('FINAL');
    expect(page.submitted).toEqual([]);
    expect(h.runs).toHaveLength(1);
  });

  it('a result waiting in the box to be sent once the reply being written ends is not sent into the conversation the person goes to: it stays owed to its own', async () => {
    const page = buildPage();
    const h = await resultWaitsInTheBox(page, memoryArea());
    // B is being written too when the person gets there, then ends: nothing of A's goes out with it.
    const rows = await toB(h, page);
    page.setGenerating(false);
    h.clock.now += 5_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(page.submitted).toEqual([]);
    expect(page.state()).toBe('');

    await backToA(h, page, rows);
    await until(() => page.submitted.length === 1, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(page.submitted).toEqual(['FINAL']);
  });
});
