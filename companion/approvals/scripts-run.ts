import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parse } from 'shell-quote';
import { rootOf } from '../policy/path-guard';
import { readRegularFile } from '../fsx/read-regular';
import { sha256, sha256File } from '../fsx/sha256';
import type { CommandSpec, FileOp } from '../types';
import { shownStates, stateOf, type ShownStates } from './shown-state';

/**
 * The files a command runs as code, to pin with its card (DESIGN §5.4): a card for `bash run.sh` shows the command
 * line, not run.sh, and a run.sh rewritten while the card waits (the model's next block where writes are auto, another
 * call, any program) would run text nobody saw. Pinned are the program when it is a path (`./deploy.sh`), the script
 * of a well-known interpreter (`python -u x.py`, `node --import ./pre.mjs y.js` — both —, `sh -c "./x.sh"`, `bash <
 * x.sh`), the module `python -m` runs from the folder it runs in (moduleFiles), and what `source`/`.` read, each
 * resolved against the command's cwd (a shell string's `cd dir &&` moves it). Only files inside the roots are pinned
 * (the rest is not the model's to write); a missing one is pinned as missing, so one created while the card waited is
 * a change too. Of the programs that run a project's files of their own choosing, make's makefile (with the files it
 * includes by name) and the package.json script npm, pnpm and yarn run (with the files its line names) are pinned:
 * each is the command's whole text, written where the command runs. What they reach further (the module a test
 * runner imports, `pytest`'s conftest.py, what `cargo` or `go test` builds) is not: that is the project's code, which
 * no card shows anyway.
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
  /** its inline code is another language, not read here for the files it runs (PowerShell) */
  unread?: boolean;
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
    unread: true,
  },
};
INTERPRETERS.powershell = INTERPRETERS.pwsh!;

/** `python3.12` is python, `/usr/bin/bash` is bash, `pwsh.exe` is pwsh */
function interpreterOf(program: string): Interpreter | undefined {
  const name = path.basename(program).replace(/\.exe$/i, '');
  return INTERPRETERS[/^python[0-9.]*$/.test(name) ? 'python' : name.toLowerCase()];
}

const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** How a program that runs the rest of its words as a command reads its own words before that command. */
interface Wrapper {
  /** options whose value is the next word (or `=value`, or attached to a one-letter option: `-n10`, `-oL`) */
  withValue: readonly string[];
  /** options whose value is a folder it changes into before it starts the command (`env -C dir`) */
  chdir?: readonly string[];
  /** options whose value is more words of the command, split as a shell would (`env -S "bash -e"`) */
  split?: readonly string[];
  /** words after the options that are its own, not the command's (timeout's duration) */
  operands?: number;
}

/**
 * Programs that run the rest of their words as a command, with the options that take a value: `nice -n 10 bash
 * run.sh` runs run.sh, not a program named `10`, and `timeout 60 python x.py` runs x.py, not `60`. Read as words with
 * no value, `nice -n 10` and `env -u NAME` hid the script from the card (nothing was pinned, nothing said so), and `env
 * -C tools bash go.sh` pinned the go.sh of the wrong folder, so the one that runs could be rewritten while the card
 * waited.
 */
