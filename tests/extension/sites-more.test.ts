import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { submitEditor } from '../../extension/inject/submit';
import { SITES, claude, gemini, kimi, qwen, siteForHost } from '../../extension/sites';
import type { Site } from '../../extension/sites/define-site';
import { answerBlocks, describeFixtures, describeRoundTrips, FIXTURE_DIR, idsReadingEverything, loadFixture, type Expectation } from './site-fixtures';

const MORE_SITES: Site[] = [claude, gemini, qwen, kimi];

const EXPECTED: Record<string, Expectation> = {
  'claude/2026-11-thinking-idle.html': {
    site: claude,
    pathname: '/chat/5d2c9a1e-7b3f-4e8a-9c01-23456789abcd',
    roles: ['user', 'assistant'],
    conversationId: '5d2c9a1e-7b3f-4e8a-9c01-23456789abcd',
    generating: false,
    editorTag: 'DIV',
    answerBlocks: [
      { kind: 'mcp-request', language: 'mcp-request', id: 'call-001', partial: false },
      { kind: 'mcp-request', language: 'mcp-request', id: 'call-002', partial: false },
    ],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'claude/2024-10-font-claude-message-idle.html': {
    site: claude,
    pathname: '/chat/0190abcd-1234-7def-8abc-0123456789ab',
    roles: ['user', 'assistant'],
    conversationId: '0190abcd-1234-7def-8abc-0123456789ab',
    generating: false,
    editorTag: 'DIV',
    answerBlocks: [{ kind: 'mcp-request', language: 'mcp-request', id: 'call-013', partial: false }],
    keys: ['p:0', 'p:1'],
    sendButton: 'enabled',
  },
  'claude/2026-11-generating.html': {
    site: claude,
    pathname: '/new',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'DIV',
    answerBlocks: [],
    keys: ['p:0', 'p:1'],
    sendButton: 'absent',
  },
  'gemini/2026-11-thinking-idle.html': {
    site: gemini,
    pathname: '/app/8a3f5c2e91b0d4e7',
    roles: ['user', 'assistant'],
    conversationId: '8a3f5c2e91b0d4e7',
    generating: false,
    editorTag: 'DIV',
    answerBlocks: [{ kind: 'mcp-request', language: 'mcp-request', id: 'call-007', partial: false }],
    keys: ['t:c3f1a2b4d5e6f708:user-query', 'r:r_9b2c4d6e8f0a1b3c'],
    sendButton: 'enabled',
  },
  'gemini/2026-11-generating.html': {
    site: gemini,
    pathname: '/u/1/app/8a3f5c2e91b0d4e7',
    roles: ['user', 'assistant', 'user', 'assistant'],
    conversationId: '8a3f5c2e91b0d4e7',
    generating: true,
    editorTag: 'DIV',
    answerBlocks: [],
    keys: ['t:a0b1c2d3e4f50617:user-query', 'r:r_1111222233334444', 't:b7c8d9e0f1a2b3c4:user-query', 't:b7c8d9e0f1a2b3c4:model-response'],
    // The send slot holds the stop button while the reply streams.
    sendButton: 'disabled',
  },
  'gemini/2026-11-zh-generating.html': {
    site: gemini,
    pathname: '/app/9f8e7d6c5b4a3928',
    roles: ['user', 'assistant', 'user', 'assistant'],
    conversationId: '9f8e7d6c5b4a3928',
    generating: true,
    editorTag: 'DIV',
    answerBlocks: [{ kind: 'mcp-request', language: 'mcp-request', id: 'call-015', partial: false }],
    keys: ['t:c0d1e2f3a4b5c6d7:user-query', 'r:r_aaaabbbbccccdddd', 't:e8f9a0b1c2d3e4f5:user-query', 'r:r_eeeeffff00001111'],
    // Only the stop button holds the slot: no send control while the reply streams.
    sendButton: 'absent',
  },
  'qwen/2026-11-thinking-idle.html': {
    site: qwen,
    pathname: '/c/0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b',
    roles: ['user', 'assistant'],
    conversationId: '0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [
      { kind: 'mcp-request', language: 'mcp-request', id: 'call-003', partial: false },
      // Only lines 1–5 of ten are in the page: the JSON is cut, and the block is marked partial.
      { kind: 'mcp-request', language: 'mcp-request', id: undefined, partial: true },
    ],
    keys: ['m:2b7e4c1a-0f3d-4a5b-9c8d-7e6f5a4b3c21', 'm:8d1f2e3a-4b5c-4d6e-8f7a-9b0c1d2e3f40'],
    sendButton: 'disabled',
  },
  'qwen/2025-08-codemirror-idle.html': {
    site: qwen,
    pathname: '/c/5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
    roles: ['user', 'assistant'],
    conversationId: '5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
    generating: false,
    editorTag: 'TEXTAREA',
    answerBlocks: [{ kind: 'mcp-request', language: 'mcp-request', id: 'call-014', partial: false }],
    keys: ['p:0', 'p:1'],
    sendButton: 'enabled',
  },
  'qwen/2026-11-generating.html': {
    site: qwen,
    pathname: '/c/0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b',
    roles: ['user', 'assistant'],
    conversationId: '0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b',
    generating: true,
    editorTag: 'TEXTAREA',
    answerBlocks: [],
    keys: ['p:0', 'p:1'],
    sendButton: 'absent',
  },
  'kimi/2026-11-thinking-idle.html': {
    site: kimi,
    pathname: '/chat/d3k9m2p7q1r5s8t0v4w6',
    roles: ['user', 'assistant'],
    conversationId: 'd3k9m2p7q1r5s8t0v4w6',
    generating: false,
    editorTag: 'DIV',
    answerBlocks: [{ kind: 'mcp-request', language: 'mcp-request', id: 'call-009', partial: false }],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'kimi/2026-07-segment-box-idle.html': {
    site: kimi,
    pathname: '/chat/19a7c3e5b2d4f6a8c0e1',
    roles: ['user', 'assistant'],
    conversationId: '19a7c3e5b2d4f6a8c0e1',
    generating: false,
    editorTag: 'DIV',
    // Prose and code are siblings in the content box; the thinking inside the same box is left out.
    answerBlocks: [{ kind: 'mcp-request', language: 'mcp-request', id: 'call-010', partial: false }],
    keys: ['p:0', 'p:1'],
    sendButton: 'enabled',
  },
  'kimi/2026-07-single-prose-code-sibling-idle.html': {
    site: kimi,
    pathname: '/',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: false,
    editorTag: 'DIV',
    // One prose block with the code beside it; the language only in the header's text; the line-number gutter dropped.
    answerBlocks: [{ kind: 'mcp-request', language: 'mcp-request', id: 'call-011', partial: false }],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
  'kimi/2026-11-generating.html': {
    site: kimi,
    pathname: '/',
    roles: ['user', 'assistant'],
    conversationId: null,
    generating: true,
    editorTag: 'DIV',
    answerBlocks: [],
    keys: ['p:0', 'p:1'],
    sendButton: 'disabled',
  },
};

describe('more site modules against saved DOM fixtures', () => {
  it('every fixture of these sites has expectations, and every one of these sites has fixtures', () => {
    const files = MORE_SITES.flatMap((site) => readdirSync(join(FIXTURE_DIR, site.id)).map((f) => `${site.id}/${f}`));
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const site of MORE_SITES) {
      expect(SITES, site.id).toContain(site);
      expect(files.filter((f) => f.startsWith(`${site.id}/`)).length, site.id).toBeGreaterThanOrEqual(2);
    }
  });

  describeFixtures(EXPECTED);

  it('a reasoning section is found by the same readers when it is read as an answer (the decoys are real blocks)', () => {
    // Guards the tests above: if the decoys did not parse, "no decoy found" would prove nothing.
    for (const file of ['claude/2026-11-thinking-idle.html', 'gemini/2026-11-thinking-idle.html', 'qwen/2026-11-thinking-idle.html', 'kimi/2026-11-thinking-idle.html', 'kimi/2026-07-segment-box-idle.html']) {
      expect(idsReadingEverything(EXPECTED[file]!.site, loadFixture(file)), file).toContain('think');
    }
  });

  it('Claude: a collapsible reasoning row is never read, even when its body looks like an answer block', () => {
    document.body.innerHTML =
      '<div class="font-claude-response"><div class="rounded-lg border-0.5"><button aria-expanded="true">Thought process</button>' +
      '<div><div class="standard-markdown"><pre><code class="language-mcp-request">{"jsonrpc":"2.0","id":"think","method":"tools/list"}</code></pre></div></div></div>' +
      '<div class="standard-markdown"><p>Answer.</p><pre><code class="language-mcp-request">{"jsonrpc":"2.0","id":"answer","method":"tools/list"}</code></pre></div></div>';
    expect(answerBlocks(claude, document).map((b) => b.id)).toEqual(['answer']);
    // Two answer blocks around it: their common ancestor is read, and the row inside it is skipped.
    document.querySelector('.font-claude-response')!.insertAdjacentHTML(
      'afterbegin',
      '<div class="standard-markdown"><pre><code class="language-mcp-request">{"jsonrpc":"2.0","id":"first","method":"tools/list"}</code></pre></div>',
    );
    expect(answerBlocks(claude, document).map((b) => b.id)).toEqual(['first', 'answer']);
  });

  it("Claude: a build that renames the reply's class leaves its reasoning body (which keeps it) no message of its own", () => {
    const doc = loadFixture('claude/2026-11-thinking-idle.html');
    for (const message of claude.messages(doc).filter((m) => m.role === 'assistant')) {
      const renamed = doc.createElement('div');
      renamed.append(...Array.from(message.el.childNodes));
      message.el.replaceWith(renamed);
    }
    // The reasoning's decoy (fs.rm of /) is never read as a reply's answer.
    expect(claude.messages(doc).map((m) => m.role)).toEqual(['user']);
    expect(answerBlocks(claude, doc)).toEqual([]);
  });

  it('picks the site by exact host', () => {
    expect(siteForHost('claude.ai')).toBe(claude);
    expect(siteForHost('gemini.google.com')).toBe(gemini);
    expect(siteForHost('chat.qwen.ai')).toBe(qwen);
    expect(siteForHost('www.kimi.com')).toBe(kimi);
    expect(siteForHost('kimi.com')).toBe(kimi);
    expect(siteForHost('kimi.moonshot.cn')).toBe(kimi);
    expect(siteForHost('aistudio.google.com')?.id).toBe('aistudio');
    expect(siteForHost('claude.ai.evil.example')).toBeNull();
    expect(siteForHost('evil-claude.ai')).toBeNull();
    expect(siteForHost('qwen.ai')).toBeNull();
  });

  it('does not take a path that merely contains the conversation prefix as a conversation', () => {
    expect(claude.conversationId({ pathname: '/chat/' })).toBeNull();
    expect(claude.conversationId({ pathname: '/project/0190abcd-1234-7def-8abc-0123456789ab' })).toBeNull();
    expect(claude.conversationId({ pathname: '/x/chat/5d2c9a1e-7b3f-4e8a-9c01-23456789abcd' })).toBeNull();
    expect(gemini.conversationId({ pathname: '/app' })).toBeNull();
    expect(gemini.conversationId({ pathname: '/gem/coding-partner/8a3f5c2e91b0d4e7' })).toBe('8a3f5c2e91b0d4e7');
    expect(gemini.conversationId({ pathname: '/x/app/8a3f5c2e91b0d4e7' })).toBeNull();
    expect(qwen.conversationId({ pathname: '/' })).toBeNull();
    expect(qwen.conversationId({ pathname: '/s/0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b' })).toBeNull();
    expect(kimi.conversationId({ pathname: '/chat/' })).toBeNull();
    expect(kimi.conversationId({ pathname: '/kimiplus/d3k9m2p7q1r5s8t0v4w6' })).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------- Qwen's 2026 composer

describe("Qwen's 2026-02 composer (SITES-MORE: textarea.message-input-textarea, div.message-input-right-button-send button)", () => {
  /** The composer as that build draws it: the send control is a button inside the send area, disabled while empty. */
  function composer(): { textarea: HTMLTextAreaElement; button: HTMLButtonElement; sent: string[] } {
    document.body.innerHTML =
      '<div class="qwen-chat-message qwen-chat-message-user"><div class="user-message-content">hi</div></div>' +
      '<div class="message-input-container"><textarea class="message-input-textarea"></textarea>' +
      '<div class="message-input-right-button"><div class="message-input-right-button-send">' +
      '<button class="omni-button-content-btn" disabled><i class="icon-SendIcon"></i></button></div></div></div>';
    const textarea = document.querySelector('textarea')!;
    const button = document.querySelector<HTMLButtonElement>('button.omni-button-content-btn')!;
    const sent: string[] = [];
    textarea.addEventListener('input', () => {
      button.disabled = textarea.value === '';
    });
    button.addEventListener('click', () => {
      sent.push(textarea.value);
      textarea.value = '';
      button.disabled = true;
    });
    return { textarea, button, sent };
  }

  it('the send control is the button, disabled while the box is empty, and a submit clicks it once', async () => {
    const { textarea, button, sent } = composer();
    expect(qwen.editor(document)).toBe(textarea);
    expect(qwen.sendButton(document)).toBe(button);
    expect(qwen.isSendDisabled(qwen.sendButton(document)!)).toBe(true);
    textarea.value = 'read README.md';
    textarea.dispatchEvent(new Event('input', { bubbles: true }));
    expect(qwen.isSendDisabled(qwen.sendButton(document)!)).toBe(false);
    const result = await submitEditor(qwen, document, textarea, { buttonTimeoutMs: 200, verifyTimeoutMs: 200 });
    expect(result).toEqual({ ok: true, method: 'click' });
    expect(sent).toEqual(['read README.md']);
  });

  it('while a reply is written the stop button in the send area is the stop control, not the send control', () => {
    // Drawn in the send area's place (button.stop-button, ZS), or as the same button showing the stop icon.
    for (const stop of ['<button class="stop-button" aria-label="Stop"><i class="icon-StopIcon"></i></button>', '<button class="omni-button-content-btn"><i class="icon-StopIcon"></i></button>']) {
      const { textarea } = composer();
      const area = document.querySelector('.message-input-right-button-send')!;
      area.innerHTML = stop;
      const button = area.querySelector('button')!;
      expect(qwen.isGenerating(document), stop).toBe(true);
      expect(qwen.stopControl(document), stop).toBe(button);
      // A press on it is the person's Stop only: the page takes a press of the send control for a send.
      expect(qwen.sendButton(document), stop).toBeNull();
      expect(qwen.editor(document)).toBe(textarea);
    }
  });
});

describe("Qwen's 2026-01 composer (SITES-MORE: textarea.chat-input, button.send-button in div.chat-prompt-send-button)", () => {
  it('finds the box and its send button', () => {
    document.body.innerHTML =
      '<div class="chat-container"><textarea class="chat-input" placeholder="How can I help you today?"></textarea>' +
      '<div class="chat-prompt-send-button"><button class="send-button" disabled><i class="icon-SendIcon"></i></button></div></div>';
    expect(qwen.editor(document)).toBe(document.querySelector('textarea.chat-input'));
    expect(qwen.sendButton(document)).toBe(document.querySelector('button.send-button'));
  });
});

// ---------------------------------------------------------------------------------------- Qwen's virtualized code

function monacoBlock(lines: Array<{ n: number; top: number; text: string }>, bodyHeight: number): string {
  const numbers = lines.map((l) => `<div style="top:${l.top}px;height:20px;"><div class="line-numbers">${l.n}</div></div>`).join('');
  const views = lines
    .map((l) => `<div style="top:${l.top}px;height:20px;" class="view-line"><span><span class="mtk1">${l.text.replace(/ /g, '&nbsp;')}</span></span></div>`)
    .join('');
  return (
    '<pre class="qwen-markdown-code"><div class="qwen-markdown-code-header-wrapper"><div class="qwen-markdown-code-header"><div>mcp-request</div>' +
    '<div class="qwen-markdown-code-header-actions"><button>Copy</button></div></div></div>' +
    `<div class="qwen-markdown-code-body" style="height: ${bodyHeight}px;"><div class="monaco-editor"><div class="margin"><div class="margin-view-overlays">${numbers}</div></div>` +
    `<div class="lines-content"><div class="view-lines" style="line-height: 20px;">${views}</div></div></div></div></pre>`
  );
}

describe('Qwen code blocks that may not all be in the page', () => {
  const read = (html: string): { text: string; partial?: string } => {
    document.body.innerHTML = html;
    return qwen.codeText(document.querySelector('pre.qwen-markdown-code')!);
  };

  it('reads a fully rendered Monaco block in line order with plain spaces', () => {
    const got = read(monacoBlock([{ n: 2, top: 20, text: '  "a": 1' }, { n: 1, top: 0, text: '{' }, { n: 3, top: 40, text: '}' }], 60));
    expect(got).toEqual({ text: '{\n  "a": 1\n}' });
  });

  it('marks a block whose long line Monaco wrapped over several rows as partial: the rows are no lines of the code', () => {
    // With word wrap on, Monaco draws each row of a wrapped line as a view-line of its own, and numbers only its first
    // row; read row by row, a line break the model never wrote went into the middle of the line.
    const long = `{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"fs.write","arguments":{"path":"a.txt","content":"${'b'.repeat(150)}"}}}`;
    const rows = [long.slice(0, 80), long.slice(80, 160), long.slice(160)];
    const html = monacoBlock(rows.map((text, i) => ({ n: i + 1, top: i * 20, text })), 60).replace(/<div class="line-numbers">[23]<\/div>/g, '<div class="line-numbers"></div>');
    const got = read(html);
    expect(got.text).not.toBe(long);
    expect(got.partial).toBe('the code viewer wrapped a long line over several rows');
  });

  it('marks a block scrolled past its first lines as partial', () => {
    const got = read(monacoBlock([{ n: 7, top: 120, text: 'x' }, { n: 8, top: 140, text: 'y' }], 160));
    expect(got.partial).toMatch(/starts at line 7/);
  });

  it('marks a block with a hole in its rendered lines as partial', () => {
    const got = read(monacoBlock([{ n: 1, top: 0, text: '{' }, { n: 2, top: 20, text: '"a": 1,' }, { n: 9, top: 160, text: '}' }], 180));
    expect(got.partial).toMatch(/numbered up to 9/);
  });

  it('marks a block whose body is taller than its rendered lines as partial', () => {
    const got = read(monacoBlock([{ n: 1, top: 0, text: '{' }, { n: 2, top: 20, text: '"a": 1,' }], 2000));
    expect(got.partial).toMatch(/2 of about 100 lines/);
  });

  it('marks a block with a line Monaco cut short ("Show more") as partial, and leaves the label out of the text', () => {
    // Monaco stops drawing a line after 10,000 characters and appends <span class="mtkoverflow">Show more (…)</span>.
    const long = 'a'.repeat(12_000);
    const drawn = long.slice(0, 10_000);
    const html = monacoBlock([{ n: 1, top: 0, text: '{"jsonrpc":"2.0","id":"w","method":"tools/call",' }, { n: 2, top: 20, text: `"params":{"name":"fs.write","arguments":{"path":"a.txt","content":"${drawn}` }], 40);
    const got = read(html.replace(drawn, `${drawn}</span><span class="mtkoverflow">Show more (2KB)`));
    expect(got.partial).toMatch(/cut a long line short/);
    expect(got.text).not.toContain('Show more');
    expect(got.text.endsWith(drawn)).toBe(true);
  });

  it('marks a hole in the line offsets as partial even without line numbers', () => {
    document.body.innerHTML =
      '<pre class="qwen-markdown-code"><div class="qwen-markdown-code-body"><div class="view-lines" style="line-height: 20px;">' +
      '<div class="view-line" style="top:0px">{</div><div class="view-line" style="top:200px">}</div></div></div></pre>';
    expect(qwen.codeText(document.querySelector('pre')!).partial).toMatch(/skips lines after line 1/);
  });

  it('marks a CodeMirror block with a gap spacer as partial and reads a plain block in full', () => {
    expect(read('<pre class="qwen-markdown-code"><div class="cm-content"><div class="cm-line">{</div><div class="cm-gap"></div><div class="cm-line">}</div></div></pre>').partial).toMatch(/cm-gap/);
    expect(read('<pre class="qwen-markdown-code"><div class="qwen-markdown-code-body"><code>{"a":1}</code></div></pre>')).toEqual({ text: '{"a":1}' });
  });
});

// ------------------------------------------------------------------------------------------- serializer round trip

type MoreLayout = 'claude' | 'gemini' | 'qwen' | 'kimi' | 'kimi-box';
const LAYOUT_SITE: Record<MoreLayout, Site> = { claude, gemini, qwen, kimi, 'kimi-box': kimi };
const DECOY = '```mcp-request\n{"jsonrpc":"2.0","id":"decoy","method":"tools/call","params":{"name":"fs.rm","arguments":{"path":"/"}}}\n```';

/**
 * Renders markdown the way each of these sites shows a reply (the structures in the site modules' headers and the
 * fixtures above): marked for the markdown, every code block rebuilt in the site's own layout, the answer wrapped in
 * the site's message with a reasoning section holding a decoy block beside it.
 */
function renderLikeMoreSites(markdown: string, layout: MoreLayout): { message: Element; root: HTMLElement } {
  const html = (md: string): HTMLElement => {
    const box = document.createElement('div');
    box.innerHTML = marked.parse(md, { async: false });
    for (const code of Array.from(box.querySelectorAll('pre > code'))) {
      const language = code.className.match(/language-(\S+)/)?.[1] ?? '';
      const raw = code.textContent ?? '';
      const text = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
      code.parentElement!.replaceWith(codeBlock(layout, language, text));
    }
    return box;
  };
  const answer = html(markdown);
  const reasoning = html(DECOY);
  const root = document.createElement('div');
  if (layout === 'claude') {
    answer.className = 'grid-cols-1 grid gap-2.5 standard-markdown';
    for (const p of Array.from(answer.querySelectorAll('p'))) p.className = 'whitespace-normal break-words';
    reasoning.className = 'font-claude-response relative leading-normal text-text-300';
    const message = el('div', { class: 'font-claude-response relative leading-[1.65rem]' });
    const thinking = el('div', { class: 'transition-all rounded-lg border-0.5 flex flex-col' });
    thinking.append(el('button', { 'aria-expanded': 'true' }, 'Thought process'), reasoning);
    message.append(thinking, answer);
    const turn = el('div', { 'data-is-streaming': 'false', class: 'group relative pb-3' });
    turn.append(message);
    root.append(el('div', { 'data-testid': 'user-message', class: '!font-user-message' }, 'please run it'), turn);
    return { message, root };
  }
  if (layout === 'gemini') {
    answer.className = 'markdown markdown-main-panel';
    const content = el('message-content', { id: 'message-content-id-r_0123456789abcdef', class: 'model-response-text' });
    content.append(answer);
    const thoughts = el('model-thoughts', { 'data-test-id': 'model-thoughts' });
    const thoughtsBox = el('div', { class: 'thoughts-container' });
    reasoning.className = 'markdown markdown-main-panel';
    const thoughtContent = el('message-content');
    thoughtContent.append(reasoning);
    thoughtsBox.append(el('button', { 'data-test-id': 'thoughts-header-button' }, 'Show thinking'), thoughtContent);
    thoughts.append(thoughtsBox);
    const message = el('model-response');
    const container = el('div', { class: 'response-container has-thoughts' });
    container.append(el('span', { class: 'cdk-visually-hidden' }, 'Gemini said'), thoughts, content);
    message.append(container);
    const turn = el('div', { id: 'fedcba9876543210', class: 'conversation-container' });
    turn.append(el('user-query', {}, 'please run it'), message);
    root.append(turn);
    return { message, root };
  }
  if (layout === 'qwen') {
    answer.className = 'qwen-markdown qwen-markdown-loose';
    for (const p of Array.from(answer.querySelectorAll('p'))) p.className = 'qwen-markdown-paragraph';
    const phaseAnswer = el('div', { class: 'response-message-content phase-answer' });
    const custom = el('div', { class: 'custom-qwen-markdown' });
    custom.append(answer);
    phaseAnswer.append(custom);
    const phaseThinking = el('div', { class: 'response-message-content phase-thinking' });
    phaseThinking.append(reasoning);
    const message = el('div', { class: 'qwen-chat-message qwen-chat-message-assistant' });
    const right = el('div', { class: 'chat-response-message-right' });
    right.append(phaseThinking, phaseAnswer);
    message.append(right);
    root.append(el('div', { class: 'qwen-chat-message qwen-chat-message-user' }, 'please run it'), message);
    return { message, root };
  }
  if (layout === 'kimi-box') {
    // 2026-07 (code-index 61934193286): the content box holds prose (.markdown-container) and code (.segment-code) as
    // siblings, and the thinking inside the same box.
    const box = el('div', { class: 'segment-content-box' });
    const thinking = el('div', { class: 'thinking-container toolcall-container' });
    thinking.append(...Array.from(reasoning.childNodes));
    box.append(thinking);
    let prose: HTMLElement | null = null;
    for (const child of Array.from(answer.childNodes)) {
      if (child instanceof Element && child.matches('.segment-code')) {
        box.append(child);
        prose = null;
        continue;
      }
      if (!prose) {
        prose = el('div', { class: 'markdown-container' });
        box.append(prose);
      }
      prose.append(child);
    }
    const message = el('div', { class: 'segment segment-assistant' });
    const content = el('div', { class: 'segment-content' });
    content.append(box, el('div', { class: 'segment-assistant-actions' }, '复制'));
    const container = el('div', { class: 'segment-container' });
    container.append(content);
    message.append(el('div', { class: 'segment-avatar' }), container);
    root.append(el('div', { class: 'segment segment-user' }, 'please run it'), message);
    return { message, root };
  }
  // Kimi writes paragraphs as div.paragraph.
  for (const p of Array.from(answer.querySelectorAll('p'))) {
    const div = el('div', { class: 'paragraph' });
    div.append(...Array.from(p.childNodes));
    p.replaceWith(div);
  }
  answer.className = 'markdown';
  const box = el('div', { class: 'segment-content-box' });
  const container = el('div', { class: 'markdown-container' });
  container.append(answer);
  box.append(container);
  const thinking = el('div', { class: 'thinking-container' });
  reasoning.className = 'markdown';
  thinking.append(reasoning);
  const content = el('div', { class: 'segment-content' });
  content.append(thinking, box);
  const segment = el('div', { class: 'segment segment-assistant' });
  segment.append(content, el('div', { class: 'segment-assistant-actions' }, '复制'));
  const message = el('div', { class: 'chat-content-item chat-content-item-assistant' });
  message.append(segment);
  root.append(el('div', { class: 'chat-content-item chat-content-item-user' }, 'please run it'), message);
  return { message, root };
}

function codeBlock(layout: MoreLayout, language: string, text: string): Element {
  if (layout === 'claude') {
    const group = el('div', { class: 'relative group/copy bg-bg-000/50 border-0.5 border-border-400 rounded-lg' });
    const copy = el('div', { class: 'sticky opacity-0 group-hover/copy:opacity-100 top-2 py-2 h-12 w-0 float-right' });
    copy.append(el('button', { type: 'button', 'aria-label': 'Copy to clipboard' }));
    group.append(copy);
    if (language) group.append(el('div', { class: 'text-text-500 font-small p-3.5 pb-0' }, language));
    const scroll = el('div', { class: 'overflow-x-auto' });
    const pre = el('pre', { class: 'code-block__code !my-0 !rounded-lg !text-sm !leading-relaxed' });
    const code = el('code', language ? { class: `language-${language}`, style: 'white-space: pre;' } : { style: 'white-space: pre;' });
    code.append(...tokens(text));
    pre.append(code);
    scroll.append(pre);
    group.append(scroll);
    return group;
  }
  if (layout === 'gemini') {
    const host = el('code-block', { class: 'ng-star-inserted' });
    const block = el('div', { class: 'code-block' });
    const decoration = el('div', { class: 'code-block-decoration header-formatted gds-title-s' });
    decoration.append(el('span', {}, language || 'Code snippet'));
    const buttons = el('div', { class: 'buttons' });
    buttons.append(el('button', { 'aria-label': 'Copy code', class: 'copy-button' }));
    decoration.append(buttons);
    const inner = el('div', { class: 'formatted-code-block-internal-container' });
    const pre = el('pre');
    const code = el('code', { role: 'text', 'data-test-id': 'code-content', class: 'code-container formatted' });
    code.append(...tokens(text));
    pre.append(code);
    inner.append(pre);
    block.append(decoration, inner);
    host.append(block);
    return host;
  }
  if (layout === 'qwen') {
    const lines = text.split('\n');
    const pre = el('pre', { class: 'qwen-markdown-code' });
    const wrapper = el('div', { class: 'qwen-markdown-code-header-wrapper' });
    const header = el('div', { class: 'qwen-markdown-code-header' });
    header.append(el('div', {}, language));
    const actions = el('div', { class: 'qwen-markdown-code-header-actions' });
    actions.append(el('button', { 'aria-label': 'Copy' }));
    header.append(actions);
    wrapper.append(header);
    const body = el('div', { class: 'qwen-markdown-code-body', style: `height: ${lines.length * 20}px;` });
    const margin = el('div', { class: 'margin-view-overlays' });
    const viewLines = el('div', { class: 'view-lines monaco-mouse-cursor-text', style: 'line-height: 20px;' });
    // Monaco reuses line elements, so the page order is not the line order: rotate them to prove the reader sorts.
    const order = lines.map((_, i) => i);
    if (order.length > 2) order.push(order.shift()!);
    for (const i of order) {
      const row = el('div', { class: 'view-line', style: `top:${i * 20}px;height:20px;` });
      const outer = el('span');
      outer.append(el('span', { class: 'mtk1' }, (lines[i] ?? '').replace(/ /g, '\u00a0')));
      row.append(outer);
      viewLines.append(row);
      const number = el('div', { style: `top:${i * 20}px;height:20px;` });
      number.append(el('div', { class: 'line-numbers' }, String(i + 1)));
      margin.append(number);
    }
    const editor = el('div', { class: 'monaco-editor' });
    const guard = el('div', { class: 'overflow-guard' });
    const marginBox = el('div', { class: 'margin' });
    marginBox.append(margin);
    const content = el('div', { class: 'lines-content monaco-editor-background' });
    content.append(viewLines);
    guard.append(marginBox, content);
    editor.append(guard);
    body.append(editor);
    pre.append(wrapper, body);
    return pre;
  }
  if (layout === 'kimi-box') {
    // Prism tokens straight in a pre carrying the language class; no <code>, no header label.
    const block = el('div', { class: 'segment-code' });
    const highlighter = el('div', { class: 'syntax-highlighter' });
    const pre = el('pre', language ? { class: `language-${language}` } : {});
    pre.append(...tokens(text));
    highlighter.append(pre);
    block.append(highlighter);
    return block;
  }
  const block = el('div', { class: 'segment-code' });
  const header = el('header', { class: 'segment-code-header' });
  const headerContent = el('div', { class: 'segment-code-header-content' });
  headerContent.append(el('span', { class: 'segment-code-lang' }, language), el('div', { class: 'icon-button', title: '复制' }));
  header.append(headerContent);
  const content = el('div', { class: 'segment-code-content' });
  const pre = el('pre', language ? { class: `language-${language}` } : {});
  const code = el('code', language ? { class: `language-${language}` } : {});
  code.append(...tokens(text));
  pre.append(code);
  content.append(pre);
  block.append(header, content);
  return block;
}

function tokens(text: string): Node[] {
  const out: Node[] = [];
  for (const part of text.split(text.length > 20_000 ? /(\n+)/ : /(\s+)/)) {
    if (part === '') continue;
    if (/^\s+$/.test(part)) out.push(document.createTextNode(part));
    else out.push(el('span', { class: 'token' }, part));
  }
  return out;
}

function el(tag: string, attributes: Record<string, string> = {}, text?: string): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

describe("Claude's stop control where the page is not in English", () => {
  it('is the composer button showing the stop icon, whatever its label says', () => {
    const doc = loadFixture('claude/2026-11-generating.html');
    const button = doc.querySelector('fieldset button[aria-label="Stop response"]')!;
    for (const label of ['停止响应', 'Arrêter la réponse']) {
      button.setAttribute('aria-label', label);
      expect(claude.stopControl(doc)).toBe(button);
    }
    // The same icon outside the composer (in a message) is not the page's stop control.
    button.remove();
    const message = doc.querySelector('.font-claude-response')!;
    message.append(button);
    expect(claude.stopControl(doc)).toBeNull();
  });
});

describe("Claude's send control where the page is not in English", () => {
  it('is the composer button showing the send arrow, whatever its label says, and a submit clicks it', async () => {
    for (const label of ['发送消息', 'Nachricht senden']) {
      const doc = loadFixture('claude/2026-11-thinking-idle.html');
      const button = doc.querySelector<HTMLButtonElement>('fieldset button[aria-label="Send message"]')!;
      button.setAttribute('aria-label', label);
      expect(claude.sendButton(doc), label).toBe(button);
      expect(claude.isSendDisabled(button), label).toBe(true);
      // Typed into: the page enables the button, and a press on it sends (the box empties).
      const editor = claude.editor(doc)!;
      editor.textContent = 'read README.md';
      button.disabled = false;
      const clicks: string[] = [];
      button.addEventListener('click', () => {
        clicks.push(editor.textContent ?? '');
        editor.textContent = '';
      });
      const result = await submitEditor(claude, doc, editor, { buttonTimeoutMs: 200, verifyTimeoutMs: 200 });
      expect(result, label).toEqual({ ok: true, method: 'click' });
      expect(clicks, label).toEqual(['read README.md']);
    }
  });

  it('is never the attachments button beside it, nor the arrow drawn outside the composer', () => {
    const doc = loadFixture('claude/2026-11-thinking-idle.html');
    const button = doc.querySelector('fieldset button[aria-label="Send message"]')!;
    button.setAttribute('aria-label', 'Envoyer le message');
    button.remove();
    expect(claude.sendButton(doc)).toBeNull();
    doc.querySelector('.font-claude-response')!.append(button);
    expect(claude.sendButton(doc)).toBeNull();
  });
});

describe('serializer round trip on these sites: findBlocks(serialize(renderLikeSite(md))) equals findBlocks(md)', () => {
  describeRoundTrips(
    Object.fromEntries(
      (Object.keys(LAYOUT_SITE) as MoreLayout[]).map((layout) => [layout, (markdown: string) => ({ site: LAYOUT_SITE[layout], ...renderLikeMoreSites(markdown, layout) })]),
    ),
  );
});
