/**
 * What the journal keeps on disk for one entry. Since 2026-11-25 (format 2):
 * - `<dir>/<id>.jsonl` — one file per change, one JSON line each: first the intent (the ops, contents summarized,
 *   never stored), then the undo records, each appended and fsync'd *before* the change it reverses runs — a
 *   restore-file record carries the file's before-image inline (base64) up to INLINE_BEFORE_BYTES — then a state
 *   line per change of state (applied with the after-state, rolled-back, undoing, undone); the last one counts;
 * - `<dir>/<id>/before/<n>` — a before-image too large to go inline;
 * - `<dir>/<id>/trash/<n>` — what fs.rm removed (and what a `mv --overwrite` replaced), moved here whole.
 * Format 1 (written until 2026-11-25, still read, recovered and undone): `<dir>/<id>/intent.json` (the intent, the
 * state and the after-state, rewritten whole by rename), `<dir>/<id>/undo.jsonl` (the undo records), and the
 * before/ and trash/ folders as above. An entry is format 2 exactly when `<dir>/<id>.jsonl` exists.
 * Every undo record is idempotent, so replaying them in reverse repairs any point a crash could stop at.
 */
import path from 'node:path';
import { z } from 'zod';
import type { FileOp } from '../types';
import { isInsideAnyCase } from '../policy/path-guard';

/*
 * The records are schemas, not casts: a journal entry is read back from disk at every start and every undo, and
 * whatever sits in the data directory must never steer a restore outside the roots (see validateEntry).
 */

const text = z.string();
const fileMode = z.number().int().min(0).max(0o7777);

export const intentStateSchema = z.enum(['preparing', 'applying', 'applied', 'rolled-back', 'undoing', 'undone']);
export type IntentState = z.infer<typeof intentStateSchema>;

export const opSummarySchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('write'), path: text, mode: z.enum(['overwrite', 'append']), bytes: z.number().int().nonnegative(), sha256: text }),
  z.object({ op: z.literal('rm'), path: text, recursive: z.boolean() }),
  z.object({ op: z.literal('mv'), from: text, to: text, overwrite: z.boolean() }),
  z.object({ op: z.literal('mkdir'), path: text, parents: z.boolean() }),
  z.object({ op: z.literal('chmod'), path: text, mode: text }),
]);
export type OpSummary = z.infer<typeof opSummarySchema>;

/** The state of one touched path once the entry applied; undo requires the disk to still look like this. */
export const pathStateSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('absent') }),
  z.object({ kind: z.literal('file'), sha256: text, mode: z.number().int() }),
  /** tree: a folder a move put in place also has a digest of everything under it (ops.ts treeDigest) */
  z.object({ kind: z.literal('dir'), entries: z.array(text), mode: z.number().int(), tree: text.optional() }),
  z.object({ kind: z.literal('symlink'), target: text }),
  /** a FIFO, socket or device: never read */
  z.object({ kind: z.literal('other') }),
]);
export type PathState = z.infer<typeof pathStateSchema>;

export const intentRecordSchema = z.object({
  id: text,
  time: text,
  label: text,
  origin: z.object({ runId: text, site: text, conversationId: text, messageKey: text.optional() }).optional(),
  state: intentStateSchema,
  ops: z.array(opSummarySchema),
  paths: z.array(text),
  /** set when state becomes applied */
  after: z.record(text, pathStateSchema).optional(),
  /** the error that made apply roll back */
  error: text.optional(),
});
export type IntentRecord = z.infer<typeof intentRecordSchema>;

/** A before-image or trash reference: a file of this entry's own folder, nothing else. */
const refSchema = z.string().regex(/^(?:before|trash)\/\d+$/, 'a reference must be before/<n> or trash/<n> inside its own entry');

export const undoRecordSchema = z.discriminatedUnion('type', [
  /** put back the bytes (and mode) a file held before */
  z.object({ type: z.literal('restore-file'), path: text, ref: refSchema, mode: fileMode }),
  /** the path did not exist before: remove what is there now (a file, a link, or an empty directory) */
  z.object({ type: z.literal('remove-created'), path: text, dir: z.boolean() }),
  /** the path was moved into the trash: move it back if the path is free */
  z.object({ type: z.literal('return-from-trash'), path: text, ref: refSchema }),
  /** `from` was renamed to `to`: rename it back if `from` is free */
  z.object({ type: z.literal('move-back'), from: text, to: text }),
  z.object({ type: z.literal('chmod'), path: text, mode: fileMode }),
]);
export type UndoRecord = z.infer<typeof undoRecordSchema>;

