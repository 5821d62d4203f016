import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parse } from 'shell-quote';
import { rootOf } from '../policy/path-guard';
import { sha256, sha256File } from '../fsx/sha256';
import type { CommandSpec, FileOp } from '../types';
import { shownStates, stateOf, type ShownStates } from './shown-state';

/**
 * The files a command runs as code, to pin with its card (DESIGN §5.4): a card for `bash run.sh` shows the command
 * line, not run.sh, and a run.sh rewritten while the card waits (the model's next block where writes are auto, another
 * call, any program) would run text nobody saw. Pinned are the program when it is a path (`./deploy.sh`), the script
 * of a well-known interpreter (`python -u x.py`, `node --import ./pre.mjs y.js` — both —, `sh -c "./x.sh"`, `bash <
 * x.sh`), and what `source`/`.` read, each resolved against the command's cwd (a shell string's `cd dir &&` moves it).
 * Only files inside the roots are pinned (the rest is not the model's to write); a missing one is pinned as missing,
 * so one created while the card waited is a change too. A program looked up on PATH (`make`, `npm test`) runs
 * files of its own choosing (a Makefile, package.json scripts) and is not pinned.
 */

/** How an interpreter's options read: which take the next word, which mean the code is not in a file. */
interface Interpreter {
  /** options whose value is the next word (or `=value`, or attached to a one-letter option) */
  withValue: readonly string[];
  /** options after which the code is given inline or as a module name, not as a script file: nothing more to pin */
  inline: readonly string[];
  /** options whose value is a file that runs as code too (node's preloads); they take a value */
  preload?: readonly string[];
  /** options whose value is the script itself (`php -f x.php`, `pwsh -File x.ps1`) */
  script?: readonly string[];
  /** options whose value is a folder the interpreter changes into before it reads its script (`ruby -C dir`, `bun --cwd dir`) */
  chdir?: readonly string[];
  /** one-letter options may be run together (`python -uB`, `bash -ex`) */
  clusters?: boolean;
  /** words that are subcommands, not a script (`deno test`, `bun install`); `run` is skipped */
  subcommands?: readonly string[];
  /** option names match whatever the case (PowerShell) */
  anyCase?: boolean;
}

const SHELL: Interpreter = { withValue: ['-o', '+o', '-O', '+O', '--rcfile', '--init-file'], inline: ['-c', '-s', '-i'], clusters: true };
const PYTHON: Interpreter = { withValue: ['-W', '-X', '--check-hash-based-pycs'], inline: ['-c', '-m', '-'], clusters: true };
const NODE: Interpreter = {
  withValue: ['-C', '--conditions', '--env-file', '--input-type', '--title', '--inspect-port', '--redirect-warnings', '--watch-path'],
  inline: ['-e', '--eval', '-p', '--print', '-', '--test'],
  preload: ['-r', '--require', '--import', '--loader', '--experimental-loader'],
};
const INTERPRETERS: Record<string, Interpreter> = {
  sh: SHELL,
  bash: SHELL,
  zsh: SHELL,
  dash: SHELL,
  ksh: SHELL,
  python: PYTHON,
  node: NODE,
  nodejs: NODE,
  deno: {
    withValue: ['-c', '--config', '--import-map', '--lock', '--cert', '--location', '--seed', '-L', '--log-level', '--port', '--host'],
    inline: ['-'],
    subcommands: ['add', 'bench', 'cache', 'check', 'clean', 'compile', 'completions', 'coverage', 'doc', 'eval', 'fmt', 'info', 'init', 'install', 'jupyter', 'lint', 'lsp', 'outdated', 'publish', 'remove', 'repl', 'task', 'test', 'types', 'uninstall', 'upgrade', 'vendor', 'x'],
  },
  bun: {
    withValue: ['--config', '-c', '--env-file', '--conditions'],
    chdir: ['--cwd'],
    inline: ['-e', '--eval', '-p', '--print', '-'],
    preload: ['-r', '--preload'],
    subcommands: ['a', 'add', 'audit', 'build', 'create', 'exec', 'i', 'info', 'init', 'install', 'link', 'outdated', 'patch', 'pm', 'publish', 'remove', 'repl', 'rm', 'test', 'unlink', 'update', 'upgrade', 'why', 'x'],
  },
  ruby: { withValue: ['-I', '-E', '-F', '--encoding'], inline: ['-e', '-'], preload: ['-r'], chdir: ['-C'], clusters: true },
  perl: { withValue: ['-I', '-M', '-m', '-C'], inline: ['-e', '-E', '-'], clusters: true },
  php: { withValue: ['-c', '-d', '-t', '-z'], inline: ['-r', '-R', '-B', '-E', '-S', '-a'], script: ['-f'] },
  pwsh: {
    withValue: ['-executionpolicy', '-ep', '-workingdirectory', '-wd', '-configurationname', '-outputformat', '-of', '-inputformat', '-if', '-windowstyle', '-settingsfile'],
    inline: ['-command', '-c', '-encodedcommand', '-e', '-ec'],
    script: ['-file', '-f'],
    anyCase: true,
  },
};
INTERPRETERS.powershell = INTERPRETERS.pwsh!;