const WRAPPERS: Record<string, Wrapper> = {
  env: { withValue: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string'], chdir: ['-C', '--chdir'], split: ['-S', '--split-string'] },
  exec: { withValue: ['-a'] },
  nohup: { withValue: [] },
  command: { withValue: [] },
  time: { withValue: ['-f', '--format', '-o', '--output'] },
  nice: { withValue: ['-n', '--adjustment'] },
  timeout: { withValue: ['-s', '--signal', '-k', '--kill-after'], operands: 1 },
  stdbuf: { withValue: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  setsid: { withValue: [] },
};

/**
 * The words of the command a wrapper runs (`words` starts after the wrapper's name), with the folder it runs in; the
 * command is undefined where it is known only when it runs (a value of `$X` for `env -C` or `env -S`).
 */
function wrappedCommand(wrapper: Wrapper, words: readonly Word[], cwd: string, found: Named): { words: Word[]; cwd: string } | undefined {
  let dir = cwd;
  let operands = wrapper.operands ?? 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (typeof word !== 'string') {
      found.unknown.add(word!.unknown);
      return undefined;
    }
    if (word === '--') return { words: words.slice(i + 1), cwd: dir };
    if (!word.startsWith('-') || word === '-') {
      if (operands === 0) return { words: words.slice(i), cwd: dir };
      operands--;
      continue;
    }
    const long = word.startsWith('--');
    const [name, attached] = long
      ? word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined]
      : word.length > 2 && wrapper.withValue.includes(word.slice(0, 2)) ? [word.slice(0, 2), word.slice(2)] : [word, undefined];
    if (!wrapper.withValue.includes(name)) continue;
    const value = attached ?? words[++i];
    if (typeof value !== 'string') {
      if (value !== undefined) found.unknown.add(value.unknown);
      return undefined;
    }
    if (wrapper.chdir?.includes(name)) dir = path.resolve(dir, value);
    if (wrapper.split?.includes(name)) {
      const split = parse(value, (variable) => ({ variable }) as unknown as string).map((token): Word =>
        typeof token === 'string' ? token : { unknown: value },
      );
      return { words: [...split, ...words.slice(i + 1)], cwd: dir };
    }
  }
  return { words: [], cwd: dir };
}

/**
 * The files the variables set for a command make it run, relative to where it runs: the program looked up on a PATH
 * the call sets (`PATH=tools git status` runs tools/git, an empty entry being the folder itself), the preloads of
 * NODE_OPTIONS (`--require ./pre.js`, as node's own options are read), the file bash reads first (BASH_ENV) and the
 * libraries LD_PRELOAD names by a path. Each is on the card as written; what it runs is pinned as the script on the
 * line is, so it cannot be rewritten while the card waits.
 */
function filesOfVariables(assigned: ReadonlyMap<string, string>, program: string): string[] {
  const files: string[] = [];
  const searched = assigned.get('PATH');
  if (searched !== undefined && !program.includes('/')) for (const dir of searched.split(':')) files.push(path.join(dir === '' ? '.' : dir, program));
  const nodeOptions = assigned.get('NODE_OPTIONS');
  if (nodeOptions !== undefined) {
    const words = parse(nodeOptions).filter((token): token is string => typeof token === 'string');
    scriptWord(words, NODE, (word) => typeof word === 'string' && files.push(word), () => false);
  }
  const bashEnv = assigned.get('BASH_ENV');
  if (bashEnv !== undefined && bashEnv !== '') files.push(bashEnv);
  for (const library of (assigned.get('LD_PRELOAD') ?? '').split(/[ :]+/)) if (library.includes('/')) files.push(library);
  return files;
}

/** A word a shell would only know when it runs (`$X`, `*.sh`, a backquote): what is written there. */
interface Unknown {
  unknown: string;
}
type Word = string | Unknown;

/**
 * Pure: the files `command` runs as code, as absolute paths resolved against its cwd (lexically; links are followed
 * when they are pinned). A shell string is read command by command.
 */
export function scriptsNamedBy(command: CommandSpec): string[] {
  return [...namedBy(command).files];
}

/** What a command names: files, and the package.json scripts a package manager runs (read when they are pinned). */
interface Named {
  files: Set<string>;
  /** the folder a package manager runs in and the name of the script (`npm test`: test), from its package.json */
  packageScripts: Array<{ dir: string; script: string }>;
  /** a makefile make may read and the folder it runs in, where the files the makefile includes are looked for */
  makefiles: Array<{ dir: string; file: string }>;
  /** where the code that runs, or the folder it is read in, is known only when it runs, as written (`$SCRIPT`) */
  unknown: Set<string>;
}

function namedBy(command: CommandSpec): Named {
  const found: Named = { files: new Set(), packageScripts: [], makefiles: [], unknown: new Set() };
  if (command.argv !== undefined) scriptsOfWords(command.argv, command.cwd, undefined, found);
  else if (command.shell !== undefined) scriptsOfShell(command.shell, command.cwd, found);
  return found;
}

