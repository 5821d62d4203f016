import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ToolError } from '../shared/errors';
import { asToolError } from './fsx/errno';

/**
 * The data directory: `$CHATBRIDGE_HOME`, else `~/.chatbridge`. Holds the hashed tokens, the run map, the audit
 * log, the journal, the records of running programs and the runtime file the CLI reads to find a running companion.
 * A relative one is read from `cwd`, the folder the command was typed in (main.ts): `npm start` runs in the package
 * folder, so it was read from there while `npx chatbridge status` typed in the same place looked in another.
 */
export function resolveHome(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const fromEnv = env.CHATBRIDGE_HOME?.trim();
  if (!fromEnv) return join(homedir(), '.chatbridge');
  // a `~` the shell did not expand (quoted, or set in a service file or .env) is the person's home, not a folder
  // named `~` under whatever folder a command happens to run in
  return resolve(cwd, fromHomeFolder(fromEnv));
}

/**
 * A path given by the person with a leading `~` the shell left as it is (`--config=~/cb.json`, a quoted `"~/x"`, a
 * config's roots) is under their home folder, as the shell reads it; any other path as it is.
 */
export function fromHomeFolder(path: string): string {
  return /^~(?=$|[/\\])/.test(path) ? join(homedir(), path.slice(1)) : path;
}

export interface HomePaths {
  root: string;
  tokens: string;
  runs: string;
  audit: string;
  journal: string;
  /** {port, pid} of the running companion */
  runtime: string;
  /** held by the one companion using this data dir (home-lock.ts) */
  lock: string;
  /** a token for the local CLI, readable by this user only */
  cliToken: string;
  /** one record per running program, so a start after a crash can stop what the crashed run left running */
  programs: string;
  /** the config `chatbridge start` loads when no --config is given, and `chatbridge mcp add` writes */
  config: string;
  /** one bounded log per MCP server of the person's (`<server>.log`) */
  mcpLogs: string;
}

export function homePaths(root: string): HomePaths {
  return {
    root,
    tokens: join(root, 'tokens.json'),
    runs: join(root, 'runs.jsonl'),
    audit: join(root, 'audit'),
    journal: join(root, 'journal'),
    runtime: join(root, 'companion.json'),
    lock: join(root, 'companion.lock'),
    cliToken: join(root, 'cli.token'),
    programs: join(root, 'programs'),
    config: join(root, 'config.json'),
    mcpLogs: join(root, 'mcp-logs'),
  };
}

/**
 * Makes the data directory and its folders. One that cannot be made (CHATBRIDGE_HOME naming a file, or a folder
 * under one) is refused naming the directory, what is in the way and the variable that moves it: Node's own
 * "EEXIST: file already exists, mkdir '…'" named neither the data directory nor what to change.
 */
/** The nearest of `path` and the folders above it that is there and is no folder. */
function fileInTheWay(path: string): string {
  for (let at = path; dirname(at) !== at; at = dirname(at)) {
    try {
      if (!statSync(at).isDirectory()) return at;
    } catch {
      // not there, or under the file in the way: look one folder up
    }
  }
  return path;
}

export function ensureHome(root: string): HomePaths {
  const paths = homePaths(root);
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    keepPrivate(paths);
    for (const dir of [paths.audit, paths.journal, paths.programs]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    if (error instanceof ToolError) throw error;
    const { code, path = root } = error as NodeJS.ErrnoException;
    const reason = code === 'EEXIST' || code === 'ENOTDIR' ? `${fileInTheWay(path)} is a file, not a folder` : asToolError(error, path).message;
    throw new ToolError('INVALID_INPUT', `the data directory ${root} cannot be made: ${reason}. Set CHATBRIDGE_HOME to a folder of its own (default ~/.chatbridge)`);
  }
  return paths;
}

