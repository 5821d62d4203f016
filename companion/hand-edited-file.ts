import { readFileSync } from 'node:fs';

/**
 * The text of a JSON file a person edits by hand — the config file, a desktop client's list of MCP servers — without
 * the byte order mark an editor may put first: Windows Notepad saves UTF-8 with one, and JSON.parse refused the
 * whole file for it ("Unexpected token"). Only that one leading mark goes; anything else broken stays for the
 * caller's parser to refuse. Read errors are thrown as they come, for the caller to name the file.
 */
export function readHandEditedText(file: string): string {
  const text = readFileSync(file, 'utf8');
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/**
 * Why a hand-edited file could not be read, in words, with Node's code after them: a --config path with a typo
 * said 'cannot be read: ENOENT', and one naming a folder 'EISDIR'.
 */
export function whyUnreadable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined) return String(error);
  const words = UNREADABLE[code];
  return words === undefined ? code : `${words} (${code})`;
}

const UNREADABLE: Record<string, string> = {
  ENOENT: 'there is no such file',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of its path is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
};

/**
 * What JSON.parse's error for a hand-edited file means, said where a person looks: Node names an offset ("at
 * position 169"), which no editor shows, or for some tokens no place at all, and not the two mistakes a hand edit
 * makes most — a comma after the last entry and a comment, both fine in JavaScript and in many editors' settings
 * files but not in JSON. Gives the line and column, the mistake when it is one of those (or the file is empty), and
 * the parser's own words.
 */
export function jsonErrorWhere(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (text.trim() === '') return `the file is empty (write {} for the defaults) (${message})`;
  const offset = /at position (\d+)/.exec(message)?.[1];
  const at = offset === undefined ? undefined : Math.min(Number(offset), text.length);
  // such a mistake after the place the parser stopped at is not what it stopped for
  const mistake = handEditMistake(text);
  if (mistake !== undefined && (at === undefined || mistake.at <= at)) return `${lineAndColumn(text, mistake.at)}: ${mistake.what} (${message})`;
  return at === undefined ? message : `${lineAndColumn(text, at)}: ${message}`;
}

function lineAndColumn(text: string, at: number): string {
  const before = text.slice(0, at);
  return `line ${before.split('\n').length}, column ${at - before.lastIndexOf('\n')}`;
}

/** The first comment or comma before a closing bracket outside the file's strings. */
function handEditMistake(text: string): { at: number; what: string } | undefined {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) return { at: i, what: 'a comment, which JSON does not take: remove it' };
    else if (char === ',') {
      const close = /^\s*([}\]])/.exec(text.slice(i + 1));
      if (close) return { at: i, what: `a comma before ${close[1]}: JSON takes none after the last entry` };
    }
  }
  return undefined;
}

/**
 * Where a parsed JSON value holds a key named `__proto__`, as `at.key.key` paths. JSON.parse keeps such a key as an
 * own property, but every object the config's schemas build sets it as the new object's prototype instead, so the
 * entry it names — a server, a site, a tool's deny — was dropped without a word. Each one is a problem to report.
 */
export function prototypeKeyPaths(value: unknown, at: string): string[] {
  const found: string[] = [];
  const pending: { value: unknown; at: string }[] = [{ value, at }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    for (const [key, inner] of Object.entries(next.value)) {
      const path = Array.isArray(next.value) ? `${next.at}[${key}]` : next.at === '' ? key : `${next.at}.${key}`;
      if (key === '__proto__') found.push(path);
      pending.push({ value: inner, at: path });
    }
  }
  return found.sort();
}

export const PROTOTYPE_KEY_RULE =
  "a key JavaScript takes for an object's prototype, so chatbridge cannot keep what it names; rename it";
