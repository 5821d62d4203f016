import { afterEach, describe, expect, it } from 'vitest';
import { deepseek } from '../../extension/sites';
import { aistudio, chatgpt } from '../../extension/sites';
import { codeMirrorText, defineSite } from '../../extension/sites/define-site';
import { useLocale } from './i18n-fake';
import { loadFixture } from './site-fixtures';
import { READ, assistantRow, buildPage, catchChipRoots, renderReply, start, stopPages, streamReply, until, userRow, type Harness } from './page-harness';

/**
 * Keeping the person working when the page fights back (issue 12, point 4) and the site doctor inside the page: a
 * result the chat box will not take goes to the clipboard and the chip says "copied — paste it"; a submit that cannot
 * be verified leaves the result in the box and the chip says "inserted — press Enter"; nothing is lost or sent twice,
 * and the badge hears of each problem when it starts and when it ends.
 */

afterEach(stopPages);
const roots = catchChipRoots();

const chipNote = (): string => document.querySelector('[data-chatbridge-chip]')?.getAttribute('data-chatbridge-note') ?? '';
const SHORT = { editor: 200, sendButton: 200, verify: 150 };

/** Runs a page's doctor (started with manual checks) until `named` holds, at most 15 checks; whether it did. */
async function checksUntil(h: Harness, named: () => boolean): Promise<boolean> {
  for (let i = 0; i < 15 && !named(); i++) await h.checkDoctor();
  return named();
}

