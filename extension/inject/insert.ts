import { t } from '../ui/i18n';
/**
 * Putting text into a chat site's editor the way typing would reach the page's framework (DESIGN §6.3):
 * - React-controlled textarea: the native value setter from HTMLTextAreaElement.prototype (so React's value tracker
 *   sees a change) plus an input event — setting `.value` alone leaves React's state empty;
 * - contenteditable (ProseMirror, Lexical, Quill, Slate): focus, caret at the end, then a paste event carrying the
 *   text (editors parse multi-line text from it), and for editors whose reading of plain text changes it, the text as
 *   their own copy writes it (editorOwnHtml); a text longer than the site takes from a paste (`pasteMaxChars`:
 *   ChatGPT and Claude turn a long paste into a file attachment) goes in as several pastes, each shorter — else
 *   `execCommand('insertText')`, else paragraphs built with DOM nodes for the editor's DOM observer to read. Never
 *   innerHTML: chat text is untrusted.
 * Every path is checked: the editor must end up holding the text.
 */

export type InsertResult = { ok: true; method: string } | { ok: false; reason: string };

export function isTextField(editor: Element): editor is HTMLTextAreaElement | HTMLInputElement {
  return editor.tagName === 'TEXTAREA' || editor.tagName === 'INPUT';
}

/** The editor's text as the person sees it; ProseMirror's placeholder and trailing breaks count as empty. */
export function editorText(editor: Element): string {
  if (isTextField(editor)) return editor.value;
  return linesOf(editor);
}

/** Elements an editor draws as lines of their own: paragraphs, and the headings, lists, quotes and code its markdown makes. */
const BLOCK = new Set(['P', 'DIV', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'UL', 'OL', 'LI', 'BLOCKQUOTE', 'PRE', 'HR', 'TABLE', 'TR']);

/**
 * An element's text, each block in it a line (or lines) of its own: every kind of block, not only paragraphs — a
 * heading, list, quote or code block TipTap made of what the person typed (`# `, `- `, `> `, ` ``` `) is their text
 * too — and the text between blocks its own line, as a browser types a line break into a plain contenteditable box
 * (`first<div>second</div>`).
 */
function linesOf(node: Node): string {
  const lines: string[] = [];
  let run: Node[] = [];
  let hasBlock = false;
  const endRun = (): void => {
    // Markup's own whitespace between blocks (a line break and indentation) is no line of text.
    if (run.length > 0 && !run.every((n) => n.nodeType === 3 && (n.nodeValue ?? '').trim() === '')) {
      lines.push(run.map(textWithBreaks).join(''));
    }
    run = [];
  };
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === 1 && BLOCK.has(child.nodeName)) {
      hasBlock = true;
      endRun();
      lines.push(linesOf(child));
    } else {
      run.push(child);
    }
  }
  if (!hasBlock) return textWithBreaks(node);
  endRun();
  return lines.join('\n');
}

/**
 * A node's text with each `<br>` as a line break (Lexical keeps the lines of one paragraph apart with them); a `<br>`
 * that ends its element, or stands right before a block, only holds an empty or trailing line open, as browsers draw
 * it, and adds nothing.
 */
function textWithBreaks(node: Node): string {
  if (node.nodeType === 3) return node.nodeValue ?? '';
  if (node.nodeName === 'BR') return node.nextSibling === null || BLOCK.has(node.nextSibling.nodeName) ? '' : '\n';
  let text = '';
  for (const child of Array.from(node.childNodes)) text += textWithBreaks(child);
  return text;
}

export function isEditorEmpty(editor: Element): boolean {
  return editorText(editor).trim() === '';
}

/** Text with the whitespace editors add or fold (non-breaking spaces, paragraph breaks, trailing newlines) made one space. */
function squashSpace(text: string): string {
  return text.replace(/\u00a0/g, ' ').replace(/\s+/g, ' ').trim();
}

