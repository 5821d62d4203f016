import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { t } from '../../extension/ui/i18n';
import { besidesText } from '../../extension/content/page-deliver';
import { isEditorEmpty } from '../../extension/inject/insert';
import { SITES, chatgpt, claude, gemini, generic } from '../../extension/sites';
import type { Site } from '../../extension/sites/define-site';
import { FIXTURE_DIR, loadFixture } from './site-fixtures';
import { LIVE_SEND_ICON, LIVE_STOP_ICON, READ, assistantRow, buildPage, deepseekReadingItsComposer, renderReply, start, stopPages, streamReply, trusted, until, userRow, type Harness } from './page-harness';

/**
 * A file the person attached to their next message, alone in the composer (no text): the send control is enabled with
 * the box empty, and a press of it sends the file. A result typed in and sent by itself would take the file along,
 * which the person never approved: the file counts as their draft, and the result waits as it does for one.
 */

afterEach(stopPages);

const live = { stop: LIVE_STOP_ICON, send: LIVE_SEND_ICON };

/** A reply holding a read call streams while the person attaches a file, then ends: its block runs. */
async function replyEndsWithFileAttached(h: Harness): Promise<void> {
  h.page.list.append(userRow('do it'));
  const { row, answer } = assistantRow();
  h.page.setGenerating(true);
  h.page.list.append(row);
  await h.settle();
  renderReply(answer, ['Reading it.', { lang: 'mcp-request', code: READ }]);
  h.clock.now += 50;
  await h.settle();
  h.page.attach('notes.pdf');
  await h.settle();
  h.page.setGenerating(false);
  h.clock.now += 500;
  await h.settle();
  h.clock.now += 10_000;
  await h.settle();
  await until(() => h.runs.length === 1);
}

const noteOf = (): string | null => document.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-note') ?? null;
const fileChip = (): Element | null => document.querySelector('.ds-file-chip');