describe('deliver: when the page fights back', () => {
  it('no chat box: the result goes to the clipboard, the chip says "copied — paste it", the badge hears of it', async () => {
    const copied: string[] = [];
    const page = buildPage();
    const h = start(page, { copy: async (text) => void copied.push(text), deliverWaitMs: SHORT });
    page.textarea.remove();
    await streamReply(h, ['Reading.', { lang: 'mcp-request', code: READ }]);
    await until(() => copied.length === 1);
    expect(copied).toEqual(['RESULT[mcp-request:1]']);
    await until(() => chipNote().startsWith('copied — paste it'));
    expect(page.submitted).toEqual([]);
    await until(() => h.problems.some((p) => p?.code === 'no-composer'));
    expect(h.ctl.doctor().problems.map((p) => p.code).sort()).toEqual(['insert-failed', 'no-composer']);
    // It counts as delivered: more time and scans put nothing anywhere again.
    h.clock.now += 10_000;
    await h.settle();
    expect(copied).toHaveLength(1);
    expect(h.runs).toHaveLength(1);
  });

  it('a chat box renamed while an earlier message is open for editing: the result never lands in the edit box, the doctor names it', async () => {
    const copied: string[] = [];
    const page = buildPage();
    // A build that renames the composer (no id, no known class or placeholder any more)…
    page.textarea.removeAttribute('id');
    // …while the person has an earlier message open for editing: a textarea inside that message's row.
    const edited = userRow('first question');
    const editBox = document.createElement('textarea');
    edited.append(editBox);
    page.list.append(edited);
    const h = start(page, { copy: async (text) => void copied.push(text), deliverWaitMs: SHORT });
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => copied.length === 1 || page.submitted.length === 1 || editBox.value !== '');
    expect(editBox.value).toBe('');
    expect(copied).toEqual(['RESULT[mcp-request:1]']);
    await until(() => chipNote().startsWith('copied — paste it'));
    await until(() => h.problems.some((p) => p?.code === 'no-composer'));
  });

  it('a box that will not take the text: copied, and the doctor keeps why', async () => {
    const copied: string[] = [];
    const page = buildPage();
    // The site module finds a box that is neither a textarea nor editable (the page changed its composer).
    const dead = document.createElement('div');
    dead.id = 'dead-box';
    document.body.append(dead);
    const site = defineSite({ ...deepseek, editor: (doc) => doc.getElementById('dead-box') });
    const h = start(page, { site, copy: async (text) => void copied.push(text), deliverWaitMs: SHORT });
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => copied.length === 1);
    await until(() => chipNote().startsWith('copied — paste it'));
    expect(h.ctl.doctor().lastInsert).toMatchObject({ ok: false, reason: expect.stringContaining('neither a textarea nor contenteditable') });
    expect(h.problems.at(-1)).toMatchObject({ code: 'insert-failed' });
  });

  it('copying refused too: the chip says where the result still is', async () => {
    const page = buildPage();
    const h = start(page, { copy: () => Promise.reject(new Error('Document is not focused')), deliverWaitMs: SHORT });
    page.textarea.remove();
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => chipNote().includes('copying failed'));
    // The chip still holds the result for the person to copy.
    expect(h.runs).toHaveLength(1);
  });

  it('copying refused with a long result: the chip holds all of it, in a box the keyboard scrolls, for the person to copy', async () => {
    const page = buildPage();
    const resultText = `\`\`\`mcp-response\nBEGIN ${'long line of the file '.repeat(300)}END\n\`\`\``;
    const h = start(page, {
      copy: () => Promise.reject(new Error('Document is not focused')),
      deliverWaitMs: SHORT,
      script: { respond: (_run, n) => ({ runId: `run-${n}`, status: 'done', resultText, auditId: 'a' }) },
    });
    page.textarea.remove();
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => chipNote().includes('copying failed'));
    const host = document.querySelector('[data-chatbridge-chip]')!;
    // what the chip draws follows its attributes once it has held the state a moment (ui/README.md)
    await until(() => roots.get(host)?.querySelector('details pre') != null);
    const shown = roots.get(host)?.querySelector('details pre');
    expect(shown?.textContent).toBe(resultText);
    expect(shown?.getAttribute('tabindex')).toBe('0');
  });

  it('a send control that never enables: "inserted — press Enter", sent once by the person, and the problem ends', async () => {
    const page = buildPage();
    // The send control never enables (as the site module reads it); Enter in the box does nothing for a script.
    const site = defineSite({ ...deepseek, isSendDisabled: () => true });
    const h = start(page, { site, deliverWaitMs: SHORT });
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => chipNote().startsWith('inserted — press Enter'), 3_000).catch(() => { throw new Error('note: ' + chipNote() + ' value ' + page.textarea.value); });
    expect(page.textarea.value).toBe('RESULT[mcp-request:1]');
    expect(page.submitted).toEqual([]);
    expect(h.ctl.doctor().lastSubmit).toMatchObject({ ok: false, reason: expect.stringContaining('send button never became available') });
    await until(() => h.problems.at(-1)?.code === 'submit-unverified');
    // Not tried again: the result stays in the box, once.
    h.clock.now += 10_000;
    await h.settle();
    expect(page.textarea.value).toBe('RESULT[mcp-request:1]');
    // The person sends it (the page empties its box): the problem is over within a check.
    page.type('');
    await until(() => h.problems.at(-1) === null, 3_000);
    expect(h.ctl.doctor().problems).toEqual([]);
  });

  it('a reply whose code the module cannot read is a problem when it finishes, and ends with the next readable reply', async () => {
    const page = buildPage();
    const strict = defineSite({ ...deepseek, codeBlockSelector: '.md-code-block' });
    const h = start(page, { site: strict, deliverWaitMs: SHORT });
    const { assistantRow, userRow } = await import('./page-harness');
    page.list.append(userRow('go'));
    const { row, answer } = assistantRow();
    page.setGenerating(true);
    page.list.append(row);
    await h.settle();
    answer.innerHTML = '<p>here</p><pre>echo one</pre>';
    h.clock.now += 50;
    await h.settle();
    answer.innerHTML = '<p>here it is</p><pre>echo one</pre>';
    h.clock.now += 50;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await until(() => h.problems.at(-1)?.code === 'code-unreadable');
    expect(h.problems.at(-1)?.message).toContain("1 code block in a shape this site's module does not know");
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.problems.at(-1) === null);
  });

  it("a reply whose code blocks' language label the module no longer finds is named: its calls cannot be told from code", async () => {
    const page = buildPage();
    const h = start(page, { deliverWaitMs: SHORT });
    page.list.append(userRow('go'));
    const { row, answer } = assistantRow();
    page.setGenerating(true);
    page.list.append(row);
    await h.settle();
    // A build that renames the banner and its label (hashed classes): the module reads no language for the block.
    const draw = (code: string): void => {
      answer.innerHTML = '<p class="ds-markdown-paragraph">Reading.</p><div class="md-code-block"><div class="md-code-head"><span class="e91a2c0f">mcp-request</span><button>复制</button></div><pre></pre></div>';
      answer.querySelector('pre')!.textContent = code;
    };
    draw(READ.slice(0, 30));
    h.clock.now += 50;
    await h.settle();
    draw(READ);
    h.clock.now += 50;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await until(() => h.problems.at(-1)?.code === 'code-unreadable');
    expect(h.problems.at(-1)?.message).toContain('1 code block without the language label');
    expect(h.runs).toEqual([]);
    // A block the model wrote without a language is plain code, not a problem.
    await streamReply(h, ['Here:', { lang: '', code: 'ls -la' }, { lang: 'mcp-request', code: READ }]);
    await until(() => h.problems.at(-1) === null);
  });

  it("a DeepSeek build whose language label is no longer a span: the Copy button's word is not read as the language, the doctor names the label missing", async () => {
    const page = buildPage();
    const h = start(page, { deliverWaitMs: SHORT });
    page.list.append(userRow('go'));
    const { row, answer } = assistantRow();
    page.setGenerating(true);
    page.list.append(row);
    await h.settle();
    // The 2026-10 banner, its label drawn in a div with a new hashed class; the Copy and Download buttons as before.
    const draw = (code: string): void => {
      answer.innerHTML =
        '<p class="ds-markdown-paragraph">Reading.</p><div class="md-code-block"><div class="md-code-block-banner-wrap"><div class="md-code-block-banner">' +
        '<div class="_121d384"><div class="d2a24f03"><div class="f0c1e2d3">mcp-request</div></div><div class="d2a24f03 _246a029"><div class="efa13877">' +
        '<button role="button" class="ds-atom-button ds-text-button"><span><span class="code-info-button-text">复制</span></span></button>' +
        '<button role="button" class="ds-atom-button ds-text-button"><span><span class="code-info-button-text">下载</span></span></button>' +
        '</div></div></div></div></div><pre></pre></div>';
      answer.querySelector('pre')!.textContent = code;
    };
    draw(READ.slice(0, 30));
    h.clock.now += 50;
    await h.settle();
    draw(READ);
    h.clock.now += 50;
    await h.settle();
    page.setGenerating(false);
    h.clock.now += 500;
    await h.settle();
    await until(() => h.problems.at(-1)?.code === 'code-unreadable');
    expect(h.problems.at(-1)?.message).toContain('1 code block without the language label');
    expect(h.runs).toEqual([]);
    expect(deepseek.codeLanguage(answer.querySelector('.md-code-block')!)).toBe('');
  });

  it('a conversation opened after a redesign that draws code without a pre is named at once, not at the next reply', async () => {
    const page = buildPage();
    const reply = assistantRow();
    reply.answer.innerHTML = '<p>Reading.</p><div class="code-viewer-2027"><div class="code-head">mcp-request</div><code></code></div>';
    reply.answer.querySelector('code')!.textContent = READ.replace(',', ',\n');
    page.list.append(userRow('do it'), reply.row);
    const h = start(page, { deliverWaitMs: SHORT });
    await until(() => h.problems.at(-1)?.code === 'code-unreadable', 1_000);
    expect(h.problems.at(-1)?.message).toContain("in a shape this site's module does not know");
    expect(h.runs).toEqual([]);
  });

  /** A reply as a redesign draws it: its code in a viewer the module does not know, no pre. */
  const unknownViewerReply = (): HTMLElement => {
    const reply = assistantRow();
    reply.answer.innerHTML = '<p>Reading.</p><div class="code-viewer-2027"><div class="code-head">mcp-request</div><code></code></div>';
    reply.answer.querySelector('code')!.textContent = READ.replace(',', ',\n');
    return reply.row;
  };

  it('a conversation opened from the new chat page, drawn by a redesign that draws code without a pre, is named as it opens', async () => {
    const page = buildPage();
    // The site opened at its new chat page (no conversation, no message); the person picks a conversation in the
    // sidebar: the app draws it without a reload.
    const h = start(page, { pathname: '/', deliverWaitMs: SHORT, doctorCheckMs: 60 });
    await h.settle();
    h.navigate('/a/chat/s/5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a');
    page.list.append(userRow('do it'), unknownViewerReply());
    await until(() => h.problems.at(-1)?.code === 'code-unreadable', 1_500);
    expect(h.problems.at(-1)?.message).toContain("in a shape this site's module does not know");
    expect(h.runs).toEqual([]);
  });

  it("a conversation switched to whose code the module reads ends the problem the one before it had", async () => {
    const page = buildPage();
    page.list.append(userRow('do it'), unknownViewerReply());
    const h = start(page, { deliverWaitMs: SHORT, doctorCheckMs: 60 });
    await until(() => h.problems.at(-1)?.code === 'code-unreadable', 1_000);
    // Another conversation, drawn as the module knows it: its code is read, nothing is wrong with this page.
    h.navigate('/a/chat/s/5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a');
    page.list.replaceChildren();
    const reply = assistantRow();
    renderReply(reply.answer, ['Reading.', { lang: 'mcp-request', code: READ }]);
    page.list.append(userRow('go on'), reply.row);
    await until(() => h.problems.at(-1) === null, 1_500);
    // And back to the first: named again.
    h.navigate('/a/chat/s/3f2e1d0c-9b8a-4776-a5b4-c3d2e1f0a9b8');
    page.list.replaceChildren(userRow('do it'), unknownViewerReply());
    await until(() => h.problems.at(-1)?.code === 'code-unreadable', 1_500);
  });

  it('a page starting clears what the tab showed before; a page stopping clears its problems', async () => {
    const page = buildPage();
    const h = start(page, { deliverWaitMs: SHORT, doctorChecks: 'manual' });
    await until(() => h.problems.length >= 1);
    expect(h.problems[0]).toBeNull();
    // The box was there (the doctor saw it), then the page took it away.
    await h.checkDoctor(1);
    page.textarea.remove();
    expect(await checksUntil(h, () => h.problems.at(-1)?.code === 'no-composer'), JSON.stringify(h.problems)).toBe(true);
    stopPages();
    expect(await checksUntil(h, () => h.problems.at(-1) === null), JSON.stringify(h.problems)).toBe(true);
  });

  it('a conversation in which the module finds no message (the site renamed its message markup) is named within seconds', async () => {
    const page = buildPage();
    const h = start(page, { deliverWaitMs: SHORT, doctorChecks: 'manual' });
    // The rows as a new build draws them: the same page, the message class renamed.
    const rename = (row: HTMLElement): HTMLElement => {
      row.className = 'ds-msg-row';
      return row;
    };
    const reply = rename(assistantRow().row);
    renderReply(reply.querySelector('.ds-markdown')!, [{ lang: 'mcp-request', code: READ }]);
    page.list.append(rename(userRow('do it')), reply);
    expect(await checksUntil(h, () => h.problems.at(-1)?.code === 'no-messages'), JSON.stringify(h.problems)).toBe(true);
    expect(h.problems.at(-1)?.message).toContain('no messages');
    expect(h.runs).toEqual([]);
    // The module knows the rows again (a fix, or the old layout back): the problem ends.
    for (const row of Array.from(page.list.children)) row.className = 'ds-message';
    expect(await checksUntil(h, () => h.problems.at(-1) === null), JSON.stringify(h.problems)).toBe(true);
  }, 15_000);

  it('replies whose answer markup the site renamed are named within seconds, not after the stuck-signal minute', async () => {
    const page = buildPage();
    const h = start(page, { deliverWaitMs: SHORT, doctorChecks: 'manual' });
    // DeepSeek tells a reply by its answer body: with .ds-markdown renamed, its replies read as the person's.
    const reply = assistantRow();
    reply.answer.className = 'ds-md-answer';
    renderReply(reply.answer, ['Reading.', { lang: 'mcp-request', code: READ }]);
    page.list.append(userRow('do it'), reply.row);
    expect(await checksUntil(h, () => h.problems.at(-1)?.code === 'no-answer'), JSON.stringify(h.problems)).toBe(true);
    expect(h.problems.at(-1)?.message).toContain('answer is not found');
    expect(h.problems.at(-1)?.message).toContain('no message is read as a reply');
    expect(h.runs).toEqual([]);
    // A reply drawn as the module knows (the old layout back): the problem ends.
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    expect(await checksUntil(h, () => h.problems.at(-1) === null), JSON.stringify(h.problems)).toBe(true);
  }, 15_000);

  it('a reply the module knows as one, with its answer body renamed, is named within seconds', async () => {
    // A module that knows replies by their row, not by their answer (here: any row without the person's bubble).
    const site = defineSite({ ...deepseek, roleOf: (el) => (el.querySelector('.fbb737a4') ? 'user' : 'assistant') });
    const h2 = start(buildPage(), { site, deliverWaitMs: SHORT, doctorChecks: 'manual' });
    const reply = assistantRow();
    reply.answer.className = 'ds-md-answer';
    renderReply(reply.answer, ['Reading.', { lang: 'mcp-request', code: READ }]);
    document.querySelector('.ds-virtual-list-items')!.append(userRow('do it'), reply.row);
    expect(await checksUntil(h2, () => h2.problems.at(-1)?.code === 'no-answer'), JSON.stringify(h2.problems)).toBe(true);
    expect(h2.problems.at(-1)?.message).not.toContain('no message is read as a reply');
  }, 12_000);

  it('one reply without an answer body among replies with one (an error, an image) is no renamed markup: nothing raised', async () => {
    const site = defineSite({ ...deepseek, roleOf: (el) => (el.querySelector('.fbb737a4') ? 'user' : 'assistant') });
    const h = start(buildPage(), { site, deliverWaitMs: SHORT, doctorChecks: 'manual' });
    const answered = assistantRow();
    renderReply(answered.answer, ['Here it is.']);
    const failed = assistantRow();
    failed.answer.className = 'ds-error-notice';
    failed.answer.textContent = 'The server is busy. Please try again later.';
    document.querySelector('.ds-virtual-list-items')!.append(userRow('first'), answered.row, userRow('second'), failed.row);
    await h.checkDoctor(15);
    expect(h.problems.filter((p) => p !== null)).toEqual([]);
  });

  it("a first reply that is only the site's error notice (no answer body) raises nothing; a renamed answer after it is named", async () => {
    // The notice as a site draws it in the reply's row, beside a Retry button: no answer body, one short line.
    const notice = (text: string): HTMLElement => {
      const row = document.createElement('div');
      row.className = 'ds-message';
      row.innerHTML = '<div class="ds-error-notice" role="alert"><span></span><button>Retry</button></div>';
      row.querySelector('span')!.textContent = text;
      return row;
    };
    // DeepSeek's module tells a reply by its answer: the notice reads as the person's message.
    const h = start(buildPage(), { deliverWaitMs: SHORT, doctorChecks: 'manual' });
    document.querySelector('.ds-virtual-list-items')!.append(userRow('what is in README?'), notice('The server is busy. Please try again later.'));
    await h.checkDoctor(15);
    expect(h.problems.filter((p) => p !== null)).toEqual([]);
    stopPages();
    // A module that knows a reply by its row; the notice of ChatGPT's kind, in English and in Chinese.
    const site = defineSite({ ...deepseek, roleOf: (el) => (el.querySelector('.fbb737a4') ? 'user' : 'assistant') });
    for (const text of ['Something went wrong. If this issue persists please contact us through our help center.', '服务器繁忙，请稍后再试。']) {
      const h2 = start(buildPage(), { site, deliverWaitMs: SHORT, doctorChecks: 'manual' });
      document.querySelector('.ds-virtual-list-items')!.append(userRow('what is in README?'), notice(text));
      await h2.checkDoctor(15);
      expect(h2.problems.filter((p) => p !== null), text).toEqual([]);
      // The person asks again and the reply comes with its answer body renamed: that is named.
      const reply = assistantRow();
      reply.answer.className = 'ds-md-answer';
      renderReply(reply.answer, ['Reading.', { lang: 'mcp-request', code: READ }]);
      document.querySelector('.ds-virtual-list-items')!.append(userRow('again please'), reply.row);
      expect(await checksUntil(h2, () => h2.problems.at(-1)?.code === 'no-answer'), JSON.stringify(h2.problems)).toBe(true);
      stopPages();
    }
    // A first reply of a few words, drawn as markdown in a renamed answer body, is no notice: it is named.
    const h3 = start(buildPage(), { deliverWaitMs: SHORT, doctorChecks: 'manual' });
    const short = assistantRow();
    short.answer.className = 'ds-md-answer';
    renderReply(short.answer, ['Just words, no blocks.']);
    document.querySelector('.ds-virtual-list-items')!.append(userRow('what is in my notes?'), short.row);
    expect(await checksUntil(h3, () => h3.problems.at(-1)?.code === 'no-answer'), JSON.stringify(h3.problems)).toBe(true);
  }, 15_000);

  it("a first reply that is the site's error notice drawn as paragraphs, or longer than a line, raises nothing", async () => {
    // The notice marked as the page's alert or error, its words in paragraphs (a heading, a link to the status page),
    // or past 300 characters: no answer body, no code.
    const long =
      'Something went wrong while generating the response. The model is under heavy load right now and your request could not be completed. ' +
      'If this issue persists please contact us through our help center, or check the status page for ongoing incidents and outages in your region before you try sending your message again later.';
    expect(long.length).toBeGreaterThan(300);
    const notices = [
      '<div class="ds-error-notice"><p>The server is busy.</p><p>Please try again later, or see <a href="#">the status page</a>.</p><button>Retry</button></div>',
      `<div role="alert"><span>${long}</span><button>Retry</button></div>`,
    ];
    const site = defineSite({ ...deepseek, roleOf: (el) => (el.querySelector('.fbb737a4') ? 'user' : 'assistant') });
    for (const [module, html] of [deepseek, site].flatMap((m) => notices.map((n) => [m, n] as const))) {
      const h = start(buildPage(), { site: module, deliverWaitMs: SHORT, doctorChecks: 'manual' });
      const row = document.createElement('div');
      row.className = 'ds-message';
      row.innerHTML = html;
      document.querySelector('.ds-virtual-list-items')!.append(userRow('what is in README?'), row);
      // Eight checks: five in a row name a reply without its answer.
      await h.checkDoctor(8);
      expect(h.problems.filter((p) => p !== null), html).toEqual([]);
      stopPages();
    }
  }, 10_000);

  it('a first reply the person stopped while the model was still reasoning (no answer yet) raises nothing', async () => {
    // DeepSeek draws the reasoning in the reply's row before its answer; stopped then, the row holds only that.
    const thinking = (): HTMLElement => {
      const row = document.createElement('div');
      row.className = 'ds-message';
      row.innerHTML = '<div class="ds-think-content"><div class="ds-markdown"><p>The person wants the README. Let me</p></div></div>';
      return row;
    };
    const h = start(buildPage(), { deliverWaitMs: SHORT, doctorChecks: 'manual' });
    document.querySelector('.ds-virtual-list-items')!.append(userRow('what is in README?'), thinking());
    await h.checkDoctor(15);
    expect(h.problems.filter((p) => p !== null)).toEqual([]);
    stopPages();
    // The same with a module that knows a reply by its row, not by its answer.
    const site = defineSite({ ...deepseek, roleOf: (el) => (el.querySelector('.fbb737a4') ? 'user' : 'assistant') });
    const h2 = start(buildPage(), { site, deliverWaitMs: SHORT, doctorChecks: 'manual' });
    document.querySelector('.ds-virtual-list-items')!.append(userRow('what is in README?'), thinking());
    await h2.checkDoctor(15);
    expect(h2.problems.filter((p) => p !== null)).toEqual([]);
  });

  it('a send control the site renamed is named as soon as the box holds text, in the person\'s language', async () => {
    useLocale('zh_CN');
    const page = buildPage();
    // A build that draws its send control as another element: the module's selectors find none.
    page.send.removeAttribute('role');
    const h = start(page, { pathname: '/', deliverWaitMs: SHORT, doctorChecks: 'manual' });
    // An empty, idle box needs no send control (some sites draw none then).
    await h.checkDoctor(3);
    expect(h.problems.filter((p) => p !== null)).toEqual([]);
    page.type('what is in README?');
    expect(await checksUntil(h, () => h.problems.at(-1)?.code === 'no-send-control'), JSON.stringify(h.problems)).toBe(true);
    expect(h.problems.at(-1)?.message).toContain('找不到发送按钮');
    page.send.setAttribute('role', 'button');
    expect(await checksUntil(h, () => h.problems.at(-1) === null), JSON.stringify(h.problems)).toBe(true);
  }, 10_000);

  it('a conversation whose messages and chat box a new build both renamed is named, not passed over', async () => {
    const page = buildPage();
    // The new build's box is another element (the module finds none) and its rows another class.
    const box = document.createElement('div');
    box.setAttribute('contenteditable', 'true');
    page.textarea.replaceWith(box);
    const reply = assistantRow();
    renderReply(reply.answer, [{ lang: 'mcp-request', code: READ }]);
    const rows = [userRow('do it'), reply.row];
    for (const row of rows) row.className = 'ds-msg-row';
    page.list.append(...rows);
    const h = start(page, { deliverWaitMs: SHORT, doctorChecks: 'manual' });
    expect(await checksUntil(h, () => h.problems.at(-1)?.code === 'no-composer'), JSON.stringify(h.problems)).toBe(true);
    expect(h.runs).toEqual([]);
  });

  it('an empty new chat, and a conversation still loading its messages, raise nothing', async () => {
    const page = buildPage();
    const h = start(page, { pathname: '/', deliverWaitMs: SHORT, doctorChecks: 'manual' });
    await h.checkDoctor(7);
    expect(h.problems.filter((p) => p !== null)).toEqual([]);
    stopPages();
    const loading = buildPage();
    const h2 = start(loading, { deliverWaitMs: SHORT, doctorChecks: 'manual' });
    await h2.checkDoctor(3);
    loading.list.append(userRow('an earlier question'));
    await h2.checkDoctor(5);
    expect(h2.problems.filter((p) => p !== null)).toEqual([]);
  }, 20_000);

  it('going from a chat to a page of the site with no chat on it (settings, a gallery) raises nothing', async () => {
    const page = buildPage();
    const h = start(page, { deliverWaitMs: SHORT, doctorChecks: 'manual' });
    page.list.append(userRow('an earlier question'));
    // The doctor saw the chat box…
    await h.checkDoctor(1);
    // …then the person opens the site's settings page in the same tab: the app draws it without box or messages.
    h.navigate('/settings');
    document.body.replaceChildren(document.createElement('main'));
    await h.checkDoctor(4);
    expect(h.problems.filter((p) => p !== null)).toEqual([]);
    expect(h.ctl.doctor().problems).toEqual([]);
  }, 10_000);

  it('a shared conversation (messages, no chat box, no conversation of the person\'s) raises nothing', async () => {
    const page = buildPage();
    page.textarea.remove();
    page.send.remove();
    const reply = assistantRow();
    renderReply(reply.answer, ['Here is what I found.']);
    page.list.append(userRow('an earlier question'), reply.row);
    const h = start(page, { pathname: '/share/0f1e2d3c-5b6a-4798-8a9b-0c1d2e3f4a5b', deliverWaitMs: SHORT, doctorChecks: 'manual' });
    await h.checkDoctor(15);
    expect(h.problems.filter((p) => p !== null)).toEqual([]);
    expect(h.ctl.doctor().problems).toEqual([]);
  });

  it('a page of the site with no chat on it (no box, no messages) raises nothing', async () => {
    const page = buildPage();
    page.textarea.remove();
    const h = start(page, { pathname: '/settings', deliverWaitMs: SHORT, doctorChecks: 'manual' });
    await h.checkDoctor(26);
    expect(h.problems.filter((p) => p !== null)).toEqual([]);
    expect(h.ctl.doctor().problems).toEqual([]);
  });
});

