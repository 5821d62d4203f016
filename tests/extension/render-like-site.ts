import { Marked } from 'marked';
import { findBlocks } from '../../shared/protocols';
import { serializeMessage } from '../../extension/scanner/serialize';
import { chatgpt, deepseek } from '../../extension/sites';
import type { Site } from '../../extension/sites/define-site';

/**
 * Renders markdown the way each site shows a reply, from the structures recorded in SITES.md and the saved
 * fixtures in tests/fixtures/sites: marked for the markdown, then every code block rebuilt in the site's own layout
 * (ChatGPT's 2026 CodeMirror viewer without language classes, ChatGPT's older highlight.js block, DeepSeek's Prism
 * tokens in a bare <pre> under a banner, and its `$…$` drawn as KaTeX math), wrapped in the site's message structure with a reasoning decoy beside it.
 */

export const LAYOUTS = ['chatgpt-codemirror', 'chatgpt-hljs', 'deepseek-prism'] as const;
export type Layout = (typeof LAYOUTS)[number];

export const SITE_OF: Record<Layout, Site> = {
  'chatgpt-codemirror': chatgpt,
  'chatgpt-hljs': chatgpt,
  'deepseek-prism': deepseek,
};

/** A block that must never be read: it sits in the reasoning / outside the answer. */
export const REASONING_DECOY = '```mcp-request\n{"jsonrpc":"2.0","id":"decoy","method":"tools/call","params":{"name":"fs.rm","arguments":{"path":"/"}}}\n```';

/**
 * marked, as the sites use markdown: HTML a model writes is shown as text, never rendered (`<function_calls>` XML
 * in prose reaches the page as paragraph text), a block of it as a paragraph.
 */
const htmlAsText = {
  html({ text, block }: { text: string; block?: boolean }) {
    const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    return block ? `<p>${escaped.trimEnd()}</p>\n` : escaped;
  },
};
const siteMarked = new Marked({ renderer: htmlAsText });

/**
 * DeepSeek (as Kimi, Qwen and Doubao) draws `$…$` and `$$…$$` as KaTeX math, also in a paragraph holding an auto_coder
 * plan whose command names shell variables. KaTeX's DOM (htmlAndMathml output): the MathML with the TeX source as
 * its annotation, then the glyphs (aria-hidden), spaces dropped in both; an expression it cannot parse (`&` outside an
 * alignment) is shown as written in a red `.katex-error`, without its dollars (throwOnError: false).
 */
function katexLike(tex: string, display: boolean): string {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  if (tex.includes('&')) return `<span class="katex-error" title="ParseError: KaTeX parse error: Expected 'EOF', got '&amp;'" style="color:#cc0000">${escape(tex)}</span>`;
  const glyphs = Array.from(tex.replace(/\s/g, ''));
  const mathml = glyphs.map((c) => (/[A-Za-z]/.test(c) ? `<mi>${escape(c)}</mi>` : `<mo>${escape(c)}</mo>`)).join('');
  const html = glyphs.map((c) => `<span class="${/[A-Za-z]/.test(c) ? 'mord mathnormal' : 'mord'}">${escape(c)}</span>`).join('');
  const katex =
    `<span class="katex"><span class="katex-mathml"><math xmlns="http://www.w3.org/1998/Math/MathML"${display ? ' display="block"' : ''}><semantics><mrow>${mathml}</mrow>` +
    `<annotation encoding="application/x-tex">${escape(tex)}</annotation></semantics></math></span>` +
    `<span class="katex-html" aria-hidden="true"><span class="base"><span class="strut" style="height:0.6944em;"></span>${html}</span></span></span>`;
  return display ? `<span class="katex-display">${katex}</span>` : katex;
}

const mathMarked = new Marked({
  renderer: htmlAsText,
  extensions: [
    {
      name: 'math',
      level: 'inline',
      start: (src: string) => src.indexOf('$'),
      tokenizer(src: string) {
        const match = /^\$\$([^$]+?)\$\$|^\$([^$\n]+?)\$/.exec(src);
        if (match) return { type: 'math', raw: match[0], text: match[1] ?? match[2], display: match[1] !== undefined };
        return undefined;
      },
      renderer: (token) => katexLike(token.text as string, token.display as boolean),
    },
  ],
});

