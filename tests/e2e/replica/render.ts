/**
 * Browser-side pieces both replica pages share: markdown rendered with `marked` through a site's own code-block
 * markup, block-level re-rendering while a reply streams, and the token splitter.
 */
import { Marked } from 'marked';
import type { Tokens } from 'marked';

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export interface SiteMarkup {
  /** The site's code block for `text` with the fence's first info word `label` ('' when none). */
  codeBlock(text: string, label: string): string;
  /** Extra attributes on `<p>` (DeepSeek classes its paragraphs). */
  paragraphClass?: string;
  /** The paragraph's element (Kimi draws `div.paragraph`); default `p`. */
  paragraphTag?: string;
  /** Markup around each paragraph (Kimi keeps prose and code blocks as siblings); default none. */
  paragraphWrapper?: [string, string];
}

/** A markdown → HTML renderer that draws code blocks the way the site does. */
export function createSiteRenderer(markup: SiteMarkup): (markdown: string) => string {
  const marked = new Marked({ gfm: true, breaks: false });
  marked.use({
    renderer: {
      code(token: Tokens.Code): string {
        const label = (token.lang ?? '').trim().split(/\s+/)[0] ?? '';
        return markup.codeBlock(token.text, label);
      },
      // Chat sites never let a reply inject markup: raw HTML in a reply is shown as text.
      html(token: Tokens.HTML | Tokens.Tag): string {
        return escapeHtml(token.text);
      },
      paragraph(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Paragraph): string {
        const cls = markup.paragraphClass ? ` class="${markup.paragraphClass}"` : '';
        const tag = markup.paragraphTag ?? 'p';
        const [open, close] = markup.paragraphWrapper ?? ['', ''];
        return `${open}<${tag}${cls}>${this.parser.parseInline(token.tokens)}</${tag}>${close}\n`;
      },
    },
  });
  return (markdown) => marked.parse(markdown, { async: false });
}

/**
 * Re-renders `container` from `html` one top-level block at a time, the way a virtual-DOM site updates a streaming
 * reply: unchanged blocks keep their nodes, the changed block is replaced, and nodes the page did not create (an
 * extension's chips) are left where they are.
 */
export function reconcileBlocks(container: Element, html: string, rendered: WeakMap<Node, string>): void {
  const template = container.ownerDocument.createElement('template');
  template.innerHTML = html;
  const fresh = [...template.content.childNodes].filter(
    (node) => !(node.nodeType === Node.TEXT_NODE && (node.textContent ?? '').trim() === ''),
  );
  const current = [...container.childNodes].filter((node) => rendered.has(node));
  const count = Math.max(fresh.length, current.length);
  for (let i = 0; i < count; i += 1) {
    const before = current[i];
    const after = fresh[i];
    if (after === undefined) {
      before?.parentNode?.removeChild(before);
      continue;
    }
    const source = after instanceof Element ? after.outerHTML : (after.textContent ?? '');
    if (before === undefined) {
      container.appendChild(after);
      rendered.set(after, source);
    } else if (rendered.get(before) !== source) {
      before.parentNode?.replaceChild(after, before);
      rendered.set(after, source);
    }
  }
}

/** Splits a reply into tokens of a few characters, cutting after whitespace where it can (like BPE-ish chunks). */
export function splitTokens(text: string, size: number): string[] {
  const tokens: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + size);
    const space = text.slice(at, end).search(/\s(?=\S*$)/);
    if (end < text.length && space > 0) end = at + space + 1;
    tokens.push(text.slice(at, end));
    at = end;
  }
  return tokens;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Conversations persist in localStorage, standing in for the site's backend, so reloads show the same history. */
export function loadConversation<T>(site: string, id: string): T[] | null {
  const raw = localStorage.getItem(`replica:${site}:${id}`);
  return raw === null ? null : (JSON.parse(raw) as T[]);
}

export function storeConversation<T>(site: string, id: string, turns: T[]): void {
  localStorage.setItem(`replica:${site}:${id}`, JSON.stringify(turns));
}
