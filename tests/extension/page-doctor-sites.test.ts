import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SITES, generic } from '../../extension/sites';
import type { Site } from '../../extension/sites/define-site';
import { useLocale } from './i18n-fake';
import { start, stopPages, type Harness, type Page } from './page-harness';
import { FIXTURE_DIR, loadFixture } from './site-fixtures';

/**
 * Every site module's page, as each of its saved idle fixtures shows it (every build and layout saved), with one thing
 * the module depends on renamed at a time (the messages, the answer of a reply, the chat box, the send control): a
 * redesign that hides it from the module is named by the site doctor of the running page, specifically, within seconds
 * and in the person's language — and the page as saved raises nothing.
 */

afterEach(stopPages);

// The doctor checks when a test says (the harness's manual checks): counted, not waited for.
/** The doctor's longest count (five checks in a row) with room. */
const NAMED_WITHIN_CHECKS = 5 * 3;
/** Enough checks for every count of the doctor to have run out twice. */
const QUIET_CHECKS = 12;
const CJK = /[\u4e00-\u9fff]/;

const sites = SITES.filter((site) => site.hosts.length > 0);

/** The site's idle fixtures (each build and layout saved) and the address each was saved at (its comment's "Path:"). */
function idleFixtures(site: Site): Array<{ file: string; pathname: string; href: string }> {
  return readdirSync(join(FIXTURE_DIR, site.id))
    .filter((f) => f.includes('idle'))
    .sort()
    .map((file) => {
      const path = readFileSync(join(FIXTURE_DIR, site.id, file), 'utf8').match(/Path:\s+(\S+)/)?.[1] ?? '/';
      const url = new URL(path.replace(/\.?\s*-->$/, ''), `https://${site.hosts[0]}`);
      return { file: `${site.id}/${file}`, pathname: url.pathname, href: url.href };
    });
}

/**
 * What a redesign does to an element: the same content in an element with none of the old names — no id, class,
 * role, test id or label; a custom element becomes a div (a textarea or button stays one).
 */
function rename(el: Element): Element {
  const tag = ['TEXTAREA', 'BUTTON', 'INPUT'].includes(el.tagName) ? el.tagName.toLowerCase() : 'div';
  const next = el.ownerDocument.createElement(tag);
  if (el.getAttribute('contenteditable') !== null) next.setAttribute('contenteditable', 'true');
  next.append(...Array.from(el.childNodes));
  if (el instanceof HTMLTextAreaElement) (next as HTMLTextAreaElement).value = el.value;
  el.replaceWith(next);
  return next;
}

/** A second turn before the saved one (the person's message and the reply, cloned): a conversation of two turns. */
function twoTurns(site: Site, doc: Document): void {
  const messages = site.messages(doc);
  const first = messages[0]!.el;
  const last = messages.at(-1)!.el;
  let common: Element = first.parentElement!;
  while (!common.contains(last)) common = common.parentElement!;
  const turns = Array.from(common.children).filter((child) => messages.some((m) => child.contains(m.el)));
  for (const turn of turns) turns[0]!.before(turn.cloneNode(true));
}

function typeInto(editor: HTMLElement, text: string): void {
  if (editor instanceof HTMLTextAreaElement || editor instanceof HTMLInputElement) editor.value = text;
  else editor.innerHTML = `<p>${text}</p>`;
}

function startOn(site: Site, fixture: { pathname: string; href: string }): Harness {
  // The page's own parts are the fixture's; the harness's DeepSeek page object is not used here.
  return start(null as unknown as Page, { site, pathname: fixture.pathname, href: fixture.href, doctorChecks: 'manual' });
}

/** Checks the page until `named` holds, at most NAMED_WITHIN_CHECKS times; whether it did. */
async function checkUntil(h: Harness, named: () => boolean): Promise<boolean> {
  for (let i = 0; i < NAMED_WITHIN_CHECKS && !named(); i++) await h.checkDoctor();
  return named();
}

/**
 * What the doctor says about a saved page as it is: nothing. (HuggingChat's 2026 builds put no language in the page,
 * its module's contract: the tools/list its saved reply holds is offered with Run there, Site.labelHidden, no fault.)
 */
function savedProblems(_file: string): string[] {
  return [];
}

async function namedOrHealthy(h: Harness, file: string, codes: string[], part: string, stillFound: boolean): Promise<void> {
  if (stillFound) {
    // The module's fallback still finds it: the page works, nothing more to name.
    await h.checkDoctor(QUIET_CHECKS);
    expect(h.problems.filter((p) => p !== null).map((p) => p!.code), part).toEqual(savedProblems(file));
    return;
  }
  if (!(await checkUntil(h, () => codes.includes(h.problems.at(-1)?.code ?? '')))) {
    throw new Error(`${part}: expected one of ${codes.join(', ')}, the badge heard ${JSON.stringify(h.problems)}`);
  }
  expect(h.problems.at(-1)?.message, part).toMatch(CJK);
}

