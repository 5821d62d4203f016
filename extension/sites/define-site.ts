import { t } from '../ui/i18n';

/**
 * A site module says where things are on one chat site's page. Every reader takes the root or document it reads,
 * so tests run them against saved DOM fixtures. Selectors are dated (`// 2026-11: …`) and keep their fallbacks:
 * chat sites roll out new layouts per account, so older layouts stay live for months.
 */

export type MessageRole = 'assistant' | 'user';

/**
 * The kind of chat box a site has, which decides how text is put into it and how a submit is verified. Each family
 * has a replica page built on the real editor library (tests/e2e/replica); a site's fixtures plus its family's
 * replica are its proof. 'unknown' is the generic adapter's: it takes whatever box it finds.
 */
export const EDITOR_FAMILIES = [
  'prosemirror',
  'tiptap',
  'quill',
  'lexical',
  'react-textarea',
  'vue-textarea',
  'textarea',
  'contenteditable',
  'unknown',
] as const;
export type EditorFamily = (typeof EDITOR_FAMILIES)[number];

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
  /**
   * Match patterns of the pages the content script runs on: by default every page of the hosts. A site that lives
   * under one path of a larger host (HuggingChat under huggingface.co/chat) narrows it.
   */
  matches: string[];
  /** The chat box's family (see EDITOR_FAMILIES). */
  editorFamily: EditorFamily;
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
  /**
   * A part of the message the module reads as answer but cannot place, which may be reasoning under names a redesign
   * gave it (a second markdown body in a wrapper of its own): its first words, and then none of the reply's blocks
   * runs by itself. null when every part read is placed. Unset: the labelled reasoning sections of every site are
   * looked for anyway (scanner/reasoning.ts).
   */
  unplacedRegion?(msg: Element): string | null;
  /**
   * The answers of the candidate replies the site shows in this message while it asks the person which one to keep (an
   * A/B comparison), in page order; null when it asks nothing. None of them is the reply yet, and none of their blocks
   * runs by itself; the one the person picks is (answerRoot then reads it), the others never run. Unset where the module
   * does not know how the site draws such a choice: there no message is taken for one.
   */
  pendingChoice?(msg: Element): Element[] | null;
  /** Selector of the outermost element of one rendered code block (inside it nothing else is read). */
  codeBlockSelector: string;
  /** The language label of a code block (empty when it has none). */
  codeLanguage(codeEl: Element): string;
  /**
   * Asked of a code block codeLanguage read no label on: true where the page may have hidden the label the model wrote
   * (Gemini draws "Code snippet" for an unknown fence tag, HuggingChat draws no language at all), so a block written
   * ```` ```mcp-request ```` may be this one. Its call is then offered with Run, never run by itself
   * (shared/protocols/json-fence.ts HIDDEN_LABEL). Unset: the page shows the labels it was given.
   */
  labelHidden?(codeEl: Element): boolean;
  /** The code text of a code block. */
  codeText(codeEl: Element): CodeBlockText;
  editor(doc: Document): HTMLElement | null;
  sendButton(doc: Document): HTMLElement | null;
  /** A send button that exists but cannot be pressed yet (React state still empty, reply streaming). */
  isSendDisabled(button: HTMLElement): boolean;
  /**
   * true where the module knows that what sendButton finds is the send control itself and is disabled or gone while the
   * composer holds nothing to send (DeepSeek's capture): enabled with the chat box empty while nothing is written, it
   * sends something else the person put there, a file attached to their next message, and a result waits for it.
   * false (the default) where that is not known: a module whose fallback finds another control in the send slot when
   * the box is empty (Gemini's microphone, in the send button's container) would take it for an attached file and hold
   * every result; there a result is sent as before.
   */
  sendOffWhenEmpty: boolean;
  /**
   * What the person put into the composer for their next message besides the chat box's text (a file, an image, a
   * "pasted text" card), whatever the box holds: the first one found, or null. Looked for inside the composer only — a
   * file shown in a message above is no draft. Unset where the module does not know how the site draws one: there the
   * send control with the box empty (sendOffWhenEmpty) is the only tell, and with text in the box nothing is.
   */
  composerAttachment?(doc: Document): Element | null;
  /** true/false from the site's own signal; undefined when the site gives none (text stability decides). */
  isGenerating(doc: Document): boolean | undefined;
  /**
   * The control that stops the reply being generated, while it is one (null otherwise — also on sites where it is
   * unknown). A person's trusted click on it marks that reply stopped: it never auto-runs nor auto-submits.
   * Read on clicks only, never per streamed token.
   */
  stopControl(doc: Document): HTMLElement | null;
  /** The conversation the page shows; `href` for sites that keep it in the query (OpenRouter's `?room=`). */
  conversationId(location: { pathname: string; href?: string }): string | null;
  /** Stable per message: the site's own id where it has one, else the position among messages. */
  messageKey(msg: Element, position: number): string;
  /** How often auto_coder runtime feedback is sent while programs run (ms). */
  feedbackIntervalMs: number;
  /**
   * The longest text the site's editor takes from a paste as text: past it the site turns a paste into a file
   * attachment ("Pasted text"), so longer text goes in as several shorter pastes (inject/insert.ts). Unset: any length.
   */
  pasteMaxChars?: number;
}