/** `python3.12` is python, `/usr/bin/bash` is bash, `pwsh.exe` is pwsh */
function interpreterOf(program: string): Interpreter | undefined {
  const name = path.basename(program).replace(/\.exe$/i, '');
  return INTERPRETERS[/^python[0-9.]*$/.test(name) ? 'python' : name.toLowerCase()];
}

const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** programs that run the rest of their words as a command */
const WRAPPERS = new Set(['env', 'exec', 'nohup', 'command', 'time', 'nice']);

/** A word a shell would only know when it runs (`$X`, `*.sh`): null. */
type Word = string | null;

/**
 * Pure: the files `command` runs as code, as absolute paths resolved against its cwd (lexically; links are followed
 * when they are pinned). A shell string is read command by command.
 */
export function scriptsNamedBy(command: CommandSpec): string[] {
  const found = new Set<string>();
  if (command.argv !== undefined) scriptsOfWords(command.argv, command.cwd, undefined, found);
  else if (command.shell !== undefined) scriptsOfShell(command.shell, command.cwd, found);
  return [...found];
}

function scriptsOfShell(text: string, cwd: string, found: Set<string>): void {
  // shell-quote reads a line break as a space; for a shell it ends a command like `;` does
  const tokens = parse(text.replace(/\\\r?\n/g, '').replace(/\r?\n/g, ' ; '), (name) => ({ variable: name }) as unknown as string);
  let words: Word[] = [];
  let stdin: Word | undefined;
  let dir: string | undefined = cwd;
  const end = () => {
    if (dir !== undefined && words.length > 0) {
      if (words[0] === 'cd') dir = typeof words[1] === 'string' && words.length === 2 ? path.resolve(dir, words[1]) : undefined;
      else scriptsOfWords(words, dir, stdin, found);
    }
    words = [];
    stdin = undefined;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as unknown;
    if (typeof token === 'string') {
      words.push(token);
      continue;
    }
    const { op, comment } = token as { op?: string; comment?: string };
    if (comment !== undefined) break;
    if (op === undefined || op === 'glob') words.push(null);
    else if (op === '<') {
      const next = tokens[++i];
      stdin = typeof next === 'string' ? next : null;
    } else if (/^[0-9]*[<>]/.test(op)) i++;
    else end();
  }
  end();
}

