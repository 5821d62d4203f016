/**
 * A site module says where things are on one chat site's page. Every reader takes the root or document it reads,
 * so tests run them against saved DOM fixtures. Selectors are dated (`// 2026-11: …`) and keep their fallbacks:
 * chat sites roll out new layouts per account, so older layouts stay live for months.
 */

export type MessageRole = 'assistant' | 'user';

export interface SiteMessage {
  el: Element;
  role: MessageRole;
}

/** What a site shows for one code block; `partial` says why the text in the DOM may not be all of it. */
export interface CodeBlockText {
  text: string;
  partial?: string;
}

export interface Site {
  id: string;
  name: string;
  /** Exact host names (no wildcards) the site module serves. */
  hosts: string[];
  /** CSS selector matching one message element (used to map a mutation to its message). */
  messageSelector: string;
  /**
   * Which of nested selector matches is the message. 'innermost': a match holding another match is a wrapper
   * (ChatGPT's turn around its message). 'outermost': a match inside another match is part of that message (sites
   * whose reasoning card or inner rows reuse the message's classes).
   */
  messageNesting: 'innermost' | 'outermost';
  /** The author role of a message element; null for elements that are not messages (wrappers, toolbars). */
  roleOf(msg: Element): MessageRole | null;
  /** Messages in page order, with their author role. */
  messages(root: ParentNode): SiteMessage[];
  /** The assistant's answer without reasoning; null when the message has none (yet). */
  answerRoot(msg: Element): Element | null;
  /** Elements inside the answer root that are never part of the answer (reasoning, buttons, our own chips). */
  skipSelector: string;
  /** Selector of the outermost element of one rendered code block (inside it nothing else is read). */
  codeBlockSelector: string;
  /** The language label of a code block (empty when it has none). */
  codeLanguage(codeEl: Element): string;
  /** The code text of a code block. */
  codeText(codeEl: Element): CodeBlockText;
  editor(doc: Document): HTMLElement | null;
  sendButton(doc: Document): HTMLElement | null;
  /** A send button that exists but cannot be pressed yet (React state still empty, reply streaming). */
  isSendDisabled(button: HTMLElement): boolean;
  /** true/false from the site's own signal; undefined when the site gives none (text stability decides). */
  isGenerating(doc: Document): boolean | undefined;
  /**
   * The control that stops the reply being generated, while it is one (null otherwise — also on sites where it is
   * unknown). A person's trusted click on it marks that reply stopped: it never auto-runs nor auto-submits.
   * Read on clicks only, never per streamed token.
   */
  stopControl(doc: Document): HTMLElement | null;
  conversationId(location: { pathname: string }): string | null;
  /** Stable per message: the site's own id where it has one, else the position among messages. */
  messageKey(msg: Element, position: number): string;
  /** How often auto_coder runtime feedback is sent while programs run (ms). */
  feedbackIntervalMs: number;
}

export type SiteDefinition = Omit<Site, 'messages' | 'messageNesting' | 'stopControl'> &
  Partial<Pick<Site, 'messages' | 'messageNesting' | 'stopControl'>>;

export function defineSite(definition: SiteDefinition): Site {
  if (!/^[a-z][a-z0-9-]*$/.test(definition.id)) {
    throw new Error(`site id "${definition.id}" must be lower-case letters, digits and dashes`);
  }
  const site: Site = {
    ...definition,
    messageNesting: definition.messageNesting ?? 'innermost',
    messages: definition.messages ?? ((root) => messagesBySelector(site, root)),
    stopControl: definition.stopControl ?? (() => null),
  };
  return site;
}

type MessageShape = Pick<Site, 'messageSelector' | 'messageNesting'>;

/** Whether an element matching the message selector is a message (and not a wrapper or a part of one). */
export function isMessageElement(site: MessageShape, el: Element): boolean {
  return site.messageNesting === 'innermost' ? !el.querySelector(site.messageSelector) : !el.parentElement?.closest(site.messageSelector);
}

/**
 * The message an element belongs to, by the site's nesting. For innermost sites this may be a wrapper that holds
 * no message of its own (a change there is no message's change; callers find no record for it).
 */
export function messageElementOf(site: MessageShape, el: Element): Element | null {
  let message = el.closest(site.messageSelector);
  if (site.messageNesting === 'outermost') {
    for (let up = message?.parentElement?.closest(site.messageSelector); up; up = up.parentElement?.closest(site.messageSelector)) message = up;
  }
  return message;
}

/**
 * Message elements in document order, with their author role. One selector query and no walk of any message:
 * matches come in document order, so a match holds another exactly when the next match lies inside it.
 */
export function messagesBySelector(site: MessageShape & Pick<Site, 'roleOf'>, root: ParentNode): SiteMessage[] {
  const all = Array.from(root.querySelectorAll(site.messageSelector));
  const out: SiteMessage[] = [];
  let outer: Element | null = null;
  all.forEach((el, i) => {
    if (site.messageNesting === 'innermost') {
      const next = all[i + 1];
      if (next && el.contains(next)) return;
    } else {
      if (outer?.contains(el)) return;
      outer = el;
    }
    const role = site.roleOf(el);
    if (role) out.push({ el, role });
  });
  return out;
}

// ---------------------------------------------------------------------------------------------- shared readers

/** The text of a highlight.js-style block: `pre > code` when there is one, else the `pre` itself. */
export function preCodeText(codeEl: Element): CodeBlockText {
  const code = codeEl.querySelector('pre code') ?? codeEl.querySelector('code');
  if (code) return { text: plainText(code) };
  const pre = codeEl.matches('pre') ? codeEl : codeEl.querySelector('pre');
  return { text: pre ? plainText(pre) : '' };
}

/** First element matched by any selector, in the order given (newest layout first). */
export function firstMatch<T extends Element = HTMLElement>(root: ParentNode, selectors: string[]): T | null {
  for (const selector of selectors) {
    const found = root.querySelector<T & Element>(selector);
    if (found) return found;
  }
  return null;
}

/** The text of an element as the person sees it line by line: `<br>` and block children become newlines. */
export function plainText(el: Element): string {
  const lineElements = el.querySelectorAll(':scope > .cm-line, :scope > code > .cm-line');
  if (lineElements.length > 0) return Array.from(lineElements, (line) => line.textContent ?? '').join('\n');
  // Highlighted code is thousands of token spans: one textContent read beats walking them when there is no <br>.
  if (!el.querySelector('br')) return el.textContent ?? '';
  let out = '';
  const walk = (node: Node): void => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === 3) out += child.nodeValue ?? '';
      else if (child.nodeType === 1) {
        const tag = (child as Element).tagName;
        if (tag === 'BR') out += '\n';
        else walk(child);
      }
    }
  };
  walk(el);
  return out;
}

const UUID_PATH = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The uuid segment after `prefix` in a path, e.g. `/c/<uuid>`; null when absent or not a uuid-like id. */
export function idAfter(pathname: string, prefix: string): string | null {
  if (!pathname.startsWith(prefix)) return null;
  const segment = pathname.slice(prefix.length).split('/')[0] ?? '';
  if (UUID_PATH.test(segment) || /^[A-Za-z0-9_-]{8,80}$/.test(segment)) return segment;
  return null;
}

export const CHATBRIDGE_HOST_SELECTOR = '[data-chatbridge-chip], [data-chatbridge-indicator]';
