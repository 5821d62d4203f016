/**
 * defineHandler pairs a tool contract (shared/tools) with what the companion does for it, plus the few helpers
 * every handler needs: resolving paths through the guard, reading a file's text for a preview, unified diffs and
 * replacements bounded in time, and capping what a model reads.
 */
import type { Stats } from 'node:fs';
import { createTwoFilesPatch, formatPatch } from 'diff';
import type { z } from 'zod';
import { ToolError } from '../../shared/errors';
import type { ReplaceFailure } from '../../shared/replace';
import { looksBinary } from '../fsx/binary';
import { isMissing } from '../fsx/errno';
import { readFd } from '../fsx/fd';
import { closeFile, lstatMaybe, readWhole } from '../fsx/fs-calls';
import { assertWithinFileLimit } from '../policy/file-limit';
import { openFdForReadWithStat, resolveInsideRoots, type ResolveOptions } from '../policy/path-guard';
import { REDACTED, refuseMarkerOverSecret } from '../policy/redact';
import type { Policy } from '../policy/schema';
import type { ToolContext, ToolHandler } from '../types';
import { runWithin } from '../watchdog';

export function defineHandler<S extends z.ZodType>(handler: ToolHandler<S>): ToolHandler<S> {
  return handler;
}

/** The path resolutions of one tool call, by the call's own context object (see withCallScope). */
const callResolutions = new WeakMap<object, Map<string, Promise<string>>>();

/**
 * A copy of `ctx` for one tool call, in which resolvePath resolves each (path, options) once and plan, preview
 * and run share the answer. That is sound because what finally touches the disk checks again for itself:
 * reads open with O_NOFOLLOW and confirm the descriptor's real path (openForRead); writes, removes, moves,
 * mkdir and chmod go through the journal, which re-resolves the directory right before the rename or change.
 * A run whose final use is a plain path — a directory walk, a child's cwd — resolves anew with resolvePathNow.
 */
export function withCallScope<C extends Pick<ToolContext, 'policy'>>(ctx: C): C {
  // An object that inherits ctx's fields (read them, never spread it): a copy would read the run's `signal` getter,
  // which makes it (runs/run-stop.ts), and copying the getter as a getter cost a read 20 µs in a profile.
  const scoped = Object.create(ctx) as C;
  callResolutions.set(scoped, new Map());
  return scoped;
}

/** Resolves a tool path through the guard; once per call inside withCallScope, every time outside it. */
export function resolvePath(input: string, ctx: Pick<ToolContext, 'policy'>, options: ResolveOptions = {}): Promise<string> {
  const resolutions = callResolutions.get(ctx);
  if (!resolutions) return resolveInsideRoots(input, ctx.policy, options);
  const key = `${options.mustExist ? 'e' : '-'}${options.forWrite ? 'w' : '-'}${options.keepFinalName ? 'k' : '-'}${input}`;
  let resolved = resolutions.get(key);
  if (!resolved) {
    resolved = resolveInsideRoots(input, ctx.policy, options);
    resolutions.set(key, resolved);
  }
  return resolved;
}

/**
 * Resolves through the guard now, never from the call's earlier answer: for a run that hands the path to
 * something that follows symlinks on the way (a walk, a cwd), so the only window left is the one that was
 * always there — since plan, an approval may have waited minutes.
 */
export function resolvePathNow(input: string, ctx: Pick<ToolContext, 'policy'>, options: ResolveOptions = {}): Promise<string> {
  return resolveInsideRoots(input, ctx.policy, options);
}

export function workspaceRoot(policy: Pick<Policy, 'roots'>): string {
  const root = policy.roots[0];
  if (root === undefined) throw new ToolError('FORBIDDEN', 'no workspace root is configured (policy.roots is empty)');
  return root;
}

/** Reads a resolved file through the guard (O_NOFOLLOW + descriptor check), refusing files over maxFileBytes. */
export async function readGuarded(resolved: string, policy: Policy): Promise<Buffer> {
  return (await readGuardedWithStat(resolved, policy)).bytes;
}

