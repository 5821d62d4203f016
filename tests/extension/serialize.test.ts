import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import type { Block } from '../../shared/protocols/types';
import { fenceFor, locateBlock, mayHoldBlocks, serializeMessage } from '../../extension/scanner/serialize';
import { generic, qwen, zai } from '../../extension/sites';
import { LAYOUTS, SITE_OF, renderLikeSite, type Layout } from './render-like-site';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'blocks');

/** What must survive the page: the kind, completeness and the parsed payload, byte for byte. */
function essence(blocks: Block[]): Array<{ kind: string; complete: boolean; payload: string }> {
  return blocks.map((b) => ({ kind: b.kind, complete: b.complete, payload: JSON.stringify(b.payload ?? null) }));
}

function roundTrip(markdown: string, layout: Layout): { serialized: string; blocks: Block[] } {
  const site = SITE_OF[layout];
  const { message, root } = renderLikeSite(markdown, layout);
  document.body.replaceChildren(root);
  const answer = site.answerRoot(message);
  if (!answer) throw new Error(`no answer root found in the ${layout} rendering`);
  const { markdown: serialized } = serializeMessage(answer, site);
  const blocks = findBlocks(serialized);
  // The scanner skips answers the cheap check rules out: it must never rule out one that holds a block.
  if (blocks.length > 0 && !mayHoldBlocks(answer, answer.textContent ?? '', site)) {
    throw new Error(`mayHoldBlocks said no to a ${layout} answer holding ${blocks.length} block(s):\n${serialized}`);
  }
  return { serialized, blocks };
}

function fixtureFiles(): Array<{ kind: string; name: string; markdown: string }> {
  if (!existsSync(FIXTURES)) return [];
  const out: Array<{ kind: string; name: string; markdown: string }> = [];
  for (const kind of readdirSync(FIXTURES, { withFileTypes: true })) {
    if (!kind.isDirectory()) continue;
    for (const file of readdirSync(join(FIXTURES, kind.name))) {
      if (!file.endsWith('.md')) continue;
      out.push({ kind: kind.name, name: file, markdown: readFileSync(join(FIXTURES, kind.name, file), 'utf8') });
    }
  }
  return out;
}

/**
 * What a page can show of a fixture. Pages show line ends, not CRLF: CRLF fixtures are compared as LF. An unclosed
 * fence renders as a finished code block (the scanner relies on the reply having ended instead), so for fixtures
 * with an incomplete block only the blocks before it are compared. `asParagraph`: the fixture as the page shows it
 * when an auto_coder plan written in paragraph text loses what it depends on there (see `paragraphLoses`); null
 * when nothing is lost.
 */
function asShown(markdown: string): { markdown: string; upTo: number; note: string; asParagraph: string | null } {
  const lf = markdown.replace(/\r\n/g, '\n');
  const original = findBlocks(lf);
  const firstIncomplete = original.findIndex((b) => !b.complete);
  const upTo = firstIncomplete === -1 ? original.length : firstIncomplete;
  const asParagraph = paragraphLoses(lf, original);
  const notes = [
    lf !== markdown ? 'as LF' : '',
    firstIncomplete !== -1 ? `blocks before the incomplete one (${upTo})` : '',
    asParagraph !== null ? 'a plan in paragraph text: found unfenced, its text may differ' : '',
  ].filter(Boolean);
  return { markdown: lf, upTo, note: notes.length ? ` (${notes.join('; ')})` : '', asParagraph };
}

function planType(payload: unknown): unknown {
  return payload !== null && typeof payload === 'object' ? (payload as { type?: unknown }).type : undefined;
}

/**
 * A plan written in a paragraph (not a code block) is shown by every site as paragraph text: leading whitespace of
 * each line is dropped and `\"`-style escapes lose their backslash. The markdown as shown when that loss changes
 * what findBlocks reads — then the page itself no longer holds the plan as written — else null.
 */
