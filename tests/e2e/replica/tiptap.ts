/**
 * A REAL TipTap editor (`@tiptap/core` + StarterKit) as a replica's composer, the way TipTap sites mount it: Enter
 * sends, Shift+Enter is StarterKit's new paragraph. Claude and Grok use it with their own attributes.
 */
import { Editor, Extension } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import type { Composer } from './shell';

export function mountTipTap(slot: HTMLElement, hooks: { changed(): void; enter(): boolean }, attributes: Record<string, string>): Composer {
  const SendOnEnter = Extension.create({
    name: 'sendOnEnter',
    addKeyboardShortcuts: () => ({ Enter: () => hooks.enter() }),
  });
  const editor = new Editor({
    element: slot,
    extensions: [StarterKit, SendOnEnter],
    editorProps: { attributes: { ...attributes, class: `tiptap ProseMirror ${attributes.class ?? ''}`.trim() } },
    onUpdate: () => hooks.changed(),
  });
  return {
    text: () => editor.getText({ blockSeparator: '\n' }),
    clear: () => {
      editor.commands.clearContent(true);
    },
  };
}
