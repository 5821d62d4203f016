import { beforeEach, describe, expect, it } from 'vitest';
import { editorText, insertIntoEditor } from '../../extension/inject/insert';
import { submitEditor } from '../../extension/inject/submit';
import { chatgpt, deepseek } from '../../extension/sites';

const nativeValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!;

/**
 * A textarea controlled the way React controls one: React overrides the instance's `value` property to remember the
 * last value it saw, and on `input` only updates its state when the DOM value differs from that remembered value.
 * So `el.value = x` + input leaves the state empty, while the prototype's setter + input updates it.
 */
function reactTextarea(): { textarea: HTMLTextAreaElement; state: () => string; setState: (v: string) => void; onState: (fn: () => void) => void } {
  const textarea = document.createElement('textarea');
  textarea.id = 'chat-input';
  let tracked = '';
  let state = '';
  const listeners: Array<() => void> = [];
  Object.defineProperty(textarea, 'value', {
    configurable: true,
    get() {
      return nativeValue.get!.call(this);
    },
    set(v: string) {
      tracked = String(v);
      nativeValue.set!.call(this, v);
    },
  });
  textarea.addEventListener('input', () => {
    const actual = nativeValue.get!.call(textarea) as string;
    if (actual === tracked) return;
    tracked = actual;
    state = actual;
    for (const fn of listeners) fn();
  });
  return {
    textarea,
    state: () => state,
    setState: (v) => {
      state = v;
      textarea.value = v;
      for (const fn of listeners) fn();
    },
    onState: (fn) => listeners.push(fn),
  };
}

/** A DeepSeek-like composer: the send control is disabled while React's state is empty. */
function deepseekComposer(options: { clickSends?: boolean; enterSends?: boolean } = {}) {
  const { clickSends = true, enterSends = false } = options;
  const list = document.createElement('div');
  list.className = 'ds-virtual-list-items';
  const composer = document.createElement('div');
  const react = reactTextarea();
  const send = document.createElement('div');
  send.setAttribute('role', 'button');
  const sync = (): void => {
    send.className = `ds-button ds-button--primary ds-button--circle${react.state() === '' ? ' ds-button--disabled' : ''}`;
  };
  sync();
  react.onState(sync);
  const submitted: string[] = [];
  const submit = (): void => {
    if (react.state() === '') return;
    submitted.push(react.state());
    const row = document.createElement('div');
    row.className = 'ds-message';
    const bubble = document.createElement('div');
    bubble.className = 'fbb737a4';
    bubble.textContent = react.state();
    row.append(bubble);
    list.append(row);
    react.setState('');
  };
  send.addEventListener('click', () => {
    if (clickSends && !send.classList.contains('ds-button--disabled')) submit();
  });
  react.textarea.addEventListener('keydown', (e) => {
    if (enterSends && (e as KeyboardEvent).key === 'Enter') submit();
  });
  composer.append(react.textarea, send);
  document.body.replaceChildren(list, composer);
  return { ...react, send, submitted };
}

beforeEach(() => {
  document.body.replaceChildren();
});

describe('insertIntoEditor: React-controlled textarea', () => {
  it('setting .value alone leaves React state empty (the trap this avoids)', () => {
    const { textarea, state } = reactTextarea();
    document.body.append(textarea);
    textarea.value = 'hello';
    textarea.dispatchEvent(new Event('input', { bubbles: true }));
    expect(state()).toBe('');
  });

  it('uses the native setter so React sees the text, line breaks kept', async () => {
    const { textarea, state } = reactTextarea();
    document.body.append(textarea);
    const text = '```mcp-response\n{"jsonrpc":"2.0","id":"call-001","result":{}}\n```';
    const result = await insertIntoEditor(textarea, text);
    expect(result).toEqual({ ok: true, method: 'native-setter' });
    expect(state()).toBe(text);
  });

  it('a result holding CRLF or CR (a Windows file, a program\'s output) goes in: the browser keeps a textarea\'s line breaks as LF', async () => {
    // Chromium: textarea.value = 'a\r\nb\rc' reads back 'a\nb\nc' (the HTML spec's API value normalizes newlines);
    // happy-dom keeps the CRs, so this textarea reads back its value as the browser does
    const textarea = document.createElement('textarea');
    Object.defineProperty(textarea, 'value', {
      configurable: true,
      get() {
        return (nativeValue.get!.call(this) as string).replace(/\r\n?/g, '\n');
      },
      set(v: string) {
        nativeValue.set!.call(this, v);
      },
    });
    document.body.append(textarea);
    const text = '```flycode-result\n[id] call-003\n[tool] shell.exec\n[ok] true\n[truncated] false\n[auditId] a\n[data]\nexit code: 0\nstdout:\nline 1\r\nline 2\r\n```';
    const result = await insertIntoEditor(textarea, text);
    expect(result).toEqual({ ok: true, method: 'native-setter' });
    expect(textarea.value).toBe(text.replace(/\r\n/g, '\n'));
  });

  it('appends after text that is already there instead of replacing it', async () => {
    const { textarea, state, setState } = reactTextarea();
    document.body.append(textarea);
    setState('earlier result');
    await insertIntoEditor(textarea, 'next');
    expect(state()).toBe('earlier result\n\nnext');
  });
});