export async function readGuardedWithStat(resolved: string, policy: Policy): Promise<{ bytes: Buffer; stat: Stats }> {
  const { fd, stat } = await openFdForReadWithStat(resolved, policy);
  try {
    if (stat.isDirectory()) throw new ToolError('INVALID_INPUT', `${JSON.stringify(resolved)} is a directory, not a file`, { path: resolved });
    assertWithinFileLimit(resolved, stat.size, policy);
    return { bytes: await readKnownSize(fd, stat.size, policy.limits.maxFileBytes, resolved), stat };
  } finally {
    await closeFile(fd);
  }
}

/**
 * The file's bytes, read with the size the descriptor's stat gave — one read(2) for a file that did not change,
 * where readFile() would stat it again first. Like readFile, it reads up to that size (a file that grew since is
 * read as it was); a file that reports size 0 (some special files) is read to its end, up to `max` bytes.
 */
async function readKnownSize(fd: number, size: number, max: number, resolved: string): Promise<Buffer> {
  if (size === 0) {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const { bytesRead } = await readFd(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      total += bytesRead;
      if (total > max) {
        throw new ToolError('LIMIT_EXCEEDED', `${JSON.stringify(resolved)} is over the limit of ${max} bytes (limits.maxFileBytes)`, { path: resolved });
      }
      chunks.push(chunk.subarray(0, bytesRead));
    }
  }
  return readWhole(fd, size);
}

/**
 * Whether something is at a resolved path now (not following a symlink there), for a preview's verb; a directory
 * where a file is to be written is refused as reading it would be.
 */
export async function fileExistsNow(resolved: string): Promise<boolean> {
  const stat = await lstatMaybe(resolved);
  if (stat?.isDirectory()) throw new ToolError('INVALID_INPUT', `${JSON.stringify(resolved)} is a directory, not a file`, { path: resolved });
  return stat !== undefined;
}

/** The text a file holds now, '' when it does not exist yet; for previews and diffs. */
export async function currentText(resolved: string, policy: Policy): Promise<{ exists: boolean; text: string; binary: boolean }> {
  try {
    const bytes = await readGuarded(resolved, policy);
    const binary = looksBinary(bytes);
    return { exists: true, text: binary ? '' : bytes.toString('utf8'), binary };
  } catch (error) {
    if (error instanceof ToolError && error.code === 'NOT_FOUND') return { exists: false, text: '', binary: false };
    if (isMissing(error)) return { exists: false, text: '', binary: false };
    throw error;
  }
}

/** A card's line for text written over, or appended to, a binary file (which has no text to diff); `chars` of it. */
export function binaryChange(path: string, chars: number, append: boolean): string {
  return append ? `(${chars} characters of text would be appended to the binary file ${path})` : `(binary file ${path} would be replaced by ${chars} characters of text)`;
}

/**
 * A whole-file write holding [REDACTED] over a file that holds a secret is refused before its card, not after the
 * person approved it (policy/redact.ts refuseMarkerOverSecret): checked against the file as it is now. A file that
 * cannot be read here (not there yet, a directory, too large) is left to the write, which says what is wrong.
 */
export async function refuseMarkerOverSecretOnDisk(resolved: string, content: Uint8Array | string, policy: Policy): Promise<void> {
  // nearly no write holds the marker: only one that does reads the file
  const marked = typeof content === 'string' ? content.includes(REDACTED) : Buffer.from(content.buffer, content.byteOffset, content.byteLength).includes(REDACTED);
  if (!marked) return;
  const existing = await readGuarded(resolved, policy).catch(() => undefined);
  if (existing !== undefined) refuseMarkerOverSecret(resolved, existing, content, policy);
}

/** Above this many characters (both sides together) a preview names the sizes instead of diffing. */
const MAX_DIFF_INPUT_CHARS = 2_000_000;

