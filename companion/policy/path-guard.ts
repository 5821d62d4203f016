/**
 * Where a tool may touch the disk. Every path a model sends goes through resolveInsideRoots before any I/O.
 *
 * 1. Syntax (pure): absolute only, no NUL, no tab or line break (a Windows path's single backslashes read as JSON
 *    escapes), no `~` or `$HOME` at the start (nothing here is a shell, so they would silently mean a directory
 *    literally named `~` or `$HOME`), no Windows paths on POSIX, no name over NAME_MAX or path over PATH_MAX
 *    (refused as bad input, not met later as an errno); `..` is normalized lexically.
 * 2. Symlinks: resolved like realpath(3) — one realpath call when the whole path exists, else component by
 *    component (realpathLoose), including a dangling link at the end, whose target is where a write would
 *    land. The resolved path is what the tool then operates on.
 * 3. Roots by path segments (`/root-evil` is not inside `/root`), deny globs (picomatch, dot: true) on the
 *    root-relative form of both the asked and the resolved path.
 *
 * Time of check vs. time of use (a directory swapped for a symlink after the check):
 * - reads open the resolved path with O_NOFOLLOW and then confirm where the opened descriptor really is
 *   (/proc/self/fd on Linux, device + inode elsewhere) — openForRead;
 * - writes go through a temp file in the target's directory and a rename; the journal calls
 *   assertUnchanged on the directory before creating the temp file and again right before the rename, and
 *   rename replaces a symlink at the final name instead of following it. The window left is the few
 *   microseconds between that last check and rename(2); Node has no renameat(2) to close it.
 * - walks (ls, search) never follow symlinks.
 * A tool call resolves each path once and carries it from plan to run (withCallScope in tools/define-handler),
 * which rests on the checks above being made at the final use; a run that hands a path to something that
 * follows it (a walk's start, a child's cwd) resolves it again right before.
 */
