/**
 * The PromptX `filesystem` tool (seed 004, DESIGN §3.6): one tool, an `action`, paths relative to the workspace
 * root, and replies in the manual's JSON — `{"success":true,"data":…,"message":…}` or
 * `{"success":false,"error":{"code","message","details"}}` — as the result text.
 *
 * Paths: relative to the workspace root (an absolute path is accepted when it is inside the roots); anything
 * that leaves the roots — `..`, an absolute path elsewhere, a symlink out — is PATH_TRAVERSAL. plan() throws
 * it as a ToolError FORBIDDEN whose message starts with the manual's code (a path that must exist and does not:
 * NOT_FOUND, starting FILE_NOT_FOUND), so nothing is authorized or run;
 * run() answers every failure in the manual's JSON form.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ERROR_CODES, ToolError, type ErrorCode } from '../../shared/errors';
import { applyReplacements } from '../../shared/replace';
import { riskOf } from '../../shared/tools/define-tool';
import { filesystem, filesystemActionOf, filesystemIssueCode, type FilesystemArgs } from '../../shared/tools/filesystem';
import { looksBinary } from '../fsx/binary';
import { lstatMaybe } from '../fsx/fs-calls';
import { SKIPPED_DIRS } from '../fsx/search/types';
import { walkTree } from '../fsx/walk';
import type { LinkTable } from '../policy/link-names';
import { deniedBy, escapedControlsIn, isInsideRoot, rootOf, unexpandedStart } from '../policy/path-guard';
import { hideOutsidePaths, mapSecrets, refuseEncodedSecrets, replaceOptionsFor } from '../policy/redact';
import { assertLandingsDecided, assertSubtreeMayChange, decideLandings } from '../policy/subtree-guard';
import { denyUnder } from '../policy/deny-under';
import type { ToolContext } from '../types';
import {
  currentText,
  defineHandler,
  diffDeadline,
  readGuarded,
  refuseMarkerOverSecretOnDisk,
  replaceDeadline,
  replaceWithin,
  resolvePath,
  resolvePathNow,
  unifiedDiff,
  workspaceRoot,
} from './define-handler';
import { modelGlob } from '../fsx/model-glob';

type Guarded = Pick<ToolContext, 'policy'>;

/**
 * Globs a search may leave out by. Each is matched against every entry the walk meets, on the companion's own thread
 * (~5 µs a match): 20 000 of them, a 400 KB call, over a folder of 2000 files held every request, approval and
 * /v1/status for six minutes. A few name what people leave out (build output, vendored code).
 */
export const MAX_EXCLUDE_PATTERNS = 16;

/** A failure in the manual's vocabulary. */
class FilesystemFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
  }
}

function reply(body: unknown): string {
  return JSON.stringify(body, null, 2);
}

/** The largest n in 0…count for which fits(n) holds, fits holding for every smaller n where it holds for n. */
function largestFitting(count: number, fits: (n: number) => boolean): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * A success whose reply would be longer than one result (limits.maxResultChars), cut by the tool itself, so the JSON
 * the model gets parses: the companion's cap cuts text wherever the limit falls, which went through the JSON (a
 * listing of hundreds of roles, a read whose newlines and quotes JSON escapes into twice the characters).
 *  - items: a listing's or a search's whole entries, as many as fit; `message(shown)` says how many were left out
 *  - text: a read's content, as long a start of it as fits, never half a surrogate pair
 */
type Fitted = { data: unknown; message: string; truncated: boolean };

function fitItems<T>(items: readonly T[], message: (shown: number) => string, ctx: Guarded): Fitted {
  const max = ctx.policy.limits.maxResultChars;
  const replyOf = (shown: number) => reply({ success: true, data: items.slice(0, shown), message: message(shown) });
  if (replyOf(items.length).length <= max) return { data: items, message: message(items.length), truncated: false };
  const shown = largestFitting(items.length - 1, (n) => replyOf(n).length <= max);
  return { data: items.slice(0, shown), message: message(shown), truncated: true };
}

function fitText(text: string, message: (shown: number) => string, ctx: Guarded): Fitted {
  const max = ctx.policy.limits.maxResultChars;
  const cut = (n: number) => (n > 0 && n < text.length && /[\uD800-\uDBFF]/.test(text[n - 1]!) ? n - 1 : n);
  const replyOf = (shown: number) => reply({ success: true, data: text.slice(0, shown), message: message(shown) });
  if (replyOf(text.length).length <= max) return { data: text, message: message(text.length), truncated: false };
  const shown = cut(largestFitting(text.length - 1, (n) => replyOf(cut(n)).length <= max));
  return { data: text.slice(0, shown), message: message(shown), truncated: true };
}