export function renderLikeSite(markdown: string, layout: Layout, doc: Document = document): { message: Element; root: HTMLElement } {
  const answer = doc.createElement('div');
  answer.innerHTML = (layout === 'deepseek-prism' ? mathMarked : siteMarked).parse(markdown, { async: false });
  for (const code of Array.from(answer.querySelectorAll('pre > code'))) {
    const pre = code.parentElement!;
    const language = code.className.match(/language-(\S+)/)?.[1] ?? '';
    // marked ends the code element with the fence's last line break; viewers do not show it as a line.
    const raw = code.textContent ?? '';
    const text = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
    pre.replaceWith(codeBlock(doc, layout, language, text));
  }
  const root = doc.createElement('div');
  if (layout === 'deepseek-prism') {
    for (const p of Array.from(answer.querySelectorAll('p'))) p.classList.add('ds-markdown-paragraph');
    answer.className = 'ds-markdown';
    const message = el(doc, 'div', { class: 'ds-message _63c77b1' });
    const think = el(doc, 'div', { class: 'ds-think-content e1675d8b' });
    const thinkMd = el(doc, 'div', { class: 'ds-markdown' });
    thinkMd.innerHTML = siteMarked.parse(REASONING_DECOY, { async: false });
    think.append(thinkMd);
    message.append(think, answer);
    const userRow = el(doc, 'div', { class: 'ds-message _63c77b1' });
    userRow.append(el(doc, 'div', { class: 'fbb737a4' }, 'please run it'));
    root.append(userRow, message);
    return { message, root };
  }
  answer.className = 'markdown prose dark:prose-invert w-full break-words light markdown-new-styling';
  const message = el(doc, 'div', {
    'data-message-author-role': 'assistant',
    'data-message-id': 'b1a3c5d7-0000-4000-8000-00000000abcd',
    class: 'min-h-8 text-message relative flex w-full flex-col',
  });
  message.append(answer);
  const turnTag = layout === 'chatgpt-codemirror' ? 'section' : 'article';
  const turn = el(doc, turnTag, { 'data-testid': 'conversation-turn-2', 'data-turn': 'assistant', 'data-turn-id': 'turn-2' });
  const heading = el(doc, layout === 'chatgpt-codemirror' ? 'h4' : 'h6', { class: 'sr-only' }, 'ChatGPT said:');
  const reasoning = el(doc, 'div', { 'data-testid': 'reasoning-summary' });
  reasoning.innerHTML = siteMarked.parse(REASONING_DECOY, { async: false });
  turn.append(heading, reasoning, message);
  const userTurn = el(doc, turnTag, { 'data-testid': 'conversation-turn-1', 'data-turn': 'user' });
  const userMessage = el(doc, 'div', { 'data-message-author-role': 'user', 'data-message-id': 'u-1' });
  userMessage.append(el(doc, 'div', { class: 'whitespace-pre-wrap' }, 'please run it'));
  userTurn.append(userMessage);
  if (layout === 'chatgpt-codemirror') {
    const container = el(doc, 'div', { 'data-turn-id-container': '' });
    container.append(turn);
    root.append(userTurn, container);
  } else root.append(userTurn, turn);
  return { message, root };
}

