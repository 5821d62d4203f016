import type { AxonPayload, Block } from './types';
import { scanFences, type Fence } from './markdown';
import { defineProtocol } from './define-protocol';
import { HIDDEN_LABEL, NO_LABELS } from './json-fence';

/**
 * Axon statements (seed 003, DESIGN §3.4): a fence labelled `act` names the act (its content, trimmed); the
 * fences after it are its positional parameters — their labels are only labels, text between fences is
 * ignored. One Block per statement, so a reply cut mid-stream never shows a complete statement that differs
 * from the final one; the companion merges a reply's statements into one all-or-nothing plan.
 *
 * - Complete when the act has all its parameters (ARITY) as closed fences; fences beyond that are not part
 *   of it. `raw` runs from the act fence to the end of the last parameter fence.
 * - An `end` fence or the next `act` fence before that: complete with an error naming the missing
 *   parameters. Its `raw` runs to the end of that terminating fence's label (`~~~~~end`), because that is
 *   what makes the statement complete: re-parsing `raw` alone must give the same block. (For a following
 *   `act` this overlaps the next statement's first line.)
 * - An unknown act: complete as soon as its act fence closes, `raw` = the act fence, error naming the acts.
 * - Otherwise incomplete, running to the end of the text.
 *
 * `args` are the parameter fences' contents exactly as written: everything between the opening and the
 * closing fence line, including the final line ending (write_file keeps the file's final newline; CRLF stays
 * CRLF). The act-specific rules are the executor's: `replace` strips exactly one trailing newline from old
 * and new, `check_files_exist` reads one path per line, `check_cwd_match` trims its path.
 */

/**
 * A line of an act fence's content that is itself an act fence's opening line. A prose mention of the act fence at
 * the start of a line (`~~~~~act 块写动作名…`, or a line `~~~~~act` in the middle of an explanation) opens a fence
 * by CommonMark — the page shows a code block there too — and that fence runs on to the real act fence's closing
 * line, swallowing the real act fence's opening line and its act name (issue 10 §3). The act is then what follows
 * the last such line; the statement still starts at the mention, so its raw text re-parses the same way, from the
 * page's markdown and in the companion.
 */
