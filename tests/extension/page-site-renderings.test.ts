import { afterEach, describe, expect, it } from 'vitest';
import { deepseek } from '../../extension/sites';
import { LIVE_SEND_ICON, LIVE_STOP_ICON, READ, assistantRow, buildPage, renderReply, start, stopPages, until, userRow, type Harness } from './page-harness';

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