import { existsSync, promises as fs, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { ToolError } from '../../shared/errors';
import { asToolError, errnoOf, isMissing, NAME_LIMITS, NAME_MAX_BYTES, PATH_MAX_BYTES } from '../fsx/errno';
import { closeFile, fstatFile, lstatMaybe, openFile } from '../fsx/fs-calls';
import { READ_NO_FOLLOW } from '../fsx/fd';
import { ioOnMainThread } from '../fsx/io-mode';
import { allFileSystemsLocal, onRemoteMount } from '../fsx/mounts';
import { onMountOf } from '../fsx/mount-gate';
import { readProc } from '../processes/proc-table';
import { MAX_SYMLINK_HOPS } from './given-and-real';
import { composed, globSet } from './glob-set';
import { foldersIn, linksIn, namesThroughLinks, type LinkTable } from './link-names';
import { projectLinkNames } from './project-links';
import type { Policy } from './schema';

const WINDOWS_PATH = /^(?:[a-zA-Z]:[\\/]|[a-zA-Z]:$|\\\\)/;

// `reserved` is optional here so pure callers and tests can pass a bare policy; the companion's own policy always
// carries it (protectDataDir in app.ts and cli.ts).
type GuardPolicy = Pick<Policy, 'roots' | 'deny'> & Partial<Pick<Policy, 'reserved'>>;

export interface ResolveOptions {
  /** NOT_FOUND when nothing exists at the resolved path */
  mustExist?: boolean;
  /** the call changes this path: a root itself may not be written, removed or moved */
  forWrite?: boolean;
  /**
   * Resolve the parent only and keep the final name as given, for operations that act on a directory entry
   * itself (rm and mv remove or move a symlink, not what it points to).
   */
  keepFinalName?: boolean;
}

/** A variable at the start of a path, as a shell (`$HOME`, `${HOME}`) or Windows (`%USERPROFILE%`) writes it. */
const VARIABLE_START = /^(?:\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*|%[A-Za-z_][\w()]*%)(?=[\\/]|$)/;

/**
 * What a shell would expand at the start of a path and nothing here does: `~` (also `~user`) or a variable. Joined to
 * a root or taken as a name, it would silently mean a folder named `~` or `$HOME` in the workspace, so every path a
 * model sends (absolute, workspace-relative, in a plan) is refused with it named.
 */
export function unexpandedStart(input: string): string | undefined {
  if (input.startsWith('~')) return '~';
  return VARIABLE_START.exec(input)?.[0];
}

/** What JSON reads `\b \t \n \f \r` as: a backslash of a path written once, followed by one of those letters. */
const ESCAPED_CONTROLS: Record<number, string> = {
  0x08: 'a backspace',
  0x09: 'a tab',
  0x0a: 'a line break',
  0x0c: 'a form feed',
  0x0d: 'a carriage return',
};

/**
 * Why a path holding a tab, line break, carriage return, backspace or form feed is refused, naming them; undefined when
 * it holds none. Those are what a Windows path written in a JSON string with single backslashes turns into when its
 * escapes happen to be valid: "C:\temp\new.txt" reads as C:, a tab, emp, a line break, ew.txt, and an auto_coder
 * create_file of "src\new_module.py" made a file whose name holds a line break, answered as success with the path as
 * written. No file a person means is named so (other control characters are shown as ⟨U+XXXX⟩ wherever a path is).
 */
export function escapedControlsIn(input: string): string | undefined {
  const found = new Set<number>();
  for (let i = 0; i < input.length; i++) {
    const code = input.charCodeAt(i);
    if (ESCAPED_CONTROLS[code] !== undefined) found.add(code);
  }
  if (found.size === 0) return undefined;
  const names = [...found].map((code) => `${ESCAPED_CONTROLS[code]} (U+${code.toString(16).toUpperCase().padStart(4, '0')})`);
  const why = 'in a JSON string \\t is a tab and \\n a line break, so write each backslash of a Windows path as \\\\ (or use /)';
  return `path ${JSON.stringify(input)} holds ${names.join(', ')}: ${why}`;
}

/** Pure: checks the form of a path a model sent and returns it normalized (`..` folded). */
export function normalizeInputPath(input: unknown, policy: Pick<Policy, 'roots'>, onWindows = process.platform === 'win32'): string {
  if (typeof input !== 'string' || input.length === 0) {
    throw new ToolError('INVALID_INPUT', `path must be a non-empty string, got ${JSON.stringify(input)}`);
  }
  if (input.includes('\0')) {
    throw new ToolError('INVALID_INPUT', `path ${JSON.stringify(input)} contains a NUL byte, which no file name may hold`);
  }
  const control = escapedControlsIn(input);
  if (control !== undefined) throw new ToolError('INVALID_INPUT', control);
  const workspace = policy.roots[0];
  const hint = workspace ? ` (the workspace root is ${workspace})` : '';
  const unexpanded = unexpandedStart(input);
  if (unexpanded !== undefined) {
    throw new ToolError(
      'INVALID_INPUT',
      `path ${JSON.stringify(input)} starts with ${JSON.stringify(unexpanded)}, which is not expanded here (no shell); give an absolute path${hint}`,
      { hint: workspace },
    );
  }
  const flavor = onWindows ? path.win32 : path.posix;
  if (!onWindows && WINDOWS_PATH.test(input)) {
    throw new ToolError('INVALID_INPUT', `path ${JSON.stringify(input)} is a Windows path, but this machine uses POSIX paths${hint}`, {
      hint: workspace,
    });
  }
  if (!flavor.isAbsolute(input) || (onWindows && !WINDOWS_PATH.test(input))) {
    const example = workspace ? ` such as ${flavor.join(workspace, input)}` : '';
    throw new ToolError('INVALID_INPUT', `path ${JSON.stringify(input)} is relative; paths must be absolute${example}${hint}`, {
      hint: workspace,
    });
  }
  const normalized = flavor.resolve(input);
  const longest = Math.max(...normalized.split(flavor.sep).map((name) => Buffer.byteLength(name)));
  if (longest > NAME_MAX_BYTES || Buffer.byteLength(normalized) > PATH_MAX_BYTES) {
    throw new ToolError('INVALID_INPUT', `path ${JSON.stringify(shortened(normalized))} is longer than the file system allows: ${NAME_LIMITS}`, {
      bytes: Buffer.byteLength(normalized),
      longestName: longest,
    });
  }
  return normalized;
}

/** A path too long to name in full: its start and end. */
function shortened(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 100)}…${text.slice(-100)}`;
}

/** Pure: inside by whole path segments, so `/root-evil` is not inside `/root`. */
export function isInsideRoot(candidate: string, root: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return candidate.startsWith(prefix);
}

export function rootOf(candidate: string, roots: readonly string[]): string | undefined {
  return roots.find((root) => isInsideRoot(candidate, root));
}

/**
 * Deny globs (and the files that run code, runs-code.ts) match whatever the case: on a case-insensitive file system
 * `.ENV` is the same file as `.env` and `.VSCODE/tasks.json` is VS Code's task file. macOS and Windows are such by
 * default, and Linux mounts them too — WSL's `/mnt/c`, FAT and exFAT drives, SMB shares, ext4 folders with casefold —
 * where the platform alone does not tell. A name that differs from a denied one only by case is refused everywhere.
 */
export const DENY_OPTIONS = { dot: true, nocase: true } as const;

/** A path as isInsideAnyCase compares it: composed (glob-set.ts) and in lower case. */
const folded = (path: string): string => composed(path).toLowerCase();

/**
 * Pure: isInsideRoot in any case (and either Unicode normalization), as the deny globs match: on a case-insensitive
 * file system `~/.CHATBRIDGE/tokens.json` is the data directory's file, and a path whose tail does not exist yet keeps
 * the case it was written in (realpathLoose resolves links, not names). Refusing a folder that only differs by case on
 * a file system that tells them apart costs nothing a model needs.
 */
export function isInsideAnyCase(candidate: string, dir: string): boolean {
  return isInsideRoot(folded(candidate), folded(dir));
}

/**
 * The companion's own directory that holds `candidate`, if any, in any case. Pure but for a look at /proc for a path
 * there (ownProcessEntry).
 */
export function reservedBy(candidate: string, policy: GuardPolicy): string | undefined {
  return policy.reserved?.find((dir) => isInsideAnyCase(candidate, dir)) ?? ownProcessEntry(candidate, policy.reserved);
}

const PROC_ENTRY = /^\/proc\/(\d+)(?:\/|$)/;
/** deeper than any chain of programs the companion starts (an MCP server through npx and a shell) */
const MAX_ANCESTORS = 64;

/**
 * Where the companion's own `/proc/<pid>` is reserved, the other entries of /proc that are the companion by another
 * name or hold what it gave: `/proc/<tid>` of any of its threads is the whole process (its environment, memory and
 * open files; the kernel answers a thread's id there though a listing of /proc does not show it), and a program it
 * started (an MCP server, a command it runs, and theirs) holds in its environment and arguments what the companion's
 * reserved config wrote for it (an MCP server's `env` and `args`); so do the processes that started the companion
 * (startedCompanion). Threads and programs come and go, so which ids are its own is asked when such a path is: a
 * thread in its task list, a process whose parents lead to it, one its parents lead to. A program that left it (a
 * daemon that forked twice and was taken by init) is no longer one of its own.
 */
function ownProcessEntry(candidate: string, reserved: readonly string[] | undefined): string | undefined {
  const id = PROC_ENTRY.exec(candidate)?.[1];
  const own = `/proc/${process.pid}`;
  if (id === undefined || id === String(process.pid) || !reserved?.includes(own)) return undefined;
  if (existsSync(`${own}/task/${id}`)) return own;
  if (startedCompanion(Number(id))) return `/proc/${id}`;
  let pid = Number(id);
  for (let i = 0; i < MAX_ANCESTORS; i++) {
    const parent = readProc(pid)?.ppid;
    if (parent === undefined || parent <= 1) return undefined;
    if (parent === process.pid) return `/proc/${id}`;
    pid = parent;
  }
  return undefined;
}

/**
 * Whether `id` is a process the companion was started by, or one of theirs up the chain: `npm start`'s npm and the
 * shell it runs the script in, `npx`, the terminal's shell. Each holds in /proc the environment it was started with,
 * which the companion's is made of (a CHATBRIDGE_TOKEN or a key exported for it, secrets no redaction pattern names),
 * so reading `/proc/<npm>/environ` gave what `/proc/self/environ` is refused for. Asked as the path is: a parent that
 * exits leaves the chain.
 */
function startedCompanion(id: number): boolean {
  let pid = process.ppid;
  for (let i = 0; i < MAX_ANCESTORS && pid >= 1; i++) {
    // a thread of theirs is the whole process by another id, as the companion's own threads are
    if (pid === id || existsSync(`/proc/${pid}/task/${id}`)) return true;
    const parent = readProc(pid)?.ppid;
    if (parent === undefined) return false;
    pid = parent;
  }
  return false;
}

/** What a refusal says of the companion's own data. */
export const RESERVED_REASON = "chatbridge's own data directory or config file (or its own process in /proc, or a program it started, or one that started it), which no tool may read or change, whatever the config says";

/**
 * Why a path inside the roots is off limits to every tool — the deny glob it matches, matched on its root-relative,
 * `/`-separated form, or RESERVED_REASON for the companion's own data directory. Walks (ls, search, rm, list_tree)
 * skip what this names. Pure but for the links it reads: those in the home folder, its `.config` and their folders
 * (link-names.ts, read once), and those in the folders around the path up to its root (project-links.ts, a stat per
 * folder). A file is also denied by the name such a link gives it — where `~/.aws` is a link to `~/dotfiles/aws`,
 * `~/dotfiles/aws/credentials` is `~/.aws/credentials`, and reading it by the dotfiles name gave away what
 * `**\/.aws/**` keeps (a name outside the roots is matched whole); where a project's `.env` is a link to
 * `config/dev.env`, that file is `.env`. A walk passes one `linkMemo` for all its entries, so it looks at each folder
 * once.
 */
