import { parse } from 'diff2html/lib/diff-parser';
import { ColorSchemeType, type DiffFile } from 'diff2html/lib/types';
import { Diff2HtmlUI } from 'diff2html/lib/ui/js/diff2html-ui-slim';
import 'diff2html/bundles/css/diff2html.min.css';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { t, tn, type MessageKey } from './i18n';
import { diffNotesWorded } from './preview-words';

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

/** A line inside a hunk as diff2html draws it: a change, a context line or the no-newline note. */
const CONTENT = /^[-+ \\]/;

/**
 * The diff cut where diff2html draws a change and where it draws nothing: the files with hunks, and the text it would
 * leave out — a file with no hunk (too large or too different to diff here, with the reason: diff2html showed it as
 * "File without changes"), a note after a file's hunks (that the diff was cut), an MCP tool's arguments. A file
 * begins where diff2html begins one: `--- `, then `+++ `, then a hunk or anything not inside one; the `Index:` and
 * `====` lines before it, which diff2html skips and which say nothing its header does not, are left out.
 */
export function diffParts(diff: string): Array<{ drawn: boolean; text: string }> {
  const lines = diff.split('\n');
  const header = (at: number): boolean =>
    (lines[at] ?? '').startsWith('--- ') && (lines[at + 1] ?? '').startsWith('+++ ') && ((lines[at + 2] ?? '').startsWith('@@') || !CONTENT.test(lines[at + 2] ?? ''));
  const parts: Array<{ drawn: boolean; lines: string[] }> = [];
  const add = (drawn: boolean, added: string[]): void => {
    const last = parts.at(-1);
    if (last?.drawn === drawn) last.lines.push(...added);
    else parts.push({ drawn, lines: [...added] });
  };
  let file: string[] | undefined;
  let hunks = false;
  const endFile = (): void => {
    if (file) add(hunks, file);
    file = undefined;
    hunks = false;
  };
  for (let at = 0; at < lines.length; at += 1) {
    const line = lines[at]!;
    if (header(at)) {
      endFile();
      file = [line, lines[at + 1]!];
      at += 1;
    } else if (/^=+$/.test(line) && header(at + 1)) {
      continue;
    } else if (line.startsWith('Index: ') && /^=+$/.test(lines[at + 1] ?? '') && header(at + 2)) {
      continue;
    } else if (file && (line.startsWith('@@') || (hunks && CONTENT.test(line)))) {
      hunks = true;
      file.push(line);
    } else {
      // a line diff2html would not draw: the file before it keeps its place, the line is shown as text after it
      endFile();
      add(false, [line]);
    }
  }
  endFile();
  return parts.map((part) => ({ drawn: part.drawn, text: part.lines.join('\n') })).filter((part) => part.text.trim() !== '');
}

/**
 * How many lines of a card's diff diff2html draws. Each drawn line is a table row the browser lays out with the rest:
 * a new file of 5 000 lines (the 200 000 characters a card holds) held the side panel, and the popup with it (one
 * process), for 7 to 12 seconds before Approve or Deny answered; 500 lines take about one (2026-11, headless Chromium
 * on two busy cores).
 */
export const DRAWN_DIFF_LINES = 500;

/**
 * The parts of a diff as they are shown: up to `limit` lines of it drawn by diff2html, and the lines it would draw
 * after those as plain text, none of them left out: `rest` is how many there are, from the part at `restAt` on. A
 * drawn part is cut after a line of a hunk, so what is drawn is a diff diff2html reads whole.
 */
export function shownParts(diff: string, limit = DRAWN_DIFF_LINES): { parts: Array<{ drawn: boolean; text: string }>; rest: number; restAt: number } {
  const parts: Array<{ drawn: boolean; text: string }> = [];
  let left = limit;
  let rest = 0;
  let restAt = -1;
  const asText = (lines: string[]): void => {
    if (restAt === -1) restAt = parts.length;
    rest += lines.length;
    parts.push({ drawn: false, text: lines.join('\n') });
  };
  for (const part of diffParts(diff)) {
    const lines = part.text.split('\n');
    if (!part.drawn) parts.push(part);
    else if (left === 0) asText(lines);
    else {
      let hunk = false;
      let cut = lines.length;
      for (let at = 0; at < lines.length && cut === lines.length; at += 1) {
        const line = lines[at]!;
        if (line.startsWith('@@')) hunk = true;
        else if (line.startsWith('--- ') && (lines[at + 1] ?? '').startsWith('+++ ')) hunk = false;
        else if (hunk && CONTENT.test(line) && --left === 0) cut = at + 1;
      }
      parts.push({ drawn: true, text: lines.slice(0, cut).join('\n') });
      if (cut < lines.length) asText(lines.slice(cut));
    }
  }
  return { parts, rest, restAt };
}

/**
 * `label`: what the box holds, for a screen reader (an MCP tool's arguments are no changes); the changes by default.
 * `drawnLines`: how many of its lines diff2html draws (DRAWN_DIFF_LINES; a test draws fewer, as a page's DOM in tests
 * is slow to build). `toolArguments`: the text is an MCP server tool's arguments, shown exactly as they are sent.
 */
export function DiffView(props: { diff: string; label?: string; drawnLines?: number; toolArguments?: boolean }) {
  const { diff, label = t('panel.diff'), drawnLines = DRAWN_DIFF_LINES } = props;
  // Text with no change in it for diff2html to draw (an MCP server tool's arguments, a file too large to diff here
  // and why, a note that the diff was cut) is shown where it stands: diff2html drew nothing of it. The companion's
  // notes in it are worded in the person's language; arguments are shown as they are.
  const { parts, rest, restAt } = useMemo(() => shownParts(diff, drawnLines), [diff, drawnLines]);
  const text = (part: string): string => (props.toolArguments ? part : diffNotesWorded(part));
  if (!parts.some((part) => part.drawn)) {
    return (
      <pre class="diff" data-diff="text" tabIndex={0} role="region" aria-label={label}>
        {text(diff)}
      </pre>
    );
  }
  return (
    <div class="diff" data-diff="" tabIndex={0} role="region" aria-label={label}>
      {parts.map((part, at) => (
        <>
          {/* past the lines drawn, the rest of a long diff is plain text, and is said to be */}
          {at === restAt && (
            <p class="muted" data-diff-rest="">
              {tn('diff.plainRest', rest)}
            </p>
          )}
          {part.drawn ? <DrawnDiff diff={part.text} /> : <pre data-diff="text">{text(part.text)}</pre>}
        </>
      ))}
    </div>
  );
}

function DrawnDiff({ diff }: { diff: string }) {
  const target = useRef<HTMLDivElement>(null);
  const files = useMemo(() => diffFiles(diff), [diff]);
  useEffect(() => {
    if (!target.current) return;
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
  }, [files]);
  return <div ref={target} />;
}