describe('insertIntoEditor: the person typing elsewhere on the page', () => {
  it.each(['textarea', 'contenteditable'])('a result typed into a %s box leaves the field the person is typing in focused', async (kind) => {
    const other = document.createElement('input');
    other.id = 'rename-chat';
    const box = kind === 'textarea' ? document.createElement('textarea') : Object.assign(document.createElement('div'), { contentEditable: 'true' });
    document.body.replaceChildren(other, box);
    other.focus();
    other.value = 'half a new na';
    const inserted = await insertIntoEditor(box, 'RESULT');
    expect(inserted.ok).toBe(true);
    expect(editorText(box)).toBe('RESULT');
    // Their next key goes where they were typing, not into the chat box under the result.
    expect(document.activeElement).toBe(other);
  });
});

describe('insertIntoEditor: contenteditable', () => {
  it('hands the text to the editor as a paste, which a ProseMirror-like editor parses into paragraphs', async () => {
    const editor = document.createElement('div');
    editor.setAttribute('contenteditable', 'true');
    editor.innerHTML = '<p><br class="ProseMirror-trailingBreak"></p>';
    const pasted: string[] = [];
    editor.addEventListener('paste', (event) => {
      const text = (event as ClipboardEvent).clipboardData?.getData('text/plain') ?? '';
      pasted.push(text);
      event.preventDefault();
      editor.replaceChildren(...text.split('\n').map((line) => Object.assign(document.createElement('p'), { textContent: line })));
    });
    document.body.append(editor);
    const result = await insertIntoEditor(editor, 'line one\nline two');
    expect(result).toEqual({ ok: true, method: 'paste' });
    expect(pasted).toEqual(['line one\nline two']);
    expect(editorText(editor)).toBe('line one\nline two');
  });

  it('a site that turns a long paste into a file attachment (ChatGPT, Claude): a longer text goes in as pastes under its limit, each after the last', async () => {
    const form = document.createElement('form');
    const attachments = document.createElement('div');
    const editor = document.createElement('div');
    editor.setAttribute('contenteditable', 'true');
    const pasted: string[] = [];
    // An editor's model: a paste goes in at the caret, which it leaves after what it put in (here: the end).
    let model = '';
    editor.addEventListener('paste', (event) => {
      const text = (event as ClipboardEvent).clipboardData?.getData('text/plain') ?? '';
      event.preventDefault();
      if (text.length > 100) {
        attachments.append(Object.assign(document.createElement('div'), { textContent: `Pasted text (${text.length} characters)` }));
        return;
      }
      pasted.push(text);
      model += text;
      editor.replaceChildren(...model.split('\n').map((line) => Object.assign(document.createElement('p'), { textContent: line })));
    });
    form.append(attachments, editor);
    document.body.replaceChildren(form);
    const long = `first line\n${'file line\n'.repeat(20)}${'x'.repeat(150)}\nlast line`;
    expect(await insertIntoEditor(editor, long, { pasteMaxChars: 100 })).toEqual({ ok: true, method: 'paste' });
    expect(attachments.children).toHaveLength(0);
    expect(pasted.length).toBeGreaterThan(2);
    expect(pasted.every((piece) => piece.length <= 100)).toBe(true);
    expect(pasted.join('')).toBe(long);
    expect(editorText(editor)).toBe(long);
  });

  it('an editor that stops taking the pastes a long text was cut into keeps what it took, and nothing is typed in twice', async () => {
    const editor = document.createElement('div');
    editor.setAttribute('contenteditable', 'true');
    let model = '';
    let pastes = 0;
    editor.addEventListener('paste', (event) => {
      pastes += 1;
      if (pastes > 2) return;
      event.preventDefault();
      model += (event as ClipboardEvent).clipboardData?.getData('text/plain') ?? '';
      editor.replaceChildren(...model.split('\n').map((line) => Object.assign(document.createElement('p'), { textContent: line })));
    });
    document.body.replaceChildren(editor);
    const long = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    const result = await insertIntoEditor(editor, long, { pasteMaxChars: 100 });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('took 2 of the') });
    expect(editorText(editor)).toBe(model);
    expect(long.startsWith(model)).toBe(true);
  });

  it('an editor whose paste handler puts the text in changed (drops control characters) does not get it typed in a second time', async () => {
    const editor = document.createElement('div');
    editor.setAttribute('contenteditable', 'true');
    let model = 'my own question';
    const draw = (): void => editor.replaceChildren(...model.split('\n').map((line) => Object.assign(document.createElement('p'), { textContent: line })));
    draw();
    editor.addEventListener('paste', (event) => {
      event.preventDefault();
      model += ((event as ClipboardEvent).clipboardData?.getData('text/plain') ?? '').replace(/[\u0000-\u0008\u000b-\u001f]/g, '');
      draw();
    });
    document.body.replaceChildren(editor);
    // a program's colored output, as the companion writes it
    const result = await insertIntoEditor(editor, '\u001b[31mFAILED\u001b[0m 2 tests');
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('not typed in again') });
    expect(editorText(editor)).toBe(model);
    expect(model).toBe('my own question\n\n[31mFAILED[0m 2 tests');
  });

  it('reads the line breaks of a Lexical-like paragraph (<br> between lines) and takes its paste once', async () => {
    const editor = document.createElement('div');
    editor.setAttribute('contenteditable', 'true');
    editor.innerHTML = '<p><br></p>';
    let pastes = 0;
    editor.addEventListener('paste', (event) => {
      pastes += 1;
      const lines = ((event as ClipboardEvent).clipboardData?.getData('text/plain') ?? '').split('\n');
      event.preventDefault();
      const p = document.createElement('p');
      lines.forEach((line, i) => {
        if (i > 0) p.append(document.createElement('br'));
        if (line !== '') p.append(line);
      });
      // Lexical holds a trailing empty line open with one more <br>.
      if (lines.at(-1) === '') p.append(document.createElement('br'));
      editor.replaceChildren(p);
    });
    document.body.append(editor);
    expect(await insertIntoEditor(editor, 'first\n\n  third\n')).toEqual({ ok: true, method: 'paste' });
    expect(pastes).toBe(1);
    expect(editorText(editor)).toBe('first\n\n  third\n');
  });

  it('without a paste handler builds paragraphs from text nodes — markup in the text stays text', async () => {
    const editor = document.createElement('div');
    editor.setAttribute('contenteditable', 'true');
    document.body.append(editor);
    const hostile = 'a <img src=x onerror="alert(1)">\nb';
    const result = await insertIntoEditor(editor, hostile);
    expect(result.ok).toBe(true);
    expect(editor.querySelector('img')).toBeNull();
    expect(editorText(editor)).toBe(hostile);
  });

  it('reads a plain contenteditable box as Chromium types lines into it (the first a text node, each next a <div>), so a multi-line result is known to be in', () => {
    // What `insertText` of 'first\n\n  third\nfourth' makes of an empty box, and of a box holding a draft.
    const editor = document.createElement('div');
    editor.contentEditable = 'true';
    editor.innerHTML = 'first<div><br></div><div>  third</div><div>fourth</div>';
    expect(editorText(editor)).toBe('first\n\n  third\nfourth');
    editor.innerHTML = 'my draft<div><br></div><div>first</div><div>second</div>';
    expect(editorText(editor)).toBe('my draft\n\nfirst\nsecond');
    // A line break right before a block ends its line, as the browser draws it: it makes no empty line.
    editor.innerHTML = 'first<br><div>second</div>';
    expect(editorText(editor)).toBe('first\nsecond');
  });

  it('refuses an element that is not an editor', async () => {
    const div = document.createElement('div');
    expect(await insertIntoEditor(div, 'x')).toMatchObject({ ok: false });
  });
});