export function deniedBy(candidate: string, policy: GuardPolicy, linkMemo?: Map<string, readonly LinkTable[]>): string | undefined {
  if (reservedBy(candidate, policy) !== undefined) return RESERVED_REASON;
  const root = rootOf(candidate, policy.roots);
  if (root === undefined || candidate === root) return undefined;
  const glob = denyGlobOf(candidate, root, policy);
  if (glob !== undefined) return glob;
  for (const { name } of namesThroughLinks(homeLinks(), candidate)) {
    if (reservedBy(name, policy) !== undefined) return RESERVED_REASON;
    const linkedRoot = rootOf(name, policy.roots);
    const linked = linkedRoot === undefined ? denyGlobOf(name, path.parse(name).root, policy) : name === linkedRoot ? undefined : denyGlobOf(name, linkedRoot, policy);
    if (linked !== undefined) return linked;
  }
  return deniedThroughProjectLinks(projectLinkNames(candidate, root, linkMemo), policy);
}

/**
 * The deny glob one of `names` (a file's names through the links inside its project, project-links.ts) matches:
 * where `.env` is a link to `config/dev.env`, that file is `.env` too, and reading it by its real name gave away
 * what `**\/.env` keeps.
 */
export function deniedThroughProjectLinks(names: readonly string[], policy: GuardPolicy): string | undefined {
  for (const name of names) {
    const linkedRoot = rootOf(name, policy.roots);
    const linked = linkedRoot === undefined || name === linkedRoot ? undefined : denyGlobOf(name, linkedRoot, policy);
    if (linked !== undefined) return linked;
  }
  return undefined;
}

