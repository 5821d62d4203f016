import { z } from 'zod';
import { revealHidden } from '../reveal-hidden';
import { suggestArgumentName } from './suggest';

/*
 * Turns zod issues into the one line a model reads after a bad call. Each part names the argument, the value
 * it got and the rule, and unknown names come with the names the tool does take — the model's next call should
 * be right without guessing.
 */

type Issue = z.core.$ZodIssue;
type Path = ReadonlyArray<PropertyKey>;

const MAX_PARTS = 3;

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodDefault || current instanceof z.ZodNullable) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/** The schema that checks the value at `path`, if the walk can follow it. */
function schemaAt(root: z.ZodType, path: Path): z.ZodType | undefined {
  let current: z.ZodType | undefined = unwrap(root);
  for (const key of path) {
    if (current instanceof z.ZodObject) current = (current.shape as Record<string, z.ZodType>)[String(key)];
    else if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else if (current instanceof z.ZodRecord) current = current._zod.def.valueType as z.ZodType;
    else return undefined;
    if (current === undefined) return undefined;
    current = unwrap(current);
  }
  return current;
}

function valueAt(value: unknown, path: Path): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** `files[0].path` style, as a model would write it back. */
export function formatPath(path: Path): string {
  let text = '';
  for (const key of path) text += typeof key === 'number' ? `[${key}]` : `${text === '' ? '' : '.'}${String(key)}`;
  return text;
}

/** What the schema expects, in words: "an integer from 0 to 5", "one of overwrite, append", "an array of strings". */
export function describeExpected(schema: z.ZodType | undefined): string {
  const inner = schema === undefined ? undefined : unwrap(schema);
  if (inner instanceof z.ZodString) return 'a string';
  if (inner instanceof z.ZodBoolean) return 'true or false';
  if (inner instanceof z.ZodEnum) return `one of ${inner.options.join(', ')}`;
  if (inner instanceof z.ZodNumber) {
    const noun = inner.isInt ? 'an integer' : 'a number';
    const min = inner.minValue;
    const max = inner.maxValue;
    const hasMin = min !== null && Number.isSafeInteger(min) && min > Number.MIN_SAFE_INTEGER;
    const hasMax = max !== null && Number.isSafeInteger(max) && max < Number.MAX_SAFE_INTEGER;
    if (hasMin && hasMax) return `${noun} from ${min} to ${max}`;
    if (hasMin) return `${noun} ≥ ${min}`;
    if (hasMax) return `${noun} ≤ ${max}`;
    return noun;
  }
  if (inner instanceof z.ZodArray) {
    const element = describeExpected(inner.element as z.ZodType);
    return element === 'a string' ? 'an array of strings' : element === 'an object' ? 'an array of objects' : `an array (each ${element})`;
  }
  if (inner instanceof z.ZodRecord) return 'an object of string values';
  if (inner instanceof z.ZodObject) return 'an object';
  return 'a valid value';
}

/** A short, one-line rendering of a value and its JSON type: `"2" (a string)`, `[…] (an array)`. */
export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  const kind = Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  // a value that looks like an allowed one but is not: show what the reader cannot see
  text = revealHidden(text);
  if (text.length > 60) text = `${text.slice(0, 57)}…`;
  return `${text} (${kind})`;
}

function allowedKeys(schema: z.ZodType | undefined): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

interface UnknownKeysPart {
  path: Path;
  text: string;
  /** Required names the unknown ones stand for: their "missing" issues say nothing new. */
  explains: string[];
}

const MAX_UNKNOWN_SHOWN = 5;

/** A key as quoted in a message: a model may send a huge or multi-line one. */
function shortKey(key: string): string {
  const line = revealHidden(key.replace(/[\r\n]+/g, ' '));
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}

