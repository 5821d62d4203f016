import { afterEach, describe, expect, it } from 'vitest';
import { claude } from '../../extension/sites';
import { t } from '../../extension/ui/i18n';
import { LIST, READ, assistantRow, buildPage, renderReply, start, stopPages, trusted, until, userRow, type Harness } from './page-harness';

/**
 * More of the person's Stops on a DeepSeek-like page (page-stop.test.ts has the rest): the reply a Stop is for, when the
 * page's scans have not read what it drew yet, draws the person's message again, or mounts the reply's row anew.
 */

afterEach(stopPages);

const chips = (): Element[] => Array.from(document.querySelectorAll('[data-chatbridge-chip]'));
const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The person presses the site's stop control (DeepSeek: the send control showing the stop icon). */
function pressStop(h: Harness): void {
  (h.page.send.querySelector('svg') ?? h.page.send).dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
}

async function end(h: Harness): Promise<void> {
  h.page.setGenerating(false);
  h.clock.now += 500;
  await h.settle();
  h.clock.now += 10_000;
  await h.settle();
}

/** The reply ends: nothing of it ran or was sent, and its chip says it was stopped. */
async function endsStopped(h: Harness): Promise<void> {
  await end(h);
  await wait(100);
  expect(h.runs).toEqual([]);
  expect(h.page.submitted).toEqual([]);
  await until(() => chips()[0]?.getAttribute('data-chatbridge-note') === t('note.stopped'));
}