/** The deny glob `candidate` (inside `root` by whole segments) matches, on its root-relative, `/`-separated form. */
function denyGlobOf(candidate: string, root: string, policy: GuardPolicy): string | undefined {
  // candidate is inside root by whole segments (rootOf), so the relative form is what follows `root/`
  const tail = candidate.slice(root.endsWith(path.sep) ? root.length : root.length + 1);
  const relative = path.sep === '/' ? tail : tail.split(path.sep).join('/');
  const index = globSet(policy.deny, DENY_OPTIONS).firstMatch(relative);
  return index >= 0 ? policy.deny[index] : undefined;
}

let homeLinkTable: LinkTable | undefined;

/**
 * The links in the home folder, in its `.config`, and in the folders in either (the dot-folders of the home folder):
 * a dotfile manager that links each file (rcm, Stow where `~/.kube` already was a folder) makes `~/.kube/config` a
 * link to `~/dotfiles/kube/config` in a real `~/.kube`, and that file is as denied by its dotfiles name.
 */
function homeLinks(): LinkTable {
  if (homeLinkTable) return homeLinkTable;
  const home = homedir();
  const config = path.join(home, '.config');
  homeLinkTable = linksIn([home, config, ...foldersIn(home, (name) => name.startsWith('.')), ...foldersIn(config)]);
  return homeLinkTable;
}

/**
 * Whether a link of the home folder's (homeLinks) leads to `dir`, to something in it, or to a folder that holds it:
 * then the entries of a walk from `dir` may be denied by the name such a link gives them, which a glob matched on
 * their own names alone does not see (deny-under.ts asks deniedBy for each of them then).
 */
