import { revealHidden } from '../reveal-hidden';

/**
 * A short, readable rendering of a value for error messages: strings quoted and cut, containers named. Characters a
 * reader cannot see are shown (`"fs.read⟨U+200B⟩"`), or the message would name a value that looks like an allowed one.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(cut(revealHidden(value)));
  return String(value);
}

/** The first `max` characters of `text`, marked when cut; for quoting model output in messages. */
export function cut(text: string, max = 60): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