/**
 * The data directory holds what lets a program act as the person: the tokens that pair an extension, the config a
 * start loads (its modes, the MCP servers it starts), the journal a start repairs from (before-images of their files,
 * and what it writes back), the audit and run logs. What the companion makes in it is private (folders 0700, files
 * 0600), but one that already existed — made by hand or under a loose umask, or a shared folder CHATBRIDGE_HOME names
 * — was used as it was: one other users could write to let them pair a token of their own (a tokens.json put in its
 * place) or give the next start a config of theirs. So, on POSIX: the data directory (a link to one is followed) and
 * its own folders, when they are the person's but open to others, are made private before anything in them is read;
 * when it, an entry of its own, or an entry in one of its folders that was open to others' writes (a journal entry
 * the next start writes back) belongs to another user, it is refused, naming it and what to do — tightening
 * would not take out what they may have put there already.
 */
function keepPrivate(paths: HomePaths): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const fix = 'Set CHATBRIDGE_HOME to a folder of your own (default ~/.chatbridge)';
  const home = statSync(paths.root);
  if (home.uid !== uid) {
    throw new ToolError(
      'INVALID_INPUT',
      `the data directory ${paths.root} belongs to another user (uid ${home.uid}), not to you: they could put a token, a config or a journal entry of theirs in it, so it is not used. ${fix}`,
    );
  }
  if ((home.mode & 0o077) !== 0) makePrivate(paths.root);
  const entries = [paths.tokens, paths.cliToken, paths.config, paths.runtime, paths.lock, paths.runs, paths.audit, paths.journal, paths.programs, paths.mcpLogs];
  for (const entry of entries) {
    let stat: Stats;
    try {
      stat = lstatSync(entry);
    } catch {
      continue;
    }
    refuseOthers(paths.root, entry, stat, uid, fix);
    if (!stat.isDirectory()) continue;
    // a folder others could write to (the journal, whose entries a start writes back) may hold what they put in it
    if ((stat.mode & 0o022) !== 0) refuseOthersWithin(paths.root, entry, uid, fix);
    if ((stat.mode & 0o077) !== 0) makePrivate(entry);
  }
}

/** Refuses `entry` of the data directory when it belongs to another user. */
function refuseOthers(root: string, entry: string, stat: Stats, uid: number, fix: string): void {
  if (stat.uid === uid) return;
  throw new ToolError(
    'INVALID_INPUT',
    `the data directory ${root} holds ${entry}, which belongs to another user (uid ${stat.uid}), not to you: it may hold what they put there (a token of theirs, a config, a journal entry the next start would write back), so it is not used. Remove it, or s${fix.slice(1)}`,
  );
}

/**
 * Refuses what another user put in `folder`, one of the data directory's own folders that was open to their writes:
 * each entry in it, and in each folder in it that was open too (a folder no one else could write to holds only what
 * its owner put there).
 */
function refuseOthersWithin(root: string, folder: string, uid: number, fix: string): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return; // unreadable: nothing in it is read by a start either
  }
  for (const name of names) {
    const entry = join(folder, name);
    let stat: Stats;
    try {
      stat = lstatSync(entry);
    } catch {
      continue;
    }
    refuseOthers(root, entry, stat, uid, fix);
    if (stat.isDirectory() && (stat.mode & 0o022) !== 0) {
      refuseOthersWithin(root, entry, uid, fix);
      makePrivate(entry);
    }
  }
}

/** A file system without POSIX modes (FAT, a Windows drive under WSL) refuses or ignores it: used as it was, as before. */
function makePrivate(folder: string): void {
  try {
    chmodSync(folder, 0o700);
  } catch {
    // EPERM on a FAT mount: its modes are the mount's, not the folder's
  }
}

/**
 * Temp file + rename, so a crash never leaves half a file behind. A write that fails (the data dir's disk full)
 * removes its temp file too — one left at every failed start would take what room is left — and the error names
 * the file, which Node's message for a failed write does not.
 */
export function writeFileAtomic(path: string, content: string, mode = 0o600): void {
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temp, content, { mode });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw asToolError(error, path);
  }
}

/** The package version, read once from package.json next to companion/. */
export function readVersion(): string {
  try {
    const file = new URL('../package.json', import.meta.url);
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
    return typeof parsed.version === 'string' ? parsed.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
