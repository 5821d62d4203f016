import { jsonrepair } from 'jsonrepair';
import { cut } from './describe-value';

/**
 * Strict JSON first, then repair (DESIGN §3: "parse strictly; if that fails, repair it … marking the result
 * `repaired`").
 *
 * Repair happens in two steps:
 * 1. `prepareForRepair`, one linear pass that fixes what the seeds' own examples contain and the repair
 *    library does not know or handles slowly: `#` comments (seed 002), `//` and block comments, raw control
 *    characters inside strings (seed 002 §三's multi-line `old_content`), zero-width spaces and BOMs between
 *    tokens, no-break and full-width spaces, full-width commas and colons between tokens, prose after a value
 *    (seed 002 §二: `"type": "operate/finish",  执行编辑文件…`), trailing commas and missing commas, strings in
 *    single, curly or back quotes, bare keys and Python's True, False and None.
 * 2. If that still is not JSON, the `jsonrepair` package (unquoted values, joined strings, …).
 *    Its running time grows with the square of the input on some inputs (every inserted comma copies the
 *    output: 8 KB of `[{a:'b'} …]` takes ~30 ms, 64 KB ~250 ms, 256 KB ~20 s), so it only sees texts up to
 *    `LIBRARY_REPAIR_LIMIT` characters (a few ms at worst, which keeps the whole parse linear), and each JSON
 *    protocol gives it at most `LIBRARY_REPAIR_BUDGET` characters per message (a `RepairBudget` passed along),
 *    which keeps that constant small: a message of a thousand 4 KB blocks that all need the library costs what
 *    32 of them do. A block that would go over the budget gets no error of its own (alone, as the companion
 *    re-parses it, it would have the whole budget and be repaired): the protocol stops reading there and says so
 *    (`notReadBlock` in define-protocol.ts), and the companion, re-parsing that text from the first block of its
 *    kind, stops at the same place. Step 1 is linear and has no limit.
 *
 * Only plain objects and arrays count as a successful repair: the library turns any prose into a JSON string
 * (`fs.read /tmp/a.txt` → `"fs.read /tmp/a.txt"`), and prose is not a tool call.
 */

export const LIBRARY_REPAIR_LIMIT = 4_096;

/** Characters of one message, per protocol, that the repair library may get in all: 32 blocks at the limit. */
export const LIBRARY_REPAIR_BUDGET = 32 * LIBRARY_REPAIR_LIMIT;

/** What is left of a message's `LIBRARY_REPAIR_BUDGET`; `parseJsonLenient` takes from it. */
export interface RepairBudget {
  left: number;
}

/** Deeper nesting is refused before parsing: no tool call needs it, and parsers recurse on it. */
export const MAX_NESTING = 256;

export type JsonParseResult =
  | { ok: true; value: unknown; repaired: boolean }
  | { ok: false; reason: string; overBudget?: true; endsInString?: true };

/**
 * `budget`: when given, the library runs only if what it would get fits in what is left, which it then takes;
 * otherwise the result is `overBudget` (the caller stops reading the message there).
 */
export function parseJsonLenient(text: string, budget?: RepairBudget): JsonParseResult {
  if (nestingExceeds(text, MAX_NESTING)) {
    return { ok: false, reason: `nested deeper than ${MAX_NESTING} levels` };
  }
  let strictError: string;
  try {
    const value = JSON.parse(text) as unknown;
    const inexact = notAsWritten(text, value);
    if (inexact !== undefined) return { ok: false, reason: inexact };
    return { ok: true, value, repaired: false };
  } catch (error) {
    strictError = errorMessage(error);
  }
  const written: WrittenParts = { strings: [], keys: [] };
  const { text: prepared, cutShort, endsInString, unrepairable } = prepareForRepair(text, written);
  if (unrepairable !== undefined) return { ok: false, reason: `${strictError}; not repaired: ${unrepairable}` };
  // The library would happily close a cut-off text; a plan or call cut short must not run half-written.
  if (cutShort) {
    const reason = `${strictError}; not repaired: the JSON ends inside a string or before its closing bracket`;
    return endsInString ? { ok: false, reason, endsInString } : { ok: false, reason };
  }
  const fromPrepared = tryParse(prepared);
  if (fromPrepared !== undefined && isContainer(fromPrepared.value)) {
    const inexact = notAsWritten(prepared, fromPrepared.value);
    if (inexact !== undefined) return { ok: false, reason: `${strictError}; not repaired: ${inexact}` };
    return { ok: true, value: fromPrepared.value, repaired: true };
  }
  // What the library could still turn into an object starts with a bracket or a markdown fence around JSON.
  const first = prepared.trimStart().slice(0, 3);
  if (!(first.startsWith('{') || first.startsWith('[') || first === '```')) {
    return { ok: false, reason: strictError + textBeforeObject(text) };
  }
  if (prepared.length > LIBRARY_REPAIR_LIMIT) {
    return {
      ok: false,
      reason: `${strictError}; not repaired: ${prepared.length} characters is over the ${LIBRARY_REPAIR_LIMIT}-character repair limit`,
    };
  }
  if (budget !== undefined) {
    if (prepared.length > budget.left) {
      return { ok: false, reason: `${strictError}; not repaired: the message's JSON repair budget is spent`, overBudget: true };
    }
    budget.left -= prepared.length;
  }
  if (written.quoteEscaped !== undefined) {
    const shown = JSON.stringify(cut(written.quoteEscaped, 40));
    const why = 'has no closing quote: the backslash before its quote escapes it; write that backslash as \\\\';
    return { ok: false, reason: `${strictError}; not repaired: the string ${shown} ${why}` };
  }
  if (written.bracketGuess !== undefined) {
    const guessed = tryParse(`"${written.bracketGuess}"`)?.value;
    const shown = JSON.stringify(cut(typeof guessed === 'string' ? guessed : written.bracketGuess, 40));
    return {
      ok: false,
      reason: `${strictError}; not repaired: the string ${shown} opens a bracket it does not close and ends right before a closing one, so where the repair would end it is a guess; write the call as strict JSON`,
    };
  }
  try {
    const repairedText = jsonrepair(prepared);
    const value = JSON.parse(repairedText) as unknown;
    // A key the text writes twice, or an integer a number cannot hold, is that already in what the library wrote.
    const inexact = notAsWritten(repairedText, value);
    if (inexact !== undefined) return { ok: false, reason: `${strictError}; not repaired: ${inexact}` };
    // The library reads values one after another as a list (`{…}\nDone.` → `[{…}, "Done."]`): an object followed by
    // more is not a list its writer wrote, and would be answered as a batch.
    if (Array.isArray(value) && first.startsWith('{')) {
      const objects = value.every((item) => isContainer(item) && !Array.isArray(item));
      const calls = objects ? `, ${value.length} objects one after another; write each call in a block of its own` : '';
      return { ok: false, reason: `${strictError}; not repaired: text follows the JSON object${calls}` };
    }
    // A double quote left unescaped inside a string (`"HOST = "localhost", PORT = "8080""`) makes the library guess
    // where the string ends, and its guess turns the rest into a key nobody wrote as one: a plan wrote `HOST = "localhost`
    // to the file. Every key of the repaired value must be one the text writes as a key.
    const invented = keyNotWritten(value, prepared);
    if (invented !== undefined) {
      return {
        ok: false,
        reason: `${strictError}; not repaired: reading it would make ${JSON.stringify(cut(invented, 40))} a key, which the text does not write as one (a double quote inside a string that is not escaped as \\"?)`,
      };
    }
    // The library ends a string elsewhere than at its closing quote when the quote is followed by a closing bracket and
    // the string holds an opening one (`"x = 1 // set {"}` read as "x = 1"): every string the text writes must still be
    // in the value, whole (joined strings, `"a" + "b"`, are).
    const changed = stringNotKept(value, written.strings);
    if (changed !== undefined) {
      return {
        ok: false,
        reason: `${strictError}; not repaired: reading it would change the string ${JSON.stringify(cut(changed, 40))} (the repair would end it before its closing quote); write the call as strict JSON`,
      };
    }
    // Nor may a key the text writes go missing: the library reads a key with no comma before it into the string before
    // it (`"path": "a" content: "b"`), or a string that holds an open bracket on into the keys after it.
    const dropped = keyNotKept(value, written.keys);
    if (dropped !== undefined) {
      return {
        ok: false,
        reason: `${strictError}; not repaired: reading it would leave out the key ${JSON.stringify(cut(dropped, 40))}; is a comma missing before it?`,
      };
    }
    if (isContainer(value)) return { ok: true, value, repaired: true };
  } catch {
    // The library's own message describes its repaired text, not the writer's; report the strict one.
  }
  return { ok: false, reason: strictError + quoteInsideString(text, strictError) };
}

