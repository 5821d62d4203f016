/**
 * Results typed into the real editor libraries of the chat sites' composers (happy-dom): TipTap with StarterKit
 * (Claude, Grok), ProseMirror with its default clipboard (ChatGPT's kind), Lexical plain text (Kimi) and rich text
 * (Perplexity), Quill (Gemini). What the site sends is the editor's state, read here the way the replicas' submit
 * handlers read it: it must be the companion's text exactly, whatever a tool returned — markdown-looking lines, runs
 * of blank lines, indentation, odd characters — and a result appended to the person's draft goes after it, wherever
 * their caret was.
 */
import { $createParagraphNode, $createTextNode, $getRoot, createEditor } from 'lexical';
import type { LexicalEditor } from 'lexical';
import { registerPlainText } from '@lexical/plain-text';
import { registerRichText } from '@lexical/rich-text';
import { Editor } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import { baseKeymap } from 'prosemirror-commands';
import { keymap } from 'prosemirror-keymap';
import { schema } from 'prosemirror-schema-basic';
import { EditorState, TextSelection } from 'prosemirror-state';
import { EditorView } from 'prosemirror-view';
import Quill from 'quill';
import { afterEach, describe, expect, it } from 'vitest';
import { editorText, holdsOnly, insertIntoEditor, isEditorEmpty } from '../../extension/inject/insert';
import { t } from '../../extension/ui/i18n';

interface Mounted {
  element: HTMLElement;
  /** What the site would send: the editor's state as text. */
  text(): string;
  /** The person's draft in the box, which they are in with their caret at its start. */
  draft(text: string): void;
  destroy(): void;
}

function slot(): HTMLElement {
  const element = document.createElement('div');
  document.body.append(element);
  return element;
}

/** `attachments`: a site that turns a paste longer than 4,000 characters into a file attachment (Claude's card). */
function tiptap(attachments?: string[]): Mounted {
  const holder = slot();
  const editor = new Editor({
    element: holder,
    extensions: [StarterKit],
    editorProps: {
      handlePaste: (_view, event) => {
        const text = event.clipboardData?.getData('text/plain') ?? '';
        if (attachments === undefined || text.length <= 4_000) return false;
        attachments.push(text);
        return true;
      },
    },
  });
  return {
    element: holder.querySelector<HTMLElement>('.ProseMirror')!,
    text: () => editor.getText({ blockSeparator: '\n' }),
    draft: (text) => {
      editor.commands.setContent({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] });
      editor.commands.setTextSelection(1);
    },
    destroy: () => {
      editor.destroy();
      holder.remove();
    },
  };
}

function proseMirror(): Mounted {
  const holder = slot();
  const view = new EditorView(holder, { state: EditorState.create({ schema, plugins: [keymap(baseKeymap)] }) });
  return {
    element: view.dom,
    text: () => view.state.doc.textBetween(0, view.state.doc.content.size, '\n'),
    draft: (text) => {
      const doc = schema.node('doc', null, [schema.node('paragraph', null, [schema.text(text)])]);
      view.updateState(EditorState.create({ schema, doc, plugins: view.state.plugins, selection: TextSelection.create(doc, 1) }));
    },
    destroy: () => {
      view.destroy();
      holder.remove();
    },
  };
}

function lexical(register: (editor: LexicalEditor) => () => void): () => Mounted {
  return () => {
    const root = slot();
    root.contentEditable = 'true';
    const editor = createEditor({
      namespace: 'composer',
      onError: (error) => {
        throw error;
      },
    });
    editor.setRootElement(root);
    const unregister = register(editor);
    return {
      element: root,
      text: () => editor.getEditorState().read(() => $getRoot().getTextContent()),
      draft: (text) =>
        editor.update(
          () => {
            const paragraph = $createParagraphNode();
            const node = $createTextNode(text);
            paragraph.append(node);
            $getRoot().clear().append(paragraph);
            node.select(0, 0);
          },
          { discrete: true },
        ),
      destroy: () => {
        unregister();
        editor.setRootElement(null);
        root.remove();
      },
    };
  };
}

function quill(): Mounted {
  const holder = slot();
  const editor = new Quill(holder, {});
  return {
    element: holder.querySelector<HTMLElement>('.ql-editor')!,
    // Quill's document always ends in a line break of its own.
    text: () => editor.getText().replace(/\n$/, ''),
    draft: (text) => {
      editor.setText(text);
      editor.setSelection(0, 0);
    },
    destroy: () => holder.remove(),
  };
}

const EDITORS: Array<[string, () => Mounted]> = [
  ['TipTap StarterKit (Claude, Grok)', tiptap],
  ['ProseMirror, default clipboard', proseMirror],
  ['Lexical plain text (Kimi)', lexical(registerPlainText)],
  ['Lexical rich text (Perplexity)', lexical(registerRichText)],
  ['Quill (Gemini)', quill],
];