function manualCode(error: Pick<ToolError, 'code' | 'message'>): string {
  switch (error.code) {
    case 'NOT_FOUND':
      return 'FILE_NOT_FOUND';
    case 'FORBIDDEN':
      return /outside the allowed roots|outside the workspace|symlink|redirected|escapes/.test(error.message) ? 'PATH_TRAVERSAL' : 'PERMISSION_DENIED';
    case 'POLICY_BLOCKED':
    case 'DENIED':
      return 'PERMISSION_DENIED';
    default:
      return error.code;
  }
}

/** The companion's code for a failure the manual names: manualCode the other way, as near as it goes. */
function errorCodeOf(manual: string): ErrorCode {
  switch (manual) {
    case 'FILE_NOT_FOUND':
      return 'NOT_FOUND';
    case 'PERMISSION_DENIED':
    case 'PATH_TRAVERSAL':
      return 'FORBIDDEN';
    case 'MISSING_PARAMETER':
    case 'INVALID_ACTION':
    case 'ENCODING_ERROR':
      return 'INVALID_INPUT';
    default:
      return Object.hasOwn(ERROR_CODES, manual) ? (manual as ErrorCode) : 'INTERNAL';
  }
}

function toFailure(error: unknown, ctx: Guarded): FilesystemFailure {
  if (error instanceof FilesystemFailure) return error;
  // an errno carried in the message may name a path outside the roots (a symlink's target): never shown
  const shown = (message: string) => hideOutsidePaths(message, ctx.policy);
  if (error instanceof ToolError) return new FilesystemFailure(manualCode(error), shown(error.message), Object.keys(error.data).length ? error.data : null);
  return new FilesystemFailure('INTERNAL', shown(error instanceof Error ? error.message : String(error)));
}

function failureReply(failure: FilesystemFailure): string {
  // plan() starts a refusal's message with the manual's code (PATH_TRAVERSAL: …); the reply names it once
  const message = failure.message.startsWith(`${failure.code}: `) ? failure.message.slice(failure.code.length + 2) : failure.message;
  return reply({ success: false, error: { code: failure.code, message, details: failure.details } });
}

/** Workspace-relative (or absolute inside the roots) → resolved absolute path. */
export async function resolveWorkspacePath(
  input: string,
  ctx: Guarded,
  options: Parameters<typeof resolvePath>[2] = {},
  resolve: typeof resolvePath = resolvePath,
): Promise<string> {
  const root = workspaceRoot(ctx.policy);
  if (input.includes('\0')) throw new ToolError('INVALID_INPUT', `path ${JSON.stringify(input)} contains a NUL byte`);
  const control = escapedControlsIn(input);
  if (control !== undefined) throw new ToolError('INVALID_INPUT', control);
  const unexpanded = unexpandedStart(input);
  if (unexpanded !== undefined) {
    throw new ToolError('INVALID_INPUT', `path ${JSON.stringify(input)} starts with ${JSON.stringify(unexpanded)}, which is not expanded; give a path relative to the workspace root`);
  }
  const joined = path.isAbsolute(input) ? path.resolve(input) : path.resolve(root, input);
  if (path.isAbsolute(input) ? !rootOf(joined, ctx.policy.roots) : !isInsideRoot(joined, root)) {
    throw new ToolError('FORBIDDEN', `PATH_TRAVERSAL: ${JSON.stringify(input)} escapes the workspace root ${root}`, { path: input });
  }
  try {
    return await resolve(joined, ctx, options);
  } catch (error) {
    if (error instanceof ToolError && error.code === 'FORBIDDEN') {
      throw new ToolError('FORBIDDEN', `PATH_TRAVERSAL: ${error.message}`, error.data);
    }
    throw error;
  }
}

function relativeToRoot(absolute: string, ctx: Guarded): string {
  const root = workspaceRoot(ctx.policy);
  return isInsideRoot(absolute, root) ? path.relative(root, absolute).split(path.sep).join('/') || '.' : absolute;
}

function need<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new FilesystemFailure('MISSING_PARAMETER', `missing parameter "${name}"`);
  return value;
}