/**
 * Words before the JSON object (`Here is the call:` on the line before its `{`, as a model introduces a call inside its
 * block): the strict parser names only the first letter it met. The hint, or ''.
 */
function textBeforeObject(text: string): string {
  const object = text.search(/^[ \t]*\{/m);
  const before = object === -1 ? '' : text.slice(0, object).trim();
  if (before === '') return '';
  return `; not repaired: text comes before the JSON object (${JSON.stringify(cut(before, 40))}); write the call alone, text outside the block`;
}

/**
 * Where the strict parser stopped right after a double quote at words or a bracket (`"print("hello")"`): most likely a
 * quote inside a string its writer did not escape, which the error's position alone does not say. The hint, or ''.
 */
function quoteInsideString(text: string, strictError: string): string {
  const at = /at position (\d+)/.exec(strictError);
  if (at === null) return '';
  const position = Number(at[1]);
  if (text[position - 1] !== '"' || !/[\p{L}\p{N}_$(){}[\]<>.\\/-]/u.test(text[position] ?? '')) {
    // Otherwise the text where it stopped, which the position alone does not show a writer (`"a" "b"`, `"a.txt" (the file)`).
    const there = text.slice(position, lineEndOf(text, position)).trim();
    return there === '' ? '' : `; it cannot read on at ${JSON.stringify(cut(there, 24))}`;
  }
  const shown = cut(text.slice(position - 1, lineEndOf(text, position)), 24);
  return `; if the double quote that starts ${shown} is part of a string, write it as \\"`;
}

/**
 * A key as a text writes one: in double quotes, in single, curly single or back quotes (the library reads all of those
 * as quotes), or bare, followed by a colon.
 */
const WRITTEN_KEY = /"((?:[^"\\\n]|\\.)*)"\s*:|['\u2018\u2019`\u00b4]((?:[^'\u2018\u2019`\u00b4\\\n]|\\.)*)['\u2018\u2019`\u00b4]\s*:|(?<![\p{L}\p{N}_$-])([\p{L}\p{N}_$][\p{L}\p{N}_$-]*)\s*:/gu;

/** The first key of `value` (depth first) that `text` does not write as a key; undefined when there is none. */
function keyNotWritten(value: unknown, text: string): string | undefined {
  const written = new Set<string>();
  for (const match of text.matchAll(WRITTEN_KEY)) {
    const [, double, single, bare] = match;
    if (double !== undefined) {
      written.add(double);
      const decoded = tryParse(`"${double}"`);
      if (typeof decoded?.value === 'string') written.add(decoded.value);
    } else if (single !== undefined) {
      written.add(single.replace(/\\'/g, "'"));
    } else if (bare !== undefined) {
      written.add(bare);
    }
  }
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (Array.isArray(next)) stack.push(...next);
    else if (isContainer(next)) {
      for (const [key, inner] of Object.entries(next as Record<string, unknown>)) {
        if (!written.has(key)) return key;
        stack.push(inner);
      }
    }
  }
  return undefined;
}

/** The first of `keys` (JSON string texts) that `value` has fewer times as a key than the text writes it. */
function keyNotKept(value: unknown, keys: readonly string[]): string | undefined {
  const kept = new Map<string, number>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (Array.isArray(next)) stack.push(...next);
    else if (isContainer(next)) {
      for (const [key, inner] of Object.entries(next as Record<string, unknown>)) {
        kept.set(key, (kept.get(key) ?? 0) + 1);
        stack.push(inner);
      }
    }
  }
  for (const written of keys) {
    const decoded = tryParse(`"${written}"`)?.value;
    if (typeof decoded !== 'string') continue;
    const left = kept.get(decoded) ?? 0;
    if (left === 0) return decoded;
    kept.set(decoded, left - 1);
  }
  return undefined;
}

/** The first of `strings` (the strings the text writes, as JSON string texts) that no key or string of `value` holds. */
function stringNotKept(value: unknown, strings: readonly string[]): string | undefined {
  const kept: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next === 'string') kept.push(next);
    else if (Array.isArray(next)) stack.push(...next);
    else if (isContainer(next)) {
      for (const [key, inner] of Object.entries(next as Record<string, unknown>)) {
        kept.push(key);
        stack.push(inner);
      }
    }
  }
  const all = kept.join('\0');
  for (const written of strings) {
    const decoded = tryParse(`"${written}"`)?.value;
    if (typeof decoded === 'string' && decoded !== '' && !all.includes(decoded)) return decoded;
  }
  return undefined;
}

/**
 * Whether a value already parsed nests arrays and objects deeper than `limit` (`[]` is one level), for calls whose
 * arguments did not come through parseJsonLenient: a `<function_calls>` block's JSON lines and XML parameters, an
 * MCP client's tools/call. Walked without recursion, since the value may be too deep to recurse on; bytes are leaves.
 */
export function valueNestingExceeds(value: unknown, limit: number): boolean {
  const stack: Array<{ item: object; depth: number }> = [];
  const visit = (item: unknown, depth: number) => {
    if (item !== null && typeof item === 'object' && !ArrayBuffer.isView(item)) stack.push({ item, depth });
  };
  visit(value, 1);
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.depth > limit) return true;
    for (const child of Array.isArray(next.item) ? next.item : Object.values(next.item)) visit(child, next.depth + 1);
  }
  return false;
}

/**
 * Why the value of a JSON text is not the one it writes (see the checks below); undefined when it is. `json` is valid
 * JSON and `value` what JSON.parse made of it.
 */