const idle = sites.flatMap((site) => idleFixtures(site).map((fixture) => [fixture.file, site, fixture] as const));
describe.each(idle)('%s: a renamed part is named', (_, site, fixture) => {

  it('the page as saved raises nothing', async () => {
    loadFixture(fixture.file);
    twoTurns(site, document);
    const h = startOn(site, fixture);
    await h.checkDoctor(QUIET_CHECKS);
    expect(h.problems.filter((p) => p !== null).map((p) => p!.code)).toEqual(savedProblems(fixture.file));
  });

  it('the messages', async () => {
    useLocale('zh_CN');
    loadFixture(fixture.file);
    twoTurns(site, document);
    for (const message of site.messages(document)) rename(message.el);
    const h = startOn(site, fixture);
    await namedOrHealthy(h, fixture.file, ['no-messages', 'no-answer'], 'messages', site.messages(document).length === 4);
  });

  it("the replies' answer", async () => {
    useLocale('zh_CN');
    loadFixture(fixture.file);
    twoTurns(site, document);
    for (const message of site.messages(document).filter((m) => m.role === 'assistant')) {
      const answer = site.answerRoot(message.el);
      if (answer) rename(answer);
    }
    const h = startOn(site, fixture);
    const stillFound = site.messages(document).some((m) => m.role === 'assistant' && site.answerRoot(m.el) !== null);
    await namedOrHealthy(h, fixture.file, ['no-messages', 'no-answer'], 'answer', stillFound);
  });

  // A page saved at the address of a new chat (Kimi's first reply, before the site names the conversation) is not yet
  // one of the person's conversations: a box missing there is named once it is (the address changes as the reply ends).
  it.skipIf(site.conversationId(new URL(fixture.href)) === null)('the chat box', async () => {
    useLocale('zh_CN');
    loadFixture(fixture.file);
    twoTurns(site, document);
    rename(site.editor(document)!);
    const h = startOn(site, fixture);
    await namedOrHealthy(h, fixture.file, ['no-composer'], 'composer', site.editor(document) !== null);
  });

  it('the send control, once the box holds text', async () => {
    useLocale('zh_CN');
    loadFixture(fixture.file);
    twoTurns(site, document);
    const send = site.sendButton(document);
    if (send) rename(send);
    typeInto(site.editor(document)!, 'what is in README?');
    const h = startOn(site, fixture);
    await namedOrHealthy(h, fixture.file, ['no-send-control'], 'send', site.sendButton(document) !== null || site.stopControl(document) !== null);
  });
});

/**
 * Each site's page while a reply streams, its stop control renamed by a new build: the person sends, a reply streams
 * in, and that is named while it streams — by the send check where the site still says it is writing, or as a reply
 * written with no writing signal where the stop control was that signal (ChatGPT and Gemini, whose send control is
 * gone while the box is empty, leave nothing else missing). With the stop control as saved, nothing is raised.
 * (A saved page whose only reply is the one being written has no reply of its own to clone: left out.)
 */