function decodeContent(content: string, encoding: FilesystemArgs['encoding']): Buffer {
  switch (encoding ?? 'utf8') {
    case 'base64':
      if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(content)) throw new FilesystemFailure('ENCODING_ERROR', 'content is not valid base64');
      return Buffer.from(content, 'base64');
    case 'hex':
      if (!/^(?:[0-9a-fA-F]{2})*$/.test(content)) throw new FilesystemFailure('ENCODING_ERROR', 'content is not valid hex (pairs of 0-9a-f)');
      return Buffer.from(content, 'hex');
    case 'ascii':
      return Buffer.from(content, 'ascii');
    case 'latin1':
      return Buffer.from(content, 'latin1');
    default:
      return Buffer.from(content, 'utf8');
  }
}

/**
 * What a write puts in the file, as its card shows it: the decoded bytes read as UTF-8 text, as every editor and
 * program reads the file. The content as sent is not that with an encoding: base64 and hex are unreadable, and
 * latin1 and ascii keep only the low byte of each character, so `ťţŨů` (U+0165 U+0163 U+0168 U+016F) writes `echo`;
 * a card showing the sent text had the person approve a script they never saw. Bytes that are no text are named
 * with their count; content that does not decode fails when run, which the card says.
 */
function writtenText(args: FilesystemArgs): { text: string; note?: string } | { fails: string } {
  let bytes: Buffer;
  try {
    bytes = decodeContent(args.content ?? '', args.encoding);
  } catch (error) {
    if (error instanceof FilesystemFailure) return { fails: error.message };
    throw error;
  }
  if (looksBinary(bytes)) return { text: '', note: `(writes ${bytes.byteLength} bytes that are not UTF-8 text)` };
  return { text: bytes.toString('utf8') };
}

function encodeContent(bytes: Buffer, encoding: FilesystemArgs['encoding'], shown: string): string {
  const name = encoding ?? 'utf8';
  if (name === 'base64' || name === 'hex' || name === 'ascii' || name === 'latin1') return bytes.toString(name);
  if (looksBinary(bytes)) {
    throw new FilesystemFailure('ENCODING_ERROR', `${shown} is not UTF-8 text; read it with encoding "base64"`);
  }
  return bytes.toString('utf8');
}

function takeLines(text: string, head: number | undefined, tail: number | undefined): string {
  if (head === undefined && tail === undefined) return text;
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const picked = head !== undefined ? lines.slice(0, head) : tail === 0 ? [] : lines.slice(-tail!);
  return picked.join('\n');
}

async function editedContent(args: FilesystemArgs, ctx: Guarded) {
  const target = await resolveWorkspacePath(need(args.path, 'path'), ctx, { mustExist: true, forWrite: true });
  const before = await currentText(target, ctx.policy);
  if (before.binary) throw new FilesystemFailure('ENCODING_ERROR', `${args.path} is not UTF-8 text; it cannot be edited as text`);
  // a MISMATCH quotes the closest lines, which a model reads (also in the preview's title): through the secrets
  const edits = need(args.edits, 'edits');
  const result = replaceWithin(replaceDeadline(), () => applyReplacements(before.text, edits, replaceOptionsFor(ctx.policy)));
  if (!result.ok) {
    throw new FilesystemFailure(result.code, result.message, {
      ...('editIndex' in result ? { editIndex: result.editIndex } : {}),
      matches: result.matches,
      ...(result.lines ? { lines: result.lines } : {}),
      ...(result.closest ? { closest: result.closest } : {}),
    });
  }
  const shown = relativeToRoot(target, ctx);
  const deadline = diffDeadline();
  return {
    target,
    before: before.text,
    after: result.content,
    /** for the person's approval */
    diff: unifiedDiff(shown, shown, before.text, result.content, 3, deadline),
    /** for the model: both sides redacted line for line, so hunk context never shows a piece of a secret */
    shownDiff: unifiedDiff(shown, shown, mapSecrets(before.text, ctx.policy).shown(), mapSecrets(result.content, ctx.policy).shown(), 3, deadline),
  };
}

/**
 * A folder's entries; each file's size only when asked (`list` answers names, and an lstat per entry is most of a
 * listing's time). A denied entry (a deny glob, the companion's own data) is named, as fs.ls names it, but not
 * measured: its size says whether a `.env` or a key holds anything, and how long it is.
 */
