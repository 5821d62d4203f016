import { parse } from 'diff2html/lib/diff-parser';
import { ColorSchemeType, type DiffFile } from 'diff2html/lib/types';
import { Diff2HtmlUI } from 'diff2html/lib/ui/js/diff2html-ui-slim';
import 'diff2html/bundles/css/diff2html.min.css';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { t, type MessageKey } from './i18n';

/**
 * A unified diff drawn by diff2html: one block per file, added and removed lines coloured, the code itself coloured
 * by highlight.js for the file's language. diff2html escapes every line, so file contents never become markup.
 * Long lines wrap (styles.css), and the box scrolls from the keyboard too: it is a named stop of its own.
 */
const TAGS: ReadonlyArray<[string, MessageKey]> = [
  ['d2h-added-tag', 'diff.added'],
  ['d2h-changed-tag', 'diff.changed'],
  ['d2h-deleted-tag', 'diff.deleted'],
  ['d2h-moved-tag', 'diff.renamed'],
];

/**
 * The files of a unified diff; one from /dev/null is new and one to /dev/null deleted. diff2html knows that only from a
 * git header, so a plain diff's created file (fs.write, a plan's create) was tagged renamed: its two names differ.
 */
function diffFiles(diff: string): DiffFile[] {
  const devNull = (name: string): boolean => name === '/dev/null' || name === 'dev/null';
  return parse(diff).map((file) =>
    devNull(file.oldName) ? { ...file, isNew: true } : devNull(file.newName) ? { ...file, isDeleted: true } : file,
  );
}

export function DiffView({ diff }: { diff: string }) {
  const target = useRef<HTMLDivElement>(null);
  const files = useMemo(() => diffFiles(diff), [diff]);
  // Text with no change in it for diff2html to draw (an MCP server tool's arguments, a file too large to diff here
  // and why) is shown as it is: diff2html drew nothing of it, and the card showed no arguments at all.
  const drawn = files.some((file) => file.blocks.length > 0);
  useEffect(() => {
    if (!target.current || !drawn) return;
    const ui = new Diff2HtmlUI(target.current, files, {
      outputFormat: 'line-by-line',
      drawFileList: false,
      matching: 'none',
      highlight: true,
      fileContentToggle: false,
      stickyFileHeaders: false,
      synchronisedScroll: false,
      colorScheme: ColorSchemeType.AUTO,
    });
    ui.draw();
    // diff2html writes its file tags in English; they are said in the person's language
    for (const [tag, key] of TAGS) for (const el of target.current.querySelectorAll(`.${tag}`)) el.textContent = t(key);
    ui.highlightCode();
  }, [files, drawn]);
  if (!drawn) {
    return (
      <pre class="diff" data-diff="text" tabIndex={0} role="region" aria-label={t('panel.diff')}>
        {diff}
      </pre>
    );
  }
  return <div class="diff" ref={target} data-diff="" tabIndex={0} role="region" aria-label={t('panel.diff')} />;
}
