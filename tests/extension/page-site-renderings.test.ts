import { afterEach, describe, expect, it } from 'vitest';
import { deepseek, gemini } from '../../extension/sites';
import { LIST, LIVE_SEND_ICON, LIVE_STOP_ICON, READ, assistantRow, buildPage, renderReply, start, stopPages, trusted, until, userRow, type Harness, type Page } from './page-harness';

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
    // The result waits while the file is there (a send would take it along); the person sends the file.
    h.page.send.dispatchEvent(trusted(new MouseEvent('click', { bubbles: true })));
    await until(() => h.page.submitted.length > 1);
    h.clock.now += 10_000;
    await h.settle();
    expect(h.runs.length).toBe(1);
    expect(h.page.submitted).toEqual(['', 'RESULT[mcp-request:1]']);
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

  it('a version the site wrote before the page and never shown on it, shown by the arrows after the new writing, never runs', async () => {
    const { h, answer } = await opened();
    h.page.setGenerating(true);
    await show(h, answer, ['Let me read it.', { lang: 'mcp-request', code: READ }]);
    await end(h);
    await until(() => h.runs.length === 1);
    // 1 / 3: the first version, written before the page opened.
    await show(h, answer, ['Counting.', { lang: 'mcp-request', code: LIST }]);
    h.clock.now += 10_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs).toHaveLength(1);
    expect(h.ctl.records().flatMap((r) => r.blocks).map((b) => b.state)).toEqual(['ready']);
  });

  it('a last token the site draws after its signal went off decides the new writing again, as for any reply', async () => {
    const { h, answer } = await opened();
    h.page.setGenerating(true);
    await show(h, answer, ['Let me read it.', { lang: 'mcp-request', code: READ }]);
    await end(h);
    await until(() => h.runs.length === 1);
    await show(h, answer, ['Let me read it.', { lang: 'mcp-request', code: READ }, 'And list it.', { lang: 'mcp-request', code: LIST }]);
    h.clock.now += 10_000;
    await h.settle();
    await until(() => h.runs.length === 2);
    expect(h.runs[1]!.text).toContain('call-002');
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

describe('Gemini (interface in Chinese): a reply from before the page regenerated in place, under a new message id', () => {
  /** Gemini's reply: message-content#message-content-id-<id> > .markdown, a code-block labelled as the fence. */
  function drawReply(response: Element, id: string, prose: string, code: string | null): void {
    const content = document.createElement('message-content');
    content.id = `message-content-id-${id}`;
    const markdown = document.createElement('div');
    markdown.className = 'markdown markdown-main-panel';
    const p = document.createElement('p');
    p.textContent = prose;
    markdown.append(p);
    if (code !== null) {
      const block = document.createElement('code-block');
      block.innerHTML =
        '<div class="code-block"><div class="code-block-decoration header-formatted"><span>mcp-request</span><div class="buttons"><button aria-label="复制代码"><mat-icon fonticon="content_copy"></mat-icon></button></div></div>' +
        '<div class="formatted-code-block-internal-container"><pre><code class="code-container formatted" data-test-id="code-content"></code></pre></div></div>';
      block.querySelector('code')!.textContent = code;
      markdown.append(block);
    }
    content.append(markdown);
    response.querySelector('.response-container')!.replaceChildren(content);
  }

  /** The send slot: the stop icon while a reply is written, labelled in the page's language; the mic otherwise. */
  function drawSlot(writing: boolean): void {
    const slot = document.querySelector('.send-button-container')!;
    slot.innerHTML = writing
      ? '<button class="mat-mdc-icon-button" aria-label="停止回答"><mat-icon fonticon="stop"></mat-icon></button>'
      : '<button class="mat-mdc-icon-button" aria-label="使用麦克风"><mat-icon fonticon="mic"></mat-icon></button>';
  }

  it('the new writing runs once, and the version shown before never runs', async () => {
    document.body.innerHTML =
      '<infinite-scroller class="chat-history"><div id="c0d1e2f3a4b5c6d7" class="conversation-container">' +
      '<user-query><user-query-content><div class="query-content"><div class="query-text"><p class="query-text-line">列出文件</p></div></div></user-query-content></user-query>' +
      '<model-response><div class="response-container"></div></model-response></div></infinite-scroller>' +
      '<input-area-v2><rich-textarea><div class="ql-editor ql-blank textarea" contenteditable="true" role="textbox" aria-label="在此处输入提示"><p><br></p></div></rich-textarea>' +
      '<div class="send-button-container"></div></input-area-v2>';
    const response = document.querySelector('model-response')!;
    drawReply(response, 'r_aaaabbbbccccdddd', '好的：', LIST);
    drawSlot(false);
    const h = start(null as unknown as Page, { site: gemini, pathname: '/app/9f8e7d6c5b4a3928', href: 'https://gemini.google.com/app/9f8e7d6c5b4a3928', settings: { autoSubmit: false } });
    await h.settle();
    h.clock.now += 5_000;
    await h.settle();
    expect(h.runs).toEqual([]);
    // Regenerate: the same model-response shows a new message (another id), written while the slot shows stop.
    drawSlot(true);
    drawReply(response, 'r_eeeeffff00001111', '我', null);
    h.clock.now += 50;
    await h.settle();
    drawReply(response, 'r_eeeeffff00001111', '我来读取。', READ);
    h.clock.now += 50;
    await h.settle();
    drawSlot(false);
    h.clock.now += 500;
    await h.settle();
    await until(() => h.runs.length === 1);
    expect(h.runs[0]!.text).toContain('call-001');
    // The versions' arrows: the first one again, then the second.
    drawReply(response, 'r_aaaabbbbccccdddd', '好的：', LIST);
    h.clock.now += 5_000;
    await h.settle();
    drawReply(response, 'r_eeeeffff00001111', '我来读取。', READ);
    h.clock.now += 5_000;
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.runs).toHaveLength(1);
  });
});