describe('DeepSeek: a file attached to the next message, alone in the composer, when a result comes', () => {
  it('the result waits and nothing is sent; once the person sends their file, the result is typed in and sent alone', async () => {
    const h = start(buildPage(live));
    await replyEndsWithFileAttached(h);
    await new Promise((resolve) => setTimeout(resolve, 700));
    await h.settle();
    expect(h.page.submitted).toEqual([]);
    expect(h.page.textarea.value).toBe('');
    expect(fileChip()?.textContent).toBe('notes.pdf');
    expect(document.body.innerHTML).not.toContain('RESULT');
    expect(noteOf()).toBe(t('note.attachment'));
    // The person sends the file with a message of their own.
    h.page.type('here is the file');
    h.page.send.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    await until(() => h.page.submitted.length === 2);
    expect(h.page.submitted).toEqual(['here is the file', 'RESULT[mcp-request:1]']);
    expect(h.runs).toHaveLength(1);
    await until(() => noteOf() === t('note.submitted'));
  });

  it('the person takes the file away: the result is sent', async () => {
    const h = start(buildPage(live));
    await replyEndsWithFileAttached(h);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(h.page.submitted).toEqual([]);
    h.page.attach(null);
    await until(() => h.page.submitted.length === 1);
    expect(h.page.submitted).toEqual(['RESULT[mcp-request:1]']);
  });

  it('with "append" for drafts, the result is typed in beside the file and not sent', async () => {
    const h = start(buildPage(live), { settings: { draftPolicy: 'append' } });
    await replyEndsWithFileAttached(h);
    await until(() => h.page.textarea.value.includes('RESULT[mcp-request:1]'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await h.settle();
    expect(h.page.submitted).toEqual([]);
    expect(fileChip()?.textContent).toBe('notes.pdf');
  });
});

/** A module that reads what its composer holds (DeepSeek's chip markup is not documented; the harness draws one). */
const readsItsComposer = deepseekReadingItsComposer;

/**
 * A result waits in the box (typed in while the person's next reply streams, the companion slow to answer), and the
 * person attaches a file to the box meanwhile.
 */
async function resultInTheBoxWhileAReplyStreams(h: Harness): Promise<void> {
  await answerWhileTheNextReplyStreams(h);
  await until(() => h.page.state() === 'THE RESULT');
}

/** The companion answers a read the page started once the person's next reply streams. */
async function answerWhileTheNextReplyStreams(h: Harness): Promise<void> {
  await streamReply(h, ['Reading it.', { lang: 'mcp-request', code: READ }]);
  await until(() => h.runs.length === 1);
  h.page.list.append(userRow('and meanwhile?'));
  const { row, answer } = assistantRow();
  h.page.setGenerating(true);
  h.page.list.append(row);
  renderReply(answer, ['Meanwhile']);
  await h.settle();
  h.push({ type: 'event', event: { type: 'run', run: { runId: 'run-1', status: 'done', resultText: 'THE RESULT', auditId: 'a' } } });
}

const slowCompanion = { respond: (_run: unknown, n: number) => ({ runId: `run-${n}`, status: 'running' as const, resultText: '', auditId: 'a' }) };

describe('a file attached while the result waits in the box to be sent', () => {
  it('the reply ends: nothing is sent, the result stays in the box beside the file, and the chip says why', async () => {
    const h = start(buildPage(live), { site: readsItsComposer, script: slowCompanion });
    await resultInTheBoxWhileAReplyStreams(h);
    h.page.attach('notes.pdf');
    await h.settle();
    h.page.setGenerating(false);
    h.clock.now += 2_000;
    await h.settle();
    await until(() => noteOf() === t('note.insertedAttachment'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.page.submitted).toEqual([]);
    expect(h.page.state()).toBe('THE RESULT');
    expect(fileChip()?.textContent).toBe('notes.pdf');
  });

  it('the site draws its box anew while the result waits in it, and the person writes under the result there: nothing is sent', async () => {
    const h = start(buildPage(live), { site: readsItsComposer, script: slowCompanion });
    await resultInTheBoxWhileAReplyStreams(h);
    // A re-render: the box taken out still holds only the result; the person writes in the one drawn in its place.
    const old = h.page.textarea;
    h.page.remountBox();
    h.page.type('THE RESULT\n\nand my own question');
    h.page.setGenerating(false);
    h.clock.now += 2_000;
    await h.settle();
    await until(() => noteOf() === t('note.inserted'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.page.submitted).toEqual([]);
    expect(h.page.state()).toBe('THE RESULT\n\nand my own question');
    expect(old.value).toBe('THE RESULT');
  });

  it('attached right before the send control is pressed: nothing is sent', async () => {
    // The send control takes its time to come back after the reply; the person attaches the file meanwhile.
    const h = start(buildPage(live), { site: readsItsComposer, script: slowCompanion });
    await resultInTheBoxWhileAReplyStreams(h);
    const composer = h.page.send.parentElement!;
    h.page.send.remove();
    h.page.setGenerating(false);
    h.clock.now += 2_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    h.page.attach('notes.pdf');
    composer.append(h.page.send);
    await until(() => noteOf() === t('note.insertedAttachment'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.page.submitted).toEqual([]);
    expect(h.page.state()).toBe('THE RESULT');
  });

  it('with no file attached, the same result is sent once the reply ends', async () => {
    const h = start(buildPage(live), { site: readsItsComposer, script: slowCompanion });
    await resultInTheBoxWhileAReplyStreams(h);
    h.page.setGenerating(false);
    h.clock.now += 2_000;
    await h.settle();
    await until(() => h.page.submitted.length === 1);
    expect(h.page.submitted).toEqual(['THE RESULT']);
  });
});

/** The result comes while the person's next reply still streams, and the page has had time to take it. */
async function resultComesWhileTheNextReplyStreams(h: Harness): Promise<void> {
  await answerWhileTheNextReplyStreams(h);
  await h.settle();
  await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('DeepSeek (its send control the only tell of a file): a result that comes while the next reply streams', () => {
  it('waits out of the box, the stop control never clicked, and goes once the reply ends', async () => {
    const h = start(buildPage(live), { script: slowCompanion });
    let clicksWhileGenerating = 0;
    h.page.send.addEventListener('click', () => {
      if (h.page.send.querySelector('path[d^="M2 4.88"]')) clicksWhileGenerating += 1;
    });
    await resultComesWhileTheNextReplyStreams(h);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.page.textarea.value).toBe('');
    expect(clicksWhileGenerating).toBe(0);
    h.page.setGenerating(false);
    await until(() => h.page.submitted.length === 1);
    expect(h.page.submitted).toEqual(['THE RESULT']);
    expect(clicksWhileGenerating).toBe(0);
  });

  it('the person writes in the box meanwhile: the result waits for their message and is never sent with it', async () => {
    const h = start(buildPage(live), { script: slowCompanion });
    await resultComesWhileTheNextReplyStreams(h);
    h.page.type('and what does it say about tests?');
    h.page.setGenerating(false);
    h.clock.now += 2_000;
    await h.settle();
    await until(() => noteOf() === t('note.draft'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.page.submitted).toEqual([]);
    expect(h.page.state()).toBe('and what does it say about tests?');
  });

  it('a reply that ended counts no more: the result waits its full time for the next one, written after a long draft', async () => {
    const h = start(buildPage(live), { script: slowCompanion, deliverWaitMs: { writing: 1_500 } });
    await resultComesWhileTheNextReplyStreams(h);
    h.page.type('one more thing');
    h.page.setGenerating(false);
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    // The person sends their message; its reply streams a while, well within the wait, and ends.
    h.page.send.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    h.page.setGenerating(true);
    await new Promise((resolve) => setTimeout(resolve, 600));
    h.page.setGenerating(false);
    await until(() => h.page.submitted.length === 2);
    expect(h.page.submitted).toEqual(['one more thing', 'THE RESULT']);
  });

  it('the person attaches a file before the reply ends: nothing is sent with it; once they send it, the result goes alone', async () => {
    const h = start(buildPage(live), { script: slowCompanion });
    await resultComesWhileTheNextReplyStreams(h);
    h.page.attach('notes.pdf');
    await h.settle();
    h.page.setGenerating(false);
    h.clock.now += 2_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 700));
    await h.settle();
    expect(h.page.submitted).toEqual([]);
    expect(fileChip()?.textContent).toBe('notes.pdf');
    expect(noteOf()).toBe(t('note.attachment'));
    h.page.type('here is the file');
    h.page.send.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    await until(() => h.page.submitted.length === 2);
    expect(h.page.submitted).toEqual(['here is the file', 'THE RESULT']);
  });
});

describe('a page whose send control may be enabled with nothing to send (the generic adapter)', () => {
  it('the result is sent as before (an enabled send control there says nothing of an attached file)', async () => {
    const thread = document.createElement('main');
    const form = document.createElement('form');
    const textarea = document.createElement('textarea');
    const send = Object.assign(document.createElement('button'), { type: 'submit' });
    send.setAttribute('aria-label', 'Send');
    const submitted: string[] = [];
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      submitted.push(textarea.value);
      textarea.value = '';
    });
    form.append(textarea, send);
    document.body.replaceChildren(thread, form);
    const h = start({} as never, { site: generic, pathname: '/chat/42', settings: { enabled: true, autoRun: true, autoSubmit: true } });
    await h.settle();
    // The person asks in the page's box and presses Enter; the reply streams in.
    textarea.value = 'read it';
    textarea.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    textarea.value = '';
    const question = document.createElement('article');
    question.setAttribute('data-role', 'user');
    question.textContent = 'read it';
    const answer = document.createElement('article');
    answer.setAttribute('data-role', 'assistant');
    thread.append(question, answer);
    answer.innerHTML = '<p>Reading</p>';
    h.clock.now += 300;
    await h.settle();
    answer.innerHTML = '<p>Reading it.</p><pre><code class="language-mcp-request"></code></pre>';
    answer.querySelector('code')!.textContent = READ;
    h.clock.now += 300;
    await h.settle();
    for (let i = 0; i < 6; i++) {
      h.clock.now += 1_000;
      await h.settle();
    }
    await until(() => submitted.length === 1);
    expect(submitted).toEqual(['RESULT[mcp-request:1]']);
    await until(() => noteOf() === t('note.submitted'));
  });
});

describe("the site modules' saved pages: the send control with the chat box empty", () => {
  // What makes an enabled control with the box empty an attached file (sendOffWhenEmpty, where a module says so).
  const pages = SITES.filter((site) => site.sendOffWhenEmpty).flatMap((site) =>
    readdirSync(join(FIXTURE_DIR, site.id)).map((file) => ({ site, file: `${site.id}/${file}` })),
  );
  it.each(pages)('$file: nothing besides text to send, unless a file is attached', ({ site, file }) => {
    const doc = loadFixture(file);
    const editor = site.editor(doc);
    if (!editor || !isEditorEmpty(editor)) return;
    expect(besidesText(site, doc)).toBe(file.includes('attachment') ? 'attachment' : null);
  });
});

describe('a module that does not say its send control is off with the box empty', () => {
  // Gemini's fallback finds the button in the send slot's container, which holds the microphone while the box is
  // empty: taken for an attached file, every result waited for good (the e2e Quill family caught it)
  it('Gemini with the microphone in the send slot: nothing besides text to send', () => {
    document.body.innerHTML =
      '<rich-textarea><div class="ql-editor ql-blank" contenteditable="true"><p><br></p></div></rich-textarea>' +
      '<div data-test-id="send-button-container"><button aria-label="Microphone" class="speech_dictation_mic_button"><mat-icon fonticon="mic"></mat-icon></button></div>';
    const gemini = SITES.find((site) => site.id === 'gemini')!;
    expect(gemini.sendButton(document)?.getAttribute('aria-label')).toBe('Microphone');
    expect(besidesText(gemini, document)).toBeNull();
  });
});

/**
 * Each module that reads its composer, on its site's saved pages and on them with a file put where the site draws one
 * (the markup other projects captured; see the module). A selector that matches something always there would hold
 * every result for good, so the saved pages, idle and while a reply is written, must show nothing besides text; one
 * that matches a file in a message above would too, once the person has sent a file.
 */
interface ComposerCase {
  site: Site;
  /** a saved page of the site, with its chat box */
  page: string;
  /** puts what the site draws for an attached file into the composer */
  attach(doc: Document): void;
  /** the same file, as the person's message above draws it once sent */
  sentAbove(doc: Document): void;
}

const tile = (name: string, remove: boolean): string =>
  `<div role="group" aria-label="${name}" class="group/file-tile text-token-text-primary"><button type="button" aria-label="${name}"></button>` +
  `<div><div>${name}</div><div>PDF</div></div>${remove ? `<button type="button" aria-label="Remove file 1: ${name}"></button>` : ''}</div>`;
const thumbnail = (name: string): string => `<div data-testid="file-thumbnail"><button><h3>${name}</h3><p>pdf</p></button></div>`;
const geminiChip = (name: string): string =>
  `<uploader-file-preview class="file-preview-chip"><div class="file-preview"><span data-test-id="file-name" title="${name}">${name}</span></div>` +
  `<button aria-label="close ${name}"></button></uploader-file-preview>`;

const COMPOSERS: Record<string, ComposerCase> = {
  'chatgpt: a file tile in the form': {
    site: chatgpt,
    page: 'chatgpt/2025-09-hljs-idle.html',
    attach: (doc) => doc.querySelector('form')!.insertAdjacentHTML('afterbegin', tile('notes.pdf', true)),
    sentAbove: (doc) => doc.querySelector('[data-message-author-role="user"]')!.insertAdjacentHTML('afterbegin', tile('notes.pdf', false)),
  },
  'chatgpt: a "pasted text" card in a header above the form (late 2026)': {
    site: chatgpt,
    page: 'chatgpt/2026-10-search-unit-idle.html',
    attach: (doc) => {
      const form = doc.querySelector('form')!;
      const surface = doc.createElement('div');
      surface.setAttribute('data-testid', 'composer-surface');
      form.replaceWith(surface);
      surface.innerHTML = '<header><section data-testid="composer-pasted-text-card" role="group"><button type="button" data-testid="remove-pasted-text-button"></button></section></header>';
      surface.append(form);
    },
    sentAbove: (doc) => doc.querySelector('[data-chatgpt-search-unit-key$=":user"]')!.insertAdjacentHTML('afterbegin', tile('notes.pdf', false)),
  },
  'claude: a file thumbnail in the fieldset': {
    site: claude,
    page: 'claude/2026-11-thinking-idle.html',
    attach: (doc) => doc.querySelector('fieldset')!.insertAdjacentHTML('afterbegin', thumbnail('notes.pdf')),
    sentAbove: (doc) => doc.querySelector('[data-testid="user-message"]')!.insertAdjacentHTML('beforebegin', thumbnail('notes.pdf')),
  },
  'gemini: a file chip in the input area': {
    site: gemini,
    page: 'gemini/2026-11-thinking-idle.html',
    attach: (doc) => doc.querySelector('input-area-v2')!.insertAdjacentHTML('afterbegin', `<uploader-file-preview-container>${geminiChip('notes.pdf')}</uploader-file-preview-container>`),
    sentAbove: (doc) => doc.querySelector('user-query')!.insertAdjacentHTML('afterbegin', geminiChip('notes.pdf')),
  },
};

describe('modules that read their composer: what it holds besides the chat box\'s text', () => {
  const saved = SITES.filter((site) => site.composerAttachment).flatMap((site) =>
    readdirSync(join(FIXTURE_DIR, site.id)).map((file) => ({ site, file: `${site.id}/${file}` })),
  );
  it('every module that reads its composer has a case with a file here', () => {
    expect(saved.length).toBeGreaterThan(0);
    const covered = new Set(Object.values(COMPOSERS).map((c) => c.site.id));
    for (const { site } of saved) expect(covered.has(site.id), site.id).toBe(true);
  });

  it.each(saved)('$file, as saved: nothing besides text', ({ site, file }) => {
    const doc = loadFixture(file);
    expect(site.composerAttachment!(doc)).toBeNull();
    expect(besidesText(site, doc)).toBeNull();
  });

  it.each(Object.entries(COMPOSERS))('%s: an attachment', (_name, { site, page, attach }) => {
    const doc = loadFixture(page);
    attach(doc);
    expect(site.composerAttachment!(doc)).not.toBeNull();
    expect(besidesText(site, doc)).toBe('attachment');
  });

  it.each(Object.entries(COMPOSERS))('%s, the file sent in a message above: nothing besides text', (_name, { site, page, sentAbove }) => {
    const doc = loadFixture(page);
    sentAbove(doc);
    expect(site.composerAttachment!(doc)).toBeNull();
  });
});