/** The site draws the reply the model wrote (a read), at the end of the list. */
async function drawReply(h: Harness): Promise<void> {
  const { row, answer } = assistantRow();
  renderReply(answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
  h.page.list.append(row);
  h.clock.now += 50;
  await h.settle();
}

describe('page: a Stop held for the reply the page draws after it, or draws again', () => {
  it("the person's message drawn and the stop control shown a moment before the Stop, their scan still spaced out: the reply drawn after it is stopped", async () => {
    const h = start(buildPage());
    // An earlier reply, decided.
    h.page.list.append(userRow('hello'));
    const first = assistantRow();
    h.page.setGenerating(true);
    h.page.list.append(first.row);
    await h.settle();
    renderReply(first.answer, ['Hello there.']);
    await end(h);
    // The person types the next message (the page redraws its send control: a scan runs), sends it at once, and the
    // page draws it and shows its stop control: the scan of that waits for the scans' spacing.
    h.page.type('read the readme');
    await wait(20);
    h.page.list.append(userRow('read the readme'));
    h.page.type('');
    h.page.setGenerating(true);
    await wait(20);
    pressStop(h);
    // What the model wrote before the Stop reached it is drawn afterwards.
    await drawReply(h);
    await endsStopped(h);
  });

  it("Stop pressed before the reply's row is drawn, the page then drawing the person's message again (a new element for it): the reply drawn after it is stopped", async () => {
    const h = start(buildPage());
    await h.settle();
    const mine = userRow('do it');
    h.page.list.append(mine);
    h.page.setGenerating(true);
    h.clock.now += 50;
    await h.settle();
    pressStop(h);
    // The page mounts the person's message anew (a virtual list drawing its rows again).
    h.clock.now += 50;
    mine.replaceWith(userRow('do it'));
    await h.settle();
    await drawReply(h);
    await endsStopped(h);
  });

  it("Stop pressed before the reply's row is drawn, the row then drawn before its answer (DeepSeek tells a reply by its answer): the reply is stopped", async () => {
    const h = start(buildPage());
    await h.settle();
    h.page.list.append(userRow('do it'));
    h.page.setGenerating(true);
    h.clock.now += 50;
    await h.settle();
    pressStop(h);
    // The reply's row with its reasoning only: no answer body yet.
    const row = document.createElement('div');
    row.className = 'ds-message';
    row.innerHTML = '<div class="ds-think-content"><div class="ds-markdown"><p>Let me read it.</p></div></div>';
    h.page.list.append(row);
    h.clock.now += 50;
    await h.settle();
    const answer = document.createElement('div');
    answer.className = 'ds-markdown';
    renderReply(answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
    row.append(answer);
    h.clock.now += 50;
    await h.settle();
    await endsStopped(h);
  });

  it('the reply the person stopped, mounted anew by the list while the page still shows its Stop: still stopped — and a reply written afresh in its place after a Stop is not', async () => {
    const h = start(buildPage());
    await h.settle();
    h.page.list.append(userRow('do it'));
    const { row, answer } = assistantRow();
    h.page.setGenerating(true);
    h.page.list.append(row);
    await h.settle();
    renderReply(answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that']);
    h.clock.now += 50;
    await h.settle();
    pressStop(h);
    // The virtual list draws the reply's row again (a new element at its place) before the site takes its Stop away.
    h.clock.now += 50;
    const again = assistantRow();
    renderReply(again.answer, ['Reading it.', { lang: 'mcp-request', code: READ }, 'While that runs']);
    row.replaceWith(again.row);
    await h.settle();
    await endsStopped(h);

    // The person has the reply written again (a new row in its place, other text): it runs as usual.
    h.page.setGenerating(true);
    const fresh = assistantRow();
    again.row.replaceWith(fresh.row);
    await h.settle();
    h.clock.now += 6_000;
    renderReply(fresh.answer, ['Listing it.', { lang: 'mcp-request', code: LIST }]);
    await h.settle();
    await end(h);
    await until(() => h.page.submitted.length === 1);
    expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + LIST + '\n```']);
  });
});

/** The stop icon Claude's composer draws in its send slot while a reply is written (a square in a circle). */
const CLAUDE_STOP_ICON =
  '<svg viewBox="0 0 256 256"><path d="M128,20A108,108,0,1,0,236,128,108.12,108.12,0,0,0,128,20Zm0,192a84,84,0,1,1,84-84A84.09,84.09,0,0,1,128,212Zm40-112v56a12,12,0,0,1-12,12H100a12,12,0,0,1-12-12V100a12,12,0,0,1,12-12h56A12,12,0,0,1,168,100Z"></path></svg>';

/**
 * A Claude page in a new chat (no conversation id, so no ledger tells the Stop): the composer's one slot holds "Stop
 * response" while a reply is written and "Send message" otherwise (disabled while the box is empty); the reply's turn
 * says data-is-streaming, which outlasts the slot's swap back to send by the moment the last render takes.
 */
function claudeNewChat(): { h: Harness; slot: () => Element; showStop(on: boolean): void; send(text: string): HTMLElement } {
  document.body.innerHTML =
    '<div class="thread"></div><fieldset><div contenteditable="true" class="ProseMirror" role="textbox"><p><br></p></div><div class="slot"></div></fieldset>';
  const thread = document.querySelector('.thread')!;
  const box = document.querySelector<HTMLElement>('.ProseMirror')!;
  const slot = document.querySelector('.slot')!;
  const showStop = (on: boolean): void => {
    const empty = (box.textContent ?? '').trim() === '';
    slot.innerHTML = on
      ? `<button type="button" aria-label="Stop response">${CLAUDE_STOP_ICON}</button>`
      : `<button type="button" aria-label="Send message"${empty ? ' disabled' : ''}><svg viewBox="0 0 256 256"><path d="M208"></path></svg></button>`;
  };
  showStop(false);
  const h = start(null as never, { site: claude, pathname: '/new', href: 'https://claude.ai/new' });
  /** The person's message sent: drawn, and the reply's turn begun (streaming, the slot showing Stop). */
  const send = (text: string): HTMLElement => {
    const mine = document.createElement('div');
    mine.innerHTML = '<div data-testid="user-message"><p></p></div>';
    mine.querySelector('p')!.textContent = text;
    const turn = document.createElement('div');
    turn.setAttribute('data-is-streaming', 'true');
    thread.append(mine, turn);
    box.innerHTML = '<p><br></p>';
    showStop(true);
    return turn;
  };
  return { h, slot: () => slot.querySelector('path')!, showStop, send };
}

/** The reply Claude draws in its turn: a paragraph and an mcp-request block. */
function drawClaudeReply(turn: HTMLElement, code: string): void {
  turn.innerHTML = '<div class="font-claude-response"><div class="standard-markdown"><p>Reading it.</p><pre><code class="language-mcp-request"></code></pre></div></div>';
  turn.querySelector('code')!.textContent = code;
}

const pointer = (target: Element, type: 'pointerdown' | 'click'): void => {
  target.dispatchEvent(trusted(type === 'click' ? new MouseEvent('click', { bubbles: true }) : new PointerEvent('pointerdown', { bubbles: true })));
};

describe("page: the person's Stop before the reply's row is drawn, and the send control the slot shows right after it", () => {
  const HOWS = [
    'the click of the press that stopped it lands on the send control the site swapped in at the press',
    'the person presses the slot twice (a double click on Stop)',
    'the person presses Enter in the chat box holding their next question, which the site drops while the turn streams',
  ] as const;
  for (const how of HOWS) {
    it(`${how}: no send, and the reply drawn after the Stop is stopped — a real send after it is one`, async () => {
      const { h, slot, showStop, send } = claudeNewChat();
      await h.settle();
      const turn = send('read the readme');
      h.clock.now += 50;
      await h.settle();
      const stop = slot();
      pointer(stop, 'pointerdown');
      if (how === HOWS[0]) {
        showStop(false);
        h.clock.now += 120;
        pointer(slot(), 'click');
      } else if (how === HOWS[1]) {
        pointer(stop, 'click');
        showStop(false);
        h.clock.now += 150;
        pointer(slot(), 'pointerdown');
        h.clock.now += 120;
        pointer(slot(), 'click');
      } else {
        pointer(stop, 'click');
        showStop(false);
        const box = document.querySelector('.ProseMirror')!;
        box.innerHTML = '<p>and list the files</p>';
        h.clock.now += 150;
        box.firstElementChild!.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
        box.innerHTML = '<p><br></p>';
      }
      // What the model wrote before the Stop reached it, drawn while the turn still says it streams.
      h.clock.now += 50;
      drawClaudeReply(turn, READ);
      await h.settle();
      turn.setAttribute('data-is-streaming', 'false');
      h.clock.now += 5_000;
      await h.settle();
      await wait(100);
      expect(h.runs).toEqual([]);
      expect(chips()[0]?.getAttribute('data-chatbridge-note')).toBe(t('note.stopped'));

      // The person asks again and stops that at once too, before anything is drawn (the model wrote nothing); then
      // writes once more and presses send: that press is a send, so the reply drawn after it is not the Stop's.
      const empty = send('list the files');
      h.clock.now += 50;
      await h.settle();
      pointer(slot(), 'pointerdown');
      pointer(slot(), 'click');
      empty.remove();
      showStop(false);
      h.clock.now += 1_000;
      await h.settle();
      document.querySelector('.ProseMirror')!.innerHTML = '<p>list the files, please</p>';
      showStop(false);
      pointer(slot(), 'pointerdown');
      pointer(slot(), 'click');
      const next = send('list the files, please');
      h.clock.now += 50;
      await h.settle();
      drawClaudeReply(next, LIST);
      h.clock.now += 50;
      await h.settle();
      next.setAttribute('data-is-streaming', 'false');
      showStop(false);
      h.clock.now += 5_000;
      await h.settle();
      await until(() => h.runs.length === 1);
      expect(h.runs.map((r) => r.text)).toEqual(['```mcp-request\n' + LIST + '\n```']);
    });
  }
});