describe('the reasons the doctor and the chip give, in Chinese', () => {
  const CJK = /[\u4e00-\u9fff]/;

  it('a box that will not take the text, and a send control that never enables: why, in Chinese', async () => {
    useLocale('zh_CN');
    const copied: string[] = [];
    const page = buildPage();
    const dead = document.createElement('div');
    dead.id = 'dead-box';
    document.body.append(dead);
    const site = defineSite({ ...deepseek, editor: (doc) => doc.getElementById('dead-box') });
    const h = start(page, { site, copy: async (text) => void copied.push(text), deliverWaitMs: SHORT });
    await streamReply(h, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h.problems.at(-1)?.code === 'insert-failed');
    expect(h.ctl.doctor().lastInsert?.reason).toBe('输入框 <div> 既不是文本框，也不可编辑');
    expect(h.problems.at(-1)?.message).toBe('输入框没有接受结果：已复制，请粘贴 (输入框 <div> 既不是文本框，也不可编辑)');
    stopPages();

    const stuck = buildPage();
    const h2 = start(stuck, { site: defineSite({ ...deepseek, isSendDisabled: () => true }), deliverWaitMs: SHORT });
    await streamReply(h2, [{ lang: 'mcp-request', code: READ }]);
    await until(() => h2.problems.at(-1)?.code === 'submit-unverified', 3_000);
    expect(h2.ctl.doctor().lastSubmit?.reason).toBe('发送按钮一直不可用；已按回车，但什么也没有发出');
  });

  it('a code block shown only in part (a code viewer, a collapsed panel): why, in Chinese', () => {
    useLocale('zh_CN');
    document.body.innerHTML =
      '<pre><div class="cm-editor"><div class="cm-gutters"><div class="cm-lineNumbers"><div class="cm-gutterElement">1</div><div class="cm-gutterElement">40</div></div></div>' +
      '<div class="cm-content"><div class="cm-line">{"a":</div><div class="cm-line">1}</div></div></div></pre>';
    expect(chatgpt.codeText(document.querySelector('pre')!).partial).toBe('代码查看器只显示了 40 行中的 2 行');
    expect(codeMirrorText(document.querySelector('pre')!)?.partial).toMatch(CJK);
    const doc = loadFixture('aistudio/2025-12-collapsed-code-idle.html');
    const partials = aistudio
      .messages(doc)
      .flatMap((m) => Array.from(aistudio.answerRoot(m.el)?.querySelectorAll(aistudio.codeBlockSelector) ?? []))
      .map((block) => aistudio.codeText(block).partial)
      .filter((p) => p !== undefined);
    expect(partials).toContain('代码块已折叠：展开后才能读取');
  });
});