function scriptsOfWords(all: readonly Word[], cwd: string, stdin: Word | undefined, found: Set<string>): void {
  let words = all.slice();
  // `NAME=value` in front, and `env`/`exec`/`nohup` … in front of the command they start
  for (;;) {
    while (typeof words[0] === 'string' && ENV_ASSIGNMENT.test(words[0])) words = words.slice(1);
    if (typeof words[0] !== 'string' || !WRAPPERS.has(words[0])) break;
    words = words.slice(1);
    while (typeof words[0] === 'string' && words[0].startsWith('-')) words = words.slice(1);
  }
  // where the interpreter reads its script from: the cwd, or the folder it changes into first (`ruby -C dir`)
  let base = cwd;
  const pin = (word: Word | undefined) => {
    if (typeof word === 'string' && word !== '' && word !== '-') found.add(path.resolve(base, word));
  };
  const chdir = (dir: Word | undefined) => {
    if (typeof dir !== 'string' || dir === '') return false;
    base = path.resolve(base, dir);
    return true;
  };
  const program = words[0];
  if (typeof program !== 'string') return;
  if (program === 'source' || program === '.') return pin(words[1]);
  if (program.includes('/')) pin(program);
  const interpreter = interpreterOf(program);
  if (interpreter === undefined) return;
  const script = scriptWord(words.slice(1), interpreter, pin, chdir);
  if (script === undefined && stdin !== undefined) pin(stdin);
  else if (script !== undefined && script.inline !== undefined) scriptsOfShell(script.inline, cwd, found);
}

/**
 * The interpreter's script among its words (pinned), or the shell code of `sh -c` to read in turn; undefined when
 * the code comes from elsewhere (inline, a module, standard input) or is not known until it runs.
 */
function scriptWord(
  words: readonly Word[],
  interpreter: Interpreter,
  pin: (word: Word | undefined) => void,
  chdir: (dir: Word | undefined) => boolean,
): { inline?: string } | undefined {
  const named = (word: string) => (interpreter.anyCase ? word.toLowerCase() : word);
  const has = (list: readonly string[] | undefined, word: string) => list?.includes(named(word)) === true;
  let ran = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (typeof word !== 'string') return undefined;
    if (word === '--') {
      pin(words[i + 1]);
      return {};
    }
    // the first word that is no option may be a subcommand (`bun --cwd app run x.ts`); `run` is skipped once
    if (!ran && (word === 'run' || word === 'serve') && interpreter.subcommands !== undefined) {
      ran = true;
      continue;
    }
    if (!ran && has(interpreter.subcommands, word)) return undefined;
    if (!word.startsWith('-') && !(interpreter === SHELL && word.startsWith('+'))) {
      pin(word);
      return {};
    }
    const [name, value] = word.startsWith('--') && word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined];
    if (has(interpreter.inline, name)) return interpreter === SHELL && name === '-c' && typeof words[i + 1] === 'string' ? { inline: words[i + 1]! } : undefined;
    if (has(interpreter.script, name)) {
      pin(words[i + 1]);
      return {};
    }
    if (has(interpreter.preload, name)) {
      pin(value ?? words[++i]);
      continue;
    }
    // a folder known only when it runs (`ruby -C $DIR`): which script runs is not known either
    if (has(interpreter.chdir, name)) {
      if (!chdir(value ?? words[++i])) return undefined;
      continue;
    }
    if (has(interpreter.withValue, name)) {
      if (value === undefined) i++;
      continue;
    }
    if (interpreter.clusters && /^[-+][A-Za-z]{2,}$/.test(word)) {
      // `-ec 'cmd'`, `-uc 'code'`, `-Wignore`: the first letter that takes something decides what the next word is
      for (const [at, letter] of [...word.slice(1)].entries()) {
        const option = `${word[0]}${letter}`;
        if (has(interpreter.inline, option)) return interpreter === SHELL && letter === 'c' && typeof words[i + 1] === 'string' ? { inline: words[i + 1]! } : undefined;
        if (has(interpreter.preload, option)) {
          pin(at + 2 < word.length ? word.slice(at + 2) : words[++i]);
          break;
        }
        if (has(interpreter.chdir, option)) {
          if (!chdir(at + 2 < word.length ? word.slice(at + 2) : words[++i])) return undefined;
          break;
        }
        if (has(interpreter.withValue, option)) {
          if (at + 2 === word.length) i++;
          break;
        }
      }
    }
  }
  return undefined;
}