/** The editor holds the text (and maybe more), modulo the whitespace editors add or fold. */
export function holdsText(editor: Element, text: string): boolean {
  const want = squashSpace(text);
  return want === '' || squashSpace(editorText(editor)).includes(want);
}

/** The editor holds exactly the text and nothing else, modulo the whitespace editors add or fold. */
export function holdsOnly(editor: Element, text: string): boolean {
  return squashSpace(editorText(editor)) === squashSpace(text);
}

export async function insertIntoEditor(editor: HTMLElement, raw: string, options: { pasteMaxChars?: number | undefined } = {}): Promise<InsertResult> {
  // A browser keeps a textarea's line breaks as LF (the value of 'a\r\nb' reads back 'a\nb'), and editors split
  // lines on LF: a result holding CRLF (a Windows file, a program's output) goes in with LF line breaks.
  const text = lineBreaksAsLf(raw);
  // The box is focused to type into it (an editor reads the caret only while it has focus); a field elsewhere on the
  // page the person is typing in (a search, a chat's new name) gets its focus back after, or their next keys would go
  // into the chat box under the result.
  const typingIn = fieldTypedIn(editor);
  try {
    if (isTextField(editor)) return insertIntoTextField(editor, text);
    if (editor.isContentEditable || editor.getAttribute('contenteditable') === 'true' || editor.getAttribute('contenteditable') === '') {
      return await insertIntoContentEditable(editor, text, options.pasteMaxChars);
    }
    return { ok: false, reason: t('reason.insertNotEditable', [editor.tagName.toLowerCase()]) };
  } finally {
    if (typingIn?.isConnected) typingIn.focus({ preventScroll: true });
  }
}

/**
 * Empties the chat box the way the person's select-all and delete would reach the page's framework (the native setter
 * and an input event for a text field; a delete of the whole selection for an editor), the focus given back to where it
 * was. Whether the box is empty after.
 */
export function clearEditor(editor: HTMLElement): boolean {
  const doc = editor.ownerDocument;
  const view = doc.defaultView;
  const focused = doc.activeElement as HTMLElement | null;
  try {
    if (isTextField(editor)) {
      const proto = editor.tagName === 'TEXTAREA' ? view?.HTMLTextAreaElement.prototype : view?.HTMLInputElement.prototype;
      const setter = proto ? Object.getOwnPropertyDescriptor(proto, 'value')?.set : undefined;
      if (setter) setter.call(editor, '');
      else editor.value = '';
      editor.dispatchEvent(new (view?.Event ?? Event)('input', { bubbles: true }));
      editor.dispatchEvent(new (view?.Event ?? Event)('change', { bubbles: true }));
      return editor.value === '';
    }
    editor.focus({ preventScroll: true });
    const selection = view?.getSelection();
    if (selection) {
      const range = doc.createRange();
      range.selectNodeContents(editor);
      selection.removeAllRanges();
      selection.addRange(range);
    }
    const execCommand = (doc as Document & { execCommand?: (c: string, u: boolean, v?: string) => boolean }).execCommand;
    try {
      if (typeof execCommand === 'function') execCommand.call(doc, 'delete', false);
    } catch {
      // not supported here
    }
    return isEditorEmpty(editor);
  } finally {
    if (focused && focused !== doc.activeElement && focused.isConnected) focused.focus({ preventScroll: true });
  }
}

/** The text field or editable element outside the chat box that has the focus, if any. */
function fieldTypedIn(editor: HTMLElement): HTMLElement | null {
  const active = editor.ownerDocument.activeElement as HTMLElement | null;
  if (!active || active === editor || editor.contains(active) || active.contains(editor)) return null;
  return isTextField(active) || active.isContentEditable ? active : null;
}