export function homeLinksReach(dir: string): boolean {
  const table = homeLinks();
  for (const target of table.files.keys()) if (isInsideRoot(target, dir)) return true;
  return table.folders.some(([target]) => isInsideRoot(target, dir) || isInsideRoot(dir, target));
}

/**
 * Resolves symlinks in every component that exists, like realpath(3), but does not fail on a missing tail and
 * follows a dangling link to where it points. The result is the path the OS would reach.
 *
 * With `roots`, the walk never looks at a component that is neither in a root nor above one when it is on a
 * network or FUSE file system (fsx/mounts.ts, from the kernel's table): such a path is outside the roots whatever
 * it holds, and one whose server stopped answering would hold a thread of the pool for good — a few calls naming
 * paths there (a dead NFS share, an sshfs link) took every thread and froze every tool of the companion. The path
 * is then answered as written from there on, so the caller refuses it as outside the roots.
 */
export async function realpathLoose(absolute: string, roots?: readonly string[]): Promise<string> {
  const { root } = path.parse(absolute);
  const pending = absolute.slice(root.length).split(path.sep).filter(Boolean);
  let resolved = root;
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      resolved = path.dirname(resolved);
      continue;
    }
    const next = path.join(resolved, part);
    if (roots !== undefined && awayFromRoots(next, roots) && onRemoteMount(next)) return path.join(next, ...pending);
    let stat;
    try {
      stat = await onMountOf(next, () => fs.lstat(next));
    } catch (error) {
      if (errnoOf(error) === 'ENAMETOOLONG') throw asToolError(error, absolute);
      if (!isMissing(error)) throw error;
      return path.join(next, ...pending);
    }
    if (stat.isSymbolicLink()) {
      if (++hops > MAX_SYMLINK_HOPS) {
        throw new ToolError('INVALID_INPUT', `path ${JSON.stringify(absolute)} has more than ${MAX_SYMLINK_HOPS} symlinks in a row (a loop?)`);
      }
      const target = await onMountOf(next, () => fs.readlink(next));
      const targetAbsolute = path.resolve(resolved, target);
      const targetRoot = path.parse(targetAbsolute).root;
      pending.unshift(...targetAbsolute.slice(targetRoot.length).split(path.sep).filter(Boolean));
      resolved = targetRoot;
      continue;
    }
    resolved = next;
  }
  return resolved;
}

/** Neither inside one of the roots nor a directory on the way to one. */
function awayFromRoots(candidate: string, roots: readonly string[]): boolean {
  return !roots.some((root) => isInsideRoot(candidate, root) || isInsideRoot(root, candidate));
}

/**
 * realpathLoose, with the common case (the whole path exists) in one realpath(3) call instead of an lstat per
 * component. Any failure — missing tail, dangling link, a loop, a non-directory on the way — takes the walk,
 * which answers those as it always did. Returns whether the path exists as resolved. With a network or FUSE file
 * system mounted, always the walk: realpath(3) would look into it wherever the path leads.
 */
async function resolveSymlinks(absolute: string, roots: readonly string[]): Promise<{ resolved: string; exists: boolean }> {
  if (allFileSystemsLocal()) {
    try {
      // on the main thread while this is the only call executing (fsx/io-mode.ts)
      return { resolved: ioOnMainThread() ? realpathSync.native(absolute) : await fs.realpath(absolute), exists: true };
    } catch {
      // the walk answers it
    }
  }
  return { resolved: await realpathLoose(absolute, roots), exists: false };
}

/**
 * Where a path leads, as a message may say it: named when it is inside the roots, never when it is not — an
 * outside target's name, or the directories a relative link climbs through, are not the model's to learn
 * (issue 9, finding 7).
 */
function whereItLeads(target: string, policy: GuardPolicy): string {
  return rootOf(target, policy.roots) ? `to ${JSON.stringify(target)}` : 'outside the workspace';
}