export function notAsWritten(json: string, value: unknown): string | undefined {
  return (
    integerNotKept(json) ??
    numberNotHeld(json) ??
    drivePathNotKept(json) ??
    (keyColons(json) > keyCount(value) ? keyWrittenTwice(json) : undefined)
  );
}

/**
 * A drive-letter path whose backslash after the drive JSON reads as a control character: with more of the path and
 * another backslash after it (`C:\temp\notes.txt`, `D:\new\a.py`), a file name with its extension right after the
 * drive (`type C:\new.txt`), a folder that is the whole string (`"cwd": "C:\temp"`), or a path relative to the working
 * folder or the one above it (`type .\notes.txt`, `cd ..\tools`); in a command, also in double quotes
 * (`type "C:\temp\notes.txt"`, `dir "C:\temp"`). A tab, line break or the like in a path, and in a command a second
 * line the shell runs as another command. Line breaks and tabs after a label are read as written: `Q:\nWhy?`,
 * `A:\nBecause.\n` (a folder's name never ends in a point), `Option A:\n\nUse a cache.` and `for i in x:\n\tprint(i)`
 * (a folder's name is never empty), `"sep": "a:\t"`.
 */
const DRIVE_ESCAPE =
  /(?:^|[\s'=(\["])(?:[A-Za-z]:\\[bfnrt](?:[\w.-]*[\w-]\\|[\w-]*\.[A-Za-z\d]{1,8}(?![\w.\\-]))|\.{1,2}\\[bfnrt]\w)|^[A-Za-z]:\\[bfnrt][\w.-]*[\w-]$/;

/** Why a JSON text's value reads a Windows path written with single backslashes as control characters; undefined when none. */
function drivePathNotKept(json: string): string | undefined {
  if (!/(?:[A-Za-z]:|\.)\\[bfnrt]/.test(json)) return undefined;
  for (const [token] of json.matchAll(STRING_OR_NUMBER)) {
    if (!token.startsWith('"') || !DRIVE_ESCAPE.test(token.slice(1, -1))) continue;
    const why = 'writes a Windows path with single backslashes, and JSON reads \\t, \\n, \\r, \\b and \\f in it as control characters';
    return `the string ${JSON.stringify(cut(token.slice(1, -1), 40))} ${why}; write each backslash of the path as \\\\`;
  }
  return undefined;
}

/** The colons in `json`: at least the keys it writes (strings may hold more). */
function keyColons(json: string): number {
  let count = 0;
  for (let at = json.indexOf(':'); at !== -1; at = json.indexOf(':', at + 1)) count++;
  return count;
}

/** The keys of every object in `value`; fewer than the text writes only when a key is written twice in one object. */
function keyCount(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      for (const item of next) if (typeof item === 'object' && item !== null) stack.push(item);
      continue;
    }
    for (const key in next) {
      count++;
      const inner = (next as Record<string, unknown>)[key];
      if (typeof inner === 'object' && inner !== null) stack.push(inner);
    }
  }
  return count;
}

/** In JSON text: a string, with the colon after it when it is a key, or a bracket. */
const KEY_OR_BRACKET = /"(?:[^"\\]|\\.)*"(\s*:)?|[{}[\]]/g;

/**
 * Why a JSON text's value leaves out part of what it writes: a key written twice in one object, of which only the
 * last counts (`"file_operations": […], …, "file_operations": […]` ran only the second list, `"path"` twice read
 * the second path); undefined when none. `json` is valid JSON.
 */
function keyWrittenTwice(json: string): string | undefined {
  // per open bracket, the keys of its object so far (null for an array)
  const open: Array<Set<string> | null> = [];
  for (const match of json.matchAll(KEY_OR_BRACKET)) {
    const token = match[0];
    if (token === '{') open.push(new Set());
    else if (token === '[') open.push(null);
    else if (token === '}' || token === ']') open.pop();
    else if (match[1] !== undefined) {
      const keys = open[open.length - 1];
      const quoted = token.slice(0, token.length - match[1].length);
      const key = quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
      if (keys?.has(key)) {
        const why = 'is written twice in one object, and only the last would count; write it once';
        return `the key ${JSON.stringify(cut(key, 40))} ${why}`;
      }
      keys?.add(key);
    }
  }
  return undefined;
}

/**
 * An exponent of three digits (either sign), or a run of 309 digits: the fewest a number needs to be past what a number
 * holds at all, or too close to 0 to be told from it.
 */
const EXTREME_NUMBER = /[eE][+-]?\d{3}|\d{309}/;

/**
 * Why a JSON text's value holds a number a number cannot: too large (`1e400`, read as Infinity, which reaches the tool
 * as null once the call is sent on) or too small (`1e-400`, read as 0); undefined when none. `json` is valid JSON;
 * looks further only when the text has a three-digit exponent or a run of 309 digits somewhere.
 */
function numberNotHeld(json: string): string | undefined {
  if (!EXTREME_NUMBER.test(json)) return undefined;
  for (const [token] of json.matchAll(STRING_OR_NUMBER)) {
    if (token.startsWith('"')) continue;
    const read = Number(token);
    if (!Number.isFinite(read)) return `the number ${token} is too large for a number to hold, and would reach the tool as null; write it in double quotes, or a smaller number`;
    if (read === 0 && /[1-9]/.test(token.replace(/[eE].*$/, ''))) {
      return `the number ${token} is too small for a number to hold, and would reach the tool as 0; write it in double quotes, or 0`;
    }
  }
  return undefined;
}

/** A run of 16 digits: the fewest an integer needs to be past what a number holds exactly (2^53). */
const LONG_DIGITS = /\d{16}/;

/** In JSON text: a string (skipped) or a number. */
const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * Why a JSON text's value differs from what it writes: an integer past 2^53 that a number cannot hold (`"message_id":
 * 1189234567890123456` read as 1189234567890123500, another message's id; one it holds, as 1e20, is kept as written);
 * undefined when none.
 * `json` is valid JSON. Looks further only when the text has a run of 16 digits somewhere (linear either way).
 */
function integerNotKept(json: string): string | undefined {
  if (!LONG_DIGITS.test(json)) return undefined;
  for (const [token] of json.matchAll(STRING_OR_NUMBER)) {
    if (token.startsWith('"') || token.length < 16 || /[.eE]/.test(token)) continue;
    const read = String(Number(token));
    if (significantDigits(read) === significantDigits(token)) continue;
    const why = `more digits than a number keeps exactly, and would be read as ${read}`;
    return `the integer ${token} has ${why}; write it in double quotes`;
  }
  return undefined;
}

/** A number's digits without sign, point, exponent and the zeros at either end: `-1.2300e+21` → `123`. */
function significantDigits(number: string): string {
  return number.replace(/[eE].*$/, '').replace(/[-.]/g, '').replace(/^0+|0+$/g, '');
}

function lineEndOf(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  return newline === -1 ? text.length : newline;
}

/** Whether brackets outside double-quoted strings nest deeper than `limit`; stops at the first excess. */
function nestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x22) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    }
  }
  return false;
}

function tryParse(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

function isContainer(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Character classes by code unit, for the linear pass below.
const VALUE_END = new Uint8Array(128);
const VALUE_START = new Uint8Array(128);
const WORD = new Uint8Array(128);
for (const c of '"}]el0123456789') VALUE_END[c.charCodeAt(0)] = 1;
for (const c of '"{[-tfn0123456789') VALUE_START[c.charCodeAt(0)] = 1;
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.') WORD[c.charCodeAt(0)] = 1;

const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const COLON = 0x3a;
const HASH = 0x23;
const SLASH = 0x2f;
const STAR = 0x2a;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const NEWLINE = 0x0a;
const ELLIPSIS = 0x2026;
const FULL_WIDTH_COMMA = 0xff0c;
const FULL_WIDTH_COLON = 0xff1a;

/**
 * A key with its colon: JSON that goes on after words. In curly quotes only before an ASCII colon, since Chinese prose
 * writes “术语”：. A key in single or back quotes counts too, as the library reads it, and a bare key when a value starts
 * after its colon (`cwd: "sub"`, not `http://` or `10:30`).
 */