function insertIntoTextField(field: HTMLTextAreaElement | HTMLInputElement, text: string): InsertResult {
  const view = field.ownerDocument.defaultView;
  const proto = field.tagName === 'TEXTAREA' ? view?.HTMLTextAreaElement.prototype : view?.HTMLInputElement.prototype;
  const setter = proto ? Object.getOwnPropertyDescriptor(proto, 'value')?.set : undefined;
  const next = appendTo(field.value, text);
  // The chat box sits in view on every chat site; scrolling to it would only force a layout of the whole chat.
  field.focus({ preventScroll: true });
  if (setter) setter.call(field, next);
  else field.value = next;
  field.dispatchEvent(new (view?.Event ?? Event)('input', { bubbles: true }));
  field.dispatchEvent(new (view?.Event ?? Event)('change', { bubbles: true }));
  if (field.value !== next) return { ok: false, reason: t('reason.insertReset') };
  return { ok: true, method: 'native-setter' };
}

async function insertIntoContentEditable(editor: HTMLElement, text: string, pasteMaxChars = Number.POSITIVE_INFINITY): Promise<InsertResult> {
  const doc = editor.ownerDocument;
  const view = doc.defaultView;
  const before = editorText(editor);
  const toInsert = before.trim() === '' ? text : `\n\n${text}`;
  editor.focus({ preventScroll: true });
  caretToEnd(editor);

  // Paste: the editor's own handler parses the text into its model, line breaks included. A text longer than the site
  // takes from one paste goes in as pastes that are each shorter, one after the other at the caret the last one left:
  // typed in with insertText instead, a 60 KB result held the page still for half a minute in Chromium (every line
  // break splits a paragraph of the whole editor), and a 250 KB one for many minutes.
  if (view && typeof view.DataTransfer === 'function') {
    let taken = 0;
    const pieces = pastePieces(toInsert, pasteMaxChars);
    try {
      for (const piece of pieces) {
        const data = new view.DataTransfer();
        data.setData('text/plain', piece);
        const html = editorOwnHtml(editor, piece);
        if (html !== null) data.setData('text/html', html);
        const paste = new view.ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true });
        editor.dispatchEvent(paste);
        if (!paste.defaultPrevented) break;
        taken += 1;
      }
    } catch {
      // fall through to the next way
    }
    if (taken === pieces.length && (await settled(editor, text))) return { ok: true, method: 'paste' };
    // Part of the text went in and the editor took no more: typing all of it now would put that part in twice.
    if (taken > 0 && taken < pieces.length) return { ok: false, reason: t('reason.insertPartial', [taken, pieces.length]) };
    // The editor took the text and put it in changed (a paste handler that drops characters it does not keep): typing
    // all of it now would put it there a second time, next to the changed copy.
    if (taken > 0 && editorText(editor) !== before) return { ok: false, reason: t('reason.insertChanged') };
    // The editor took every paste and the box shows none of it: the site made the text something else (a paste longer
    // than it takes as text becomes a file attachment, at a length the module may not know) — typed in now, the result
    // would be there twice, and a long one typed line by line holds the page still for minutes.
    if (taken > 0) return { ok: false, reason: t('reason.insertTakenAway') };
  }

  caretToEnd(editor);
  const execCommand = (doc as Document & { execCommand?: (c: string, u: boolean, v: string) => boolean }).execCommand;
  if (typeof execCommand === 'function') {
    try {
      if (execCommand.call(doc, 'insertText', false, toInsert) && (await settled(editor, text))) return { ok: true, method: 'insertText' };
    } catch {
      // not supported here
    }
  }

  // Last resort: paragraphs made of DOM nodes, which ProseMirror-like editors read back through their DOM observer.
  if (before.trim() === '') editor.replaceChildren();
  for (const line of text.split('\n')) {
    const p = doc.createElement('p');
    if (line === '') p.appendChild(doc.createElement('br'));
    else p.appendChild(doc.createTextNode(line));
    editor.appendChild(p);
  }
  editor.dispatchEvent(new (view?.InputEvent ?? Event)('input', { bubbles: true, inputType: 'insertText' } as InputEventInit));
  if (await settled(editor, text)) return { ok: true, method: 'dom-paragraphs' };
  return { ok: false, reason: t('reason.insertRefused') };
}

