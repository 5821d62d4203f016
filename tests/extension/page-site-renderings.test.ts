import { afterEach, describe, expect, it } from 'vitest';
import { deepseek } from '../../extension/sites';
import { LIVE_SEND_ICON, LIVE_STOP_ICON, READ, assistantRow, buildPage, renderReply, start, stopPages, trusted, until, userRow, type Harness } from './page-harness';

/**
 * Other renderings of the sites than the saved fixtures show — another state of the composer, another form of the
 * site's "finished" or Stop signal — run through the whole page: a reply is decided once it ends (not while it streams,
 * and not never), its block runs once, and the result reaches the box.
 */

afterEach(stopPages);

type Part = string | { lang: string; code: string };

async function begin(h: Harness): Promise<HTMLElement> {
  h.page.list.append(userRow('do it'));
  const { row, answer } = assistantRow();
  h.page.setGenerating(true);
  h.page.list.append(row);
  await h.settle();
  return answer;
}

async function show(h: Harness, answer: HTMLElement, parts: Part[]): Promise<void> {
  renderReply(answer, parts);
  h.clock.now += 50;
  await h.settle();
}

async function end(h: Harness): Promise<void> {
  h.page.setGenerating(false);
  h.clock.now += 500;
  await h.settle();
  h.clock.now += 10_000;
  await h.settle();
}

describe('DeepSeek: a file attached to the next message while a reply streams', () => {
  const live = { stop: LIVE_STOP_ICON, send: LIVE_SEND_ICON };

  it('the reply that ends meanwhile is decided: its block runs once and its result is sent once', async () => {
    const h = start(buildPage(live));
    const answer = await begin(h);
    await show(h, answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    // The composer shows the file's chip; the send control is enabled with the box empty (it sends the file alone).
    h.page.attach('notes.pdf');
    await h.settle();
    expect(deepseek.isGenerating(document)).toBe(true);
    await end(h);
    // Nothing is written now, and a press of the control sends the file: it is no Stop.
    expect(deepseek.isGenerating(document)).toBe(false);
    expect(deepseek.stopControl(document)).toBeNull();
    await until(() => h.runs.length === 1);
    await until(() => h.page.submitted.length > 0);
    h.clock.now += 10_000;
    await h.settle();
    expect(h.runs.length).toBe(1);
    expect(h.page.submitted).toEqual(['RESULT[mcp-request:1]']);
  });
});

describe('DeepSeek: a reply from before the page, written again in its own message (a regenerate drawn in place)', () => {
  const live = { stop: LIVE_STOP_ICON, send: LIVE_SEND_ICON };
  const OLD = READ.replace('call-001', 'call-old');

  /** A conversation saved with a finished reply holding a block, opened in a page that then sees it at rest. */
  async function opened(): Promise<{ h: Harness; answer: HTMLElement }> {
    const { row, answer } = assistantRow();
    const page = buildPage(live);
    page.list.append(userRow('do it'));
    renderReply(answer, ['Listing it.', { lang: 'mcp-request', code: OLD }]);
    page.list.append(row);
    const h = start(page);
    await h.settle();
    h.clock.now += 5_000;
    await h.settle();
    expect(h.runs).toEqual([]);
    return { h, answer };
  }

  it('the new writing runs once; the version shown before, shown again by the arrows, never runs', async () => {
    const { h, answer } = await opened();
    h.page.setGenerating(true);
    await show(h, answer, ['Let me']);
    await show(h, answer, ['Let me read it.', { lang: 'mcp-request', code: READ }]);
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + READ + '\n```']);
    // The site's arrows: 1 / 2, then 2 / 2 again.
    await show(h, answer, ['Listing it.', { lang: 'mcp-request', code: OLD }]);
    h.clock.now += 10_000;
    await h.settle();
    await show(h, answer, ['Let me read it.', { lang: 'mcp-request', code: READ }]);
    h.clock.now += 10_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs).toHaveLength(1);
    expect(h.page.submitted).toEqual(['RESULT[mcp-request:1]']);
  });

  it('a reply the site was still writing when the page opened stays history, whatever its text does', async () => {
    const { row, answer } = assistantRow();
    const page = buildPage(live);
    page.list.append(userRow('do it'));
    renderReply(answer, ['Let me']);
    page.list.append(row);
    page.setGenerating(true);
    const h = start(page);
    await h.settle();
    h.clock.now += 5_000;
    await h.settle();
    // Drawn again differently while still written (a code block taking shape), then finished.
    await show(h, answer, ['Listing', { lang: 'mcp-request', code: READ }]);
    await end(h);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs).toEqual([]);
  });

  it('"Continue" writes on after the reply at rest: its blocks stay history', async () => {
    const { h, answer } = await opened();
    h.page.setGenerating(true);
    await show(h, answer, ['Listing it.', { lang: 'mcp-request', code: OLD }, 'And then', { lang: 'mcp-request', code: READ }]);
    await end(h);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs).toEqual([]);
  });

  it('the person stops the new writing: nothing of it runs or is sent', async () => {
    const { h, answer } = await opened();
    h.page.setGenerating(true);
    await show(h, answer, ['Let me read it.', { lang: 'mcp-request', code: READ }, 'and then']);
    h.page.send.querySelector('svg')!.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    await end(h);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual([]);
  });
});