function describeUnknownKeys(tool: string, root: z.ZodType, path: Path, allKeys: readonly string[]): UnknownKeysPart {
  const keys = allKeys.slice(0, MAX_UNKNOWN_SHOWN);
  const allowed = allowedKeys(schemaAt(root, path));
  const where = path.length === 0 ? tool : `${tool} ${formatPath(path)}`;
  const noun = path.length === 0 ? 'arguments' : 'fields';
  const suggestions = keys.map((key) => suggestArgumentName(key, allowed));
  const known = suggestions.filter((name): name is string => name !== undefined);
  const list = `its ${noun} are ${allowed.join(', ')}`;
  if (keys.length > 1 && keys.length === allKeys.length && known.length === keys.length) {
    return { path, text: `${where} takes ${known.join('/')}, not ${keys.map(shortKey).join('/')}; ${list}`, explains: known };
  }
  const named = keys.map((key, index) => {
    const suggestion = suggestions[index];
    return suggestion === undefined ? `"${shortKey(key)}"` : `"${shortKey(key)}" (did you mean "${suggestion}"?)`;
  });
  if (allKeys.length > keys.length) named.push(`and ${allKeys.length - keys.length} more`);
  const singular = noun === 'arguments' ? 'argument' : 'field';
  const has = allKeys.length === 1 ? `has no ${singular} ${named[0]}` : `has no ${noun} ${named.join(', ')}`;
  return { path, text: `${where} ${has}; ${list}`, explains: known };
}

function describeIssue(tool: string, root: z.ZodType, args: unknown, issue: Issue): string {
  const field = formatPath(issue.path);
  const subject = field === '' ? tool : `${tool} argument "${field}"`;
  const value = valueAt(args, issue.path);
  const got = `, got ${showValue(value)}`;
  if (isMissing(issue, args)) {
    return `${tool} is missing ${field === '' ? 'its arguments' : `"${field}"`} (${describeExpected(schemaAt(root, issue.path))})`;
  }
  switch (issue.code) {
    case 'invalid_type':
      return `${subject} must be ${describeExpected(schemaAt(root, issue.path))}${got}`;
    case 'invalid_value':
      if (issue.message.startsWith('Invalid')) return `${subject} must be ${describeExpected(schemaAt(root, issue.path))}${got}`;
      return `${subject} ${issue.message}${got}`;
    case 'too_small':
    case 'too_big': {
      if (issue.origin === 'string' && issue.code === 'too_small') return `${subject} must not be empty`;
      if (issue.origin === 'array' && issue.code === 'too_small') return `${subject} must hold at least ${issue.minimum} item(s)`;
      return `${subject} must be ${describeExpected(schemaAt(root, issue.path))}${got}`;
    }
    case 'invalid_format':
    case 'custom':
      if (issue.message.startsWith('must')) return `${subject} ${issue.message}${got}`;
      return `${subject} ${issue.message}`;
    default:
      return `${subject} ${issue.message.charAt(0).toLowerCase()}${issue.message.slice(1)}`;
  }
}

function isMissing(issue: Issue, args: unknown): boolean {
  return (issue.code === 'invalid_type' || issue.code === 'invalid_value') && valueAt(args, issue.path) === undefined;
}

/** A "missing …" rule (e.g. the filesystem tool's per-action arguments) whose names the unknown ones stand for. */
function onlyMissing(message: string, path: Path, explained: ReadonlySet<string>): boolean {
  const missing = /missing ((?:"[^"]+"(?:, )?)+)$/.exec(message)?.[1];
  if (missing === undefined) return false;
  const names = [...missing.matchAll(/"([^"]+)"/g)].map((match) => formatPath([...path, match[1] ?? '']));
  return names.every((name) => explained.has(name));
}

/** One line naming every distinct problem (up to three), unknown names first. */
export function describeIssues(tool: string, root: z.ZodType, args: unknown, issues: readonly Issue[]): string {
  const unknown = issues
    .filter((issue): issue is z.core.$ZodIssueUnrecognizedKeys => issue.code === 'unrecognized_keys')
    .map((issue) => describeUnknownKeys(tool, root, issue.path, issue.keys));
  const explained = new Set(unknown.flatMap((part) => part.explains.map((name) => formatPath([...part.path, name]))));
  const rest = issues
    .filter((issue) => issue.code !== 'unrecognized_keys')
    .filter((issue) => !(isMissing(issue, args) && explained.has(formatPath(issue.path))))
    .filter((issue) => !(issue.code === 'custom' && onlyMissing(issue.message, issue.path, explained)))
    .map((issue) => describeIssue(tool, root, args, issue));
  const parts = [...new Set([...unknown.map((part) => part.text), ...rest])];
  const shown = parts.slice(0, MAX_PARTS).join('; ');
  const more = parts.length > MAX_PARTS ? ` (and ${parts.length - MAX_PARTS} more)` : '';
  return (shown + more).replace(/[\r\n]+/g, ' ');
}