function scriptsOfShell(text: string, cwd: string, found: Named): void {
  // shell-quote reads a line break as a space; for a shell it ends a command like `;` does
  const tokens = parse(text.replace(/\\\r?\n/g, '').replace(/\r?\n/g, ' ; '), (name) => ({ variable: name }) as unknown as string);
  let words: Word[] = [];
  let stdin: Word | undefined;
  let dir: string | undefined = cwd;
  /** a `cd` to a folder known only when it runs: what the commands after it run is not known */
  let lost: string | undefined;
  /** variables a command of its own sets for the commands after it (`export PATH=tools:$PATH;`, shell.exec's env) */
  const vars = new Map<string, string>();
  const assignment = (word: Word) => typeof word === 'string' && ENV_ASSIGNMENT.test(word);
  const end = () => {
    if (dir !== undefined && words.length > 0) {
      const setting = words[0] === 'export' ? words.slice(1) : words;
      if (words[0] === 'cd') {
        dir = typeof words[1] === 'string' && words.length === 2 ? path.resolve(dir, words[1]) : undefined;
        if (dir === undefined) lost = `cd ${words.slice(1).map((word) => (typeof word === 'string' ? word : word.unknown)).join(' ')}`;
      } else if (setting.length > 0 && assignment(setting[0]!) && setting.every((word) => assignment(word) || typeof word !== 'string')) {
        // a value's part known only when it runs (`export PATH=./bin:$PATH`, read as `PATH=./bin:` and `$PATH`): the
        // card names it, and what is written out is still read
        for (const word of setting) {
          if (typeof word === 'string') vars.set(word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1));
          else found.unknown.add(word.unknown);
        }
      } else scriptsOfWords(words, dir, stdin, found, vars);
    } else if (lost !== undefined && words.length > 0) found.unknown.add(lost);
    words = [];
    stdin = undefined;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as unknown;
    if (typeof token === 'string') {
      // shell-quote keeps a backquoted command as words
      words.push(token.includes('`') ? { unknown: token } : token);
      continue;
    }
    const { op, comment, variable, pattern } = token as { op?: string; comment?: string; variable?: string; pattern?: string };
    if (comment !== undefined) break;
    if (op === undefined || op === 'glob') words.push({ unknown: pattern ?? (variable ? `$${variable}` : '$(…)') });
    else if (op === '<') {
      const next = tokens[++i];
      stdin = typeof next === 'string' ? next : { unknown: '<' };
    } else if (/^[0-9]*[<>]/.test(op)) i++;
    else end();
  }
  end();
}

function scriptsOfWords(all: readonly Word[], start: string, stdin: Word | undefined, found: Named, vars: ReadonlyMap<string, string> = new Map()): void {
  let words = all.slice();
  let cwd = start;
  /** the variables set for the command (the shell's, process.run's env, `NAME=value` in front, env's own) */
  const assigned = new Map(vars);
  // `NAME=value` in front, and `env`/`nice`/`timeout` … in front of the command they start
  for (;;) {
    for (let word = words[0]; typeof word === 'string' && ENV_ASSIGNMENT.test(word); word = words[0]) {
      assigned.set(word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1));
      words = words.slice(1);
    }
    const wrapper = typeof words[0] === 'string' && Object.prototype.hasOwnProperty.call(WRAPPERS, words[0]) ? WRAPPERS[words[0]] : undefined;
    if (wrapper === undefined) break;
    const wrapped = wrappedCommand(wrapper, words.slice(1), cwd, found);
    if (wrapped === undefined) return;
    ({ words, cwd } = wrapped);
  }
  // where the interpreter reads its script from: the cwd, or the folder it changes into first (`ruby -C dir`)
  let base = cwd;
  const pin = (word: Word | undefined) => {
    if (typeof word === 'string' && word !== '' && word !== '-') found.files.add(path.resolve(base, word));
    else if (typeof word === 'object') found.unknown.add(word.unknown);
  };
  const chdir = (dir: Word | undefined) => {
    if (typeof dir === 'object') found.unknown.add(dir.unknown);
    if (typeof dir !== 'string' || dir === '') return false;
    base = path.resolve(base, dir);
    return true;
  };
  const program = words[0];
  if (typeof program !== 'string') return pin(program);
  for (const file of filesOfVariables(assigned, program)) pin(file);
  if (program === 'source' || program === '.') return pin(words[1]);
  if (program.includes('/')) pin(program);
  const name = path.basename(program).replace(/\.(exe|cmd)$/i, '');
  if (name === 'make' || name === 'gmake') {
    const pinMakefile = (word: Word | undefined) => {
      pin(word);
      if (typeof word === 'string' && word !== '' && word !== '-') found.makefiles.push({ dir: base, file: path.resolve(base, word) });
    };
    return makefilesOf(words.slice(1), pinMakefile, chdir);
  }
  if (PACKAGE_MANAGERS.has(name)) return packageScriptOf(words.slice(1), cwd, found, pin);
  const interpreter = interpreterOf(program);
  if (interpreter === undefined) return;
  const script = scriptWord(words.slice(1), interpreter, pin, chdir);
  // the shell opens `< x.sh` where it stands, before a wrapper changes folders (`env -C dir bash < x.sh`)
  if (script === undefined && stdin !== undefined) pin(typeof stdin === 'string' && stdin !== '' ? path.resolve(start, stdin) : stdin);
  else if (script !== undefined && script.inline !== undefined) scriptsOfShell(script.inline, cwd, found);
}

