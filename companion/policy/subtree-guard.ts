/**
 * Deny globs name paths, and a change to a directory changes every path under it. Moving `docs` to `documents`
 * under deny `**\/docs/private/**` turns the denied `docs/private/plan.txt` into `documents/private/plan.txt`,
 * which nothing denies (issue 9, finding 4); moving or chmod-ing a `project` moves or opens up its `.git`. So a
 * move, copy, removal or mode change of a directory is checked for its whole subtree, before anything happens:
 *
 * - source side: every path under the directory as it is now (`docs/private/plan.txt`);
 * - destination side (move, copy): the path each entry would have there (`stuff/private` moved to `docs` would
 *   become `docs/private`);
 * - a move onto an existing directory (overwrite) removes that directory: its subtree is checked as a removal.
 *
 * Any hit refuses the call with POLICY_BLOCKED naming the path and the glob — the same rule fs.rm always applied
 * to removals, now one check for every tool that moves, removes or chmods a directory (fs.mv, fs.rm, fs.chmod,
 * PromptX `move`, auto_coder `delete_directory`). A walk is bounded by MAX_SUBTREE_ENTRIES: a bigger subtree is
 * refused (LIMIT_EXCEEDED), and so is one with a directory that cannot be read (FORBIDDEN), never approved
 * unchecked. Symlinks are not followed: a link is moved or removed as a link, so what it points to is untouched.
 *
 * subtreeHit and subtreeRefusal are pure; assertSubtreeMayChange walks the disk. Handlers call it in plan()
 * (refused before any approval) and again in run() (what appeared during the approval wait); the window left is
 * the one between that last walk and the rename itself.
 */
import { promises as fs, type Dirent } from 'node:fs';
import path from 'node:path';
import { ToolError } from '../../shared/errors';
import { errnoOf, isMissing } from '../fsx/errno';
import { lstatMaybe } from '../fsx/fs-calls';
import { onMountOf } from '../fsx/mount-gate';
import { assertUnchanged, deniedBy } from './path-guard';
import { rereadChangedStartFiles, runsCode } from './runs-code';

/** The most entries one subtree check walks; past it the call is refused rather than approved unchecked. */
export const MAX_SUBTREE_ENTRIES = 10_000;

type GuardPolicy = Parameters<typeof deniedBy>[1] & { mcpServers?: Parameters<typeof runsCode>[1] };

export type SubtreeChange =
  | { kind: 'remove'; path: string }
  | { kind: 'chmod'; path: string }
  | { kind: 'move'; from: string; to: string }
  | { kind: 'copy'; from: string; to: string };

export interface SubtreeHit {
  /** the protected path: under the source, under a replaced destination, or where an entry would land */
  path: string;
  /** the deny glob that protects it (or the guard's reason for the companion's own data) */
  glob: string;
  side: 'source' | 'destination' | 'replaced';
  /** the entry as it is on disk now */
  entry: string;
}

/** Which part of the change a walk covers: the source's subtree, or the destination a move would replace. */
export type WalkedSide = 'source' | 'replaced';

const json = JSON.stringify;

function sourceOf(change: SubtreeChange): string {
  return change.kind === 'move' || change.kind === 'copy' ? change.from : change.path;
}

function under(top: string, relative: string): string {
  return relative === '' ? top : path.join(top, ...relative.split('/'));
}

/**
 * Pure: what protects one entry of a change. `relative` is the entry's `/`-separated path under the walked
 * directory ('' for the directory itself); `walked` says which directory that is.
 */
export function subtreeHit(change: SubtreeChange, relative: string, policy: GuardPolicy, walked: WalkedSide = 'source'): SubtreeHit | undefined {
  if (walked === 'replaced') {
    if (change.kind !== 'move' && change.kind !== 'copy') return undefined;
    const entry = under(change.to, relative);
    const glob = deniedBy(entry, policy);
    return glob === undefined ? undefined : { path: entry, glob, side: 'replaced', entry };
  }
  const entry = under(sourceOf(change), relative);
  const glob = deniedBy(entry, policy);
  if (glob !== undefined) return { path: entry, glob, side: 'source', entry };
  if (change.kind === 'move' || change.kind === 'copy') {
    const landing = under(change.to, relative);
    const there = deniedBy(landing, policy);
    if (there !== undefined) return { path: landing, glob: there, side: 'destination', entry };
  }
  return undefined;
}

/** `matches the deny glob "…"`, or the guard's own reason (the companion's data directory) as it gives it. */
function protectedBecause(glob: string, policy: GuardPolicy): string {
  return policy.deny.includes(glob) ? `matches the deny glob ${json(glob)}` : `is ${glob}`;
}

function verbOf(change: SubtreeChange): { doing: string; done: string } {
  switch (change.kind) {
    case 'remove':
      return { doing: `removing ${json(change.path)}`, done: 'removed' };
    case 'chmod':
      return { doing: `changing the mode of ${json(change.path)}`, done: 'changed' };
    case 'move':
      return { doing: `moving ${json(change.from)} → ${json(change.to)}`, done: 'moved' };
    case 'copy':
      return { doing: `copying ${json(change.from)} → ${json(change.to)}`, done: 'copied' };
  }
}

