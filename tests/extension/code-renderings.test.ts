import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import { serializeMessage } from '../../extension/scanner/serialize';
import { siteById } from '../../extension/sites';
import type { Site } from '../../extension/sites/define-site';
import { FIXTURE_DIR, loadFixture } from './site-fixtures';
import { LAYOUTS, blocksOnPage } from './render-like-site';

/**
 * The same code block drawn by the highlighters chat sites build on (SITES.md, SITES-MORE.md: highlight.js on
 * ChatGPT 2024, Gemini and HuggingChat; Prism on DeepSeek, Claude (react-syntax-highlighter) and Kimi; Shiki said to
 * be T3 Chat's; Monaco's no-break spaces on Qwen), each with the options that change its DOM: one element per line
 * with or without the line break as text, line-number gutters, `<br>` lines. Every site module must read the text
 * the model wrote, byte for byte, from every one of them.
 */

// Indentation, an empty line and a path with a space: collapsed lines, gutter numbers or a no-break space change it.
const CODE = '{\n  "jsonrpc": "2.0",\n  "id": "render-1",\n\n  "method": "tools/call",\n  "params": {"name": "fs.read", "arguments": {"path": "my notes.md"}}\n}';

type Draw = (doc: Document, lines: string[]) => Node[];

const span = (doc: Document, className: string, text: string): HTMLElement => {
  const el = doc.createElement('span');
  el.className = className;
  el.textContent = text;
  return el;
};
const joined = (nodes: Node[], separator: () => Node | null): Node[] =>
  nodes.flatMap((node, i) => {
    const between = i > 0 ? separator() : null;
    return between ? [between, node] : [node];
  });

const RENDERINGS: Record<string, Draw> = {
  // Shiki's own HTML: span.line with the line break as text between them.
  'Shiki lines with newlines between': (doc, lines) => joined(lines.map((l) => span(doc, 'line', l)), () => doc.createTextNode('\n')),
  // Shiki through a hast-to-DOM renderer that drops the text between lines (they are display: block).
  'Shiki lines without newlines': (doc, lines) => lines.map((l) => span(doc, 'line', l)),
  // prism-react-renderer: a div.token-line per line, no newline text.
  'prism-react-renderer token lines': (doc, lines) =>
    lines.map((l) => {
      const line = doc.createElement('div');
      line.className = 'token-line';
      if (l) line.append(span(doc, 'token plain', l));
      return line;
    }),
  // react-syntax-highlighter showLineNumbers: the number is a text span at the start of each line.
  'react-syntax-highlighter line numbers': (doc, lines) =>
    lines.flatMap((l, i) => [
      ...(i > 0 ? [doc.createTextNode('\n')] : []),
      span(doc, 'linenumber react-syntax-highlighter-line-number', String(i + 1)),
      span(doc, 'token', l),
    ]),
  // react-syntax-highlighter wrapLines + showLineNumbers: a display:block span per line, its newline inside but the last.
  'react-syntax-highlighter wrapped lines': (doc, lines) =>
    lines.map((l, i) => {
      const line = doc.createElement('span');
      line.setAttribute('style', 'display: block;');
      line.append(span(doc, 'linenumber react-syntax-highlighter-line-number', String(i + 1)), span(doc, 'token', l), i < lines.length - 1 ? '\n' : '');
      return line;
    }),
  // highlight.js line-numbers plugin: a table row per line, the number drawn by CSS from data-line-number.
  'highlight.js line-number table': (doc, lines) => {
    const table = doc.createElement('table');
    table.className = 'hljs-ln';
    const body = doc.createElement('tbody');
    lines.forEach((l, i) => {
      const row = doc.createElement('tr');
      const number = doc.createElement('td');
      number.className = 'hljs-ln-line hljs-ln-numbers';
      number.setAttribute('data-line-number', String(i + 1));
      const n = doc.createElement('div');
      n.className = 'hljs-ln-n';
      n.setAttribute('data-line-number', String(i + 1));
      number.append(n);
      const code = doc.createElement('td');
      code.className = 'hljs-ln-line hljs-ln-code';
      code.textContent = l;
      row.append(number, code);
      body.append(row);
    });
    table.append(body);
    return [table];
  },
  // Prism line-numbers plugin: the text untouched, an empty span per line in a gutter appended to the code.
  'Prism line-numbers rows': (doc, lines) => {
    const rows = span(doc, 'line-numbers-rows', '');
    rows.setAttribute('aria-hidden', 'true');
    for (const _ of lines) rows.append(doc.createElement('span'));
    return [doc.createTextNode(lines.join('\n')), rows];
  },
  // Lines drawn outside white-space: pre: <br> between them and every space a no-break space (as Monaco writes them).
  '<br> lines with no-break spaces': (doc, lines) => joined(lines.map((l) => doc.createTextNode(l.replace(/ /g, '\u00a0'))), () => doc.createElement('br')),
  // A line-number gutter with the class most hand-made renderers use.
  'span.line-number gutters': (doc, lines) =>
    lines.flatMap((l, i) => [...(i > 0 ? [doc.createTextNode('\n')] : []), span(doc, 'line-number', String(i + 1)), doc.createTextNode(l)]),
};