/**
 * The text as the editor itself writes copied plain text to the clipboard's HTML, for the editors whose reading of a
 * text/plain paste changes the text; null for the others (Quill, plain-text Lexical, any other), which take text/plain
 * as it is. Built with DOM nodes and read back as markup: chat text stays text.
 * - ProseMirror (its view's element has the class `ProseMirror`: ChatGPT, TipTap on Claude and Grok): its plain-text
 *   parser splits lines on runs of line breaks, so blank lines are lost, and TipTap then runs its paste rules over the
 *   text (` __init__`, `**bold**`, `` `x` ``, `~~y~~` lose their marks' characters). Its own copy of a run of
 *   paragraphs — one `<p>` per line, the first marked as a slice open at both ends — is pasted as written:
 *   whitespace kept, an empty line an empty paragraph, no paste rules.
 * - Lexical (`data-lexical-editor`): a rich-text editor makes each pasted line a paragraph, and its text (what
 *   Perplexity sends) puts a blank line between paragraphs, so every line break doubles. Its own copy — text in a
 *   `white-space: pre-wrap` span — becomes the lines of one paragraph with line breaks, as Shift+Enter types them.
 */
function editorOwnHtml(editor: HTMLElement, text: string): string | null {
  const doc = editor.ownerDocument;
  const holder = doc.createElement('div');
  if (editor.classList.contains('ProseMirror')) {
    text.split('\n').forEach((line, index) => {
      const paragraph = doc.createElement('p');
      if (index === 0) paragraph.setAttribute('data-pm-slice', '1 1 []');
      paragraph.textContent = line;
      holder.append(paragraph);
    });
  } else if (editor.getAttribute('data-lexical-editor') === 'true') {
    const span = doc.createElement('span');
    span.style.whiteSpace = 'pre-wrap';
    span.textContent = text;
    holder.append(span);
  } else {
    return null;
  }
  return holder.innerHTML;
}

/**
 * The text cut into pieces of at most `max` characters, each (after the first) starting at a line break where the
 * window holds one; never between the two halves of a character outside the BMP (an emoji).
 */
function pastePieces(text: string, max: number): string[] {
  if (!(max >= 2) || text.length <= max) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    let end = text.lastIndexOf('\n', start + max);
    if (end <= start) {
      end = start + max;
      const code = text.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    }
    pieces.push(text.slice(start, end));
    start = end;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** Editors apply DOM changes on the next microtask or frame; give them a moment before checking. */
async function settled(editor: HTMLElement, text: string): Promise<boolean> {
  for (let i = 0; i < 5; i++) {
    if (holdsText(editor, text)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return holdsText(editor, text);
}

/**
 * The caret at the end of the editor, and the editor told so. ProseMirror and Lexical keep a selection of their own
 * and take a new DOM selection from the document's `selectionchange` event, which the browser sends a task later: a
 * paste right after would land where the person's caret was — at the start of their draft, its text then glued to
 * the result's last line. The event is sent at once, so the editor reads the caret before anything is typed.
 */
function caretToEnd(editor: HTMLElement): void {
  const doc = editor.ownerDocument;
  const selection = doc.getSelection?.();
  if (!selection) return;
  const range = doc.createRange();
  range.selectNodeContents(editor);
  range.collapse(false);
  selection.removeAllRanges();
  selection.addRange(range);
  doc.dispatchEvent(new (doc.defaultView?.Event ?? Event)('selectionchange'));
}

/** CRLF and lone CR as LF, as a textarea holds them. */
export function lineBreaksAsLf(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

function appendTo(existing: string, text: string): string {
  return existing.trim() === '' ? text : `${existing.replace(/\s+$/, '')}\n\n${text}`;
}