const KEY_AHEAD =
  /"[^"\n]*"\s*[:\uff1a]|[\u201c\u201d][^"\u201c\u201d\n]*[\u201c\u201d]\s*:|'[^'\n]*'\s*[:\uff1a]|[\u2018\u2019`\u00b4][^'\u2018\u2019`\u00b4\n]*[\u2018\u2019`\u00b4]\s*:|(?<![\p{L}\p{N}_$-])[A-Za-z_$][\w$-]*\s*[:\uff1a]\s*(?:["'\u201c\u201d\u2018\u2019`{[\d-]|true\b|false\b|null\b)/u;

/** ‘ ’ ` ´: quotes to the repair library, which ends a string opened by one at any of them (or at '). */
function isSingleQuoteLike(code: number): boolean {
  return code === 0x2018 || code === 0x2019 || code === 0x60 || code === 0xb4;
}

/** A name and an opening bracket where a value starts: the library reads `echo("rm -rf build")` as `"rm -rf build"`. */
const FUNCTION_CALL = /[A-Za-z_$][\w$]*\s*\(/y;

/**
 * Where a value starts, what the library reads as a number or as the string it writes: a sign, digits (Python's `_`
 * between them too), a point, an exponent, each maybe without digits.
 */
const NUMBER_AHEAD = /[-+]?(?:(?:\d[\d_]*\.?[\d_]*|\.\d*)(?:[eE][+-]?\d*)?)?/y;

/** A number in another base where a value starts, which the library reads as the string it writes (`0x1F` → "0x1F"). */
const OTHER_BASE_AHEAD = /[-+]?0(?:[xX][\da-fA-F]*|[oO][0-7]*|[bB][01]*)/y;

/** A number whose value is the one its text writes: `2.`, `.5` and `-.5` too, as JavaScript and Python read them. */
const WHOLE_NUMBER = /^-?(?:(?:0|[1-9]\d*)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Why the value starting at `from` is a number the repair would change, or undefined. The library ends a sign, point
 * or exponent with no digits after it with a 0 (`-` and `.` became 0, `1e` and `1e+` 1), reads a number in another
 * base, with a leading zero (`0755`) or with Python's `_` between digits (`1_000`) as a string and gives up at a plus
 * sign. Only a token the library reads as a value counts: one followed by a
 * bracket, comma or blank and, past blanks, by more of the text that is not a colon (a bare key). A token at the end of
 * the text is left to the cut-short rule.
 */
function numberNotAsWritten(text: string, from: number): string | undefined {
  OTHER_BASE_AHEAD.lastIndex = from;
  const based = OTHER_BASE_AHEAD.exec(text)?.[0];
  NUMBER_AHEAD.lastIndex = from;
  const token = based ?? NUMBER_AHEAD.exec(text)?.[0] ?? '';
  if (token === '' || (based === undefined && WHOLE_NUMBER.test(token))) return undefined;
  let k = from + token.length;
  if (k < text.length && !/[\s,[\]{}()/+]/.test(text[k]!)) return undefined;
  while (k < text.length && /\s/.test(text[k]!)) k++;
  if (k >= text.length || text[k] === ':' || text[k] === '\uff1a') return undefined;
  const shown = JSON.stringify(token);
  if (based !== undefined) {
    const base = /[xX]/.test(based) ? 'a hexadecimal' : /[oO]/.test(based) ? 'an octal' : 'a binary';
    return `the value ${shown} is ${base} number, which JSON has no way to write; write it in decimal, or in double quotes if it is text`;
  }
  // The library passes these on as the text they write: a file mode's `0755` reached the tool as "0755", not 493.
  if (token.includes('_')) {
    const why = 'groups its digits with underscores, which JSON numbers do not have, and the repair would pass it on as text';
    return `the value ${shown} ${why}; write ${token.replace(/_/g, '')}, or the value in double quotes if it is text`;
  }
  if (/^[-+]?0\d/.test(token)) {
    const why = 'has a leading zero, which JSON numbers do not have (an octal number?), and the repair would pass it on as text';
    return `the value ${shown} ${why}; write the number in decimal without it, or in double quotes if it is text`;
  }
  if (token.startsWith('+') && WHOLE_NUMBER.test(token.slice(1))) {
    return `the value ${shown} starts with a plus sign, which JSON numbers do not have; write ${token.slice(1)}`;
  }
  const why = 'has a sign, point or exponent with no digit after it, and the repair would add a 0 the writer never wrote';
  return `the value ${shown} ${why}; write the number in full, or in double quotes if it is text`;
}

/** “ ” and the full-width ＂: double quotes to a writer, not to JSON. */
function isCurlyQuote(code: number): boolean {
  return code === 0x201c || code === 0x201d || code === 0xff02;
}

/**
 * The closing curly quote of a string opened by one before `from`, when the string can be read without guessing: no
 * straight or curly quote, backslash or control character before it, and after it (past spaces) a colon, comma,
 * closing bracket or the end of the line. -1 otherwise.
 */
function curlyQuotedEnd(text: string, from: number): number {
  let j = from;
  for (; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (isCurlyQuote(d)) break;
    if (d === QUOTE || d === BACKSLASH || d < 0x20) return -1;
  }
  if (j >= text.length) return -1;
  let k = j + 1;
  while (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09) k++;
  const next = text.charCodeAt(k);
  const ends =
    Number.isNaN(next) || next === 0x0a || next === 0x0d || next === COLON || next === COMMA || next === 0x7d || next === 0x5d;
  return ends || next === FULL_WIDTH_COLON || next === FULL_WIDTH_COMMA ? j : -1;
}

/**
 * Whether a term in quotes opened by `opener` before `from` is followed on its line by words in a script other than
 * Latin (`“finish”表示任务完成`, `‘operate’ 表示执行`, `'operate' 表示执行`): a note, not a string. Latin letters after
 * the quote are left to the string rules, since there the quote may be an apostrophe (`‘it’s ok’`).
 */
function wordsAfterQuotedTerm(text: string, from: number, opener: number): boolean {
  // the quotes that close it: “ ” at each other; ' at '; ‘ ’ ` ´ at any of those or '
  const closes = (code: number): boolean =>
    isCurlyQuote(opener) ? isCurlyQuote(code) : code === APOSTROPHE || (opener !== APOSTROPHE && isSingleQuoteLike(code));
  let j = from;
  while (j < text.length && !closes(text.charCodeAt(j))) {
    if (text.charCodeAt(j) === NEWLINE) return false;
    j++;
  }
  let k = j + 1;
  while (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09) k++;
  const next = text.codePointAt(k);
  return next !== undefined && next > 0x7f && /\p{L}/u.test(String.fromCodePoint(next));
}

/** No-break, ideographic and the other Unicode spaces (Zs) that JSON does not take as whitespace. */
function isWideSpace(code: number): boolean {
  return (
    code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x202f || code === 0x205f || code === 0x3000
  );
}

function isValueEnd(code: number): boolean {
  return code < 128 && VALUE_END[code] === 1;
}

function escapeControl(code: number): string {
  switch (code) {
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    default:
      return `\\u${code.toString(16).padStart(4, '0')}`;
  }
}

/** Whether the backslash at `at` starts an escape JSON has (`\" \\ \/ \b \f \n \r \t`, or `\u` and 4 hex digits). */
function isJsonEscape(text: string, at: number): boolean {
  const e = text[at + 1];
  if (e === undefined) return true;
  if ('"\\/bfnrt'.includes(e)) return true;
  return e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6));
}

/** A drive-letter path (`C:\`, `d:\`) at the start of the string or after a space, quote, `=` or bracket. */
const WINDOWS_PATH = /(?:^|[\s'=(\[])[A-Za-z]:\\/;

/**
 * Whether the double-quoted string starting at `from` (after its opening quote) is a Windows path written with
 * single backslashes (`"C:\Users\a1881\notes.txt"`, `"python D:\proj\main.py"`): it holds a drive-letter path
 * and an escape JSON does not have. Its backslashes are then all literal — also the ones that happen to form a JSON
 * escape (the `\n` of `\notes.txt`); only `\"` and `\\` keep their meaning. `guess` when it also seems to break
 * lines (`pathBackslashes`). Reads the string once (linear).
 */
function backslashesAreLiteral(text: string, from: number): Backslashes {
  let invalid = false;
  let j = from;
  for (; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === BACKSLASH) {
      if (!isJsonEscape(text, j)) invalid = true;
      j++;
    } else if (d === QUOTE) break;
  }
  return pathBackslashes(text.slice(from, j), invalid);
}

/** How a string's backslashes are read: as JSON's escapes, all literally (a Windows path), or not without a guess. */
type Backslashes = 'escapes' | 'literal' | 'guess';

/**
 * How the backslashes of a string's text `inner` are read, `invalid` when it holds an escape JSON does not have: all
 * literally when it also holds a drive-letter path, unless a `\n` or `\r` in it stands where a line break is meant (at
 * the end, before a blank or before another backslash, as in `\r\n`): `"@echo off\r\ncd C:\work\app\r\n"` would be
 * written as one line, and which of its backslashes are the path's is a guess.
 */
function pathBackslashes(inner: string, invalid: boolean): Backslashes {
  if (!invalid || !WINDOWS_PATH.test(inner)) return 'escapes';
  for (let j = inner.indexOf('\\'); j !== -1; j = inner.indexOf('\\', j + 2)) {
    const e = inner[j + 1];
    if ((e === 'n' || e === 'r') && /^(?:$|[\s\\])/.test(inner.slice(j + 2, j + 3))) return 'guess';
  }
  return 'literal';
}

/** Why a string whose backslashes are a `guess` is refused. */
function backslashGuess(inner: string): string {
  const why =
    'holds a Windows path written with single backslashes and a \\n or \\r that may be a line break, so which backslashes are literal is a guess; write each backslash of the path as \\\\';
  return `the string ${JSON.stringify(cut(inner, 40))} ${why}`;
}

/**
 * The closing quote of a single-quoted string opened before `from` (backslash escapes skipped), on that line or a later
 * one as the library reads it; -1 if none. Opened by `'`, it closes at `'`; opened by one of ‘ ’ ` ´, at any of those
 * or `'`.
 */
function singleQuotedEnd(text: string, from: number, opener: number): number {
  for (let j = from; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === BACKSLASH) j++;
    else if (d === APOSTROPHE || (opener !== APOSTROPHE && isSingleQuoteLike(d))) return j;
  }
  return -1;
}

/** Where the string in `triple` quotes opened before `from` closes (backslash escapes skipped); -1 if it does not. */
function tripleQuotedEnd(text: string, from: number, triple: string): number {
  for (let j = from; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === BACKSLASH) j++;
    else if (text.startsWith(triple, j)) return j;
  }
  return -1;
}

/**
 * A single-quoted string's text as a double-quoted JSON string's (`\'` an apostrophe, `"` escaped, line breaks as `\n`),
 * its backslashes read as in a double-quoted one: one before a character JSON does not escape (`'\d+'`), or any in a
 * Windows path (`'C:\Users\me\notes.txt'`), is a backslash (the library dropped it: "d+", "C:Usersme" and a line break).
 */
function singleQuotedAsJson(inner: string, opener: number): string | undefined {
  // `\'`, and `\`` in a string in back quotes, is the quote itself
  const quote = (code: number): boolean => code === APOSTROPHE || (code === 0x60 && opener === 0x60);
  let invalid = false;
  for (let j = inner.indexOf('\\'); j !== -1 && !invalid; j = inner.indexOf('\\', j + 2)) {
    invalid = !quote(inner.charCodeAt(j + 1)) && !isJsonEscape(inner, j);
  }
  const backslashes = pathBackslashes(inner, invalid);
  if (backslashes === 'guess') return undefined;
  const literal = backslashes === 'literal';
  return inner.replace(/\\[\s\S]?|"|[\u0000-\u001f]/g, (found, at: number) => {
    if (found === '"') return '\\"';
    if (found.charCodeAt(0) !== BACKSLASH) return escapeControl(found.charCodeAt(0));
    const e = found.charCodeAt(1);
    if (quote(e)) return found[1] as string;
    if (Number.isNaN(e)) return '\\\\';
    if (e === QUOTE || e === BACKSLASH || !(literal || !isJsonEscape(inner, at))) return found;
    return '\\\\' + (e < 0x20 ? escapeControl(e) : found[1]);
  });
}