/**
 * The files in the roots `command` runs as code, now: those it names (scriptsNamedBy), and for one reached through a
 * link the file it leads to as well, when that is inside the roots too.
 */
async function scriptsRunBy(command: CommandSpec, roots: readonly string[]): Promise<string[]> {
  const named = scriptsNamedBy(command).filter((file) => rootOf(file, roots) !== undefined);
  const files = await Promise.all(
    named.map(async (file) => {
      const stat = await fs.lstat(file).catch(() => undefined);
      // a folder is no script (`bun run build` where build/ is the output folder)
      if (stat?.isDirectory()) return [];
      if (!stat?.isSymbolicLink()) return [file];
      const real = await fs.realpath(file).catch(() => undefined);
      return real !== undefined && rootOf(real, roots) !== undefined ? [file, real] : [file];
    }),
  );
  return files.flat();
}

/**
 * The states of the files the commands run (shown-state.ts: by content up to its size limit, larger ones by size,
 * inode and change times), pinned when the card is made. A file reached through a link is pinned as the link and as
 * the file it leads to, when that is inside the roots too.
 */
export async function pinScripts(commands: readonly CommandSpec[], roots: readonly string[]): Promise<ShownStates> {
  return shownStates((await Promise.all(commands.map((command) => scriptsRunBy(command, roots)))).flat());
}

/**
 * The scripts a card pinned, followed as an approved plan goes on: an auto_coder plan applies its file actions and
 * only then starts its programs, so a script rewritten in between — by another block where writes are auto, another
 * tab, any program — would run text nobody saw, though the pins held when the person approved. Each program's
 * scripts are checked again as it starts: against the card, or for a file the plan itself wrote (its diff showed the
 * change) against what the plan wrote, and one it removed must still be missing.
 */
export interface ScriptsAtStart {
  /** the plan's own change, as applied: what the files it wrote hold now */
  applied(ops: readonly FileOp[]): Promise<void>;
  /** the first file `command` runs that is not as the card or the plan left it, or undefined */
  changed(command: CommandSpec): Promise<string | undefined>;
}

export function scriptsAtStart(pinned: ShownStates, roots: readonly string[]): ScriptsAtStart {
  /** a file the plan wrote → the sha256 of what it wrote, or `missing`, or the state it was left in (shown-state.ts) */
  const left = new Map<string, { digest: string } | { state: string }>();
  const under = (dir: string) => [...pinned.keys()].filter((file) => file === dir || file.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep));
  return {
    async applied(ops) {
      for (const op of ops) {
        if (op.op === 'write' && op.mode !== 'append') left.set(op.path, { digest: sha256(op.content) });
        else if (op.op === 'rm') for (const file of under(op.path)) left.set(file, { state: 'missing' });
        else if (op.op !== 'mkdir') {
          // not made by a plan's file actions today: taken as they are right after the change
          const touched = op.op === 'mv' ? [...under(op.from), ...under(op.to)] : op.op === 'chmod' ? under(op.path) : [op.path];
          for (const [file, state] of await shownStates(touched)) left.set(file, { state });
        }
      }
    },
    async changed(command) {
      for (const file of await scriptsRunBy(command, roots)) {
        const expected = left.get(file);
        if (expected === undefined && !pinned.has(file)) continue;
        if (expected !== undefined && 'digest' in expected) {
          const stat = await fs.lstat(file).catch(() => undefined);
          const digest = stat?.isFile() ? await sha256File(file, stat.size).catch(() => undefined) : undefined;
          if (digest !== expected.digest) return file;
        } else if ((await stateOf(file)) !== (expected?.state ?? pinned.get(file))) return file;
      }
      return undefined;
    },
  };
}
