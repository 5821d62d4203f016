/**
 * What a person approves is what they read in the card, so nothing in it may be invisible or read differently
 * from what runs. A bidirectional override (U+202E) shows the text after it reversed — a diff can look like
 * harmless code while the file compiles to something else ("Trojan Source", CVE-2021-42574), and a command can
 * show its dangerous part as gibberish; a zero-width character makes `.ssh/authorized_keys` and a path that
 * only looks like it read the same; a lone carriage return, an escape or a tag character hide text outright.
 *
 * Each such character in a preview is shown as `⟨U+XXXX⟩` where it stands, and the preview says which were
 * found. Only the preview changes: the call runs with its arguments as they were (its args hash is of those).
 *
 * The extension does not auto-run a tool block that holds any (`holdsHidden`): the page shows the block as the site
 * renders it, and a person who turned auto-run on never saw what runs. The chip says so, and Run still works.
 *
 * The CLI prints what a model chose too — paths and commands in `chatbridge audit`, a change's label in `undo`, a
 * program left running — and a terminal obeys escapes: a file named `\e]52;c;…\a` would set the clipboard, `\e[2K`
 * erase the line. Everything the CLI prints goes through the same function (cli.ts), each such field on one line,
 * and so do the side panel's changes, programs and audit records.
 */

const NAMES: Record<number, string> = {
  0x00ad: 'SOFT HYPHEN',
  0x061c: 'ARABIC LETTER MARK',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
  0x0a: 'LINE FEED',
  0x0d: 'CARRIAGE RETURN',
  0x1b: 'ESCAPE',
};

/**
 * - control characters but tab and line feed, and a carriage return not ending a line (CRLF files diff as usual);
 * - the format characters that steer direction or take no width, the Hangul and Khmer fillers shown as nothing,
 *   interlinear annotation marks, tag characters and variation selectors that carry hidden text — but not
 *   U+FE0E/U+FE0F, which choose how an emoji looks;
 * - a zero-width joiner or non-joiner next to ASCII (a path, a command, code); between letters of a script that
 *   needs them (Persian, the Indic scripts) or in an emoji sequence they are what the text means, and stay.
 */
const HIDDEN = new RegExp(
  [
    '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]',
    '\\r(?!\\n)',
    '[\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B\\u200E\\u200F\\u2028-\\u202E\\u2060-\\u206F\\u3164\\uFE00-\\uFE0D\\uFEFF\\uFFA0\\uFFF9-\\uFFFB]',
    '[\\u{E0000}-\\u{E007F}\\u{E0100}-\\u{E01EF}]',
    '(?<![^\\u0000-\\u007F])[\\u200C\\u200D]',
    '[\\u200C\\u200D](?![^\\u0000-\\u007F])',
  ].join('|'),
  'gu',
);

function codePointLabel(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The same, and every line break: for a field that is one line wherever it is shown (a path, a title, a record). */
const HIDDEN_OR_BREAK = new RegExp(`${HIDDEN.source}|[\\n\\r]`, 'gu');

export interface RevealOptions {
  /** counts what was shown, by code point */
  found?: Map<number, number>;
  /** line feeds and carriage returns are shown too: a path with one in it must not pass for two lines */
  oneLine?: boolean;
}

const HIDDEN_ANYWHERE = new RegExp(HIDDEN.source, 'u');

/**
 * Whether the text holds any: a tool block that does never runs by itself (extension/scanner/blocks.ts), since the
 * page shows its text otherwise than it runs.
 */
export function holdsHidden(text: string): boolean {
  return HIDDEN_ANYWHERE.test(text);
}

/** Text with every hidden character shown as `⟨U+XXXX⟩`. */
export function revealHidden(text: string, options: RevealOptions = {}): string {
  const { found } = options;
  return text.replace(options.oneLine ? HIDDEN_OR_BREAK : HIDDEN, (char) => {
    const codePoint = char.codePointAt(0) as number;
    found?.set(codePoint, (found.get(codePoint) ?? 0) + 1);
    return `⟨${codePointLabel(codePoint)}⟩`;
  });
}

/**
 * Blank characters a browser does not let hang at the end of a line as it does spaces and tabs: a run of them wraps
 * into as many blank lines as it is long (no-break, en and em spaces and their kin, the Braille blank).
 */
const WRAPPING_BLANK = '\\u00A0\\u1680\\u2000-\\u200A\\u202F\\u205F\\u2800';
const BLANK = `[ \\t\\u3000${WRAPPING_BLANK}]`;
const BLANK_LINES = new RegExp(`\\n(?:${BLANK}*\\n){2,}`, 'gu');
const BLANK_RUN = new RegExp(`${BLANK}+`, 'gu');
const WRAPPING = new RegExp(`[${WRAPPING_BLANK}]`, 'gu');

/**
 * A command's runs of blank lines, each shown as one line that counts them: `npm test`, two hundred empty lines and
 * `curl … | sh` would show the card's first line alone until someone scrolls. One blank line stays as it is. A line
 * of no-break spaces is as blank, and a run of them inside a line, which the card wraps into a blank line per line's
 * width of it (`npm test`, three thousand of them, `; curl … | sh`), is shown counted where it stands.
 */
export function countBlankRuns(command: string): string {
  return command
    .replace(BLANK_LINES, (run) => `\n⟨${run.split('\n').length - 2} blank lines⟩\n`)
    .replace(BLANK_RUN, (run) => ((run.match(WRAPPING)?.length ?? 0) < 2 ? run : `⟨${[...run].length} blank characters⟩`));
}

/** A character's Unicode name, for the ones a preview names (undefined for the rest, shown by code point only). */
export function hiddenCharacterName(codePoint: number): string | undefined {
  return Object.hasOwn(NAMES, codePoint) ? NAMES[codePoint] : undefined;
}

/**
 * The characters found, each by code point, name and count (`U+202E RIGHT-TO-LEFT OVERRIDE ×2, U+200B …`), and how
 * many in all: the facts of the warning, which the extension words in the person's language (`nameOf` naming each
 * character, `separator` between them).
 */
export function hiddenKinds(
  found: Iterable<readonly [number, number]>,
  nameOf: (codePoint: number) => string | undefined = hiddenCharacterName,
  separator = ', ',
): { total: number; kinds: string } {
  let total = 0;
  const kinds = [...found].sort((a, b) => a[0] - b[0]).map(([codePoint, count]) => {
    total += count;
    const name = nameOf(codePoint);
    return `${codePointLabel(codePoint)}${name ? ` ${name}` : ''}${count > 1 ? ` ×${count}` : ''}`;
  });
  return { total, kinds: kinds.join(separator) };
}

/** The sentence a preview shows above everything else when it held any: which characters, how many, and what runs. */
export function hiddenWarning(found: ReadonlyMap<number, number>): string | undefined {
  if (found.size === 0) return undefined;
  const { total, kinds } = hiddenKinds(found);
  return (
    `This holds ${total === 1 ? 'a character' : `${total} characters`} you could not see or that change how text around ` +
    `${total === 1 ? 'it is' : 'them is'} shown (${kinds}); each is shown as ⟨U+…⟩ where it stands. ` +
    'What runs holds them as they are.'
  );
}