async function listEntries(target: string, ctx: Guarded, withSizes: boolean) {
  const entries: Array<{ name: string; type: 'directory' | 'file' | 'symlink'; size?: number; denied?: true }> = [];
  const denied = denyUnder(target, ctx.policy);
  let stopped = false;
  for await (const entry of walkTree(target, { maxDepth: 1 })) {
    if (entries.length >= ctx.policy.limits.maxListEntries) {
      stopped = true;
      break;
    }
    const type = entry.dirent.isSymbolicLink() ? 'symlink' : entry.dirent.isDirectory() ? 'directory' : 'file';
    if (denied(entry.relative) !== undefined) {
      entries.push({ name: entry.dirent.name, type, denied: true });
      continue;
    }
    const size = withSizes && type === 'file' ? ((await fs.lstat(entry.path).catch(() => undefined))?.size ?? 0) : 0;
    entries.push({ name: entry.dirent.name, type, size });
  }
  return { entries, stopped };
}

async function runAction(args: FilesystemArgs, ctx: ToolContext): Promise<{ data: unknown; message: string; truncated?: boolean; journalId?: string }> {
  const action = filesystemActionOf(args);
  switch (action) {
    case 'read': {
      const target = await resolveWorkspacePath(need(args.path, 'path'), ctx, { mustExist: true });
      if ((await fs.stat(target)).isDirectory()) throw new FilesystemFailure('INVALID_INPUT', `${args.path} is a directory; use action "list"`);
      const bytes = await readGuarded(target, ctx.policy);
      const encoding = args.encoding ?? 'utf8';
      // base64, hex, latin1 and ascii would carry a secret past patterns written for the UTF-8 text
      if (encoding !== 'utf8' && encoding !== 'utf-8') refuseEncodedSecrets(bytes, ctx.policy, args.path!, encoding);
      const encoded = encodeContent(bytes, args.encoding, args.path!);
      // secrets are found in the whole file before head/tail lines are taken or the text is cut (issue 9, finding 3)
      const shown = encoding === 'base64' || encoding === 'hex' ? encoded : mapSecrets(encoded, ctx.policy).shown();
      const content = takeLines(shown, args.head, args.tail);
      const read = `read ${relativeToRoot(target, ctx)}`;
      return fitText(
        content,
        (kept) => (kept < content.length ? `${read} (truncated at ${kept} of ${content.length} characters; read the rest with head/tail or fs.read with a range)` : read),
        ctx,
      );
    }
    case 'write': {
      const target = await resolveWorkspacePath(need(args.path, 'path'), ctx, { forWrite: true });
      const bytes = decodeContent(need(args.content, 'content'), args.encoding);
      const entry = await ctx.journal.apply('filesystem write', [{ op: 'write', path: target, content: bytes }], ctx.origin);
      return { data: bytes.byteLength, message: `wrote ${bytes.byteLength} bytes to ${relativeToRoot(target, ctx)}`, journalId: entry.id };
    }
    case 'list':
    case 'list_with_sizes': {
      // walks follow the path as it is now, so it is resolved now (not carried from plan)
      const target = await resolveWorkspacePath(need(args.path, 'path'), ctx, { mustExist: true }, resolvePathNow);
      if (!(await fs.stat(target)).isDirectory()) throw new FilesystemFailure('INVALID_INPUT', `${args.path} is not a directory`);
      const { entries, stopped } = await listEntries(target, ctx, action === 'list_with_sizes');
      if (action === 'list_with_sizes' && args.sortBy === 'size') entries.sort((a, b) => (b.size ?? -1) - (a.size ?? -1) || (a.name < b.name ? -1 : 1));
      const listed: readonly unknown[] = action === 'list' ? entries.map((entry) => (entry.type === 'directory' ? `${entry.name}/` : entry.name)) : entries;
      const more = 'list a folder inside it (a longer path), or find the files you need with action "search" and a pattern';
      const stop = stopped ? ` (the listing stops at ${entries.length} entries, limits.maxListEntries; ${more})` : '';
      return fitItems(
        listed,
        (shown) => (shown < entries.length ? `showed ${shown} of ${entries.length} entries, ${entries.length - shown} left out; ${more}${stop}` : `${entries.length} entries${stop}`),
        ctx,
      );
    }
    case 'search': {
      const target = await resolveWorkspacePath(need(args.path, 'path'), ctx, { mustExist: true }, resolvePathNow);
      const pattern = need(args.pattern, 'pattern');
      const exclude = args.excludePatterns ?? [];
      if (exclude.length > MAX_EXCLUDE_PATTERNS) {
        throw new ToolError(
          'INVALID_INPUT',
          `excludePatterns holds ${exclude.length} globs, more than ${MAX_EXCLUDE_PATTERNS}: each is matched against every entry the search walks; leave out a folder by one glob ("**/dist/**") or search a narrower path`,
          { excludePatterns: exclude.length },
        );
      }
      const matches = modelGlob(pattern, 'pattern', { dot: true, basename: !pattern.includes('/') });
      const excluded = exclude.map((glob) => modelGlob(glob, 'excludePatterns', { dot: true, basename: !glob.includes('/') }));
      const found: string[] = [];
      // the links in the folders around each entry (policy/project-links.ts), each folder looked at once in this walk
      const linkMemo = new Map<string, readonly LinkTable[]>();
      const walk = walkTree(target, {
        include: (entry) =>
          !SKIPPED_DIRS.includes(entry.dirent.name) &&
          deniedBy(entry.path, ctx.policy, linkMemo) === undefined &&
          !excluded.some((exclude) => exclude(entry.relative)),
        signal: ctx.signal,
      });
      let limited = false;
      for await (const entry of walk) {
        if (!entry.dirent.isFile() || !matches(entry.relative)) continue;
        if (found.length >= ctx.policy.limits.maxMatches) {
          limited = true;
          break;
        }
        found.push(relativeToRoot(entry.path, ctx));
      }
      const stop = limited ? ` (stopped at ${found.length}; narrow the pattern)` : '';
      const narrow = 'search a narrower path or with a narrower pattern, or leave folders out with excludePatterns';
      return fitItems(
        found,
        (shown) =>
          shown < found.length
            ? `showed ${shown} of ${found.length} files matching ${pattern}, ${found.length - shown} left out; ${narrow}${stop}`
            : `${found.length} files match ${pattern}${stop}`,
        ctx,
      );
    }
    case 'edit': {
      const edit = await editedContent(args, ctx);
      if (args.dryRun) return { data: edit.shownDiff, message: 'dry run: nothing was written' };
      const entry = await ctx.journal.apply('filesystem edit', [{ op: 'write', path: edit.target, content: edit.after, basedOn: edit.before }], ctx.origin);
      return { data: edit.shownDiff, message: `edited ${relativeToRoot(edit.target, ctx)}`, journalId: entry.id };
    }
    case 'move': {
      const from = await resolveWorkspacePath(need(args.source, 'source'), ctx, { mustExist: true, forWrite: true, keepFinalName: true });
      const to = await resolveWorkspacePath(need(args.destination, 'destination'), ctx, { forWrite: true, keepFinalName: true });
      // the journal refuses it too, in fs.mv's words (toPath, overwrite), which this tool does not have
      if (await lstatMaybe(to)) {
        throw new FilesystemFailure(
          'CONFLICT',
          `destination ${JSON.stringify(args.destination)} already exists; move does not replace it: choose another destination, or move or remove that one first`,
          { destination: args.destination },
        );
      }
      // again, in the journal's turn: the approval waited, and a call that held the turn may have written into the folder
      const check = async () => {
        const { runsCodeAt } = await assertSubtreeMayChange({ kind: 'move', from, to }, ctx.policy, { signal: ctx.signal });
        assertLandingsDecided(ctx, runsCodeAt, from, to);
      };
      const entry = await ctx.journal.apply('filesystem move', [{ op: 'mv', from, to }], ctx.origin, { check });
      const data = { source: relativeToRoot(from, ctx), destination: relativeToRoot(to, ctx) };
      return { data, message: `moved ${data.source} to ${data.destination}`, journalId: entry.id };
    }
  }
}