function paragraphLoses(markdown: string, original: Block[]): string | null {
  const codeTexts = marked.lexer(markdown).filter((t) => t.type === 'code').map((t) => (t as { text: string }).text);
  let flattened = markdown;
  for (const block of original) {
    if (block.kind !== 'autocoder' || codeTexts.some((text) => text.includes(block.raw.trim()))) continue;
    const asShown = block.raw
      .split('\n')
      .map((line) => line.trimStart())
      .join('\n')
      .replace(/\\([!-/:-@[-`{-~])/g, '$1');
    flattened = flattened.replace(block.raw, asShown);
  }
  return flattened !== markdown && JSON.stringify(essence(findBlocks(flattened))) !== JSON.stringify(essence(original)) ? flattened : null;
}

// A small corpus of our own, written from the seeds, so the serializer is tested whatever the fixture folder holds.
const CORPUS: Record<string, string> = {
  'mcp-request with prose around': [
    'Let me read the file.',
    '',
    '```mcp-request',
    '{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"/abs/path","range":"head:1200"}}}',
    '```',
    '',
    'Then I will continue.',
  ].join('\n'),
  'flycode-call with windows path': [
    '```flycode-call',
    '{"id":"call-002","tool":"fs.read","args":{"path":"C:\\\\Users\\\\a\\\\notes.txt"}}',
    '```',
  ].join('\n'),
  'two calls in one reply, in a list': [
    '1. first',
    '',
    '   ```mcp-request',
    '   {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}',
    '   ```',
    '',
    '2. second',
    '',
    '```mcp-request',
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"/tmp"}}}',
    '```',
  ].join('\n'),
  'autocoder plan in a code block': [
    '```json',
    '#####--',
    '{"metadata":{"step_id":"s1","reason":"r","summary":""},"type":"operate","file_operations":[{"action_type":"create_file","path":"a.txt","file_content":"hi\\n"}],"program_operations":[]}',
    '--#####',
    '```',
  ].join('\n'),
  'autocoder plan in a plain paragraph': [
    'Here is the plan:',
    '',
    '#####--{"metadata":{"step_id":"s2","reason":"check","summary":"ok"},"type":"check_program","program_operations":[{"name":"t","command":"npm test","set_timeout":30}]}--#####',
  ].join('\n'),
  'axon plan with fenced content and a final blank line': [
    '~~~~~act',
    'write_file',
    '~~~~~',
    '~~~~~path',
    'docs/example.md',
    '~~~~~',
    '~~~~~content',
    '# Python Guide',
    '',
    'Here is a script:',
    '```python',
    'print("hello world")',
    '```',
    '',
    '~~~~~',
    '',
    '~~~~~act',
    'replace',
    '~~~~~',
    '~~~~~path',
    'src/main.py',
    '~~~~~',
    '~~~~~python',
    '    def hello():',
    '        pass',
    '~~~~~',
    '~~~~~python',
    '    def hello():',
    '        print("Fixed")',
    '~~~~~',
  ].join('\n'),
};

describe('serializer round trip: findBlocks(serialize(renderLikeSite(md))) equals findBlocks(md)', () => {
  for (const layout of LAYOUTS) {
    describe(layout, () => {
      for (const [name, markdown] of Object.entries(CORPUS)) {
        it(name, () => {
          const original = findBlocks(markdown);
          expect(original.length).toBeGreaterThan(0);
          const { blocks, serialized } = roundTrip(markdown, layout);
          expect(essence(blocks), serialized).toEqual(essence(original));
        });
      }
    });
  }
});

describe('serializer round trip over every fixture in tests/fixtures/blocks', () => {
  const files = fixtureFiles();
  it('the block fixture corpus exists and covers every kind', () => {
    const kinds = new Set(files.map((f) => f.kind));
    expect([...kinds].sort(), `no fixtures under ${FIXTURES}`).toEqual(expect.arrayContaining(['autocoder', 'axon', 'flycode-call', 'mcp-request']));
  });
  for (const fixture of files) {
    const shown = asShown(fixture.markdown);
    for (const layout of LAYOUTS) {
      const title = `${fixture.kind}/${fixture.name} on ${layout}${shown.note}`;
      it(title, () => {
        const { blocks, serialized } = roundTrip(shown.markdown, layout);
        const original = findBlocks(shown.markdown);
        if (shown.asParagraph === null) {
          expect(essence(blocks).slice(0, shown.upTo), serialized).toEqual(essence(original).slice(0, shown.upTo));
          if (shown.upTo === original.length) expect(blocks).toHaveLength(shown.upTo);
          // a plan in a code block stays in one; a plan in paragraph text is still found outside any
          const unfenced = (list: Block[]) => list.slice(0, shown.upTo).map((b) => b.unfenced ?? false);
          expect(unfenced(blocks), serialized).toEqual(unfenced(original));
          return;
        }
        // The page shows the plan as paragraph text and changed it on the way (indentation, escapes; an indented
        // line may even become a code block). The scanner still finds the same blocks and flags the plan
        // `unfenced`: its text may differ from what the model wrote, so it is shown with a note and never auto-run;
        // a Run click still works, and sends what the page shows (issue 10 §5). Every other block reads back exactly.
        const head = (list: Block[]) => list.slice(0, shown.upTo).map((b) => [b.kind, b.complete]);
        expect(head(blocks), serialized).toEqual(head(original));
        original.slice(0, shown.upTo).forEach((block, i) => {
          const found = blocks[i];
          if (block.kind === 'autocoder' && block.unfenced === true) {
            expect(found?.unfenced, serialized).toBe(true);
            // what the page shows is the same plan with its text changed, or no longer JSON — never another plan
            const samePlan = planType(found?.payload) === planType(block.payload);
            const unreadable = found?.payload === undefined && found?.error !== undefined;
            expect(samePlan || unreadable, `${found?.error ?? ''}\n${serialized}`).toBe(true);
          } else {
            expect(JSON.stringify(found?.payload ?? null), serialized).toBe(JSON.stringify(block.payload ?? null));
          }
        });
        // a huge fixture (hundreds of KB) takes seconds to render and read on a busy machine
      }, 30_000);
    }
  }
});

describe('mayHoldBlocks: the cheap check before serializing', () => {
  // roundTrip throws when the check rules out an answer in which the serializer finds a block.
  for (const fixture of fixtureFiles()) {
    const shown = asShown(fixture.markdown);
    it(`never rules out a streaming prefix of ${fixture.kind}/${fixture.name} that holds a block`, () => {
      const text = shown.markdown;
      let withBlocks = 0;
      // a huge fixture (hundreds of KB) at two cuts: each of its renderings takes seconds on a busy machine
      const parts = text.length > 50_000 ? 2 : 5;
      for (const cut of new Set([text.length, ...Array.from({ length: parts - 1 }, (_, i) => Math.floor((text.length * (i + 1)) / parts))])) {
        for (const layout of LAYOUTS) if (roundTrip(text.slice(0, cut), layout).blocks.length > 0) withBlocks++;
      }
      if (findBlocks(text).length > 0) expect(withBlocks).toBeGreaterThan(0);
    }, 30_000);
  }

  it('rules out ordinary replies: prose, inline code, code blocks of other languages, even code full of backticks', () => {
    const ordinary = [
      'Sure. Call `retry(3)` and **then** log the _result_.\n\n- one\n- two',
      '```python\nprint("no tool here")\n```\n\nThat prints a line.',
      '```bash\necho `date` && printf "~%s~" x\n```',
      // four backticks: with three, the last line opens a code block with no label, which may hold its label on its first line
      '````markdown\n```mcp-request\n{"jsonrpc":"2.0"}\n```\n````',
      '| a | b |\n|---|---|\n| `x` | y |',
      // JSON and code with no label are common in replies: read for a call only when they hold a mark of one
      '```json\n{"name": "demo", "version": "1.0.0", "scripts": {"start": "node server.js"}}\n```',
      '```\nnpm install\nnpm start\n```',
    ];
    for (const layout of LAYOUTS) {
      const site = SITE_OF[layout];
      for (const markdown of ordinary) {
        const { message, root } = renderLikeSite(markdown, layout);
        document.body.replaceChildren(root);
        const answer = site.answerRoot(message) as Element;
        expect(findBlocks(serializeMessage(answer, site).markdown), markdown).toEqual([]);
        expect(mayHoldBlocks(answer, answer.textContent ?? '', site), `${layout}: ${markdown}`).toBe(false);
      }
    }
  });

  it('says yes for a labelled code block, a plan marker, and fence characters left in the text', () => {
    for (const layout of LAYOUTS) {
      const site = SITE_OF[layout];
      for (const markdown of ['```mcp-request\n{', '```FLYCODE-CALL json\n{}\n```', '```\nmcp-request\n{}\n```', '```json\n{"jsonrpc":"2.0"}\n```', '```json\n{"id": "1", "tool": "fs.read"}\n```', '```\nMCP-REQUEST\n{}\n```', '~~~~~\nact\nwrite_file\n~~~~~', 'plan: #####--', '~~~~~act\nwrite_file\n~~~~~', 'a ``` b']) {
        const { message, root } = renderLikeSite(markdown, layout);
        document.body.replaceChildren(root);
        const answer = site.answerRoot(message) as Element;
        expect(mayHoldBlocks(answer, answer.textContent ?? '', site), `${layout}: ${markdown}`).toBe(true);
      }
    }
  });
});

describe('serializer details', () => {
  it('leaves reasoning out (the decoy block beside the answer is never read)', () => {
    for (const layout of LAYOUTS) {
      const { blocks } = roundTrip('Nothing to run here.', layout);
      expect(blocks, layout).toEqual([]);
    }
  });

  it('re-fences with a fence longer than any backtick run inside', () => {
    expect(fenceFor('a\n```\nb')).toBe('````');
    expect(fenceFor('``````')).toBe('```````');
    expect(fenceFor('plain')).toBe('```');
    expect(fenceFor('x', 'odd`label')).toBe('~~~');
  });

  it('maps each block back to the code elements it came from', () => {
    const markdown = CORPUS['two calls in one reply, in a list']!;
    for (const layout of LAYOUTS) {
      const site = SITE_OF[layout];
      const { message, root } = renderLikeSite(markdown, layout);
      document.body.replaceChildren(root);
      const serialized = serializeMessage(site.answerRoot(message)!, site);
      const blocks = findBlocks(serialized.markdown);
      expect(blocks).toHaveLength(2);
      const codeElements = Array.from(site.answerRoot(message)!.querySelectorAll(site.codeBlockSelector)).filter(
        (el) => !el.parentElement?.closest(site.codeBlockSelector),
      );
      blocks.forEach((block, i) => {
        const located = locateBlock(serialized, block.start, block.end);
        expect(located.codeSegments.map((s) => s.el), layout).toEqual([codeElements[i]]);
        expect(located.anchor).toBe(codeElements[i]);
      });
    }
  });

  it('marks a CodeMirror block whose lines are not all in the page as partial', () => {
    const site = SITE_OF['chatgpt-codemirror'];
    const { message, root } = renderLikeSite('```mcp-request\n{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n```', 'chatgpt-codemirror');
    document.body.replaceChildren(root);
    const content = message.querySelector('.cm-content')!;
    content.append(Object.assign(document.createElement('div'), { className: 'cm-gap' }));
    const serialized = serializeMessage(site.answerRoot(message)!, site);
    const code = serialized.segments.find((s) => s.code);
    expect(code?.code?.partial).toMatch(/cm-gap/);
  });

  it('marks a CodeMirror block whose overlong line CodeMirror drew only in part as partial: its text would write a cut file', () => {
    // CodeMirror 6 draws a line of more than 4,000 characters only near the viewport: the rest of the line is an
    // empty inline div (contenteditable=false, sized by style) in place of its text (LineGapWidget, @codemirror/view).
    const long = 'x'.repeat(6_000);
    const markdown = `Writing it:\n\n~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nout/data.txt\n~~~~~\n~~~~~text\nhead\n${long}\ntail\n~~~~~\n`;
    const drawn = (layout: 'chatgpt-codemirror', lineOf: (code: Element) => Element) => {
      const { message, root } = renderLikeSite(markdown, layout);
      document.body.replaceChildren(root);
      const content = Array.from(message.querySelectorAll('.cm-content')).find((el) => el.textContent?.includes(long))!;
      const line = lineOf(content);
      const kept = long.slice(0, 2_500);
      line.textContent = line.textContent!.replace(long, kept);
      const gap = document.createElement('div');
      gap.setAttribute('contenteditable', 'false');
      gap.setAttribute('style', 'width: 31000px; height: 2px; display: inline-block;');
      const at = Array.from(line.childNodes).find((n) => n.textContent?.includes(kept))!;
      at.parentNode!.insertBefore(gap, at.nextSibling);
      return serializeMessage(SITE_OF[layout].answerRoot(message)!, SITE_OF[layout]);
    };
    // ChatGPT's viewer (pre.cm-content > code > spans) and CodeMirror's own lines (.cm-content > .cm-line).
    const asLines = (content: Element): Element => {
      const text = content.textContent ?? '';
      content.replaceChildren(...text.split('\n').map((t) => Object.assign(document.createElement('div'), { className: 'cm-line', textContent: t })));
      return Array.from(content.children).find((l) => l.textContent?.includes('x'))!;
    };
    for (const serialized of [drawn('chatgpt-codemirror', (content) => content.querySelector('code')!), drawn('chatgpt-codemirror', asLines)]) {
      const [write] = findBlocks(serialized.markdown);
      // The plan still reads as a whole write: only the partial mark keeps it from writing a cut file.
      expect(write?.complete).toBe(true);
      expect(write?.error).toBeUndefined();
      expect(JSON.stringify(write?.payload)).not.toContain(long);
      const partial = serialized.segments.filter((s) => s.code?.partial).map((s) => s.code?.partial);
      expect(partial).toEqual(['the code viewer left part of a long line out of the page']);
    }
  });

  it('marks a CodeMirror block showing an invisible character as a placeholder as partial: the character is not in the page', () => {
    // highlightSpecialChars draws a zero-width space as <span class="cm-specialChar" title="…">•</span>.
    const markdown = '~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nnote.txt\n~~~~~\n~~~~~text\nword\u200bjoiner\n~~~~~\n';
    const site = SITE_OF['chatgpt-codemirror'];
    const { message, root } = renderLikeSite(markdown, 'chatgpt-codemirror');
    document.body.replaceChildren(root);
    const token = Array.from(message.querySelectorAll('.cm-content span')).find((el) => el.textContent?.includes('\u200b'))!;
    const [before, after] = token.textContent!.split('\u200b');
    const special = Object.assign(document.createElement('span'), { className: 'cm-specialChar', textContent: '\u2022', title: 'Control character zero width space' });
    token.replaceChildren(before!, special, after!);
    const serialized = serializeMessage(site.answerRoot(message)!, site);
    // Read as shown, the plan writes a bullet where the model wrote a zero-width space.
    expect(JSON.stringify(findBlocks(serialized.markdown)[0]?.payload)).toContain('word\u2022joiner');
    expect(serialized.segments.filter((s) => s.code?.partial).map((s) => s.code?.partial)).toEqual(['the code viewer shows an invisible character as a placeholder']);
  });

  it('marks a CodeMirror block with folded lines as partial, also without a line-number gutter', () => {
    // A fold replaces the folded lines with <span class="cm-foldPlaceholder" aria-label="folded code">…</span>.
    const block = (label: string, lines: string[]): string =>
      `<div class="rounded-xl"><div class="flex"><span>${label}</span><button class="copy-code-button">Copy</button></div>` +
      `<div class="language-${label}"><div class="cm-editor"><div class="cm-scroller"><div class="cm-content" contenteditable="false">` +
      lines.map((line) => `<div class="cm-line">${line}</div>`).join('') +
      '</div></div></div></div></div>';
    document.body.innerHTML =
      '<div class="chat-assistant markdown-prose">' +
      block('act', ['write_file']) +
      block('path', ['notes.md']) +
      block('markdown', ['# Notes<span class="cm-foldPlaceholder" aria-label="folded code">…</span>', '# End']) +
      '</div>';
    const serialized = serializeMessage(zai.answerRoot(document.querySelector('.chat-assistant')!)!, zai);
    // Read as shown, the plan is a whole write that leaves the folded lines out of the file.
    const [write] = findBlocks(serialized.markdown);
    expect(write?.complete).toBe(true);
    expect(write?.error).toBeUndefined();
    expect(serialized.segments.filter((s) => s.code?.partial).map((s) => s.code?.partial)).toEqual(['the code viewer folded some lines ("…")']);
  });

  it('marks a CodeMirror block as partial when a CodeMirror before 6.23 left its lines out: its spacer has no class', () => {
    // @codemirror/view draws the lines far from the viewport as one empty block div sized to them (BlockGapWidget);
    // it gave that div the cm-gap class only in 6.23.0 (2023-12). A build on an older view draws a bare
    // <div style="height: …px">, and a long write read from the lines near the top wrote a cut file.
    const block = (label: string, lines: string[], gapPx = 0): string =>
      `<div class="rounded-xl"><div class="flex"><span>${label}</span><button class="copy-code-button">Copy</button></div>` +
      `<div class="language-${label}"><div class="cm-editor"><div class="cm-scroller"><div class="cm-content" contenteditable="false">` +
      lines.map((line) => `<div class="cm-line">${line}</div>`).join('') +
      (gapPx > 0 ? `<div style="height: ${gapPx}px;"></div>` : '') +
      '</div></div></div></div></div>';
    const head = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    document.body.innerHTML =
      '<div class="chat-assistant markdown-prose">' + block('act', ['write_file']) + block('path', ['notes.md']) + block('text', head, 4_000) + '</div>';
    const serialized = serializeMessage(zai.answerRoot(document.querySelector('.chat-assistant')!)!, zai);
    const [write] = findBlocks(serialized.markdown);
    expect(write?.complete).toBe(true);
    expect(locateBlock(serialized, write!.start, write!.end).unreadable).toBe('the code viewer left some lines out of the page (an empty spacer in their place)');
    expect(qwen.codeText(document.querySelectorAll('.language-text')[0]!).partial).toBeDefined();
  });

  it("a CodeMirror block with a line-number gutter is read in full: the gutter's hidden width spacer is no line", () => {
    // CodeMirror 6's lineNumbers() puts a hidden spacer first in the gutter holding the widest number for the
    // document's digits (9, 99, 999…), so a three-line block's gutter holds 9, 1, 2, 3 (Z.ai's basic setup shows it).
    const body = ['{"jsonrpc":"2.0","id":"call-031",', '"method":"tools/list"', '}'];
    const gutter =
      '<div class="cm-gutters" aria-hidden="true"><div class="cm-gutter cm-lineNumbers">' +
      '<div class="cm-gutterElement" style="height: 0px; visibility: hidden; pointer-events: none;">9</div>' +
      body.map((_, i) => `<div class="cm-gutterElement" style="height: 20px;">${i + 1}</div>`).join('') +
      '</div></div>';
    const lines = body.map((line) => `<div class="cm-line">${line}</div>`).join('');
    document.body.innerHTML =
      '<div class="chat-assistant markdown-prose"><div class="rounded-xl"><div class="flex"><span>mcp-request</span>' +
      '<button class="copy-code-button">Copy</button></div><div class="language-mcp-request"><div class="cm-editor">' +
      `<div class="cm-scroller">${gutter}<div class="cm-content" contenteditable="false">${lines}</div></div></div></div></div></div>`;
    const message = document.querySelector('.chat-assistant')!;
    const serialized = serializeMessage(zai.answerRoot(message)!, zai);
    const code = serialized.segments.find((s) => s.code);
    expect(code?.code?.partial).toBeUndefined();
    expect(findBlocks(serialized.markdown).map((b) => (b.payload as { id?: unknown } | undefined)?.id)).toEqual(['call-031']);
  });

  it('keeps headings, lists and inline code as markdown text', () => {
    const site = SITE_OF['chatgpt-hljs'];
    const { message, root } = renderLikeSite('## Plan\n\n- read `a.txt`\n- write __b__\n\nDone.', 'chatgpt-hljs');
    document.body.replaceChildren(root);
    expect(serializeMessage(site.answerRoot(message)!, site).markdown).toBe('## Plan\n\n- read `a.txt`\n\n- write __b__\n\nDone.\n');
  });
});

describe('reasoning an open model writes as <think>…</think> before its answer, on a page with no reasoning box', () => {
  const call = (path: string) =>
    `\`\`\`mcp-request\n{"jsonrpc":"2.0","id":"${path}","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"${path}"}}}\n\`\`\``;
  const reply = `<think>\nThe person wants the file. I could write:\n\n${call('draft.txt')}\n\nYes, that.\n</think>\n\nHere it is:\n\n${call('a.txt')}\n`;
  const idsOn = (html: string) => {
    document.body.innerHTML = `<article data-role="assistant">${html}</article>`;
    const { markdown } = serializeMessage(document.querySelector('article')!, generic);
    return findBlocks(markdown).map((block) => (block.payload as { id: string } | undefined)?.id);
  };

  it('rendered with HTML let through (a think element holding the reasoning), only the answer’s block is one', () => {
    expect(idsOn(marked.parse(reply, { async: false }))).toEqual(['a.txt']);
  });

  it('rendered with the tags shown as text, only the answer’s block is one', () => {
    const escaped = reply.replace(/<(\/?think)>/g, '&lt;$1&gt;');
    expect(idsOn(marked.parse(escaped, { async: false }))).toEqual(['a.txt']);
  });

  it('with no opening tag (the template wrote it into the prompt), shown as text, only the answer’s block is one', () => {
    const escaped = reply.replace('<think>\n', '').replace('</think>', '&lt;/think&gt;');
    expect(idsOn(marked.parse(escaped, { async: false }))).toEqual(['a.txt']);
  });
});