const generatingFixtures = sites.flatMap((site) =>
  readdirSync(join(FIXTURE_DIR, site.id))
    .filter((f) => f.includes('generating'))
    .map((f) => [`${site.id}/${f}`, site] as const),
);
describe.each(generatingFixtures)('%s: a stop control renamed while a reply streams', (file, site) => {
  const html = readFileSync(join(FIXTURE_DIR, file), 'utf8');
  const path = html.match(/Path:\s+(\S+)/)?.[1] ?? '/';
  const url = new URL(path.replace(/\.?\s*-->$/, ''), `https://${site.hosts[0]}`);
  const fixture = { pathname: url.pathname, href: url.href };
  const saved = new DOMParser().parseFromString(html, 'text/html');
  const answered = site.messages(saved).some((m, i) => i > 0 && m.role === 'assistant' && site.answerRoot(m.el) !== null);

  /** The person sends with Enter (`sent`); the site draws their message and a reply that streams in, the box empty again. */
  async function sendAndStream(h: Harness, sent = true): Promise<void> {
    const editor = site.editor(document)!;
    if (sent) {
      typeInto(editor, 'and the next file?');
      const enter = new KeyboardEvent('keydown', { key: 'Enter', bubbles: true });
      Object.defineProperty(enter, 'isTrusted', { value: true });
      editor.dispatchEvent(enter);
      typeInto(editor, '');
    }
    // The last exchange cloned as the new one (the turns holding the person's message and the reply), ids made new.
    const messages = site.messages(document);
    const at = messages.findLastIndex((m) => m.role === 'assistant' && site.answerRoot(m.el) !== null);
    const [asked, replied] = [messages[at - 1]!.el, messages[at]!.el];
    let common: Element = asked.parentElement!;
    while (!common.contains(replied)) common = common.parentElement!;
    // An exchange drawn in one element of its own (Gemini's conversation container) is cloned whole.
    const whole = !common.contains(messages.at(-1)!.el);
    const turns = whole ? [common] : Array.from(common.children).filter((child) => child.contains(asked) || child.contains(replied));
    const next = turns.map((turn) => turn.cloneNode(true) as Element);
    for (const el of next.flatMap((turn) => [turn, ...turn.querySelectorAll('*')])) {
      for (const name of ['id', 'data-message-id', 'data-turn-id', 'data-testid']) {
        const value = el.getAttribute(name);
        if (value && /\d/.test(value)) el.setAttribute(name, `${value}-next`);
      }
    }
    (whole ? common.parentElement! : common).append(...next);
    const newReply = site.messages(document).at(-1)!.el;
    const answer = site.answerRoot(newReply)!;
    answer.innerHTML = '<p></p>';
    // eight growths, each with a check of the page after it: the writing checks need two in a row
    const words = 'Reading the next file now, one line at'.split(' ');
    for (let i = 1; i <= words.length; i++) {
      answer.firstElementChild!.textContent = words.slice(0, i).join(' ');
      h.clock.now += 200;
      await h.settle();
      await h.checkDoctor();
    }
  }

  it.skipIf(!answered)('is named while the reply streams', async () => {
    useLocale('zh_CN');
    loadFixture(file);
    // The control and what it holds (an icon that says stop), all renamed.
    const stop = rename(site.stopControl(document)!);
    for (const inner of Array.from(stop.querySelectorAll('*')).reverse()) rename(inner);
    const stillFound = site.stopControl(document) !== null;
    const h = startOn(site, fixture);
    await sendAndStream(h);
    const codes = h.problems.filter((p) => p !== null).map((p) => p!.code);
    if (stillFound) {
      // The module's fallback still finds it: the page works, nothing to name.
      expect(codes).toEqual([]);
      return;
    }
    expect(codes.some((code) => code === 'no-writing-signal' || code === 'no-send-control'), JSON.stringify(codes)).toBe(true);
    expect(h.problems.at(-1)?.message).toMatch(CJK);
  });

  it.skipIf(!answered)('a reply this tab did not send (the conversation written in another tab) is not named', async () => {
    loadFixture(file);
    const stop = rename(site.stopControl(document)!);
    for (const inner of Array.from(stop.querySelectorAll('*')).reverse()) rename(inner);
    const h = startOn(site, fixture);
    await sendAndStream(h, false);
    await h.checkDoctor(QUIET_CHECKS);
    expect(h.problems.filter((p) => p !== null).map((p) => p!.code)).not.toContain('no-writing-signal');
  });

  it.skipIf(!answered)('a reply another tab sent after this tab\'s own reply ended is not named', async () => {
    loadFixture(file);
    const h = startOn(site, fixture);
    // This tab sends and its reply streams with the stop control as the site draws it; the reply ends.
    await sendAndStream(h);
    const stop = rename(site.stopControl(document)!);
    for (const inner of Array.from(stop.querySelectorAll('*')).reverse()) rename(inner);
    h.clock.now += 60_000;
    await h.checkDoctor(QUIET_CHECKS);
    await h.settle();
    // The conversation's other tab sends; its reply is drawn here as it streams, with no stop control in this tab.
    await sendAndStream(h, false);
    await h.checkDoctor(QUIET_CHECKS);
    // And once the page gives up waiting on it.
    h.clock.now += 60_000;
    await h.settle();
    await h.checkDoctor(QUIET_CHECKS);
    expect(h.problems.filter((p) => p !== null).map((p) => p!.code)).not.toContain('no-writing-signal');
  });

  it.skipIf(!answered)('with the stop control as the site draws it, nothing is raised', async () => {
    loadFixture(file);
    const h = startOn(site, fixture);
    await sendAndStream(h);
    await h.checkDoctor(QUIET_CHECKS);
    expect(h.problems.filter((p) => p !== null)).toEqual([]);
  });
});