/** A before-image up to this size is written inside the entry's file, in the same write and fsync as its record. */
export const INLINE_BEFORE_BYTES = 256 * 1024;

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'inline bytes must be base64');

/** One line of a format-2 entry file. */
export const entryLineSchema = z.discriminatedUnion('t', [
  /** always the first line; its state is `applying`, or final when the change failed before recording anything */
  z.object({ t: z.literal('intent'), intent: intentRecordSchema }),
  /** `bytes`: the before-image of a restore-file record, which then is read from here, not from its ref's file */
  z.object({ t: z.literal('undo'), undo: undoRecordSchema, bytes: base64.optional() }),
  z.object({ t: z.literal('state'), state: intentStateSchema, after: z.record(text, pathStateSchema).optional(), error: text.optional() }),
  /** a lone write's path will hold bytes with this sha256 (and this mode, when known beforehand): see recover() */
  z.object({ t: z.literal('expect'), path: text, sha256: z.string().regex(/^[0-9a-f]{64}$/), mode: fileMode.optional() }),
]);
export type ExpectLine = Extract<EntryLine, { t: 'expect' }>;
export type EntryLine = z.infer<typeof entryLineSchema>;

/** Where the paths of a journal entry may be: inside a root, never in the companion's own data. */
export interface EntryBounds {
  roots: readonly string[];
  /** the companion's own directories (the data directory, the journal itself) */
  reserved: readonly string[];
}

function isInside(candidate: string, dir: string): boolean {
  return candidate === dir || candidate.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

/** Why a path of an entry may not be touched by a restore, or undefined when it may. */
export function outOfBounds(p: string, bounds: EntryBounds): string | undefined {
  if (!path.isAbsolute(p) || path.resolve(p) !== p) return `${JSON.stringify(p)} is not an absolute, normalized path`;
  // in any case, as the path guard decides it: on a case-insensitive file system the data directory has every case
  if (bounds.reserved.some((dir) => isInsideAnyCase(p, dir) || isInsideAnyCase(dir, p))) return `${JSON.stringify(p)} is in the companion's own data`;
  if (!bounds.roots.some((root) => isInside(p, root) && p !== root)) return `${JSON.stringify(p)} is not inside a root (${bounds.roots.join(', ')})`;
  return undefined;
}

/** Every path an entry names, from its intent and its undo records. */
export function namedPaths(intent: IntentRecord, records: readonly UndoRecord[]): string[] {
  const paths = new Set<string>(intent.paths);
  for (const op of intent.ops) {
    if (op.op === 'mv') {
      paths.add(op.from);
      paths.add(op.to);
    } else paths.add(op.path);
  }
  for (const p of Object.keys(intent.after ?? {})) paths.add(p);
  for (const record of records) {
    if (record.type === 'move-back') {
      paths.add(record.from);
      paths.add(record.to);
    } else paths.add(record.path);
  }
  return [...paths];
}

export function summarizeOp(op: FileOp, sha256: (content: Uint8Array | string) => string): OpSummary {
  switch (op.op) {
    case 'write':
      return {
        op: 'write',
        path: op.path,
        mode: op.mode ?? 'overwrite',
        bytes: typeof op.content === 'string' ? Buffer.byteLength(op.content) : op.content.byteLength,
        sha256: sha256(op.content),
      };
    case 'rm':
      return { op: 'rm', path: op.path, recursive: op.recursive ?? false };
    case 'mv':
      return { op: 'mv', from: op.from, to: op.to, overwrite: op.overwrite ?? false };
    case 'mkdir':
      return { op: 'mkdir', path: op.path, parents: op.parents ?? false };
    case 'chmod':
      return { op: 'chmod', path: op.path, mode: op.mode.toString(8).padStart(4, '0') };
  }
}

export function pathsOf(ops: readonly FileOp[]): string[] {
  const paths = new Set<string>();
  for (const op of ops) {
    if (op.op === 'mv') {
      paths.add(op.from);
      paths.add(op.to);
    } else {
      paths.add(op.path);
    }
  }
  return [...paths];
}
