import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import { serializeMessage } from '../../extension/scanner/serialize';
import { claude, copilot, grok, mistral } from '../../extension/sites';

/**
 * A code block's language label read in the block's own wrapper (labelInBlock): Copilot's .capitalize label in its
 * div.rounded-xl wrapper, Mistral's span.text-xs.capitalize in the pre. A block drawn without a label never takes the
 * label of the block beside it.
 */
function answer(html: string): HTMLElement {
  const root = document.createElement('div');
  root.innerHTML = html;
  document.body.replaceChildren(root);
  return root;
}

const COPILOT_BLOCK = (label: string | null, code: string): string =>
  '<div class="rounded-xl dark:border">' +
  (label === null ? '' : `<div class="flex"><span class="capitalize">${label}</span><button>Copy</button></div>`) +
  `<div class="relative"><div class="overflow-x-auto"><pre><code>${code}</code></pre></div></div></div>`;

describe("a code block's label read in its own wrapper", () => {
  it('Copilot: each block has its own label, however deep its pre sits in the wrapper', () => {
    const root = answer(`<div class="space-y-3">${COPILOT_BLOCK('json', '{}')}${COPILOT_BLOCK('mcp-request', '{"id":1}')}</div>`);
    expect(Array.from(root.querySelectorAll('pre'), (pre) => copilot.codeLanguage(pre))).toEqual(['json', 'mcp-request']);
  });

  it("Copilot: a block drawn without a label has none, not the label of a short block before it", () => {
    // A tools/list call shown first (its Copy button an icon), then the answer it gets, drawn with no label: the first
    // block's wrapper is short enough to pass for a header, and its label made the answer a call of its own.
    const root = answer(
      '<div class="space-y-3"><div class="rounded-xl"><div class="flex"><span class="capitalize">mcp-request</span><button aria-label="Copy"></button></div>' +
        '<pre><code>{"jsonrpc":"2.0","id":1,"method":"tools/list"}</code></pre></div>' +
        '<div class="rounded-xl"><pre><code>{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}</code></pre></div></div>',
    );
    expect(Array.from(root.querySelectorAll('pre'), (pre) => copilot.codeLanguage(pre))).toEqual(['mcp-request', '']);
    expect(findBlocks(serializeMessage(root, copilot).markdown).map((b) => b.kind)).toEqual(['mcp-request']);
  });

  it("Mistral: the label in the pre, never a word of the code, and the code's language class first", () => {
    const root = answer(
      '<pre><div><span class="text-xs capitalize">mcp-request</span><button>Copy</button></div><code><span class="line">{"id":1}</span></code></pre>' +
        '<pre><code><span class="text-xs capitalize">python</span> = 1</code></pre>' +
        '<pre><div><span class="text-xs capitalize">Flycode-call</span></div><code class="language-flycode-call">{}</code></pre>',
    );
    expect(Array.from(root.querySelectorAll('pre'), (pre) => mistral.codeLanguage(pre))).toEqual(['mcp-request', '', 'flycode-call']);
  });

  it("Claude, 2024 layout: the label drawn in the block's own pre names a code element without a language class", () => {
    // react-syntax-highlighter writes language-xxx on the code only through its default codeTagProps; a build passing
    // its own (a public clone of Claude's block does: codeTagProps={{ style: {} }}) leaves the label the only hint.
    // In the 2024 layout that label sits in the outer pre, which is the block: its own pre is no part to leave out.
    const root = answer(
      '<div class="font-claude-message"><pre><div class="relative flex flex-col rounded-lg"><div class="text-text-300 absolute text-xs">mcp-request</div>' +
        '<div class="sticky"><button aria-label="Copy">Copy</button></div>' +
        '<pre class="code-block__code"><code style="white-space: pre;">{"jsonrpc":"2.0","id":"c-1","method":"tools/list"}</code></pre></div></pre></div>',
    );
    expect(claude.codeLanguage(root.querySelector('pre')!)).toBe('mcp-request');
    expect(findBlocks(serializeMessage(root, claude).markdown).map((b) => [b.kind, (b.payload as { id?: unknown }).id])).toEqual([['mcp-request', 'c-1']]);
  });

  it('a pre that is the code itself (highlight spans, no code element, no wrapper) gives no word of its code as the label', () => {
    // The language label is read outside the pre; inside a bare pre every word is code, and its first one taken as
    // the label would hide the missing label from the doctor (and a code starting with a kind's name would be a call).
    const root = answer('<pre><span class="hljs-attr">mcp-request</span> {"jsonrpc":"2.0","id":"c-2","method":"tools/list"}</pre>');
    const pre = root.querySelector('pre')!;
    expect([claude.codeLanguage(pre), grok.codeLanguage(pre)]).toEqual(['', '']);
  });
});