/** What real tools return, as the companion writes it into the chat. */
const RESULTS: Array<[string, string]> = [
  ['a README read with fs.read', '```flycode-result\n[id] call-001\n[data]\n# Title\n\n- item\n* star\n1. one\n> quote\n\n---\n\n**bold**, `code`, [x](y), ~~gone~~, *it*, _it_ and https://example.com\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nconst x = 1;\n```\n```'],
  ['Python', 'class Point:\n    def __init__(self, **kwargs):\n        self.__dict__.update(kwargs)\n\n\n    def norm(self):\n        return (self.x ** 2 + self.y ** 2) ** 0.5'],
  ['an mcp-response on one line', '```mcp-response\n{"jsonrpc":"2.0","id":"call-1","result":{"content":[{"type":"text","text":"def __init__(self):\\n    **kw** `x`"}]}}\n```'],
  ['a Makefile and trailing spaces', 'all:\n\tcc -o a a.c   \n\n\n\nclean:\n\trm -f a\n'],
  ['only whitespace', '   \n\t\n'],
  ['characters', 'emoji 😀🧪 e\u0301 a\u200bb \u202eevil\u202c nb\u00a0sp <b>&amp;</b> & < \u0007 \u001b[31mred\u001b[0m'],
];

describe('a result typed into each editor family is what the site sends', () => {
  let mounted: Mounted | undefined;
  afterEach(() => {
    mounted?.destroy();
    mounted = undefined;
  });

  for (const [family, mount] of EDITORS) {
    for (const [what, result] of RESULTS) {
      it(`${family}: ${what}, exactly`, async () => {
        mounted = mount();
        const inserted = await insertIntoEditor(mounted.element, result);
        expect(inserted).toEqual({ ok: true, method: 'paste' });
        expect(mounted.text()).toBe(result);
      });
    }

    it(`${family}: a result far longer than a paste the site takes as text goes in as pastes it does, exactly`, async () => {
      const attachments: string[] = [];
      mounted = mount === tiptap ? tiptap(attachments) : mount();
      // A README of 17 KB: headings, lists, blank lines, a line of 9,000 characters, an emoji astride a piece's end.
      const line = (i: number): string => [`# part ${i}`, '', `- item **${i}** \`code\``, `    indented ${i}`, ''][i % 5] ?? '';
      const result = `${Array.from({ length: 500 }, (_, i) => line(i)).join('\n')}\n${'w'.repeat(3_998)}😀${'v'.repeat(5_000)}\nend`;
      expect(await insertIntoEditor(mounted.element, result, { pasteMaxChars: 4_000 })).toEqual({ ok: true, method: 'paste' });
      expect(attachments).toEqual([]);
      expect(mounted.text()).toBe(result);
    });

    if (mount === tiptap) {
      it(`${family}: a paste the site made a file attachment of, at a length the module does not know, is not typed in again`, async () => {
        const attachments: string[] = [];
        mounted = tiptap(attachments);
        const result = `${'a line of the result\n'.repeat(250)}end`;
        // No pasteMaxChars: the site's limit is unknown (a site not known to do it, or one that lowered its limit).
        expect(await insertIntoEditor(mounted.element, result)).toEqual({ ok: false, reason: t('reason.insertTakenAway') });
        expect(attachments).toEqual([result]);
        expect(mounted.text()).toBe('');
      });
    }

    it(`${family}: a result appended to the person's draft goes after it, with their caret at its start`, async () => {
      mounted = mount();
      mounted.element.focus();
      mounted.draft('my own question');
      const result = 'first\n\n  indented';
      expect(await insertIntoEditor(mounted.element, result)).toEqual({ ok: true, method: 'paste' });
      expect(mounted.text()).toBe(`my own question\n\n${result}`);
    });
  }
});

describe('what the person wrote that TipTap made into a heading, list, quote or code block is their text', () => {
  let editor: Editor | undefined;
  let holder: HTMLElement | undefined;
  afterEach(() => {
    editor?.destroy();
    holder?.remove();
    editor = holder = undefined;
  });

  /** TipTap (Claude, Grok) holding what its markdown shortcuts made of the person's typing: `# `, `- `, `> `, ```` ``` ````. */
  function tiptapHolding(html: string): HTMLElement {
    holder = slot();
    editor = new Editor({ element: holder, extensions: [StarterKit], content: html });
    return holder.querySelector<HTMLElement>('.ProseMirror')!;
  }

  it('a draft of a heading and an empty line under it (Shift+Enter) is a draft, not an empty box', () => {
    const box = tiptapHolding('<h1>Plan</h1><p></p>');
    expect(isEditorEmpty(box)).toBe(false);
    expect(editorText(box)).toBe('Plan\n');
  });

  it.each([
    ['a list', '<ul><li><p>also check the logs</p></li></ul>', 'also check the logs'],
    ['a quote', '<blockquote><p>as you said</p></blockquote>', 'as you said'],
    ['a code block', '<pre><code>npm test</code></pre>', 'npm test'],
    ['a heading', '<h2>Next</h2>', 'Next'],
  ])('%s the person added under the result waiting in the box: the box no longer holds only the result', (_what, added, addedText) => {
    const box = tiptapHolding(`<p>RESULT line one</p><p>line two</p>${added}`);
    expect(holdsOnly(box, 'RESULT line one\nline two')).toBe(false);
    expect(editorText(box)).toBe(`RESULT line one\nline two\n${addedText}`);
  });
});
