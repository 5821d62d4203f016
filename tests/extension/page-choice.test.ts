import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chatgpt, qwen, SITES, siteById } from '../../extension/sites';
import { LIST, READ, buildPage, catchChipRoots, chipStates, clickChip, start, stopPages, type Harness } from './page-harness';
import { FIXTURE_DIR, loadFixture } from './site-fixtures';

/**
 * A site that writes two candidate replies to one message and asks the person which to keep (Qwen's A/B comparison
 * turn, SITES-MORE.md): while the choice is pending neither candidate's block runs by itself; the one the person picks
 * is the reply, decided as any finished reply; the one not picked never runs, also while it stays in the page hidden.
 */

afterEach(stopPages);
const roots = catchChipRoots();

const CHAT = '0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b';

function userMessage(text: string): HTMLElement {
  const el = document.createElement('div');
  el.className = 'qwen-chat-message qwen-chat-message-user';
  el.id = 'message-2b7e4c1a-0f3d-4a5b-9c8d-7e6f5a4b3c21';
  el.innerHTML = `<div class="chat-user-message"><div class="user-message-content"></div></div>`;
  el.querySelector('.user-message-content')!.textContent = text;
  return el;
}

/** One candidate's box as Qwen draws it in a comparison turn: its answer card, then its "I prefer this response" footer. */
function candidate(said: string, code: string): string {
  return (
    `<div class="response-message-box"><div class="response-message-content phase-answer"><div class="custom-qwen-markdown"><div class="qwen-markdown">` +
    `<p class="qwen-markdown-paragraph">${said}</p>` +
    `<pre class="qwen-markdown-code"><div class="qwen-markdown-code-header-wrapper"><div class="qwen-markdown-code-header"><div>mcp-request</div>` +
    `<div class="qwen-markdown-code-header-actions"><button>Copy</button></div></div></div><div class="qwen-markdown-code-body"><code>${code}</code></div></pre>` +
    `</div></div></div><div class="smulti-o-footer"><button>I prefer this response</button></div></div>`
  );
}

/** The comparison turn: the assistant message marked dual, holding both candidates. */
function comparisonTurn(): HTMLElement {
  const el = document.createElement('div');
  el.className = 'qwen-chat-message qwen-chat-message-assistant qwen-chat-message-dual-message';
  el.id = 'message-8d1f2e3a-4b5c-4d6e-8f7a-9b0c1d2e3f40';
  el.innerHTML = `<div class="chat-response-message"><div class="chat-response-message-right"><div class="smulti-o-response-message"></div></div></div>`;
  return el;
}

function fill(turn: HTMLElement, first: string, second: string): void {
  turn.querySelector('.smulti-o-response-message')!.innerHTML = candidate('Reading it.', first) + candidate('Listing it.', second);
}

function setGenerating(on: boolean): void {
  const stop = document.querySelector('button.stop-button');
  if (on && !stop) {
    const button = document.createElement('button');
    button.className = 'stop-button';
    document.body.append(button);
  }
  if (!on) stop?.remove();
}

async function later(h: Harness, ms: number): Promise<void> {
  h.clock.now += ms;
  await h.settle();
}

/** Both candidates written while the site says it writes, then the site says it is done: the person is asked to choose. */
async function comparisonAsked(): Promise<{ h: Harness; turn: HTMLElement }> {
  const h = start(buildPage(), { site: qwen, pathname: `/c/${CHAT}`, href: `https://chat.qwen.ai/c/${CHAT}` });
  await h.settle();
  h.page.list.append(userMessage('read README.md'));
  setGenerating(true);
  const turn = comparisonTurn();
  h.page.list.append(turn);
  await later(h, 50);
  fill(turn, READ.slice(0, 40), LIST.slice(0, 40));
  await later(h, 50);
  fill(turn, READ, LIST);
  await later(h, 50);
  setGenerating(false);
  await later(h, 500);
  await later(h, 10_000);
  return { h, turn };
}

const ran = (h: Harness): string[] => h.runs.map((run) => (run.text.includes('call-001') ? 'READ' : run.text.includes('call-002') ? 'LIST' : run.text));