/**
 * The makefile make reads: `-f FILE` (each of them), else the first of GNUmakefile, makefile and Makefile there is —
 * all three are pinned, so one made while the card waited is a change too —, in the folder `-C` names (make changes
 * into it first). A folder or a file known only when it runs pins nothing. The files a makefile includes are read
 * when the card is made (makefileIncludes).
 */
function makefilesOf(words: readonly Word[], pin: (word: Word | undefined) => void, chdir: (dir: Word | undefined) => boolean): void {
  const files: Word[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (typeof word !== 'string') continue;
    const [name, attached] = /^--[a-z-]+=/.test(word) ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : /^-[Cf]./.test(word) ? [word.slice(0, 2), word.slice(2)] : [word, undefined];
    if (name === '-C' || name === '--directory') {
      if (!chdir(attached ?? words[++i])) return;
    } else if (name === '-f' || name === '--file' || name === '--makefile') files.push(attached ?? words[++i] ?? '');
  }
  for (const file of files.length > 0 ? files : ['GNUmakefile', 'makefile', 'Makefile']) pin(file);
}

/** npm, pnpm and yarn, which run a script of the package.json where they run */
const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn']);
/** their commands that run the script of the same name (npm's short forms too) */
const SCRIPT_COMMANDS: Record<string, string> = { test: 'test', t: 'test', tst: 'test', start: 'start', stop: 'stop', restart: 'restart' };
/** their commands that install the package's dependencies, which run its own install and prepare scripts too */
const INSTALL_COMMANDS = new Set(['install', 'i', 'ci']);
/** their commands that run the script named next */
const RUN_COMMANDS = new Set(['run', 'run-script', 'rum', 'urn']);
/** the options that say where they run (npm's `--prefix`/`-C`, pnpm's `--dir`/`-C`, yarn's `--cwd`) */
const PACKAGE_DIR_OPTIONS = new Set(['--prefix', '-C', '--dir', '--cwd']);

/**
 * The package.json script `npm test`, `npm run build`, `pnpm start` or `yarn run lint` runs (`npm install` alone: its
 * install and prepare scripts, before and after): the script line is in
 * the package.json of the folder it runs in (the nearest one up from there, as npm looks), which is pinned with the
 * files its line names (pinScripts). A folder or script known only when it runs pins nothing.
 */
function packageScriptOf(words: readonly Word[], cwd: string, found: Named, pin: (word: Word | undefined) => void): void {
  let dir = cwd;
  let script: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (typeof word !== 'string') return pin(word);
    const [name, value] = word.startsWith('--') && word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined];
    if (PACKAGE_DIR_OPTIONS.has(name)) {
      const next = value ?? words[++i];
      if (typeof next !== 'string' || next === '') return pin(next);
      dir = path.resolve(dir, next);
    } else if (word.startsWith('-')) continue;
    else if (script === undefined && RUN_COMMANDS.has(word)) script = '';
    else if (script === '') {
      script = word;
      break;
    } else {
      // `npm install` alone installs the package's dependencies (`npm install left-pad` adds one)
      script = INSTALL_COMMANDS.has(word) && words.slice(i + 1).every((rest) => typeof rest === 'string' && rest.startsWith('-')) ? 'install' : SCRIPT_COMMANDS[word];
      break;
    }
  }
  if (script === undefined || script === '') return;
  found.files.add(path.join(dir, 'package.json'));
  for (const each of script === 'install' ? ['install', 'prepare'] : [script]) found.packageScripts.push({ dir, script: each });
}