export type SiteDefinition = Omit<Site, 'messages' | 'messageNesting' | 'stopControl' | 'matches' | 'sendOffWhenEmpty'> &
  Partial<Pick<Site, 'messages' | 'messageNesting' | 'stopControl' | 'matches' | 'sendOffWhenEmpty'>>;

export function defineSite(definition: SiteDefinition): Site {
  if (!/^[a-z][a-z0-9-]*$/.test(definition.id)) {
    throw new Error(`site id "${definition.id}" must be lower-case letters, digits and dashes`);
  }
  for (const host of definition.hosts) {
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(host)) throw new Error(`site "${definition.id}": host "${host}" must be a plain host name`);
  }
  if (!EDITOR_FAMILIES.includes(definition.editorFamily)) {
    throw new Error(`site "${definition.id}": editor family "${definition.editorFamily}" must be one of ${EDITOR_FAMILIES.join(', ')}`);
  }
  const site: Site = {
    ...definition,
    matches: definition.matches ?? definition.hosts.map((host) => `https://${host}/*`),
    messageNesting: definition.messageNesting ?? 'innermost',
    messages: definition.messages ?? ((root) => messagesBySelector(site, root)),
    stopControl: definition.stopControl ?? (() => null),
    sendOffWhenEmpty: definition.sendOffWhenEmpty ?? false,
    // A box inside a message is that message's edit box, never the chat box: when a redesign renames the composer,
    // a module's broad fallback (`textarea`, `form textarea`) finds the edit box of an earlier message first, and a
    // result typed there is lost (or the person's edit is taken for a draft and the result waits for nothing). Then
    // the module finds no chat box, which the doctor names and the clipboard covers. So is a box the page does not
    // show (display: none, visibility: hidden): ChatGPT keeps a hidden textarea of the composer's name, which a redrawn
    // composer leaves a module's fallback to find, and a result typed there is one the person never sees, sent by no
    // send. The generic adapter's message selector is a guess (`*message*` classes) that may hold the chat box itself:
    // it keeps the box it finds.
    editor:
      definition.hosts.length === 0
        ? definition.editor
        : (doc) => {
            const editor = definition.editor.call(site, doc);
            if (!editor || editor.closest(site.messageSelector)) return null;
            return isShown(editor) ? editor : null;
          },
  };
  return site;
}

/**
 * Whether the page shows `el`: not in a subtree it keeps out of the layout (display: none, the hidden attribute) or
 * hides (visibility: hidden). Where the browser cannot tell (no checkVisibility), it is taken as shown.
 */