/**
 * Whether text goes on right after a closing quote at `from - 1` as no JSON does: a letter, digit or `_` (past spaces),
 * or a quote with nothing between. A delimiter, a comment, the end of the line or a quote after a space (a missing comma)
 * ends a string.
 */
function goesOnAfterQuote(text: string, from: number): boolean {
  let k = from;
  while (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09) k++;
  const next = text[k];
  if (next === undefined) return false;
  if (/['"\u2018\u2019`\u00b4\u201c\u201d]/.test(next)) return k === from;
  return /[\p{L}\p{N}_]/u.test(next);
}

/** The strings and keys a text writes, each as the text of a JSON string without its quotes (prepareForRepair). */
export interface WrittenParts {
  strings: string[];
  keys: string[];
  /**
   * The first string that holds a `{` or `[` it does not close and ends right before a `}` or `]` (a trailing comma
   * between, which goes): the library takes that quote for one inside the string and guesses where the string ends.
   */
  bracketGuess?: string;
  /** The first string in single quotes with no closing quote but one after a backslash, as written to its line's end. */
  quoteEscaped?: string;
}

/** Python's True, False and None, which the library reads as true, false and null. */
const PYTHON_KEYWORD = /^(?:True|False|None)(?![\w$])/;

/** Why a `+` after the string `json` (its JSON text) with nothing after it to join is refused. */
function joinedToNothing(json: string): string {
  const why = 'joins the string before it to nothing, so a part of it is missing; write the whole string';
  return `the "+" after ${JSON.stringify(cut(json, 40))} ${why}`;
}

/** JavaScript's undefined where a value starts (not a bare key), which the library reads as null. */
const UNDEFINED = /^undefined(?![\w$])(?!\s*[:\uff1a])/;

/** JavaScript's NaN and Infinity where a value starts (not a bare key of that name). */
const NOT_A_NUMBER = /^[-+]?(?:NaN|Infinity)(?![\w$])(?!\s*[:\uff1a])/;

/** A bare key: a name with a colon after it (not the `://` of an address). */
const BARE_KEY = /[A-Za-z_$][\w$-]*(?=[ \t]*[:\uff1a](?!\/\/))/y;

export interface PreparedText {
  text: string;
  cutShort: boolean;
  endsInString?: true;
  unrepairable?: string;
}

/**
 * The linear repair pass described above. Double-quoted strings are tracked across lines, so a `#` inside a
 * string (`"# 其他代码..."`) is kept. A single-quoted string (Python-style plans, `{'command': 'curl http://…'}`) is
 * written as the double-quoted string it stands for where a value or key starts (after `{`, `[`, `,`, `:` or at the
 * start), also when it runs over lines (file content in a Python-style plan), so its `#` or `//` line is not taken for
 * a comment nor its full-width punctuation for JSON's.
 * `written`, when given, gets each complete string's JSON text (without the quotes): double-quoted as it became, in
 * curly or single quotes as a double-quoted one would be written; and among its keys each string with a colon after it
 * and each bare key.
 * `cutShort`: the text ends inside a string or a comment, or before closing every bracket it opened; `endsInString`:
 * inside a double-quoted string.
 * `unrepairable`: why the text cannot be repaired without guessing (words with more keys after them on their line, a
 * string in curly quotes that holds another quote, a single-quoted string holding an apostrophe, `...` in place of a
 * key or value, a value wrapped in a function call); the pass stops there.
 */
export function prepareForRepair(text: string, written?: WrittenParts): PreparedText {
  const n = text.length;
  const out: string[] = [];
  // Text from `copyFrom` up to the current position is still to be copied unchanged.
  let copyFrom = 0;
  const copyUpTo = (to: number) => {
    if (to > copyFrom) out.push(text.slice(copyFrom, to));
  };
  const lineEndFrom = (from: number): number => {
    const newline = text.indexOf('\n', from);
    return newline === -1 ? n : newline;
  };
  // The last code unit outside strings, whitespace and comments; and where the last comma sits in `out`.
  let last = -1;
  let pendingComma = -1;
  let depth = 0;
  let cutShort = false;
  let endsInString: true | undefined;
  const strings = written?.strings;
  /** the last string's JSON text while nothing but a comma followed it (for `bracketGuess`) */
  let lastString: string | undefined;
  /** the string before the last `+`, when a string came right before it (JSON text) */
  let joined: string | undefined;
  /** a string's JSON text for `written`, a key too when a colon follows its closing quote at `end - 1` */
  const noteString = (json: string, end: number): void => {
    if (!written) return;
    written.strings.push(json);
    lastString = json;
    let k = end;
    while (k < n && /\s/.test(text[k]!)) k++;
    if (text[k] === ':' || text[k] === '\uff1a') written.keys.push(json);
  };
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === NEWLINE || c === 0x0d) {
      i++;
      continue;
    }
    // A zero-width space, word joiner or BOM between tokens (pasted, or put there by a page) is no part of the call:
    // dropped like whitespace. Inside a string it stays, where the approval card shows it (reveal-hidden.ts).
    if (c === 0x200b || c === 0x2060 || c === 0xfeff) {
      copyUpTo(i);
      i = copyFrom = i + 1;
      continue;
    }
    // A no-break, ideographic or other wide space between tokens is whitespace, not prose after a value: taken for
    // prose, the rest of its line went with it (`"command": "make",\u00a0"cwd": "sub"` ran in the root).
    if (isWideSpace(c)) {
      copyUpTo(i);
      out.push(' ');
      i = copyFrom = i + 1;
      continue;
    }
    // A full-width comma or colon between tokens (a Chinese input method's `，` and `：`) is that comma or colon; read
    // as prose, the keys after it on its line were dropped, and the call ran without them.
    if (c === FULL_WIDTH_COMMA || c === FULL_WIDTH_COLON) {
      copyUpTo(i);
      copyFrom = i + 1;
      if (c === FULL_WIDTH_COLON) out.push(':');
      c = c === FULL_WIDTH_COMMA ? COMMA : COLON;
    }
    if (c === HASH || (c === SLASH && text.charCodeAt(i + 1) === SLASH)) {
      copyUpTo(i);
      i = copyFrom = lineEndFrom(i);
      continue;
    }
    if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      copyUpTo(i);
      const close = text.indexOf('*/', i + 2);
      if (close === -1) cutShort = true;
      i = copyFrom = close === -1 ? n : close + 2;
      continue;
    }
    // A note after a comma or a value may start with a term in curly quotes (`"type": "finish",  “finish”表示任务完成`):
    // words right after its closing quote make it prose, handled below with the other notes. Otherwise, right after a
    // value, it is the next key or value with its comma left out (an input method's JSON on several lines): the comma
    // goes in, as before a straight quote.
    // The same for a string in single or back quotes after a value and a blank: read as tokens, its commas and colons
    // would be JSON's.
    const quoted =
      (c > 0x7f && (isCurlyQuote(c) || isSingleQuoteLike(c))) ||
      ((c === APOSTROPHE || (c === 0x60 && !text.startsWith('```', i))) && /\s/.test(text[i - 1] ?? ''));
    const note =
      (isCurlyQuote(c) || isSingleQuoteLike(c) || c === APOSTROPHE) &&
      !text.startsWith('```', i) &&
      (last === COMMA || isValueEnd(last)) &&
      wordsAfterQuotedTerm(text, i + 1, c);
    if (quoted && !note && isValueEnd(last)) {
      copyUpTo(i);
      out.push(',');
      copyFrom = i;
      last = COMMA;
    }
    // A key or value in curly quotes (“path”: “a.txt”, as an input method or a word processor writes them) is that
    // string when it holds no other quote, backslash or line break and a colon, comma or bracket follows it; anything
    // else would be a guess at where it ends, so the text is refused saying so.
    if (isCurlyQuote(c) && !note && (last === -1 || last === COMMA || last === COLON || last === 0x7b || last === 0x5b)) {
      const close = curlyQuotedEnd(text, i + 1);
      if (close === -1) {
        const shown = JSON.stringify(cut(text.slice(i, lineEndFrom(i)).trim(), 40));
        const why = 'holds another quote, a backslash or a line break before it ends; write the string in straight double quotes';
        return { text, cutShort, unrepairable: `${shown} opens a string with a curly quote and ${why}` };
      }
      copyUpTo(i);
      out.push(`"${text.slice(i + 1, close)}"`);
      noteString(text.slice(i + 1, close), close + 1);
      // the comma before it is no trailing comma: the bracket after it must not take it away
      pendingComma = -1;
      last = QUOTE;
      i = copyFrom = close + 1;
      continue;
    }
    // `...` or `…` where a key, value or item would be is something the writer left out (`{"path": "/w/build", ...}`,
    // an example's shorthand): the library drops it, and the call would run without what it stands for.
    if (
      ((c === 0x2e && text.startsWith('...', i)) || c === ELLIPSIS) &&
      (last === -1 ||
        last === COMMA ||
        last === COLON ||
        last === 0x7b ||
        last === 0x5b ||
        (isValueEnd(last) && /\s/.test(text[i - 1] ?? '')))
    ) {
      const shown = c === ELLIPSIS ? '"…"' : '"..."';
      return { text, cutShort, unrepairable: `${shown} stands where something was left out; write the call in full` };
    }
    // A value wrapped in a function call (`echo("rm -rf build")`, `make (all)`, MongoDB's `ObjectId("…")`): the library
    // keeps what is inside the brackets and drops the name, so the call would run with another value than the one meant.
    if ((last === COMMA || last === COLON || last === 0x5b) && c < 128) {
      FUNCTION_CALL.lastIndex = i;
      const call = FUNCTION_CALL.exec(text);
      if (call !== null) {
        const why = 'wraps a value in a function call, which JSON has no way to write; write the value itself';
        return { text, cutShort, unrepairable: `${JSON.stringify(call[0])} ${why}` };
      }
    }
    // A number the repair would change (`"line": -` read as 0, `"offset": 1e` as 1, `0x1F` as a string): the call would
    // run with a value its writer did not write.
    const numberStart = c === 0x2d || c === 0x2b || c === 0x2e || (c >= 0x30 && c <= 0x39);
    if ((last === COMMA || last === COLON || last === 0x5b) && numberStart) {
      const changed = numberNotAsWritten(text, i);
      if (changed !== undefined) return { text, cutShort, unrepairable: changed };
    }
    // A `+` after a string that joins it to nothing (`"line 1\n" +` and then `}`, a comment maybe between): the library
    // drops it, and the call would run without the part its writer meant to add.
    if (c === 0x2b) joined = last === QUOTE ? (lastString ?? '') : undefined;
    if (joined !== undefined && last === 0x2b && (c === COMMA || c === 0x7d || c === 0x5d)) {
      return { text, cutShort, unrepairable: joinedToNothing(joined) };
    }
    // A key with no value after its colon (`"content": ,`, `"cwd": }`), or JavaScript's `undefined`: the library writes
    // null there, a value the writer never wrote (null is not "left out" to every tool).
    if (last === COLON && (c === COMMA || c === 0x7d || c === 0x5d)) {
      const colon = Math.max(text.lastIndexOf(':', i), text.lastIndexOf('\uff1a', i));
      const key = Math.max(...[',', '\uff0c', '{', '\n'].map((before) => text.lastIndexOf(before, colon - 1))) + 1;
      const shown = JSON.stringify(cut(text.slice(key, i + 1).replace(/\s+/g, ' ').trim(), 40));
      const why = 'write the value, or leave the key out';
      return { text, cutShort, unrepairable: `a key has no value after its colon (${shown}); ${why}` };
    }
    // JavaScript's NaN and Infinity are no JSON numbers: the library passes them on as the text they write, so a tool
    // wanting a number got the string "NaN" (or "Infinity") instead.
    if ((last === COMMA || last === COLON || last === 0x5b) && (c === 0x4e || c === 0x49 || c === 0x2d || c === 0x2b)) {
      const word = NOT_A_NUMBER.exec(text.slice(i, i + 12))?.[0];
      if (word !== undefined) {
        const why = 'is no number JSON can write, and the repair would pass it on as text; write the number meant, null, or the word in double quotes';
        return { text, cutShort, unrepairable: `the value ${JSON.stringify(word)} ${why}` };
      }
    }
    if ((last === COMMA || last === COLON || last === 0x5b) && c === 0x75 && UNDEFINED.test(text.slice(i, i + 10))) {
      const why = "is no JSON value, and the repair would write null; leave the key out, or write null if that is what is meant";
      return { text, cutShort, unrepairable: `the value "undefined" ${why}` };
    }
    // A bare key where one starts, or after a value and a blank (its comma left out, put in), is written in double
    // quotes: a call with bare keys (`{path: "a.css", content: "…"}`) then needs no library, whose size limit a file's
    // content goes over and which read a string starting with a colon (`":root {…}"`) as ending elsewhere.
    if (c < 128 && (last === 0x7b || last === COMMA || (isValueEnd(last) && /\s/.test(text[i - 1] ?? '')))) {
      BARE_KEY.lastIndex = i;
      const key = BARE_KEY.exec(text)?.[0];
      if (key !== undefined) {
        written?.keys.push(key);
        copyUpTo(i);
        out.push(isValueEnd(last) ? `,"${key}"` : `"${key}"`);
        i = copyFrom = i + key.length;
        last = QUOTE;
        lastString = undefined;
        pendingComma = -1;
        continue;
      }
    }
    // Prose after a value or a comma (seed 002 §二 explains fields in Chinese after the comma): drop the line. Words
    // followed on their line by another key are no note at the end of a line: dropping the line would drop that key,
    // so the text is refused with the words named.
    // A key or value in curly single quotes after a comma is JSON, read below like one in straight single quotes.
    if ((c > 0x7f || note) && (last === COMMA || isValueEnd(last)) && (note || !(last === COMMA && isSingleQuoteLike(c)))) {
      const lineEnd = lineEndFrom(i);
      const words = text.slice(i, lineEnd);
      const keyAfter = KEY_AHEAD.exec(words);
      if (keyAfter !== null) {
        const stray = JSON.stringify(cut(words.slice(0, keyAfter.index).trim(), 40));
        const why = 'with more of the JSON after them on their line (write them in a // comment, or leave them out)';
        return { text, cutShort, unrepairable: `the words ${stray} stand between its values ${why}` };
      }
      copyUpTo(i);
      i = copyFrom = lineEnd;
      continue;
    }
    if (
      c < 128 &&
      isValueEnd(last) &&
      !(WORD[text.charCodeAt(i - 1)] === 1) &&
      (VALUE_START[c] === 1 || PYTHON_KEYWORD.test(text.slice(i, i + 6)))
    ) {
      copyUpTo(i);
      out.push(',');
      copyFrom = i;
    }
    // Python's True, False and None where a value starts are JSON's true, false and null, here rather than by the
    // library, whose size limit a Python-style plan writing a file goes over
    if (
      (c === 0x54 || c === 0x46 || c === 0x4e) &&
      (last === COLON || last === COMMA || last === 0x5b || isValueEnd(last)) &&
      !(WORD[text.charCodeAt(i - 1)] === 1)
    ) {
      const keyword = PYTHON_KEYWORD.exec(text.slice(i, i + 6))?.[0];
      if (keyword !== undefined && !/^\s*[:\uff1a]/.test(text.slice(i + keyword.length, i + keyword.length + 8))) {
        copyUpTo(i);
        out.push(keyword === 'None' ? 'null' : keyword.toLowerCase());
        i = copyFrom = i + keyword.length;
        last = 0x65;
        lastString = undefined;
        pendingComma = -1;
        continue;
      }
    }
    // A string holding an open bracket right before a closing one (`bracketGuess`); not the text's last bracket, where
    // the library, finding no later quote, ends the string where it should.
    if ((c === 0x7d || c === 0x5d) && lastString !== undefined && written && written.bracketGuess === undefined) {
      const [open, close] = c === 0x7d ? ['{', '}'] : ['[', ']'];
      const unclosed = lastString.split(open).length > lastString.split(close).length;
      if (unclosed && !(depth === 1 && text.slice(i + 1).trim() === '')) written.bracketGuess = lastString;
    }
    if (c !== COMMA) lastString = undefined;
    if (c === 0x7d || c === 0x5d) {
      depth--;
      if (pendingComma !== -1) out[pendingComma] = '';
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
    }
    pendingComma = -1;
    if (c === COMMA) {
      copyUpTo(i);
      pendingComma = out.length;
      out.push(',');
      copyFrom = i + 1;
    }
    // Python's string in triple quotes where a value starts (a file's content in a Python-style plan): what stands
    // between them, read as a string in single quotes is. One ending in a quote of its kind (`"""say "hi""""`) is a
    // guess; a backslash at a line's end, which Python drops with the line break, is refused rather than kept.
    if ((c === QUOTE || c === APOSTROPHE) && (last === COLON || last === COMMA || last === 0x5b)) {
      const triple = text.slice(i, i + 3);
      if (triple === '"""' || triple === "'''") {
        const close = tripleQuotedEnd(text, i + 3, triple);
        const inner = text.slice(i + 3, close === -1 ? n : close);
        if (close === -1) {
          cutShort = true;
          break;
        }
        const shown = JSON.stringify(cut(inner, 40));
        if (text[close + 3] === triple[0] || /\\\r?\n/.test(inner)) {
          const why = 'ends in a quote of its own or holds a backslash at a line\'s end, so what it holds is a guess';
          return { text, cutShort, unrepairable: `the string ${shown} in triple quotes ${why}; write it in double quotes` };
        }
        const json = singleQuotedAsJson(inner, c);
        if (json === undefined) return { text, cutShort, unrepairable: backslashGuess(inner) };
        copyUpTo(i);
        out.push(`"${json}"`);
        noteString(json, close + 3);
        last = QUOTE;
        i = copyFrom = close + 3;
        continue;
      }
    }
    // ‘it’s’ or `it`s` is the same guess for the library, which wrote the apostrophe as a double quote ("it\"s").
    // A fence's ``` is no quote.
    if (
      (c === APOSTROPHE || (isSingleQuoteLike(c) && !text.startsWith('```', i))) &&
      (last === -1 || last === COMMA || last === COLON || last === 0x7b || last === 0x5b)
    ) {
      const close = singleQuotedEnd(text, i + 1, c);
      // no closing quote, but one after a backslash (`'C:\work\'`): the library ends the string there and drops
      // the backslashes ("C:work'")
      if (close === -1 && written && written.quoteEscaped === undefined) {
        const escaped = /\\['\u2018\u2019`\u00b4]/.exec(text.slice(i + 1, lineEndFrom(i)));
        if (escaped !== null && (c !== APOSTROPHE || escaped[0] === "\\'")) {
          written.quoteEscaped = text.slice(i + 1, lineEndFrom(i)).trim();
        }
      }
      if (close !== -1) {
        // `'Don't panic'`: the quote that would close it is an apostrophe inside a word or before more words, and the
        // library read the rest as another key (a plan wrote "Don" to the file). Where such a string ends is a guess.
        if (goesOnAfterQuote(text, close + 1)) {
          const shown = JSON.stringify(cut(text.slice(i, lineEndFrom(i)).trim(), 40));
          const why = 'holds an apostrophe, so where it ends is a guess; write the string in double quotes';
          return { text, cutShort, unrepairable: `${shown} opens a string with a single quote and ${why}` };
        }
        // written as the double-quoted string it is, so its backslashes keep the meaning they have above
        const json = singleQuotedAsJson(text.slice(i + 1, close), c);
        if (json === undefined) return { text, cutShort, unrepairable: backslashGuess(text.slice(i + 1, close)) };
        copyUpTo(i);
        out.push(`"${json}"`);
        noteString(json, close + 1);
        last = QUOTE;
        i = copyFrom = close + 1;
        continue;
      }
    }
    if (c === QUOTE) {
      const backslashes = backslashesAreLiteral(text, i + 1);
      if (backslashes === 'guess') {
        return { text, cutShort, unrepairable: backslashGuess(text.slice(i + 1, lineEndFrom(i + 1))) };
      }
      const literal = backslashes === 'literal';
      // what the string becomes is collected for `strings`: its chunks of `out`, from here to its closing quote
      let first = -1;
      if (strings !== undefined) {
        copyUpTo(i + 1);
        copyFrom = i + 1;
        first = out.length;
      }
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d === BACKSLASH) {
          const e = text.charCodeAt(j + 1);
          // `\'` is an apostrophe escaped as in JavaScript or Python: drop the backslash.
          if (e === APOSTROPHE) {
            copyUpTo(j);
            copyFrom = j + 1;
            j++;
            continue;
          }
          // Any other escape JSON does not have (`\U`, `\d`, `\u` without 4 hex digits) was a backslash the writer
          // meant literally: keep it (the library would drop it or fail). See `backslashesAreLiteral` for Windows paths.
          if (j + 1 < n && e !== QUOTE && e !== BACKSLASH && (literal || !isJsonEscape(text, j))) {
            copyUpTo(j);
            out.push('\\\\');
            copyFrom = j + 1;
            continue;
          }
          j++;
          continue;
        }
        if (d === QUOTE) break;
        if (d < 0x20) {
          copyUpTo(j);
          out.push(escapeControl(d));
          copyFrom = j + 1;
        }
      }
      if (j >= n) {
        cutShort = true;
        endsInString = true;
      } else if (strings !== undefined) {
        copyUpTo(j);
        copyFrom = j;
        noteString(out.slice(first).join(''), j + 1);
      }
      last = QUOTE;
      i = j + 1;
      continue;
    }
    last = c;
    i++;
  }
  if (joined !== undefined && last === 0x2b) return { text, cutShort, unrepairable: joinedToNothing(joined) };
  copyUpTo(n);
  const prepared = out.join('');
  if (endsInString) return { text: prepared, cutShort: true, endsInString };
  return { text: prepared, cutShort: cutShort || depth > 0 };
}