describe('Qwen: a comparison turn asking which of two replies to keep', () => {
  it('runs no candidate while the choice is pending, and each chip says the site asks which reply to keep', async () => {
    const { h } = await comparisonAsked();
    expect(ran(h)).toEqual([]);
    const chips = Array.from(document.querySelectorAll('[data-chatbridge-chip]'));
    expect(chips.length).toBeGreaterThan(0);
    for (const chip of chips) {
      expect(chip.getAttribute('data-chatbridge-state')).toBe('ready');
      expect(roots.get(chip)?.textContent).toContain('which reply to keep');
    }
  });

  it('the second reply picked, its block runs once and the first one never runs (removed from the page)', async () => {
    const { h, turn } = await comparisonAsked();
    // The pick collapses the turn back to a normal reply: the other candidate is gone.
    turn.classList.remove('qwen-chat-message-dual-message');
    turn.querySelector('.response-message-box')!.remove();
    turn.querySelector('.smulti-o-footer')?.remove();
    await later(h, 500);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['LIST']);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['LIST']);
  });

  it('the second reply picked while the first one stays in the page hidden: only the second runs, also when the first is shown again', async () => {
    const { h, turn } = await comparisonAsked();
    turn.classList.remove('qwen-chat-message-dual-message');
    const [first, second] = Array.from(turn.querySelectorAll<HTMLElement>('.response-message-box'));
    first!.hidden = true;
    for (const footer of Array.from(turn.querySelectorAll('.smulti-o-footer'))) footer.remove();
    await later(h, 500);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['LIST']);
    // The page shows the candidate not picked again, in place of the one picked.
    first!.hidden = false;
    second!.hidden = true;
    first!.querySelector('p')!.append('');
    first!.append(document.createElement('span'));
    await later(h, 500);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['LIST']);
  });

  it('the first reply picked (the text read while the choice was pending), its block runs once', async () => {
    const { h, turn } = await comparisonAsked();
    expect(ran(h)).toEqual([]);
    turn.classList.remove('qwen-chat-message-dual-message');
    turn.querySelectorAll('.response-message-box')[1]!.remove();
    turn.querySelector('.smulti-o-footer')?.remove();
    await later(h, 500);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['READ']);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['READ']);
  });

  it('the first reply picked while the second one stays in the page hidden: the second never runs, also when shown again', async () => {
    const { h, turn } = await comparisonAsked();
    turn.classList.remove('qwen-chat-message-dual-message');
    const [first, second] = Array.from(turn.querySelectorAll<HTMLElement>('.response-message-box'));
    second!.hidden = true;
    for (const footer of Array.from(turn.querySelectorAll('.smulti-o-footer'))) footer.remove();
    await later(h, 500);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['READ']);
    first!.hidden = true;
    second!.hidden = false;
    second!.append(document.createElement('span'));
    await later(h, 500);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['READ']);
  });

  it('a newer message sent while the choice is pending: the candidate the site then keeps by itself does not run', async () => {
    const { h, turn } = await comparisonAsked();
    h.page.list.append(userMessage('never mind, list the files'));
    await later(h, 50);
    turn.classList.remove('qwen-chat-message-dual-message');
    turn.querySelectorAll('.response-message-box')[1]!.remove();
    turn.querySelector('.smulti-o-footer')?.remove();
    await later(h, 500);
    await later(h, 10_000);
    await later(h, 10_000);
    expect(ran(h)).toEqual([]);
    expect(chipStates()).toEqual(['ready']);
  });

  it('a build that renames the comparison\'s classes: the two answer cards still hold both until the pick', async () => {
    // the first candidate's answer card was read as the reply, and its block ran before the person picked
    const h = start(buildPage(), { site: qwen, pathname: `/c/${CHAT}`, href: `https://chat.qwen.ai/c/${CHAT}` });
    await h.settle();
    h.page.list.append(userMessage('read README.md'));
    setGenerating(true);
    const turn = comparisonTurn();
    turn.classList.remove('qwen-chat-message-dual-message');
    h.page.list.append(turn);
    fill(turn, READ, LIST);
    for (const box of Array.from(turn.querySelectorAll('.response-message-box'))) box.className = 'response-card-v2';
    await later(h, 50);
    setGenerating(false);
    await later(h, 500);
    await later(h, 10_000);
    await later(h, 10_000);
    expect(ran(h)).toEqual([]);
    // the pick: the other card goes
    turn.querySelector('.response-card-v2')!.remove();
    turn.querySelector('.smulti-o-footer')?.remove();
    await later(h, 500);
    await later(h, 10_000);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['LIST']);
  });

  it('a Run click while the choice is pending is the person running that block', async () => {
    const { h } = await comparisonAsked();
    const chip = document.querySelector('[data-chatbridge-chip]') ?? undefined;
    clickChip(roots, chip, 'run');
    await later(h, 50);
    expect(ran(h)).toHaveLength(1);
  });
});