/** `decided`: called from plan(), whose paths the policy decides (preview's are only shown) */
async function plannedPaths(args: FilesystemArgs, ctx: Guarded, decided = false): Promise<string[]> {
  const action = filesystemActionOf(args);
  if (action === 'move') {
    const from = await resolveWorkspacePath(need(args.source, 'source'), ctx, { mustExist: true, forWrite: true, keepFinalName: true });
    const to = await resolveWorkspacePath(need(args.destination, 'destination'), ctx, { forWrite: true, keepFinalName: true });
    // every path under the source, where it is and where it lands; where an entry that runs code would land is a
    // path of the move too (decided as that file's write: exec)
    const { runsCodeAt } = await assertSubtreeMayChange({ kind: 'move', from, to }, ctx.policy);
    if (decided) decideLandings(ctx, runsCodeAt);
    return [from, to, ...runsCodeAt];
  }
  const writes = action === 'write' || action === 'edit';
  return [await resolveWorkspacePath(need(args.path, 'path'), ctx, { forWrite: writes, mustExist: action !== 'write' })];
}

export const filesystemHandler = defineHandler({
  contract: filesystem,
  async plan(args, ctx) {
    try {
      const paths = await plannedPaths(args, ctx, true);
      if (filesystemActionOf(args) === 'write' && args.content !== undefined) {
        // content that does not decode is answered by the write itself, in the manual's words
        const bytes = (() => {
          try {
            return decodeContent(args.content, args.encoding);
          } catch {
            return undefined;
          }
        })();
        if (bytes) await refuseMarkerOverSecretOnDisk(paths[0]!, bytes, ctx.policy);
      }
      return { risk: riskOf(filesystem, args), paths };
    } catch (error) {
      if (error instanceof FilesystemFailure) throw new ToolError('INVALID_INPUT', `${error.code}: ${error.message}`);
      // refused before anything runs, so not in the manual's JSON: its message still starts with the manual's code
      if (error instanceof ToolError && error.code === 'NOT_FOUND' && !error.message.startsWith('FILE_NOT_FOUND')) {
        throw new ToolError('NOT_FOUND', `FILE_NOT_FOUND: ${error.message}`, error.data);
      }
      throw error;
    }
  },
  async preview(args, ctx) {
    const action = filesystemActionOf(args);
    const paths = await plannedPaths(args, ctx);
    if (action === 'write') {
      const before = await currentText(paths[0]!, ctx.policy);
      const shown = relativeToRoot(paths[0]!, ctx);
      const written = writtenText(args);
      if ('fails' in written) {
        return { title: `filesystem write ${shown} (will fail: ${written.fails})`, heading: { kind: 'filesystem', action, paths: [shown], fails: written.fails }, paths };
      }
      // a file not there yet is diffed from /dev/null: the card tags it new, not changed
      const diff = unifiedDiff(before.exists ? shown : '/dev/null', shown, before.text, written.text);
      return { title: `filesystem write ${shown}`, heading: { kind: 'filesystem', action, paths: [shown] }, paths, diff: written.note ? `${written.note}\n${diff}` : diff };
    }
    if (action === 'edit') {
      try {
        const edit = await editedContent(args, ctx);
        const shown = relativeToRoot(edit.target, ctx);
        return { title: `filesystem edit ${shown}`, heading: { kind: 'filesystem', action, paths: [shown] }, paths, diff: edit.diff };
      } catch (error) {
        const fails = toFailure(error, ctx).message;
        return { title: `filesystem edit ${args.path} (will fail: ${fails})`, heading: { kind: 'filesystem', action, paths: [args.path ?? ''], fails }, paths };
      }
    }
    // a move's paths after its two names are where entries that run code would land: on the card's actions, not its title
    const named = (action === 'move' ? paths.slice(0, 2) : paths).map((p) => relativeToRoot(p, ctx));
    return { title: `filesystem ${action} ${named.join(' → ')}`, heading: { kind: 'filesystem', action, paths: named }, paths };
  },
  async run(args, ctx) {
    try {
      const { data, message, truncated, journalId } = await runAction(args, ctx);
      return { text: reply({ success: true, data, message }), data, ...(truncated ? { truncated } : {}), ...(journalId ? { journalId } : {}) };
    } catch (error) {
      const failure = toFailure(error, ctx);
      return {
        text: failureReply(failure),
        data: { error: failure.code },
        failure: { code: errorCodeOf(failure.code), message: failure.message, answerCode: failure.code },
      };
    }
  },
  // refused before run(): the manual promises the same JSON, with its codes, for these too
  answerFailure({ code, message, data }, args) {
    const checked = filesystem.input.safeParse(args);
    const manual = checked.success ? manualCode({ code, message }) : filesystemIssueCode(checked.error.issues);
    return { code: manual, text: failureReply(new FilesystemFailure(manual, message, data && Object.keys(data).length > 0 ? data : null)) };
  },
});