export function isShown(el: Element): boolean {
  return el.checkVisibility?.({ visibilityProperty: true }) !== false;
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

/**
 * What the person put into the composer for their next message (`selector`: how the site draws an attached file, an
 * image, a pasted-text card), looked for in the composer only: the first of `scopes` (nearest first) that holds the
 * chat box, never in a message (a file the person sent earlier is drawn the same way in their message above). null
 * when there is no chat box or nothing is found.
 */
export function attachmentInComposer(site: Pick<Site, 'editor' | 'messageSelector'>, doc: Document, scopes: string[], selector: string): Element | null {
  const editor = site.editor(doc);
  if (!editor) return null;
  for (const scope of scopes) {
    const composer = editor.closest(scope);
    if (!composer) continue;
    return Array.from(composer.querySelectorAll(selector)).find((found) => !found.closest(site.messageSelector)) ?? null;
  }
  return null;
}

/** First element matched by any selector, in the order given (newest layout first). */
export function firstMatch<T extends Element = HTMLElement>(root: ParentNode, selectors: string[]): T | null {
  for (const selector of selectors) {
    const found = root.querySelector<T & Element>(selector);
    if (found) return found;
  }
  return null;
}

/**
 * Elements a highlighter draws one code line in. Shiki and rehype-pretty-code (`span.line`, `[data-line]`),
 * prism-react-renderer (`.token-line`), remark/rehype-prism (`.code-line`), react-syntax-highlighter with wrapped lines
 * (`span` styled `display: block`), highlight.js's line-number plugin (a `tr` per line), CodeMirror (`.cm-line`) and
 * Ace (`.ace_line`). Some keep the line break as text between or inside them, some draw it by layout only.
 */
const LINE_ELEMENT = '.line, [data-line], .token-line, .code-line, span[style*="display: block"], span[style*="display:block"], .hljs-ln tr, .cm-line, .ace_line';
/**
 * Line-number gutters drawn inside the code element, which are not code: react-syntax-highlighter's `showLineNumbers`
 * (`span.linenumber`, number as text), Prism's line-numbers plugin (`.line-numbers-rows`), highlight.js's
 * line-number plugin (`td.hljs-ln-numbers`) and the generic `.line-number` class. Numbers drawn by CSS (counters,
 * `::before`, `data-line-number`) are no text and need nothing.
 */
const LINE_NUMBER = '.linenumber, .react-syntax-highlighter-line-number, .line-numbers-rows, .hljs-ln-numbers, .line-number';
const BREAKS_OR_NUMBERS = `br, ${LINE_NUMBER}`;
const BREAKS_LINES_OR_NUMBERS = `br, ${LINE_ELEMENT}, ${LINE_NUMBER}`;

/**
 * The text of an element as the person sees it line by line: `<br>` and line elements (LINE_ELEMENT) become line
 * breaks where the page has none as text, and line-number gutters are left out. No-break spaces are read as the spaces
 * they stand for where the page draws lines with `<br>` outside a `pre`'s whitespace (such renderers write runs of
 * spaces as U+00A0; Qwen's Monaco, which does too, is read by its own reader). In a `pre` or a CodeMirror view, where
 * spaces are drawn as they are, a U+00A0 is one the model wrote (French punctuation, a copied table): it stays, so a
 * file written from the block gets it, and a call holding one where JSON wants a space fails as written.
 */
export function plainText(el: Element): string {
  const lineElements = el.querySelectorAll(':scope > .cm-line, :scope > code > .cm-line');
  if (lineElements.length > 0) return Array.from(lineElements, (line) => line.textContent ?? '').join('\n');
  // Highlighted code is thousands of token spans: one textContent read beats walking them when nothing needs it. Text
  // that already breaks its lines needs the walk only for a `<br>` or a line-number gutter; line elements matter (and
  // are looked for, a longer and slower selector) only when it has no line break at all.
  const whole = el.textContent ?? '';
  const spaced = (text: string): string => (text.includes('\u00a0') && drawsSpacesAsNoBreak(el) ? text.replace(/\u00a0/g, ' ') : text);
  const needsWalk = whole.includes('\n') ? BREAKS_OR_NUMBERS : BREAKS_LINES_OR_NUMBERS;
  if (!el.querySelector(needsWalk)) return spaced(whole);
  let out = '';
  // A line element ended without a line break of its own: the next line starts with one, unless the page has it as text.
  let pendingBreak = false;
  const walk = (node: Node, inLine: boolean): void => {
    const children = Array.from(node.childNodes);
    children.forEach((child, index) => {
      if (child.nodeType === 3) {
        const text = child.nodeValue ?? '';
        if (pendingBreak && text !== '' && !text.startsWith('\n')) out += '\n';
        if (text !== '') pendingBreak = false;
        out += text;
        return;
      }
      if (child.nodeType !== 1) return;
      const element = child as Element;
      if (element.matches(LINE_NUMBER)) return;
      if (element.tagName === 'BR') {
        // The last <br> of a line is the placeholder editors put in an empty line, not a second break.
        if (inLine && index === children.length - 1) return;
        out += '\n';
        pendingBreak = false;
        return;
      }
      if (!element.matches(LINE_ELEMENT)) {
        walk(element, inLine);
        return;
      }
      if (pendingBreak) out += '\n';
      pendingBreak = false;
      const start = out.length;
      walk(element, true);
      pendingBreak = !(out.length > start && out.endsWith('\n'));
    });
  };
  walk(el, false);
  return spaced(out);
}

/**
 * Elements whose whitespace the page keeps as written: a `pre`, a CodeMirror view, and an element styled so with
 * Tailwind's classes (ChatGPT's 2026-10 code block is a bare `code.whitespace-pre!`).
 */
const KEEPS_WHITESPACE = 'pre, .cm-content, .whitespace-pre, .whitespace-pre-wrap, [class~="whitespace-pre!"], [class~="!whitespace-pre"]';

/**
 * Whether the page may have drawn the spaces of `el`'s text as U+00A0: its lines are not in an element that keeps
 * whitespace as written (KEEPS_WHITESPACE), or are broken by `<br>` (lines laid out as HTML, not as preformatted text).
 */
function drawsSpacesAsNoBreak(el: Element): boolean {
  return el.closest(KEEPS_WHITESPACE) === null || el.querySelector('br') !== null;
}

/**
 * A message's key on a site without message ids, or where a message has none yet: its position among the messages in
 * the page. A virtual list that mounts other rows shifts it, and another tab may number the same message otherwise.
 */
export function positionKey(position: number): string {
  return `p:${position}`;
}

export function isPositionKey(messageKey: string): boolean {
  return messageKey.startsWith('p:');
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

/** The language of a `language-xxx` class on the element or the first descendant carrying one; '' when none. */
export function languageClassOf(el: Element): string {
  const classed = el.matches('[class*="language-"]') ? el : el.querySelector('[class*="language-"]');
  return classed?.className.match(/(?:^|\s)language-(\S+)/)?.[1] ?? '';
}

/** A button that says it cannot be pressed: the `disabled` property or `aria-disabled="true"`. */
export function isButtonDisabled(button: HTMLElement): boolean {
  return (button as HTMLButtonElement).disabled === true || button.getAttribute('aria-disabled') === 'true';
}

/** Elements (in document order) without those nested in an earlier one. */
export function outermost(elements: Element[]): Element[] {
  const out: Element[] = [];
  for (const el of elements) if (!out.some((kept) => kept.contains(el))) out.push(el);
  return out;
}

/** The nearest element holding all of `elements`, never above `limit` (the one element itself when alone). */
export function commonAncestor(elements: Element[], limit: Element): Element {
  if (elements.length === 1) return elements[0]!;
  let common: Element | null = elements[0]?.parentElement ?? limit;
  while (common && common !== limit && !elements.every((el) => common!.contains(el))) common = common.parentElement;
  return common ?? limit;
}

/**
 * The first word of the first text under `root` that is not inside an element `exclude` names, `root` included (a code
 * block's header label). What holds `root` says nothing of its label: a modal menu or dialog (Radix UI's, on ChatGPT
 * and Claude) marks the whole conversation aria-hidden while it is open.
 */
export function firstWordOutside(root: Element, exclude: string): string {
  const walker = root.ownerDocument.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  const excluded = (el: Element): boolean => {
    for (let up: Element | null = el; up; up = up === root ? null : up.parentElement) if (up.matches(exclude)) return true;
    return false;
  };
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || excluded(parent)) continue;
    const text = (node.nodeValue ?? '').trim();
    if (text) return text.split(/\s+/)[0] ?? '';
  }
  return '';
}