/**
 * ChatGPT's comparison ("Which response do you prefer?", chatgpt.ts): the reply's turn draws each candidate as a
 * div[data-paragen-root] holding its own assistant message; both were read as replies, and each ran its block.
 */
describe('ChatGPT: a comparison turn asking which of two replies to keep', () => {
  const GPT_CHAT = '6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
  // the replica page's chat box is a textarea (buildPage); the rest is ChatGPT's module
  const GPT = { ...chatgpt, editor: (doc: Document) => doc.querySelector<HTMLElement>('textarea#chat-input') };

  function gptUser(text: string): HTMLElement {
    const turn = document.createElement('article');
    turn.setAttribute('data-testid', 'conversation-turn-1');
    turn.setAttribute('data-turn', 'user');
    turn.setAttribute('data-turn-id', 'turn-user-1');
    turn.innerHTML = '<div data-message-author-role="user" data-message-id="u-1"><div class="whitespace-pre-wrap"></div></div>';
    turn.querySelector('.whitespace-pre-wrap')!.textContent = text;
    return turn;
  }

  function gptCandidate(id: string, label: string, said: string, code: string): string {
    return (
      `<div data-paragen-root="true" class="flex-1"><div class="text-sm">ChatGPT</div><div class="text-xs">${label}</div>` +
      `<div data-message-author-role="assistant" data-message-id="${id}"><div class="markdown prose"><p>${said}</p>` +
      `<pre><div><div class="flex items-center"><span>mcp-request</span><button>Copy code</button></div><div><code class="hljs language-mcp-request">${code}\n</code></div></div></pre>` +
      `</div></div><button>I prefer this response</button></div>`
    );
  }

  function gptComparison(first: string, second: string): HTMLElement {
    const turn = document.createElement('article');
    turn.setAttribute('data-testid', 'conversation-turn-2');
    turn.setAttribute('data-turn', 'assistant');
    turn.setAttribute('data-turn-id', 'turn-assistant-2');
    turn.innerHTML =
      `<div data-testid="paragen-feedback-title"><p>You're giving feedback on a new version of ChatGPT.</p><p>Which response do you prefer? Responses may take a moment to load.</p></div>` +
      `<div class="flex gap-4">${gptCandidate('a-1', 'Response 1', 'Reading it.', first)}${gptCandidate('a-2', 'Response 2', 'Listing it.', second)}</div>`;
    return turn;
  }

  function gptGenerating(on: boolean): void {
    const stop = document.querySelector('button[data-testid="stop-button"]');
    if (on && !stop) {
      const button = document.createElement('button');
      button.setAttribute('data-testid', 'stop-button');
      document.body.append(button);
    }
    if (!on) stop?.remove();
  }

  async function asked(): Promise<{ h: Harness; turn: HTMLElement }> {
    const h = start(buildPage(), { site: GPT, pathname: `/c/${GPT_CHAT}`, href: `https://chatgpt.com/c/${GPT_CHAT}` });
    await h.settle();
    h.page.list.append(gptUser('read README.md'));
    gptGenerating(true);
    const turn = gptComparison(READ.slice(0, 40), LIST.slice(0, 40));
    h.page.list.append(turn);
    await later(h, 50);
    turn.replaceWith(gptComparison(READ, LIST));
    const full = h.page.list.lastElementChild as HTMLElement;
    await later(h, 50);
    gptGenerating(false);
    await later(h, 500);
    await later(h, 10_000);
    return { h, turn: full };
  }

  /** The pick: the question and the other candidate go, the kept one stays where it was. */
  function pick(turn: HTMLElement, keep: number): void {
    turn.querySelector('[data-testid="paragen-feedback-title"]')?.remove();
    const roots = Array.from(turn.querySelectorAll('[data-paragen-root]'));
    roots.forEach((root, index) => (index === keep ? root.querySelector(':scope > button')?.remove() : root.remove()));
  }

  it('runs neither candidate while the person is asked, each chip saying so', async () => {
    // both candidates were replies of their own: each ran its block and sent its result
    const { h } = await asked();
    expect(ran(h)).toEqual([]);
    const chips = Array.from(document.querySelectorAll('[data-chatbridge-chip]'));
    expect(chips).toHaveLength(2);
    for (const chip of chips) expect(roots.get(chip)?.textContent).toContain('which reply to keep');
  });

  it('the second candidate picked: its block runs, once, and the first one never runs', async () => {
    const { h, turn } = await asked();
    pick(turn, 1);
    await later(h, 500);
    await later(h, 10_000);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['LIST']);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['LIST']);
  });

  /** The turn drawn anew with the kept candidate alone, as a plain reply (new elements, the same message id). */
  function redrawnWith(turn: HTMLElement, keep: number): void {
    const kept = turn.querySelectorAll('[data-message-author-role="assistant"]')[keep]!.cloneNode(true) as Element;
    for (const ours of Array.from(kept.querySelectorAll('[data-chatbridge-chip]'))) ours.remove();
    const plain = document.createElement('article');
    plain.setAttribute('data-testid', 'conversation-turn-2');
    plain.setAttribute('data-turn-id', 'turn-assistant-2');
    plain.append(kept);
    turn.replaceWith(plain);
  }

  // The first candidate was never the newest message, and the turn drawn anew after the pick is a new element under a
  // key decided while the choice was pending: the kept reply waited for Run, its chip saying it was from earlier in the
  // chat. It is the turn's reply, decided as one that just ended: it runs by itself, once; the other never does.
  it.each([
    ['the first candidate picked', (turn: HTMLElement) => pick(turn, 0), 'READ'],
    ['the turn drawn anew after the second was picked', (turn: HTMLElement) => redrawnWith(turn, 1), 'LIST'],
    ['the turn drawn anew after the first was picked', (turn: HTMLElement) => redrawnWith(turn, 0), 'READ'],
  ] as const)('%s: the kept reply runs by itself, once, and the other never', async (_name, pickIt, expected) => {
    const { h, turn } = await asked();
    pickIt(turn);
    await later(h, 500);
    await later(h, 10_000);
    await later(h, 10_000);
    expect(ran(h)).toEqual([expected]);
    const chips = Array.from(document.querySelectorAll('[data-chatbridge-chip]'));
    expect(chips).toHaveLength(1);
    expect(roots.get(chips[0]!)?.textContent).not.toContain('earlier in the chat');
    // drawn anew once more, as ChatGPT does when it settles the turn: still that reply, not run again
    redrawnWith(h.page.list.lastElementChild as HTMLElement, 0);
    await later(h, 500);
    await later(h, 10_000);
    await later(h, 10_000);
    expect(ran(h)).toEqual([expected]);
  });

  it('the first candidate picked, then the one not picked shown again in its place: it never runs', async () => {
    const { h, turn } = await asked();
    const [, second] = Array.from(turn.querySelectorAll('[data-paragen-root]'));
    const discarded = second!.cloneNode(true) as Element;
    for (const ours of Array.from(discarded.querySelectorAll('[data-chatbridge-chip]'))) ours.remove();
    discarded.querySelector(':scope > button')?.remove();
    pick(turn, 0);
    await later(h, 500);
    await later(h, 10_000);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['READ']);
    turn.querySelector('[data-paragen-root]')!.replaceWith(discarded);
    await later(h, 500);
    await later(h, 10_000);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['READ']);
  });

  it('a newer message sent while the choice is pending: the first candidate the site then keeps does not run', async () => {
    const { h, turn } = await asked();
    h.page.list.append(gptUser('never mind, list the files'));
    pick(turn, 0);
    await later(h, 500);
    await later(h, 10_000);
    await later(h, 10_000);
    expect(ran(h)).toEqual([]);
  });

  it('the candidate not picked kept in the page hidden is never read', async () => {
    const { turn } = await asked();
    turn.querySelector('[data-testid="paragen-feedback-title"]')?.remove();
    const [first, second] = Array.from(turn.querySelectorAll<HTMLElement>('[data-paragen-root]'));
    first!.setAttribute('style', 'display: none');
    const [hidden, kept] = [first!, second!].map((root) => root.querySelector('[data-message-author-role]')!);
    expect(chatgpt.answerRoot(hidden!)).toBeNull();
    expect(chatgpt.pendingChoice!(kept!)).toBeNull();
    expect(chatgpt.answerRoot(kept!)?.textContent).toContain('call-002');
  });

  it('both candidates in one assistant message: neither runs until the pick, then only the one kept', async () => {
    const h = start(buildPage(), { site: GPT, pathname: `/c/${GPT_CHAT}`, href: `https://chatgpt.com/c/${GPT_CHAT}` });
    await h.settle();
    h.page.list.append(gptUser('read README.md'));
    const turn = gptComparison(READ, LIST);
    // another shape: the candidates' bodies drawn in one message
    const message = document.createElement('div');
    message.setAttribute('data-message-author-role', 'assistant');
    message.setAttribute('data-message-id', 'a-0');
    for (const inner of Array.from(turn.querySelectorAll('[data-message-author-role="assistant"]'))) {
      inner.removeAttribute('data-message-author-role');
      inner.removeAttribute('data-message-id');
    }
    message.append(...Array.from(turn.childNodes));
    turn.append(message);
    gptGenerating(true);
    h.page.list.append(turn);
    await later(h, 50);
    gptGenerating(false);
    await later(h, 500);
    await later(h, 10_000);
    expect(ran(h)).toEqual([]);
    pick(message, 1);
    await later(h, 500);
    await later(h, 10_000);
    await later(h, 10_000);
    expect(ran(h)).toEqual(['LIST']);
  });

  it('a build that renames the candidates\' markup: the question\'s words still hold both', async () => {
    const h = start(buildPage(), { site: GPT, pathname: `/c/${GPT_CHAT}`, href: `https://chatgpt.com/c/${GPT_CHAT}` });
    await h.settle();
    h.page.list.append(gptUser('read README.md'));
    const turn = gptComparison(READ, LIST);
    turn.querySelector('[data-testid="paragen-feedback-title"]')!.removeAttribute('data-testid');
    for (const root of Array.from(turn.querySelectorAll('[data-paragen-root]'))) root.removeAttribute('data-paragen-root');
    gptGenerating(true);
    h.page.list.append(turn);
    await later(h, 50);
    gptGenerating(false);
    await later(h, 500);
    await later(h, 10_000);
    await later(h, 10_000);
    expect(ran(h)).toEqual([]);
  });

  it('an ordinary reply of several messages in one turn (a tool call between words) is no comparison', () => {
    const turn = document.createElement('article');
    turn.setAttribute('data-turn-id', 't-9');
    turn.innerHTML =
      '<div data-message-author-role="assistant" data-message-id="x-1"><div class="markdown"><p>Searching.</p></div></div>' +
      '<div data-message-author-role="assistant" data-message-id="x-2"><div class="markdown"><p>Found it.</p></div></div>';
    document.body.append(turn);
    const messages = chatgpt.messages(turn);
    expect(messages).toHaveLength(2);
    for (const message of messages) expect(chatgpt.pendingChoice!(message.el)).toBeNull();
    turn.remove();
  });
});

describe('ordinary replies are no choice', () => {
  // A module's comparison markup that matched an ordinary reply would hold every reply's blocks for good.
  const saved = readdirSync(FIXTURE_DIR)
    .sort()
    .flatMap((dir) => readdirSync(join(FIXTURE_DIR, dir)).map((file) => ({ file: `${dir}/${file}`, site: siteById(dir) })));

  it.each(saved.filter((fixture) => fixture.site?.pendingChoice))('$file: no message asks which reply to keep', ({ file, site }) => {
    const doc = loadFixture(file);
    const messages = site!.messages(doc);
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(site!.pendingChoice!(message.el)).toBeNull();
  });

  it('the modules that know a comparison are the ones SITES-MORE.md documents one for', () => {
    expect(SITES.filter((site) => site.pendingChoice).map((site) => site.id).sort()).toEqual(['chatgpt', 'qwen']);
  });
});