/**
 * How long the diffs of one card or one result may take in all. The library's time grows with the size of the texts
 * times the number of lines that differ, on the companion's own thread: 10 000 lines against 10 000 others took 24 s,
 * and the 2 MB allowed above would take hours, every run, approval and request of the companion waiting meanwhile.
 */
export const DIFF_MS = 1_000;

/** When the diffs made from now on for one card or result must be done (unifiedDiff's `deadline`). */
export function diffDeadline(): number {
  return Date.now() + DIFF_MS;
}

/**
 * A unified diff, or the sizes of both sides when they are too large, or so different that the diff is not done by
 * `deadline` (shared by the diffs of one card, so a plan of many files is bounded as a whole).
 */
export function unifiedDiff(oldName: string, newName: string, oldText: string, newText: string, context = 3, deadline = diffDeadline()): string {
  const sizes = `${oldText.length} characters before, ${newText.length} after`;
  if (oldText.length + newText.length > MAX_DIFF_INPUT_CHARS) return `--- ${oldName}\n+++ ${newName}\n(too large to diff here: ${sizes})\n`;
  if (oldText === '' || newText === '') return oneSidedDiff(oldName, newName, oldText, newText);
  const timeout = deadline - Date.now();
  const patch = timeout > 0 ? createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, { context, timeout }) : undefined;
  return patch ?? `--- ${oldName}\n+++ ${newName}\n(too different to diff here within ${DIFF_MS} ms: ${sizes})\n`;
}

/**
 * The diff of a file created or emptied (or deleted): every line of the one side added or removed, as one hunk the
 * library formats. Worked out by the library, that diff took as long over those lines as a real one: a created file
 * of 300 000 short lines held the companion's thread for more than a second before its card, past the diff's own
 * timeout (which bounds only the matching, not splitting the texts and writing the patch).
 */
function oneSidedDiff(oldName: string, newName: string, oldText: string, newText: string): string {
  const added = oldText === '';
  const text = added ? newText : oldText;
  const lines = text === '' ? [] : text.split('\n');
  const ended = text.endsWith('\n');
  if (ended) lines.pop();
  const sign = added ? '+' : '-';
  const changed = lines.map((line) => sign + line);
  if (text !== '' && !ended) changed.push('\\ No newline at end of file');
  const count = lines.length;
  const hunks = text === '' ? [] : [{ oldStart: 1, oldLines: added ? 0 : count, newStart: 1, newLines: added ? count : 0, lines: changed }];
  return formatPatch({ oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks });
}

/**
 * How long the replacements of one call, or of one plan's check or run, may take in all. Matching old text against a
 * file (shared/replace) is quick for text people write, but a file of many equal lines against old text of many such
 * lines costs the product of their lengths on the companion's own thread: 300 000 lines against 3 000 held every
 * run, approval and request for minutes, and a plan checks its replaces against its own earlier writes before any
 * card is shown.
 */
export const REPLACE_MS = 1_000;

export function replaceDeadline(): number {
  return Date.now() + REPLACE_MS;
}

/** A replacement (applyReplacement, applyReplacements) under the watchdog until `deadline`; past it, LIMIT_EXCEEDED. */
export function replaceWithin<R extends { ok: boolean }>(deadline: number, replace: () => R): R | ReplaceFailure {
  const result = runWithin(deadline - Date.now(), replace);
  if (result !== undefined) return result;
  return {
    ok: false,
    code: 'LIMIT_EXCEEDED',
    message: `matching the old text against the file took more than ${REPLACE_MS} ms (it repeats lines or characters the file repeats many times); give a shorter old text that occurs once`,
    matches: 0,
  };
}

/** Cuts text a model reads to `max` characters and says how to get the rest. */
export function capText(text: string, max: number, howToReadMore: string): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return { text: `${text.slice(0, max)}\n… [truncated at ${max} of ${text.length} characters; ${howToReadMore}]`, truncated: true };
}

export function formatBytes(bytes: number): string {
  return `${bytes} B`;
}