/**
 * The files `python -m a.b` runs from the folder it runs in, which Python puts first on its path: the package
 * `a/__init__.py`, then `a/b.py`, or the package `a/b/` (its `__init__.py` and `__main__.py`). All are pinned (those
 * missing as missing), so a module of the project rewritten while the card waited, or one made there under an
 * installed module's name (`pytest.py` beside `python -m pytest`), is a change as a script named on the line would be.
 */
function moduleFiles(module: string): string[] {
  const parts = module.split('.');
  if (!parts.every((part) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(part))) return [];
  const full = parts.join('/');
  const packages = parts.slice(0, -1).map((_, i) => `${parts.slice(0, i + 1).join('/')}/__init__.py`);
  return [...packages, `${full}.py`, `${full}/__init__.py`, `${full}/__main__.py`];
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
  // `sh -c` code is read in turn; PowerShell's (`-Command`, `-EncodedCommand`) is not read for what it runs
  const inline = (option: string, code: Word | undefined): { inline?: string } | undefined => {
    if (interpreter === SHELL && option === '-c') {
      if (typeof code === 'string') return { inline: code };
      pin(code);
    } else if (interpreter === PYTHON && option === '-m') {
      if (typeof code === 'string') for (const file of moduleFiles(code)) pin(file);
      else pin(code);
    } else if (interpreter.unread) pin({ unknown: option });
    return undefined;
  };
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    // the script (or an option) is known only when it runs
    if (typeof word !== 'string') {
      pin(word);
      return {};
    }
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
    // `python -mhttp.server`: the module is the rest of the word
    if (interpreter === PYTHON && /^-m./.test(word)) return inline('-m', word.slice(2));
    const [name, value] = word.startsWith('--') && word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined];
    if (has(interpreter.inline, name)) return inline(name, words[i + 1]);
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
        // `python -um pkg`, or `-umpkg` with the module in the rest of the word
        if (has(interpreter.inline, option)) return inline(option, interpreter === PYTHON && option === '-m' && at + 2 < word.length ? word.slice(at + 2) : words[i + 1]);
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
 * Pure: what `command` runs that cannot be pinned, as written — a script, a makefile or a folder known only when it
 * runs (`bash $SCRIPT`, `ruby -C "$DIR" x.rb`, what follows `cd $X`), PowerShell's inline code (`-Command`) — for the
 * card to say so: the person reads those themselves.
 */
export function unpinnedBy(command: CommandSpec): string[] {
  return [...namedBy(command).unknown];
}

/**
 * The files in the roots `command` runs as code, now: those it names (scriptsNamedBy), and for one reached through a
 * link the file it leads to as well, when that is inside the roots too.
 */