/** Pure: the refusal for a hit, naming the path, the glob and what the change would have done to it. */
export function subtreeRefusal(change: SubtreeChange, hit: SubtreeHit, policy: GuardPolicy): ToolError {
  const because = protectedBecause(hit.glob, policy);
  let what: string;
  if (change.kind === 'remove') {
    what = `would remove ${json(hit.path)}, which ${because}`;
  } else if (change.kind === 'chmod') {
    what = `would change who may reach ${json(hit.path)}, which ${because}`;
  } else if (hit.side === 'replaced') {
    what = `would replace ${json(change.to)}, and with it ${json(hit.path)}, which ${because}`;
  } else if (hit.side === 'destination') {
    what = `would put ${json(hit.entry)} at ${json(hit.path)}, which ${because}`;
  } else {
    const landing = path.join(change.to, path.relative(change.from, hit.path));
    what = `would ${change.kind} ${json(hit.path)}, which ${because}, to ${json(landing)}`;
  }
  return new ToolError('POLICY_BLOCKED', `${verbOf(change).doing} ${what}; a directory holding a protected path is refused as a whole`, {
    path: hit.path,
    glob: hit.glob,
    side: hit.side,
  });
}

export interface SubtreeCheck {
  /** whether the source is a directory (a file or a symlink has no subtree) */
  directory: boolean;
  /** entries walked under the source (and under a replaced destination) */
  entries: number;
  /**
   * Where a move or copy would land an entry that runs code there (runs-code.ts): `stage/tasks.json` moved to
   * `.vscode` lands on `.vscode/tasks.json`. The handler adds these to its action's paths, so the move is decided
   * as the write of that file would be.
   */
  runsCodeAt: string[];
}

type Inspection = ({ ok: true } & SubtreeCheck) | { ok: false; error: ToolError; hit?: SubtreeHit };

class Refused extends Error {
  constructor(
    readonly error: ToolError,
    readonly hit?: SubtreeHit,
  ) {
    super(error.message);
  }
}

/** Depth-first, names sorted, symlinks never followed; throws Refused at the first hit, the limit or an unreadable directory. */
async function walk(
  change: SubtreeChange,
  top: string,
  walked: WalkedSide,
  policy: GuardPolicy,
  limit: number,
  signal?: AbortSignal,
  runsCodeAt: string[] = [],
): Promise<number> {
  const { doing, done } = verbOf(change);
  // the walk reads `top` by name: its parent must still be where it was checked (no symlink swapped in on the way)
  await assertUnchanged(path.dirname(top), policy);
  let entries = 0;
  const pending: string[] = [''];
  while (pending.length > 0) {
    if (signal?.aborted) {
      throw new Refused(new ToolError('INTERNAL', `stopped while checking what is under ${json(top)}; nothing was ${done}`, { path: top }));
    }
    const relative = pending.pop()!;
    const dir = under(top, relative);
    let dirents: Dirent[];
    try {
      dirents = await onMountOf(dir, () => fs.readdir(dir, { withFileTypes: true }));
    } catch (error) {
      if (isMissing(error) && relative !== '') continue; // removed meanwhile: nothing left there to protect
      // a network or FUSE mount that did not answer in time: refused by its turns, naming the mount
      if (error instanceof ToolError) throw new Refused(error);
      throw new Refused(
        new ToolError(
          'FORBIDDEN',
          `${doing}: ${json(dir)} cannot be read (${errnoOf(error) ?? String(error)}), so what it holds cannot be checked against the deny globs; nothing was ${done}`,
          { path: dir },
        ),
      );
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const dirent of dirents) {
      if (++entries > limit) {
        throw new Refused(
          new ToolError(
            'LIMIT_EXCEEDED',
            `${doing}: ${json(top)} holds more than ${limit} entries, too many to check one by one against the deny globs, so nothing was ${done}; work on smaller parts of it, or do this outside chatbridge`,
            { path: top, limit },
          ),
        );
      }
      const child = relative === '' ? dirent.name : `${relative}/${dirent.name}`;
      const hit = subtreeHit(change, child, policy, walked);
      if (hit) throw new Refused(subtreeRefusal(change, hit, policy), hit);
      if (walked === 'source' && (change.kind === 'move' || change.kind === 'copy')) {
        const landing = under(change.to, child);
        if (runsCode(landing, policy.mcpServers, policy.roots) !== undefined) runsCodeAt.push(landing);
      }
      if (dirent.isDirectory()) subdirs.push(child);
    }
    pending.push(...subdirs.reverse()); // popped in name order
  }
  return entries;
}