const SWALLOWED_ACT_LINE = /^ {0,3}(?:`{3,}|~{3,})[ \t]*act[ \t]*\r?$/gim;

/** The act fence's content, without swallowed act lines and without zero-width spaces, word joiners or BOMs (an act is a keyword). */
function actNameOf(content: string): string {
  let after = -1;
  for (const match of content.matchAll(SWALLOWED_ACT_LINE)) after = match.index + match[0].length;
  return (after === -1 ? content : content.slice(after)).replace(/[\u200B\u2060\uFEFF]/g, '').trim();
}

export const AXON_ARITY = {
  check_files_exist: ['file_list'],
  check_cwd_match: ['expected_path'],
  write_file: ['path', 'content'],
  replace: ['path', 'old_string', 'new_string'],
} as const satisfies Record<string, readonly string[]>;

export type AxonAct = keyof typeof AXON_ARITY;

const SUPPORTED = Object.keys(AXON_ARITY).join(', ');

function parametersOf(act: string): readonly string[] | undefined {
  return Object.hasOwn(AXON_ARITY, act) ? AXON_ARITY[act as AxonAct] : undefined;
}

/** A parameter's last line that is a fence run with words after it: `~~~~~ 完成`. */
const CLOSING_WITH_WORDS = /(?:^|\n) {0,3}(`{3,}|~{3,})([ \t]*)([^`~\s][^\n]*?)\r?\n?$/;

/** A language label written right after the fence run (```` ```bash ````): the opening line of a code block. */
const LANGUAGE_LABEL = /^[A-Za-z][\w+#.-]*$/;

/**
 * A closing fence with words after it on its line (`~~~~~ 完成`) is no closing fence to markdown: the page shows the
 * line as the parameter's last line, and the act would write it into the file. What the model meant is plain, but
 * a file may end in such a line too, so the statement is refused, saying why; undefined when no parameter ends so.
 * A run that could not close the parameter's block even alone (another character, or shorter), with a language label
 * right after it (```` ```bash ```` in the seed's ~~~~~ blocks), opens a code block of the file's own text — a replace
 * of a README's heading up to its code block — and is no closing fence. The
 * advice names the line that does close the parameter's block: a fence of another character, or a shorter one,
 * does not close it even alone.
 */
function strayClosingLine(act: string, parameters: readonly string[], args: readonly Fence[]): string | undefined {
  for (const [index, fence] of args.entries()) {
    const line = CLOSING_WITH_WORDS.exec(fence.content);
    if (line === null) continue;
    const run = line[1] as string;
    const couldClose = run[0] === fence.char && run.length >= fence.size;
    if (!couldClose && (line[2] as string) === '' && LANGUAGE_LABEL.test((line[3] as string).trimEnd())) continue;
    const written = line[0].replace(/^\n/, '').trimEnd();
    const closing = fence.char.repeat(fence.size);
    return (
      `${act} parameter ${index + 1} (${parameters[index]}) ends with the line ${JSON.stringify(written)}: a closing fence with ` +
      `words after it, which markdown does not take as the end of the block; close the block with a line of ${closing} ` +
      `alone (as it was opened) and put the words after it`
    );
  }
  return undefined;
}

/** The quote that closes each quote a path may be wrapped in. */
const CLOSING_QUOTE: Record<string, string> = { '"': '"', "'": "'", '`': '`', '\u201c': '\u201d', '\u2018': '\u2019' };

/** A label before the path on its line: `path: a.txt`, `路径：a.txt`. */
const PATH_LABEL = /^(?:path|file|file ?name|路径|文件|文件名)[ \t]*[:：]/i;

/**
 * A path parameter written with more than the path: in quotes or backticks (`` `src/a.py` ``, `"src/a.py"`), or after a
 * label (`path: src/a.py`). The act would take them for part of the file's name and write `` `src/a.py` `` beside the
 * file meant, so the statement is refused, saying why; undefined when the path stands alone.
 */
function pathNotAlone(act: string, parameters: readonly string[], args: readonly Fence[]): string | undefined {
  const index = parameters.indexOf('path');
  const written = index === -1 ? undefined : args[index]?.content.trim();
  if (written === undefined || written.length < 2) return undefined;
  const closing = CLOSING_QUOTE[written[0] as string];
  const wrapped = closing !== undefined && written.endsWith(closing);
  if (!wrapped && !PATH_LABEL.test(written)) return undefined;
  const what = wrapped ? 'is written in quotes or backticks' : 'has a label before it';
  return (
    `${act} parameter ${index + 1} (path) ${what}: ${JSON.stringify(written)}; the block holds the path alone, ` +
    `and the act would take the rest for part of the file's name: write only the path`
  );
}

/**
 * A write_file content that ends inside a code block of its own (a README's ```` ```bash ```` with no closing line after
 * it): the file's code block was written with a fence no longer than the parameter's, so its closing line closed the
 * parameter's block instead (as the page shows it too), and the act would write the file cut there, the rest of it left
 * outside the statement as text. A whole file seldom ends inside a code block, so the statement is refused, saying why;
 * undefined when the content closes every code block it opens. (A replace's old and new text are parts of a file, which
 * may well open a code block and not close it.)
 */
function contentCutByFence(act: string, parameters: readonly string[], args: readonly Fence[]): string | undefined {
  const index = parameters.indexOf('content');
  const content = index === -1 ? undefined : args[index]?.content;
  if (content === undefined) return undefined;
  const inner = scanFences(content).at(-1);
  if (inner === undefined || inner.closed) return undefined;
  const opening = content.slice(inner.start, inner.contentStart).trim();
  const number = content.slice(0, inner.start).split('\n').length;
  // the seed's five tildes hold a file's backtick blocks; a tilde block needs a longer run than its own
  const longer = '~'.repeat(inner.char === '~' ? Math.max(5, inner.size + 1) : 5);
  return (
    `${act} parameter ${index + 1} (content) ends inside the code block it opens on its line ${number} ` +
    `(${JSON.stringify(opening)}): that code block's closing line closed the parameter's block instead, so the file ` +
    `would be written cut there and the rest of it is outside the statement; open the parameter's block with a fence ` +
    `longer than any inside it (${longer})`
  );
}

/**
 * Labels a model writes for `act` from memory (`~~~~~action`, `~~~~~acts`): the seed's executor reads no statement
 * there, and neither did this parser, so a plan labelled so did nothing and nobody was told. Such a fence holding an
 * act of the list alone opens a statement that never runs: its error says the label to write, and the companion
 * answers it so (the plan as written is plain, but the seed names only `act`, and a model told so writes it next time).
 */
const MISNAMED_ACT_LABELS: ReadonlySet<string> = new Set(['action', 'actions', 'acts']);

/** The act a fence labelled as MISNAMED_ACT_LABELS holds alone, when it is one of the list. */
function misnamedAct(fence: Fence): string | undefined {
  if (!MISNAMED_ACT_LABELS.has(fence.label)) return undefined;
  const act = actNameOf(fence.content);
  return parametersOf(act) === undefined ? undefined : act;
}

function misnamedError(fence: Fence, markdown: string): string {
  const opening = markdown.slice(fence.start, fence.labelEnd).trim();
  const written = `${fence.char.repeat(fence.size)}act`;
  return `the act block is labelled ${JSON.stringify(fence.label)} (${JSON.stringify(opening)}): a statement is read only from a block labelled act, so nothing in this plan ran; open the act block with ${written}`;
}

/**
 * The act a fence names: an `act` fence's content, a misnamed act fence's (misnamedAct), or, in a fence with no label (NO_LABELS), an act of the list after a
 * first line `act` (```` ~~~~~ ```` on one line, `act` on the next, then `write_file`: how some models write the label,
 * as they do an mcp-request's). Anything else in such a fence is its text (undefined).
 */
function actOf(fence: Fence): string | undefined {
  if (fence.label === 'act') return actNameOf(fence.content);
  if (MISNAMED_ACT_LABELS.has(fence.label)) return misnamedAct(fence);
  if (!NO_LABEL.has(fence.label)) return undefined;
  const hidden = hiddenAct(fence);
  if (hidden !== undefined) return hidden;
  const lineEnd = fence.content.indexOf('\n');
  if (lineEnd === -1 || fence.content.slice(0, lineEnd).replace(/[\u200B\u2060\uFEFF]/g, '').trim().toLowerCase() !== 'act') return undefined;
  const act = actNameOf(fence.content.slice(lineEnd + 1));
  return parametersOf(act) === undefined ? undefined : act;
}

const NO_LABEL: ReadonlySet<string> = new Set(NO_LABELS);

/**
 * The act of the list a fence whose page hid its label holds alone (json-fence.ts HIDDEN_LABEL: HuggingChat draws no
 * language, Gemini "Code snippet" for a tag it does not know): the `~~~~~act` fence as such a page shows it. Its label
 * may as well have been none, so the statement it opens is offered with Run and never runs by itself (Block.labelHidden),
 * and only once its parameters have all come or the next act cuts it short: a finished reply naming an act in a code
 * block is no statement still being written.
 */
function hiddenAct(fence: Fence): string | undefined {
  if (fence.label !== HIDDEN_LABEL) return undefined;
  const act = fence.content.replace(/[\u200B\u2060\uFEFF]/g, '').trim();
  return parametersOf(act) === undefined ? undefined : act;
}

/**
 * Where a statement cut short by `terminator` ends: the end of what makes it a terminator, so that its raw text re-parsed
 * alone ends the same way — the label (`~~~~~end`), or the act's name after a first line `act`, a misnamed label or none.
 */
function terminatorEnd(markdown: string, terminator: Fence): number {
  if (terminator.label === 'end' || terminator.label === 'act') return terminator.labelEnd;
  const actLine = hiddenAct(terminator) !== undefined || misnamedAct(terminator) !== undefined ? terminator.contentStart : markdown.indexOf('\n', terminator.contentStart) + 1;
  const lineEnd = markdown.indexOf('\n', actLine);
  return Math.min(lineEnd === -1 ? markdown.length : lineEnd, terminator.contentEnd);
}

function isTerminator(fence: Fence): boolean {
  return fence.label === 'end' || actOf(fence) !== undefined;
}

export const axon = defineProtocol({
  kind: 'axon',
  // A statement starts with an `act` fence; the fences after it are its parameters.
  // 'act' may stand alone on the first line of a fence with no label (actOf)
  hints: { labels: ['act', ...MISNAMED_ACT_LABELS], markers: [], weak: { labels: NO_LABELS, anyOf: ['act'] } },
  find(markdown, fences) {
    const blocks: Block[] = [];
    const statement = (start: number, end: number, complete: boolean): Block => ({
      kind: 'axon',
      complete,
      raw: markdown.slice(start, end),
      start,
      end,
    });
    let i = 0;
    while (i < fences.length) {
      const actFence = fences[i] as Fence;
      const act = actOf(actFence);
      if (act === undefined) {
        i++;
        continue;
      }
      const hidden = hiddenAct(actFence) !== undefined;
      const misnamed = misnamedAct(actFence) !== undefined ? misnamedError(actFence, markdown) : undefined;
      if (!actFence.closed) {
        if (hidden) break;
        blocks.push(statement(actFence.start, markdown.length, false));
        break;
      }
      const parameters = parametersOf(act);
      if (parameters === undefined) {
        const block = statement(actFence.start, actFence.end, true);
        block.payload = { acts: [{ act, args: [] }] } satisfies AxonPayload;
        block.error =
          act === ''
            ? `the act block names no act; supported acts: ${SUPPORTED}`
            : `unknown act ${JSON.stringify(act)}; supported acts: ${SUPPORTED}`;
        blocks.push(block);
        i++;
        continue;
      }
      const args: Fence[] = [];
      let j = i + 1;
      let terminator: Fence | undefined;
      while (args.length < parameters.length && j < fences.length) {
        const fence = fences[j] as Fence;
        if (isTerminator(fence)) {
          terminator = fence;
          break;
        }
        args.push(fence);
        j++;
      }
      const lastArg = args[args.length - 1];
      if (hidden && (args.length < parameters.length ? terminator === undefined : lastArg?.closed !== true)) {
        i++;
        continue;
      }
      if (lastArg !== undefined && !lastArg.closed) {
        blocks.push(statement(actFence.start, markdown.length, false));
        break;
      }
      const payload: AxonPayload = { acts: [{ act, args: args.map((fence) => fence.content) }] };
      if (args.length === parameters.length) {
        const block = statement(actFence.start, (lastArg ?? actFence).end, true);
        if (hidden) block.labelHidden = true;
        const stray =
          strayClosingLine(act, parameters, args) ?? pathNotAlone(act, parameters, args) ?? contentCutByFence(act, parameters, args);
        // no payload: the companion refuses the whole plan, as the act would write the fence line and the words, a
        // file whose name holds the path's quotes or label, or a file cut where its own code block closed the parameter;
        // nor for a misnamed act block, whose plan the seed's executor does not read
        const refused = misnamed ?? stray;
        if (refused === undefined) block.payload = payload;
        else block.error = refused;
        blocks.push(block);
        i = j;
        continue;
      }
      if (terminator === undefined) {
        blocks.push(statement(actFence.start, markdown.length, false));
        break;
      }
      const block = statement(actFence.start, terminatorEnd(markdown, terminator), true);
      if (hidden) block.labelHidden = true;
      if (misnamed !== undefined) {
        block.error = misnamed;
        blocks.push(block);
        i = terminator.label === 'end' ? j + 1 : j;
        continue;
      }
      block.payload = payload;
      block.error = `${act} needs ${parameters.length} parameter${parameters.length === 1 ? '' : 's'} (${parameters.join(', ')}), got ${args.length}`;
      blocks.push(block);
      // A terminating `act` starts the next statement; an `end` fence is consumed here.
      i = terminator.label === 'end' ? j + 1 : j;
    }
    return blocks;
  },
});