function codeBlock(doc: Document, layout: Layout, language: string, text: string): Element {
  if (layout === 'chatgpt-codemirror') {
    const pre = el(doc, 'pre', { class: 'overflow-visible! px-0!' });
    const frame = el(doc, 'div', { class: 'relative w-full mt-4 mb-1' });
    const header = el(doc, 'div', { class: 'flex items-center text-token-text-secondary px-4 py-2 text-xs font-sans' });
    if (language) header.append(el(doc, 'div', { class: 'flex items-center gap-1' }, language));
    const copy = el(doc, 'div', { class: 'pointer-events-none absolute end-1.5 top-1 z-2' });
    copy.append(el(doc, 'button', { type: 'button', 'aria-label': 'Copy' }, ''));
    const viewer = el(doc, 'div', { id: 'code-block-viewer', dir: 'ltr', class: 'q9tKkq_viewer cm-editor z-10 flex h-full w-full flex-col' });
    const scroller = el(doc, 'div', { class: 'cm-scroller' });
    const content = el(doc, 'pre', { class: 'cm-content q9tKkq_readonly m-0' });
    const code = el(doc, 'code');
    code.append(...tokens(doc, text));
    content.append(code);
    scroller.append(content);
    viewer.append(scroller);
    frame.append(header, copy, viewer);
    pre.append(frame);
    return pre;
  }
  if (layout === 'chatgpt-hljs') {
    const pre = el(doc, 'pre', { class: '!overflow-visible' });
    const box = el(doc, 'div', { class: 'contain-inline-size rounded-md border-[0.5px] border-token-border-medium relative' });
    const header = el(doc, 'div', { class: 'flex items-center text-token-text-secondary px-4 py-2 text-xs font-sans justify-between h-9' }, language);
    const sticky = el(doc, 'div', { class: 'sticky top-9' });
    sticky.append(el(doc, 'button', { class: 'flex gap-1 items-center select-none py-1' }, 'Copy code'));
    const scroll = el(doc, 'div', { class: 'overflow-y-auto p-4', dir: 'ltr' });
    const code = el(doc, 'code', { class: `!whitespace-pre hljs${language ? ` language-${language}` : ''}` });
    // Captures of this layout (code-index 19371891601, 16983605432, 1315091072) end the code element with the fence's
    // last line break, as react-markdown writes it; the viewer shows no line for it.
    code.append(...tokens(doc, text, 'hljs-string'), '\n');
    scroll.append(code);
    box.append(header, sticky, scroll);
    pre.append(box);
    return pre;
  }
  const block = el(doc, 'div', { class: 'md-code-block md-code-block-light' });
  const wrap = el(doc, 'div', { class: 'md-code-block-banner-wrap' });
  const banner = el(doc, 'div', { class: 'md-code-block-banner md-code-block-banner-lite' });
  const inner = el(doc, 'div', { class: '_121d384' });
  const labelBox = el(doc, 'div', { class: 'd2a24f03' });
  labelBox.append(el(doc, 'span', { class: 'd813de27' }, language));
  const buttons = el(doc, 'div', { class: 'd2a24f03 _246a029' });
  const copy = el(doc, 'button', { role: 'button', class: 'ds-atom-button ds-text-button' });
  copy.append(el(doc, 'span', { class: 'code-info-button-text' }, '复制'));
  const download = el(doc, 'button', { role: 'button', class: 'ds-atom-button ds-text-button' });
  download.append(el(doc, 'span', { class: 'code-info-button-text' }, '下载'));
  buttons.append(copy, download);
  inner.append(labelBox, buttons);
  banner.append(inner);
  wrap.append(banner);
  const pre = el(doc, 'pre');
  pre.append(...tokens(doc, text, 'token punctuation'));
  block.append(wrap, pre);
  return block;
}

/** Highlighter-like token spans; the text content stays exactly `text`. */
function tokens(doc: Document, text: string, className = 'ͼ1'): Node[] {
  const out: Node[] = [];
  // Word-sized tokens like a highlighter; line-sized for very long code so happy-dom stays quick.
  for (const part of text.split(text.length > 20_000 ? /(\n+)/ : /(\s+)/)) {
    if (part === '') continue;
    if (/^\s+$/.test(part)) out.push(doc.createTextNode(part));
    else out.push(el(doc, 'span', { class: className }, part));
  }
  return out;
}

function el(doc: Document, tag: string, attributes: Record<string, string> = {}, text?: string): HTMLElement {
  const node = doc.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The blocks a reply's markdown gives once a site has drawn it in `layout` and the page has read it back. */
export function blocksOnPage(reply: string, layout: Layout) {
  const site = SITE_OF[layout];
  const { message, root } = renderLikeSite(reply, layout);
  document.body.replaceChildren(root);
  return findBlocks(serializeMessage(site.answerRoot(message)!, site).markdown);
}
