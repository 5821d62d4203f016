import { afterEach, describe, expect, it } from 'vitest';
import { STABLE_MS } from '../../extension/scanner/blocks';
import { deepseek } from '../../extension/sites';
import { defineSite } from '../../extension/sites/define-site';
import { LIST, READ, assistantRow, buildPage, chipStates, renderReply, start, stopPages, trusted, until, userRow, type Harness } from './page-harness';

/**
 * Issue 13 on the DeepSeek-like page: the first scan cut into slices (one message per slice here, the yield held by
 * the test), and a reply decided the moment the site's own "generating" control turns back into send.
 */

afterEach(stopPages);

function heldYield(): { yieldToPage: () => Promise<void>; release(): Promise<void> } {
  let waiting: Array<() => void> = [];
  return {
    yieldToPage: () => new Promise<void>((resolve) => waiting.push(resolve)),
    async release() {
      const now = waiting;
      waiting = [];
      for (const resolve of now) resolve();
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
  };
}

const blockOf = (code: string) => ({ lang: 'mcp-request', code });
const READ_2 = READ.replace('call-001', 'call-011');

describe('page: the first scan in slices', () => {
  it('is cut between messages; what the page changes, removes or adds meanwhile is not lost, and history never runs', async () => {
    const page = buildPage();
    const rows: HTMLElement[] = [];
    const answers: HTMLElement[] = [];
    for (let i = 0; i < 4; i++) {
      const user = userRow(`question ${i}`);
      const { row, answer } = assistantRow();
      renderReply(answer, [`old reply ${i}`, blockOf(READ)]);
      page.list.append(user, row);
      rows.push(row);
      answers.push(answer);
    }
    const held = heldYield();
    const h = start(page, { firstScan: { sliceMs: 0, yieldToPage: held.yieldToPage } });
    // one step per slice: the first ran before startPage returned
    expect(h.ctl.records()).toHaveLength(1);
    await held.release();
    expect(h.ctl.records().map((r) => r.el)).toEqual([page.list.children[0], rows[0]]);
    // the reply's chip is a step of its own
    expect(rows[0]!.querySelector('[data-chatbridge-chip]')).toBeNull();
    await held.release();
    expect(rows[0]!.querySelector('[data-chatbridge-chip]')).not.toBeNull();
    await held.release();
    expect(h.ctl.records().map((r) => r.el)).toEqual([page.list.children[0], rows[0], page.list.children[2]]);

    // While the page has its turn: a scanned reply is re-rendered with another block, one not reached yet is taken
    // out, and a new reply starts streaming at the end.
    renderReply(answers[0]!, ['old reply 0, edited', blockOf(LIST)]);
    rows[2]!.remove();
    page.list.append(userRow('now do it'));
    const live = assistantRow();
    page.setGenerating(true);
    page.list.append(live.row);
    for (let i = 0; i < 10; i++) await held.release();
    await h.settle();

    const records = h.ctl.records();
    expect(records.filter((r) => r.el === rows[2])).toEqual([]);
    expect(new Set(records.map((r) => r.el)).size).toBe(records.length);
    expect(records.find((r) => r.el === rows[0])?.markdown).toContain('call-002');
    expect(records.find((r) => r.el === rows[3])?.origin).toBe('history');
    expect(records.find((r) => r.el === live.row)?.origin).toBe('live');
    // each history block got its chip (a step of its own after its message's scan), the removed one none
    for (const row of [rows[0], rows[1], rows[3]]) {
      const chips = Array.from(row!.querySelectorAll('[data-chatbridge-chip]'));
      expect(chips.map((c) => [c.getAttribute('data-chatbridge-origin'), c.getAttribute('data-chatbridge-state')])).toEqual([['history', 'ready']]);
    }
    expect(rows[2]!.querySelector('[data-chatbridge-chip]')).toBeNull();

    renderReply(live.answer, [blockOf(READ_2)]);
    h.clock.now += 50;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await until(() => h.runs.length === 1);
    h.clock.now += 10_000;
    await h.settle();
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + READ_2 + '\n```']);
  });
});

/** A reply starts, its block is shown while the site says it is generating. */
async function streaming(h: Harness, code: string): Promise<HTMLElement> {
  h.page.list.append(userRow('do it'));
  const { row, answer } = assistantRow();
  h.page.setGenerating(true);
  h.page.list.append(row);
  await h.settle();
  renderReply(answer, ['Reading it.', blockOf(code)]);
  h.clock.now += 20;
  await h.settle();
  return answer;
}