describe('submitEditor', () => {
  it('waits for the send control to be enabled, clicks it once, and sees the new user message', async () => {
    const page = deepseekComposer();
    expect(deepseek.isSendDisabled(page.send)).toBe(true);
    await insertIntoEditor(page.textarea, 'result text');
    expect(deepseek.isSendDisabled(page.send)).toBe(false);
    const result = await submitEditor(deepseek, document, page.textarea, { verifyTimeoutMs: 300 });
    expect(result).toEqual({ ok: true, method: 'click' });
    expect(page.submitted).toEqual(['result text']);
  });

  it('falls back to Enter when the click sends nothing', async () => {
    const page = deepseekComposer({ clickSends: false, enterSends: true });
    await insertIntoEditor(page.textarea, 'via enter');
    const result = await submitEditor(deepseek, document, page.textarea, { verifyTimeoutMs: 200 });
    expect(result).toEqual({ ok: true, method: 'enter' });
    expect(page.submitted).toEqual(['via enter']);
  });

  it('reports failure when nothing sends', async () => {
    const page = deepseekComposer({ clickSends: false, enterSends: false });
    await insertIntoEditor(page.textarea, 'stuck');
    const result = await submitEditor(deepseek, document, page.textarea, { verifyTimeoutMs: 100 });
    expect(result.ok).toBe(false);
    expect(page.submitted).toEqual([]);
  });

  it('does not click a send button that never appears (ChatGPT with an empty box), and says so', async () => {
    const form = document.createElement('form');
    form.setAttribute('data-type', 'unified-composer');
    const editor = document.createElement('div');
    editor.id = 'prompt-textarea';
    editor.setAttribute('contenteditable', 'true');
    editor.textContent = 'text';
    form.append(editor);
    document.body.append(form);
    const result = await submitEditor(chatgpt, document, editor, { buttonTimeoutMs: 100, verifyTimeoutMs: 100 });
    expect(result).toMatchObject({ ok: false });
    expect(result.ok ? '' : result.reason).toMatch(/never became available/);
  });
});