describe('Gemini: "New chat" empties the conversation but keeps the old address until the first send', () => {
  it('raises nothing; a conversation opened there whose messages the module cannot find is still named', async () => {
    const site = sites.find((s) => s.id === 'gemini')!;
    const fixture = idleFixtures(site).at(-1)!;
    loadFixture(fixture.file);
    const h = startOn(site, fixture);
    await h.checkDoctor(QUIET_CHECKS);
    // The person clicks New chat: the app empties the list (SITES-MORE.md, ZS 2026-07), the address stays.
    for (const turn of Array.from(document.querySelectorAll('.conversation-container'))) turn.remove();
    await h.checkDoctor(NAMED_WITHIN_CHECKS);
    expect(h.problems.filter((p) => p !== null)).toEqual([]);
    // The person opens another conversation, drawn by a build whose messages the module does not find: named.
    h.navigate('/app/9b4c6d3f02a1e5f8');
    const history = document.createElement('div');
    history.innerHTML = '<div class="turn-2027"><div class="query-2027">hello</div><div class="response-2027"><p>Hi!</p></div></div>';
    document.querySelector('infinite-scroller, .chat-history')!.append(history);
    expect(await checkUntil(h, () => h.problems.at(-1)?.code === 'no-messages'), JSON.stringify(h.problems)).toBe(true);
  });
});

describe('ChatGPT: a composer redrawn beside the hidden textarea of the same name', () => {
  it('is named as a missing chat box: the hidden textarea is never taken for it', async () => {
    useLocale('zh_CN');
    const site = sites.find((s) => s.id === 'chatgpt')!;
    const fixture = idleFixtures(site).find((f) => f.file.includes('hljs'))!;
    loadFixture(fixture.file);
    twoTurns(site, document);
    // The live page keeps a textarea named prompt-textarea in the composer's form, which the page never shows (SITES.md).
    const editor = site.editor(document)!;
    const hidden = document.createElement('textarea');
    hidden.name = 'prompt-textarea';
    hidden.className = 'hidden';
    hidden.style.display = 'none';
    editor.after(hidden);
    expect(site.editor(document)).toBe(editor);
    // A build that draws the chat box as a plain textarea again (ChatGPT's composer before ProseMirror), no name.
    const redrawn = document.createElement('textarea');
    redrawn.id = 'prompt-textarea';
    editor.replaceWith(redrawn);
    // A result typed into the hidden box is one the person never sees, and sending it sends nothing.
    expect(site.editor(document)).toBeNull();
    const h = startOn(site, fixture);
    expect(await checkUntil(h, () => h.problems.at(-1)?.code === 'no-composer'), JSON.stringify(h.problems)).toBe(true);
    expect(h.problems.at(-1)?.message).toMatch(CJK);
  });
});

describe('the generic adapter: a box the page does not show after the chat box', () => {
  it("is never taken for it (a captcha's response field): the chat box is", async () => {
    document.body.innerHTML =
      '<main><article data-role="user"><p>read it</p></article><article data-role="assistant"><p>Reading.</p></article></main>' +
      '<form><textarea id="prompt"></textarea><button type="submit" aria-label="Send">Send</button></form>' +
      // reCAPTCHA's invisible badge, appended to the page's end: its response field is a textarea it keeps hidden.
      '<div class="grecaptcha-badge"><textarea id="g-recaptcha-response" name="g-recaptcha-response" style="display: none;"></textarea></div>' +
      '<div style="visibility: hidden"><div contenteditable="true" id="hidden-draft"></div></div>';
    expect(generic.editor(document)?.id).toBe('prompt');
    // Nothing shown at all: no chat box.
    document.getElementById('prompt')!.style.visibility = 'hidden';
    expect(generic.editor(document)).toBeNull();
  });
});

describe('Kimi: a build that renames the composer while an old message is open for editing', () => {
  it('never takes the edit box above for the chat box', () => {
    const site = sites.find((s) => s.id === 'kimi')!;
    const fixture = idleFixtures(site).find((f) => f.file.includes('segment-box'))!;
    for (const renamed of ['the wrapper', 'the wrapper and the class', "the composer's class"]) {
      loadFixture(fixture.file);
      const composer = site.editor(document)!;
      const editBox = Array.from(document.querySelectorAll('.chat-input-editor')).find((box) => box !== composer)!;
      expect(composer.compareDocumentPosition(editBox) & Node.DOCUMENT_POSITION_PRECEDING, 'the edit box is above').toBeTruthy();
      // The site's own class names go; the marks Lexical puts on every editor it draws stay.
      const rename = (el: Element, name: string): void => void el.classList.replace(name, `${name.slice(0, 4)}_x7Gq2`);
      if (renamed !== "the composer's class") for (const el of Array.from(document.querySelectorAll('.chat-editor'))) rename(el, 'chat-editor');
      if (renamed !== 'the wrapper') rename(composer, 'chat-input-editor');
      if (renamed === 'the wrapper and the class') rename(editBox, 'chat-input-editor');
      expect(site.editor(document), renamed).toBe(composer);
    }
  });
});