describe("page: a reply is decided on the site's own finished signal", () => {
  it('as soon as the stop control turns back into send — no settle time waited (the page clock never moves)', async () => {
    const h = start(buildPage());
    await streaming(h, READ);
    expect(h.runs).toEqual([]);
    h.page.setGenerating(false);
    // no flush, no clock: only the observer seeing the control change can decide it now
    await until(() => h.runs.length === 1, 500);
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + READ + '\n```']);
    await until(() => h.page.submitted.length === 1);
    h.clock.now += 10_000;
    await h.settle();
    expect(h.runs).toHaveLength(1);
  });

  it('a reply the person stopped is decided as stopped at that moment: nothing runs, nothing is sent, later either', async () => {
    const h = start(buildPage());
    await streaming(h, READ);
    const icon = h.page.send.querySelector('svg') ?? h.page.send;
    icon.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    h.page.setGenerating(false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    h.clock.now += 10_000;
    await h.settle();
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual([]);
    const chip = document.querySelector('[data-chatbridge-chip]');
    expect(chip?.getAttribute('data-chatbridge-state')).toBe('ready');
    expect(chip?.getAttribute('data-chatbridge-note')).toBeTruthy();
  });

  it('while the site still says it is generating, nothing is decided however long the text sits still', async () => {
    const h = start(buildPage());
    await streaming(h, READ);
    h.clock.now += 60_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(h.runs).toEqual([]);
  });

  it('a site without the signal falls back to the text sitting still, for a reply that follows the person sending', async () => {
    const quiet = defineSite({ ...deepseek, isGenerating: () => undefined });
    const h = start(buildPage(), { site: quiet });
    await h.settle();
    h.page.textarea.value = 'do it';
    h.page.textarea.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    h.page.textarea.value = '';
    h.page.list.append(userRow('do it'));
    const { row, answer } = assistantRow();
    h.page.list.append(row);
    await h.settle();
    renderReply(answer, ['Reading']);
    h.clock.now += 20;
    await h.settle();
    renderReply(answer, ['Reading it.', blockOf(READ)]);
    h.clock.now += 20;
    await h.settle();
    h.clock.now += STABLE_MS - 100;
    await h.settle();
    expect(h.runs).toEqual([]);
    h.clock.now += 100;
    await h.settle();
    await until(() => h.runs.length === 1);
  });

  it('a site without the signal: an Enter in an empty box is no send; after a send, every reply of the loop runs', async () => {
    const quiet = defineSite({ ...deepseek, isGenerating: () => undefined });
    const h = start(buildPage(), { site: quiet, settings: { autoSubmit: true } });
    await h.settle();
    h.page.textarea.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    // an Enter in an empty box sends nothing: no reply follows a send yet
    const early = assistantRow();
    h.page.list.append(early.row);
    await h.settle();
    renderReply(early.answer, ['Reading it.', blockOf(READ)]);
    h.clock.now += STABLE_MS + 100;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.runs).toEqual([]);
    h.page.textarea.value = 'read it';
    h.page.textarea.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    h.page.textarea.value = '';
    for (const code of [READ, LIST]) {
      const { row, answer } = assistantRow();
      h.page.list.append(row);
      await h.settle();
      renderReply(answer, ['Working.']);
      h.clock.now += 20;
      await h.settle();
      renderReply(answer, ['Working.', blockOf(code)]);
      h.clock.now += 20;
      await h.settle();
      h.clock.now += STABLE_MS;
      await h.settle();
      await until(() => h.page.submitted.length === h.runs.length && h.runs.length > 0 && h.runs.at(-1)!.text.includes(JSON.parse(code).id));
      h.page.list.append(userRow(h.page.submitted.at(-1)!));
      await h.settle();
    }
    expect(h.runs).toHaveLength(2);
    expect(h.page.submitted).toHaveLength(2);
  });
});