/** Every saved page of a finished reply whose answer holds a highlighted (not CodeMirror/Monaco) mcp-request block. */
function idleFixtures(): Array<{ file: string; site: Site }> {
  const out: Array<{ file: string; site: Site }> = [];
  for (const dir of readdirSync(FIXTURE_DIR).sort()) {
    const site = siteById(dir);
    if (!site) continue;
    for (const file of readdirSync(join(FIXTURE_DIR, dir)).sort()) if (file.includes('idle')) out.push({ file: `${dir}/${file}`, site });
  }
  return out;
}

/** The answers' mcp-request code blocks (reasoning left out, as the serializer leaves it out) redrawn by `draw`. */
function redraw(site: Site, doc: Document, draw: Draw | null): { answers: Element[]; redrawn: number } {
  const answers: Element[] = [];
  let redrawn = 0;
  for (const message of site.messages(doc)) {
    if (message.role !== 'assistant') continue;
    const answer = site.answerRoot(message.el);
    if (!answer) continue;
    answers.push(answer);
    if (!draw) continue;
    for (const segment of serializeMessage(answer, site).segments) {
      if (segment.code?.language !== 'mcp-request') continue;
      if (segment.el.querySelector('.cm-content, .view-lines')) continue;
      const holder = segment.el.querySelector('pre code') ?? segment.el.querySelector('code') ?? (segment.el.matches('pre') ? segment.el : segment.el.querySelector('pre'));
      if (!holder) continue;
      holder.replaceChildren(...draw(doc, CODE.split('\n')));
      redrawn++;
    }
  }
  return { answers, redrawn };
}