function checkResolved(asked: string, resolved: string, policy: GuardPolicy, options: ResolveOptions): void {
  if (!rootOf(resolved, policy.roots)) {
    const roots = policy.roots.join(', ') || '(none configured)';
    if (rootOf(asked, policy.roots)) {
      throw new ToolError(
        'FORBIDDEN',
        `path ${JSON.stringify(asked)} leads through a symlink that points outside the workspace (outside the allowed roots: ${roots})`,
        { path: asked },
      );
    }
    throw new ToolError('FORBIDDEN', `path ${JSON.stringify(asked)} is outside the allowed roots (${roots})`, { path: asked });
  }
  for (const candidate of new Set([asked, resolved])) {
    const own = reservedBy(candidate, policy);
    if (own !== undefined) {
      throw new ToolError('POLICY_BLOCKED', `path ${JSON.stringify(candidate)} is inside ${RESERVED_REASON} (${own})`, { path: candidate });
    }
  }
  if (options.forWrite) {
    // moving, removing or changing the mode of a folder that holds the data directory reaches into it too
    const held = policy.reserved?.find((dir) => isInsideAnyCase(dir, resolved));
    if (held !== undefined) {
      throw new ToolError('POLICY_BLOCKED', `path ${JSON.stringify(asked)} holds ${RESERVED_REASON} (${held})`, { path: asked });
    }
  }
  for (const candidate of new Set([asked, resolved])) {
    const glob = deniedBy(candidate, policy);
    if (glob !== undefined) {
      throw new ToolError('POLICY_BLOCKED', `path ${JSON.stringify(candidate)} matches the deny glob ${JSON.stringify(glob)}`, {
        path: candidate,
        glob,
      });
    }
  }
  if (options.forWrite && policy.roots.includes(resolved)) {
    throw new ToolError('FORBIDDEN', `path ${JSON.stringify(asked)} is a root itself; a root cannot be written, moved or removed`, {
      path: asked,
    });
  }
}

/** The one entry point for tool paths: returns the resolved absolute path the tool must operate on. */
export async function resolveInsideRoots(input: string, policy: GuardPolicy, options: ResolveOptions = {}): Promise<string> {
  const asked = normalizeInputPath(input, policy);
  const parent = path.dirname(asked);
  let resolved: string;
  let exists: boolean;
  if (options.keepFinalName && parent !== asked) {
    resolved = path.join((await resolveSymlinks(parent, policy.roots)).resolved, path.basename(asked));
    exists = false; // the final name itself was not looked at
  } else {
    ({ resolved, exists } = await resolveSymlinks(asked, policy.roots));
  }
  checkResolved(asked, resolved, policy, options);
  if (options.mustExist && !exists) {
    try {
      await onMountOf(resolved, () => fs.lstat(resolved));
    } catch (error) {
      if (!isMissing(error)) throw error;
      throw new ToolError('NOT_FOUND', `path ${JSON.stringify(input)} does not exist`, { path: input });
    }
  }
  return resolved;
}

/**
 * Right before a change: the already-resolved path must still resolve to itself, inside the roots. Catches a
 * directory on the way that was swapped for a symlink since resolveInsideRoots ran.
 */
export async function assertUnchanged(resolved: string, policy: GuardPolicy): Promise<void> {
  const now = (await resolveSymlinks(resolved, policy.roots)).resolved;
  if (now !== resolved) {
    throw new ToolError(
      'FORBIDDEN',
      `path ${JSON.stringify(resolved)} now leads ${whereItLeads(now, policy)}: a component was replaced by a symlink after it was checked`,
      { path: resolved, ...(rootOf(now, policy.roots) ? { resolved: now } : {}) },
    );
  }
  checkResolved(resolved, now, policy, {});
}

/**
 * Opens a resolved path for reading without following a symlink at the end (O_NOFOLLOW), then confirms the
 * opened file is the one that was checked, so a directory swapped in between cannot redirect the read.
 */
export async function openForRead(resolved: string, policy: GuardPolicy): Promise<fs.FileHandle> {
  return (await openForReadWithStat(resolved, policy)).handle;
}


/** What a read says of a FIFO, socket or device: it is never read (a FIFO would wait for a writer, a device never end). */
function notRegularFile(resolved: string): ToolError {
  return new ToolError('INVALID_INPUT', `${JSON.stringify(resolved)} is not a regular file (a FIFO, socket or device), so it is not read`, {
    path: resolved,
  });
}

/**
 * What is at `resolved` is looked at before it is opened: a FIFO, socket or device is refused from its lstat, never
 * opened — with a root of / (or one holding a device) opening is itself an act: a serial port resets the board
 * behind it, /dev/watchdog arms the watchdog, a tape rewinds. A symlink there now is left to the open, which does not
 * follow it and says so; what is swapped in after this look is opened harmlessly (fd.ts) and refused by its fstat.
 */