async function scriptsRunBy(command: CommandSpec, roots: readonly string[]): Promise<string[]> {
  const named = namedBy(command);
  for (const { dir, script } of named.packageScripts) for (const file of await packageScriptFiles(dir, script, roots)) named.files.add(file);
  const included = { files: [] as string[], unknown: new Set<string>() };
  for (const { dir, file } of named.makefiles) await makefileIncludes(file, dir, roots, included);
  for (const file of included.files) named.files.add(file);
  const inRoots = [...named.files].filter((file) => rootOf(file, roots) !== undefined);
  const files = await Promise.all(
    inRoots.map(async (file) => {
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

/** package.json files are small; one larger is pinned, not read for what its scripts name */
const MAX_PACKAGE_JSON_BYTES = 1024 * 1024;

/**
 * The package.json a package manager reads for `script` in `dir` — the nearest one up from there inside the roots,
 * each missing one on the way too (one made while the card waited would be read instead) — and the files its line
 * and its `pre`/`post` lines name, read as shell in the package's folder (`node scripts/test.js`).
 */
async function packageScriptFiles(dir: string, script: string, roots: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (let at = dir; rootOf(at, roots) !== undefined; at = path.dirname(at)) {
    const file = path.join(at, 'package.json');
    files.push(file);
    const stat = await fs.stat(file).catch(() => undefined);
    if (stat === undefined) {
      if (path.dirname(at) === at) break;
      continue;
    }
    if (!stat.isFile() || stat.size > MAX_PACKAGE_JSON_BYTES) break;
    // read as it is now: what was a file at the stat may be a FIFO, which a plain open would wait on
    const scripts = await readRegularFile(file, MAX_PACKAGE_JSON_BYTES, true)
      .then((bytes) => (bytes === undefined ? undefined : (JSON.parse(bytes.toString('utf8')) as { scripts?: unknown }).scripts))
      .catch(() => undefined);
    if (scripts === null || typeof scripts !== 'object') break;
    for (const name of [`pre${script}`, script, `post${script}`]) {
      const line = (scripts as Record<string, unknown>)[name];
      if (typeof line === 'string') files.push(...scriptsNamedBy({ shell: line, cwd: at }));
    }
    break;
  }
  return files;
}

/** an include nested deeper than this is not followed (make itself stops at none, but a cycle must end) */
const MAX_INCLUDE_DEPTH = 8;
const INCLUDE_LINE = /^[ \t]*(-include|sinclude|include)[ \t]+(.*)$/;

/**
 * The files a makefile includes (`include common.mk`, `-include local.mk`, `sinclude`), as make reads them: each
 * name relative to the folder make runs in, and each included file read for its own includes. They are the
 * command's text as much as the makefile is: a recipe in `common.mk` rewritten while the card waits runs on Approve
 * as one in the Makefile would. Only names written out are followed: a line with a variable, a function or a
 * wildcard (`include $(DEPS)`, `include *.mk`) is known only when make runs, and goes to `unknown` as written for the
 * card to name; so are the folders `-I` adds, and a makefile a rule of make's own makes. Names in the roots only, each
 * missing one too (one made while the card waited is a change); a makefile larger than a package.json may be is
 * pinned, not read.
 */
async function makefileIncludes(
  makefile: string,
  dir: string,
  roots: readonly string[],
  found: { files: string[]; unknown: Set<string> },
  depth = 0,
  seen = new Set<string>(),
): Promise<void> {
  if (depth >= MAX_INCLUDE_DEPTH || seen.has(makefile) || rootOf(makefile, roots) === undefined) return;
  seen.add(makefile);
  const stat = await fs.stat(makefile).catch(() => undefined);
  if (!stat?.isFile() || stat.size > MAX_PACKAGE_JSON_BYTES) return;
  const text = (await readRegularFile(makefile, MAX_PACKAGE_JSON_BYTES, true).catch(() => undefined))?.toString('utf8') ?? '';
  // a line ends at a newline not escaped by a backslash; a comment at a `#` (make's own reading, escapes aside)
  for (const line of text.replace(/\\\r?\n/g, ' ').split(/\r?\n/)) {
    const [, directive, written] = INCLUDE_LINE.exec(line) ?? [];
    const names = written?.replace(/#.*$/, '').trim();
    if (!names) continue;
    if (/[$*?[%]/.test(names)) found.unknown.add(`${directive} ${names}`);
    for (const name of names.split(/[ \t]+/)) {
      if (/[$*?[%()]/.test(name)) continue;
      const file = path.resolve(dir, name);
      if (rootOf(file, roots) === undefined) continue;
      found.files.push(file);
      await makefileIncludes(file, dir, roots, found, depth + 1, seen);
    }
  }
}

/**
 * What `command` runs that cannot be pinned, as written (unpinnedBy), with the includes of its makefiles known only
 * when make runs (`include $(DEPS)`): the makefiles are read as they are now.
 */
export async function unpinnedNow(command: CommandSpec, roots: readonly string[]): Promise<string[]> {
  const named = namedBy(command);
  const found = { files: [], unknown: named.unknown };
  for (const { dir, file } of named.makefiles) await makefileIncludes(file, dir, roots, found);
  return [...found.unknown];
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