describe('code blocks drawn by other highlighters read as the model wrote them, on every site', () => {
  const fixtures = idleFixtures().filter(({ file, site }) => {
    const doc = loadFixture(file);
    return redraw(site, doc, null).answers.some((answer) =>
      serializeMessage(answer, site).segments.some((s) => s.code?.language === 'mcp-request' && !s.el.querySelector('.cm-content, .view-lines')),
    );
  });

  it('covers the saved pages of every site with highlighted code blocks', () => {
    expect(new Set(fixtures.map((f) => f.site.id)).size).toBeGreaterThanOrEqual(15);
  });

  for (const [name, draw] of Object.entries(RENDERINGS)) {
    it(name, () => {
      const wrong: string[] = [];
      for (const { file, site } of fixtures) {
        const doc = loadFixture(file);
        const { answers, redrawn: count } = redraw(site, doc, draw);
        const markdown = answers.map((answer) => serializeMessage(answer, site).markdown).join('\n');
        const fenced = markdown.split('```mcp-request\n' + CODE + '\n```').length - 1;
        const runnable = findBlocks(markdown).filter((b) => !b.error && (b.payload as { id?: unknown } | undefined)?.id === 'render-1');
        if (count === 0 || fenced !== count || runnable.length !== count) {
          wrong.push(`${file}:\n${markdown}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }
});

/**
 * Sites whose code element ends with the fence's last line break, which their block shows as no line (captures of
 * the live pages: ChatGPT's highlight.js layout, code-index 19371891601 / 16983605432; Gemini, 55341721633). Each
 * Axon parameter must be read as the model wrote it: a line break more wrote a blank line into the file and made
 * replace look for text followed by an empty line.
 */
describe("a site's code element that keeps the fence's last line break", () => {
  const AXON: Array<[string, string]> = [
    ['act', 'replace'],
    ['path', 'src/main.py'],
    ['python', '    def hello():\n        pass'],
    ['python', '    def hello():\n        print("Fixed")'],
  ];
  const pages: Record<string, { site: Site; fixture: string; block: (doc: Document, label: string, text: string) => Element }> = {
    'ChatGPT highlight.js (2024 – Feb 2026)': {
      site: siteById('chatgpt')!,
      fixture: 'chatgpt/2025-09-hljs-idle.html',
      block(doc, label, text) {
        const pre = doc.createElement('pre');
        pre.innerHTML =
          `<div class="dark bg-gray-950 rounded-md"><div class="flex items-center relative text-token-text-secondary px-4 py-2 text-xs font-sans justify-between rounded-t-md"><span>${label}</span>` +
          '<span data-state="closed"><button class="flex gap-1 items-center">Copy code</button></span></div><div class="overflow-y-auto p-4" dir="ltr">' +
          `<code class="!whitespace-pre hljs language-${label}"></code></div></div>`;
        pre.querySelector('code')!.textContent = `${text}\n`;
        return pre;
      },
    },
    'Gemini (2026)': {
      site: siteById('gemini')!,
      fixture: 'gemini/2026-11-thinking-idle.html',
      block(doc, label, text) {
        const block = doc.createElement('code-block');
        block.innerHTML =
          `<div class="code-block"><div class="code-block-decoration header-formatted"><span>${label}</span><div class="buttons">&nbsp;</div></div>` +
          '<div class="formatted-code-block-internal-container"><div class="animated-opacity"><pre><code class="code-container formatted" data-test-id="code-content"></code></pre></div></div></div>';
        block.querySelector('code')!.textContent = `${text}\n`;
        return block;
      },
    },
  };
  for (const [name, page] of Object.entries(pages)) {
    it(`${name}: an Axon replace's parameters are read byte for byte`, () => {
      const doc = loadFixture(page.fixture);
      const answer = page.site.messages(doc).filter((m) => m.role === 'assistant').map((m) => page.site.answerRoot(m.el)).at(-1)!;
      answer.replaceChildren(...AXON.map(([label, text]) => page.block(doc, label, text)));
      const blocks = findBlocks(serializeMessage(answer, page.site).markdown);
      expect(blocks.map((b) => b.error)).toEqual([undefined]);
      expect((blocks[0]!.payload as { acts: Array<{ args: string[] }> }).acts[0]!.args).toEqual([
        'src/main.py\n',
        '    def hello():\n        pass\n',
        '    def hello():\n        print("Fixed")\n',
      ]);
    });
  }
});

/**
 * A no-break space the model itself wrote in code (French punctuation, a copied table, a file that holds one) is drawn
 * as U+00A0 in the page's `pre`, where spaces need no stand-in: it must reach the file as written. Only renderers that
 * draw lines outside `white-space: pre` write spaces as U+00A0 (above: `<br>` lines; Qwen's Monaco, read on its own).
 */
describe('a no-break space the model wrote in a code block, on the sites on by default', () => {
  const content = 'Prix\u00a0: 10\u00a0€\n«\u00a0Bonjour\u00a0»  and  plain spaces\n';
  const reply = `Writing it:\n\n~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nnotes/fr.txt\n~~~~~\n~~~~~text\n${content}~~~~~\n`;
  for (const layout of LAYOUTS) {
    it(`${layout}: the file gets the no-break spaces, not spaces`, () => {
      const [write, ...rest] = blocksOnPage(reply, layout);
      expect(rest).toEqual([]);
      expect(write?.error).toBeUndefined();
      expect((write!.payload as { acts: Array<{ args: string[] }> }).acts[0]!.args).toEqual(['notes/fr.txt\n', content]);
    });
  }
});

describe('a no-break space the model wrote, in ChatGPT\'s 2026-10 code block (a bare code element, no pre)', () => {
  it('is kept: the code element keeps its whitespace as written (whitespace-pre!)', () => {
    // As captured on 2026-09 and 2026-10-01: div[data-markdown-copy="code-block"] > toolbar + div > code.whitespace-pre!.
    const text = 'Prix\u00a0: 10\u00a0€';
    const block = (label: string, code: string) =>
      `<div data-markdown-copy="code-block"><div data-markdown-copy="exclude"><div class="truncate">${label}</div><button aria-label="Copy"></button></div>` +
      `<div class="overflow-auto"><code class="whitespace-pre! block">${code}</code></div></div>`;
    document.body.innerHTML =
      '<main><div data-turn-key="t1"><div data-chatgpt-search-unit-key="fallback-turn-0:2:assistant" data-chatgpt-search-message-ids="a1">' +
      `<div data-markdown-text-style="assistant-message"><p>Writing it:</p>${block('act', 'write_file')}${block('path', 'fr.txt')}${block('text', text)}</div></div></div></main>`;
    const site = siteById('chatgpt')!;
    const [reply] = site.messages(document);
    const [write] = findBlocks(serializeMessage(site.answerRoot(reply!.el)!, site).markdown);
    expect((write!.payload as { acts: Array<{ args: string[] }> }).acts[0]!.args).toEqual(['fr.txt\n', `${text}\n`]);
  });
});