async function refuseBeforeOpen(resolved: string): Promise<void> {
  const stat = await lstatMaybe(resolved);
  if (stat === undefined) throw new ToolError('NOT_FOUND', `path ${JSON.stringify(resolved)} does not exist`, { path: resolved });
  if (!stat.isFile() && !stat.isDirectory() && !stat.isSymbolicLink()) throw notRegularFile(resolved);
}

function refusedOpen(error: unknown, resolved: string): never {
  if (isMissing(error)) throw new ToolError('NOT_FOUND', `path ${JSON.stringify(resolved)} does not exist`, { path: resolved });
  // open(2) of a Unix socket fails with ENXIO
  if (errnoOf(error) === 'ENXIO') throw notRegularFile(resolved);
  if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
    throw new ToolError('FORBIDDEN', `path ${JSON.stringify(resolved)} became a symlink after it was checked`, { path: resolved });
  }
  throw error;
}

/**
 * What an opened descriptor is: a regular file or directory, really at `resolved`, inside the roots. The stat of
 * the descriptor follows the io-mode rule (fs-calls.ts: the inode is in memory once open(2) returned, but a
 * network file system may still ask its server); /proc's link to it is the kernel's own table, always read
 * synchronously — through the thread pool it cost ~35 µs of the main thread's CPU and a trip through the event
 * loop (bench).
 */
async function checkOpened(fd: number, resolved: string, policy: GuardPolicy): Promise<Stats> {
  const stat = await fstatFile(fd);
  if (!stat.isFile() && !stat.isDirectory()) throw notRegularFile(resolved);
  const actual = openedLink(fd) ?? (await openedPathByInode(resolved, stat));
  if (actual !== resolved || !rootOf(actual, policy.roots)) {
    throw new ToolError(
      'FORBIDDEN',
      `path ${JSON.stringify(resolved)} was redirected ${whereItLeads(actual, policy)} after it was checked (symlink swap)`,
      { path: resolved, ...(rootOf(actual, policy.roots) ? { resolved: actual } : {}) },
    );
  }
  return stat;
}

/** openForRead, also giving the opened file's stat (taken from the descriptor, so it is the file checked). */
export async function openForReadWithStat(resolved: string, policy: GuardPolicy): Promise<{ handle: fs.FileHandle; stat: Stats }> {
  await refuseBeforeOpen(resolved);
  let handle: fs.FileHandle;
  try {
    handle = await onMountOf(resolved, () => fs.open(resolved, READ_NO_FOLLOW));
  } catch (error) {
    refusedOpen(error, resolved);
  }
  try {
    return { handle, stat: await checkOpened(handle.fd, resolved, policy) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}


/**
 * openForReadWithStat on a bare descriptor, for the reads every call makes (fs.read, previews): the caller closes
 * it with fs-calls' closeFile — on the main thread when the io-mode rule allows, where FileHandle's close() was
 * always another trip through the thread pool.
 */
export async function openFdForReadWithStat(resolved: string, policy: GuardPolicy): Promise<{ fd: number; stat: Stats }> {
  await refuseBeforeOpen(resolved);
  let fd: number;
  try {
    // on the main thread while this is the only call executing (fsx/io-mode.ts): the path was just resolved, so
    // its inode is in memory, and O_NONBLOCK keeps a FIFO from holding the open (it is refused right after)
    fd = await openFile(resolved, READ_NO_FOLLOW);
  } catch (error) {
    refusedOpen(error, resolved);
  }
  try {
    return { fd, stat: await checkOpened(fd, resolved, policy) };
  } catch (error) {
    await closeFile(fd);
    throw error;
  }
}

/** Where an open descriptor really is, from /proc on Linux; undefined without /proc (a container without it). */
function openedLink(fd: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/** Without /proc: the descriptor is the file checked when device and inode agree with what the path leads to now. */
async function openedPathByInode(expected: string, opened: Stats): Promise<string> {
  const there = await fs.stat(await realpathLoose(expected)).catch(() => undefined);
  const same = there !== undefined && opened.dev === there.dev && opened.ino === there.ino;
  return same ? await realpathLoose(expected) : `${expected} (a different file)`;
}
