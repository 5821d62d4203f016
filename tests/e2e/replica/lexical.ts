/**
 * A REAL Lexical editor as a replica's composer, mounted on `root` the way Lexical sites do: Enter sends, Shift+Enter
 * is the editor's own line break. `register` is the editor's text behaviour (`registerPlainText` on Kimi,
 * `registerRichText` on Perplexity).
 */
import { $createParagraphNode, $getRoot, COMMAND_PRIORITY_HIGH, KEY_ENTER_COMMAND, createEditor } from 'lexical';
import type { LexicalEditor } from 'lexical';
import type { Composer } from './shell';

export function mountLexical(
  root: HTMLElement,
  hooks: { changed(): void; enter(): boolean },
  namespace: string,
  register: (editor: LexicalEditor) => () => void,
): Composer {
  const editor = createEditor({
    namespace,
    onError: (error) => {
      throw error;
    },
  });
  editor.setRootElement(root);
  register(editor);
  editor.registerUpdateListener(() => hooks.changed());
  editor.registerCommand<KeyboardEvent | null>(
    KEY_ENTER_COMMAND,
    (event) => {
      if (event?.shiftKey) return false;
      event?.preventDefault();
      hooks.enter();
      return true;
    },
    COMMAND_PRIORITY_HIGH,
  );
  return {
    text: () => editor.getEditorState().read(() => $getRoot().getTextContent()),
    clear: () =>
      editor.update(
        () => {
          const rootNode = $getRoot();
          rootNode.clear();
          rootNode.append($createParagraphNode());
        },
        { discrete: true },
      ),
  };
}