describe('page: a reply row that shows before its answer body', () => {
  it('is taken for a reply once the body appears (its role is asked again on a later scan) and runs', async () => {
    const h = start(buildPage());
    h.page.list.append(userRow('do it'));
    h.page.setGenerating(true);
    const row = document.createElement('div');
    row.className = 'ds-message';
    h.page.list.append(row);
    await h.settle();
    expect(h.ctl.records().find((r) => r.el === row)?.role).toBe('user');
    const answer = document.createElement('div');
    answer.className = 'ds-markdown';
    row.append(answer);
    renderReply(answer, [blockOf(READ)]);
    h.clock.now += 50;
    await h.settle();
    expect(h.ctl.records().find((r) => r.el === row)?.role).toBe('assistant');
    h.page.setGenerating(false);
    await until(() => h.runs.length === 1);
  });
});

describe('page: a conversation the site renders in only after the page started', () => {
  it('on a site without a generating signal, an old reply whose body fills in a moment after its row is history: it never runs', async () => {
    // The page opened on /chat/<id>; the app shows the saved conversation a moment after the content script started:
    // the rows first, their markdown bodies in the next render.
    const quiet = defineSite({ ...deepseek, isGenerating: () => undefined });
    const h = start(buildPage(), { site: quiet });
    await h.settle();
    h.clock.now += 300;
    const { row, answer } = assistantRow();
    h.page.list.append(userRow('earlier question'), row);
    await h.settle();
    h.clock.now += 30;
    renderReply(answer, ['Reading the file.', blockOf(READ)]);
    await h.settle();
    h.clock.now += STABLE_MS + 1_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(h.runs).toEqual([]);
    expect(h.page.submitted).toEqual([]);
  });
});

describe('page: a branch switch on a site without a generating signal', () => {
  /** The person sends what the box holds: a trusted Enter (the site's own send is not needed here). */
  const send = (h: Harness, text: string): void => {
    h.page.textarea.value = text;
    h.page.textarea.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    h.page.textarea.value = '';
  };
  /** A reply the model writes: its row, then its text growing over a few renders, then still. */
  const stream = async (h: Harness, parts: Array<string | { lang: string; code: string }>): Promise<HTMLElement> => {
    const { row, answer } = assistantRow();
    h.page.list.append(row);
    await h.settle();
    renderReply(answer, ['Working']);
    h.clock.now += 20;
    await h.settle();
    renderReply(answer, parts);
    h.clock.now += 20;
    await h.settle();
    h.clock.now += STABLE_MS + 100;
    await h.settle();
    return row;
  };

  it("switching back to an earlier branch after a send (its rows mounted again, each body a render later) runs none of its blocks", async () => {
    const quiet = defineSite({ ...deepseek, isGenerating: () => undefined });
    const page = buildPage();
    // The conversation as it opened: a question and a reply whose block nobody ran.
    const question = userRow('read it');
    const old = assistantRow();
    renderReply(old.answer, ['Reading it.', blockOf(READ_2)]);
    page.list.append(question, old.row);
    const h = start(page, { site: quiet, settings: { autoSubmit: false } });
    await h.settle();
    // The person edits the question and sends it again: the site shows the new branch in place of the old one.
    send(h, 'list it');
    question.remove();
    old.row.remove();
    const edited = userRow('list it');
    h.page.list.append(edited);
    const second = await stream(h, ['Listing it.', blockOf(LIST)]);
    await until(() => h.runs.length === 1);
    // Back to the first branch (the arrows under the question): its messages are mounted again, the reply's body a
    // render after its row.
    edited.remove();
    second.remove();
    const { row, answer } = assistantRow();
    h.page.list.append(userRow('read it'), row);
    await h.settle();
    h.clock.now += 30;
    renderReply(answer, ['Reading it.', blockOf(READ_2)]);
    await h.settle();
    h.clock.now += STABLE_MS + 1_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + LIST + '\n```']);
    expect(chipStates().at(-1)).toBe('ready');
  });

  it('a reply regenerated after a send (written again, growing on scan after scan) runs once', async () => {
    const quiet = defineSite({ ...deepseek, isGenerating: () => undefined });
    const h = start(buildPage(), { site: quiet, settings: { autoSubmit: false } });
    await h.settle();
    send(h, 'list it');
    h.page.list.append(userRow('list it'));
    const first = await stream(h, ['Listing it.', blockOf(LIST)]);
    await until(() => h.runs.length === 1);
    h.page.textarea.value = '';
    // Regenerate: the site takes the reply away and the model writes a new one.
    first.remove();
    await stream(h, ['Reading it instead.', blockOf(READ_2)]);
    await until(() => h.runs.length === 2);
    expect(h.runs[1]!.text).toContain('call-011');
  });
});
