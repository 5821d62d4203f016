import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import { serializeMessage } from '../../extension/scanner/serialize';
import { copilot, mistral } from '../../extension/sites';

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
});