const LABEL_WORD = /^[A-Za-z][\w+#.-]{0,39}$/;
const NOT_LABEL = 'button, [role="button"], [aria-hidden="true"], .sr-only, [class*="copy" i], svg';

/**
 * The language of a `pre` whose site shows it in a header beside the block rather than on it: a `language-` class
 * first, then a `data-language` attribute, then the first word of the element just before the `pre` (or before its
 * wrapper), when that word looks like a language name. For sites whose code block markup is not documented.
 */
export function languageNearPre(codeEl: Element): string {
  const classed = languageClassOf(codeEl);
  if (classed) return classed;
  const attributed = codeEl.closest('[data-language]') ?? codeEl.querySelector('[data-language]');
  const attribute = attributed?.getAttribute('data-language')?.trim();
  if (attribute) return attribute;
  for (let el: Element | null = codeEl, depth = 0; el && depth < 2; el = el.parentElement, depth++) {
    const header = el.previousElementSibling;
    // A header is short; a paragraph or heading of prose before the block is not one ("### Usage" above a block a page
    // draws with no label made it a block labelled Usage), nor is the code block before it (short code in a wrapper with
    // its own label), whose label would make this block, drawn with none, a call of that kind.
    if (!header || header.matches('pre, p, ul, ol, table, blockquote, h1, h2, h3, h4, h5, h6, hr') || (header.textContent ?? '').trim().length > 60) continue;
    if (header.querySelector('pre, .cm-content, .monaco-editor')) continue;
    const word = firstWordOutside(header, NOT_LABEL);
    if (LABEL_WORD.test(word)) return word;
  }
  return '';
}

/**
 * The first word of the language label a site draws with a code block (`selector`: the label's documented element),
 * read in the `pre` (outside its code) or in the nearest of its ancestors, `depth` levels up at most, that holds one;
 * an ancestor holding another code block is past the block's own wrapper, and its labels are other blocks'. For sites
 * whose label is known but whose wrapper's depth varies between builds; '' when none is found.
 */
export function labelInBlock(pre: Element, selector: string, depth = 4): string {
  for (let el: Element | null = pre, up = 0; el && up <= depth; el = el.parentElement, up++) {
    if (el !== pre && el.querySelectorAll('pre').length > 1) return '';
    const label = Array.from(el.querySelectorAll(selector)).find((found) => !found.closest('code'));
    if (label) return label.textContent?.trim().split(/\s+/)[0] ?? '';
  }
  return '';
}

/**
 * The text of a CodeMirror 6 view (`.cm-content` > `.cm-line`), marked partial when CodeMirror left lines out of the
 * page: a `.cm-gap` spacer, a gap widget inside an overlong line, or a line-number gutter counting more lines than
 * are rendered. null when `codeEl` holds no CodeMirror view.
 */
export function codeMirrorText(codeEl: Element): CodeBlockText | null {
  const content = codeEl.querySelector('.cm-content');
  if (!content) return null;
  const text = plainText(content);
  if (codeEl.querySelector('.cm-gap')) return { text, partial: t('reason.viewerGap') };
  // @codemirror/view before 6.23.0 (2023-12) drew the same spacer without the class: an empty div sized to the lines it
  // stands for, beside the lines in .cm-content. The lines drawn near the top of a long block then read as all of it.
  const spacer = Array.from(content.children).find((child) => child.tagName === 'DIV' && !child.classList.contains('cm-line') && /height/.test(child.getAttribute('style') ?? '') && (child.textContent ?? '') === '');
  if (spacer) return { text, partial: t('reason.viewerSpacer') };
  // What CodeMirror draws in place of text, looked for in one pass over the view (a page scan reads every block):
  // - a line longer than a few thousand characters (a one-line JSON call writing a file) is drawn only near the
  //   viewport too: CodeMirror replaces the rest of the line with an empty, non-editable inline div sized to it
  //   (LineGapWidget in @codemirror/view; SITES.md "Text that may not all be in the DOM"); no line holds a div otherwise;
  // - highlightSpecialChars (in CodeMirror's basic and minimal setups) shows control and invisible characters
  //   (zero-width space, soft hyphen, direction marks, BOM…) as a placeholder span ("•", "␀");
  // - a folded range (the fold gutter is in CodeMirror's basic setup, which Z.ai's viewer uses) is one "…" placeholder
  //   span in place of its lines.
  const stand = content.querySelector(':scope > * div[contenteditable="false"], .cm-specialChar, .cm-foldPlaceholder');
  if (stand) {
    const why = stand.matches('.cm-specialChar') ? 'reason.viewerSpecialChar' : stand.matches('.cm-foldPlaceholder') ? 'reason.viewerFolded' : 'reason.viewerLongLine';
    return { text, partial: t(why) };
  }
  const lines = content.querySelectorAll('.cm-line').length;
  // CodeMirror's lineNumbers() keeps a hidden spacer in the gutter holding the widest number of the document's digits
  // (9, 99, …) to size it: it numbers no line.
  const numbered = Array.from(codeEl.querySelectorAll<HTMLElement>('.cm-lineNumbers .cm-gutterElement')).filter((g) => g.style?.visibility !== 'hidden');
  const numbers = numbered.map((g) => Number(g.textContent));
  const last = Math.max(0, ...numbers.filter((n) => Number.isFinite(n)));
  if (lines > 0 && last > lines) return { text, partial: t('reason.viewerShows', [lines, last]) };
  return { text };
}