async function inspect(change: SubtreeChange, policy: GuardPolicy, options: SubtreeOptions): Promise<Inspection> {
  const limit = options.limit ?? MAX_SUBTREE_ENTRIES;
  try {
    const top = subtreeHit(change, '', policy);
    if (top) throw new Refused(subtreeRefusal(change, top, policy), top);
    const source = sourceOf(change);
    const stat = await lstatMaybe(source);
    const directory = stat?.isDirectory() ?? false;
    const runsCodeAt: string[] = [];
    if (directory && (change.kind === 'move' || change.kind === 'copy')) rereadChangedStartFiles();
    let entries = directory ? await walk(change, source, 'source', policy, limit, options.signal, runsCodeAt) : 0;
    if (change.kind === 'move' || change.kind === 'copy') {
      // an existing directory at the destination is replaced (overwrite), that is, removed with all it holds
      const target = await lstatMaybe(change.to);
      if (target?.isDirectory()) {
        const replaced = subtreeHit(change, '', policy, 'replaced');
        if (replaced) throw new Refused(subtreeRefusal(change, replaced, policy), replaced);
        entries += await walk(change, change.to, 'replaced', policy, limit, options.signal);
      }
    }
    return { ok: true, directory, entries, runsCodeAt };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, error: error.error, ...(error.hit ? { hit: error.hit } : {}) };
    throw error;
  }
}

export interface SubtreeOptions {
  /** defaults to MAX_SUBTREE_ENTRIES */
  limit?: number;
  signal?: AbortSignal;
}

/**
 * Throws ToolError POLICY_BLOCKED (a protected path in the subtree, on either side), LIMIT_EXCEEDED (too many
 * entries to check) or FORBIDDEN (a directory in it cannot be read). A file or a symlink is checked as itself.
 */
export async function assertSubtreeMayChange(change: SubtreeChange, policy: GuardPolicy, options: SubtreeOptions = {}): Promise<SubtreeCheck> {
  const result = await inspect(change, policy, options);
  if (!result.ok) throw result.error;
  return { directory: result.directory, entries: result.entries, runsCodeAt: result.runsCodeAt };
}

/**
 * Why a change will be refused, as facts the extension words (the `refused` preview heading): the protected path it
 * holds and the deny glob it matches (no glob: the companion's own places), the entry limit it passed, else the
 * refusal's own words.
 */
export type SubtreeRefusalFacts = { protected: string; glob?: string } | { limit: number } | { reason: string };

/**
 * For an approval card: what the change covers below the path, or why it will be refused — a protected path
 * that appeared since plan() checked, a subtree too big to check. `protectedPaths` lists what the card should
 * name. Empty phrase for a file or a symlink; `entries` counts a directory's that is not refused; `why` is the
 * refusal's facts.
 */
export async function describeSubtree(
  change: SubtreeChange,
  policy: GuardPolicy,
  options: SubtreeOptions = {},
): Promise<{ phrase: string; protectedPaths: string[]; refused: boolean; entries?: number; why?: SubtreeRefusalFacts }> {
  const result = await inspect(change, policy, options);
  if (result.ok) {
    if (!result.directory) return { phrase: '', protectedPaths: [], refused: false };
    const n = result.entries;
    return { phrase: `a directory with ${n} ${n === 1 ? 'entry' : 'entries'}, none protected by a deny glob`, protectedPaths: [], refused: false, entries: n };
  }
  if (result.hit) {
    const { hit } = result;
    return {
      phrase: `protected: it holds ${json(hit.path)}, which ${protectedBecause(hit.glob, policy)}; the call will be refused`,
      protectedPaths: [hit.path],
      refused: true,
      why: { protected: hit.path, ...(policy.deny.includes(hit.glob) ? { glob: hit.glob } : {}) },
    };
  }
  const { error } = result;
  const limit = error.code === 'LIMIT_EXCEEDED' && typeof error.data.limit === 'number' ? error.data.limit : undefined;
  return {
    phrase: `${error.message}; the call will be refused`,
    protectedPaths: [],
    refused: true,
    why: limit !== undefined ? { limit } : { reason: error.message },
  };
}

/** Per call (its scoped context, the same object for plan and run): where a move's code-running files land, as decided. */
const decidedLandings = new WeakMap<object, ReadonlySet<string>>();

/** plan(): these landings (SubtreeCheck.runsCodeAt) are among the paths the policy decides for this call. */
export function decideLandings(call: object, landings: readonly string[]): void {
  decidedLandings.set(call, new Set(landings));
}

/**
 * run(): a code-running file that lands now and that plan() did not see (written into the source while the call
 * waited for approval, or by a call running beside it) was never decided as exec: the move is refused.
 */
export function assertLandingsDecided(call: object, now: readonly string[], from: string, to: string): void {
  const decided = decidedLandings.get(call);
  const undecided = decided === undefined ? undefined : now.find((landing) => !decided.has(landing));
  if (undecided !== undefined) {
    throw new ToolError(
      'POLICY_BLOCKED',
      `moving ${JSON.stringify(from)} → ${JSON.stringify(to)} would now put a file at ${JSON.stringify(undecided)}, which runs code (it counts as exec), and it was not there when the move was decided; nothing was moved — send the call again`,
      { path: undecided },
    );
  }
}
