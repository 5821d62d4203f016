import { lstatSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PlannedAction } from '../types';
import { globSet } from './glob-set';
import { givenAndReal } from './given-and-real';
import { isInsideRoot } from './path-guard';
import type { Policy } from './schema';
import { fromHomeFolder } from '../home';
import { onRemoteMount } from '../fsx/mounts';
import { readRegularFileSync } from '../fsx/read-regular';
import { foldersIn, linksIn, namesThroughLinks, type LinkTable } from './link-names';
import { folderLinks, folderStat, MAX_FOLDERS_KEPT, PROJECT_FOLDERS, type FolderLinks, type FolderStat } from './project-links';

/**
 * Files that run code without anyone running them: a shell reads its start-up file, a desktop its autostart
 * entries, git its hooks and `core.*` commands, an editor or coding agent its tasks, settings and MCP servers,
 * npm its `node-options`, Python its `.pth` files, CI a workflow when the branch is pushed (with the repository's
 * secrets), any command a program of its name put in a folder on PATH, and the next `npm start` this companion's
 * own program. Writing one is running code later, so a write to one is decided as exec: with the default modes it
 * asks even where writes are `auto`, and a site whose exec mode is deny cannot make it. (A composite call is as
 * strict as its strictest part; this is the same rule for a single write.) Matched on the resolved path, by whole
 * segments.
 */
const KINDS: ReadonlyArray<readonly [kind: string, globs: readonly string[]]> = [
  [
    'a file your shell or desktop session runs when it starts',
    [
      // .bash_aliases: Debian's and Ubuntu's stock .bashrc sources it; oh-my-zsh sources its custom folder
      '**/.bashrc', '**/.bash_aliases', '**/.bash_profile', '**/.bash_login', '**/.bash_logout', '**/.profile', '**/.oh-my-zsh/custom/**', '**/.zshrc', '**/.zshenv',
      '**/.zprofile', '**/.zlogin', '**/.zlogout', '**/.kshrc', '**/.mkshrc', '**/.cshrc', '**/.tcshrc',
      '**/.config/fish/**', '**/.xprofile', '**/.xinitrc', '**/.xsession', '**/.xsessionrc', '**/.pam_environment',
      '**/.config/environment.d/**', '**/Documents/PowerShell/**', '**/Documents/WindowsPowerShell/**',
      // Plasma sources its env scripts at login and ran autostart-scripts; i3, sway and Hyprland run their `exec` lines
      '**/.config/plasma-workspace/env/**', '**/.config/autostart-scripts/**', '**/.config/i3/config', '**/.i3/config',
      '**/.config/sway/config', '**/.config/hypr/hyprland.conf',
    ],
  ],
  [
    'an autostart entry or a scheduled job',
    [
      '**/.config/autostart/**', '**/.config/systemd/user/**', '**/Library/LaunchAgents/**', '**/Start Menu/Programs/Startup/**', '**/crontab',
      // systemd looks for user units and their drop-ins (an enabled service's override.conf) here too
      '**/.config/systemd/user.control/**', '**/.local/share/systemd/user/**',
    ],
  ],
  [
    // the person's own entries come before the system's: a launcher named firefox.desktop is what the menu opens,
    // and a service file for a bus name is what the session starts when a program calls on that name
    'a desktop launcher or D-Bus service, which runs when you open that application or a program calls on it',
    ['**/.local/share/applications/**', '**/.local/share/dbus-1/services/**'],
  ],
  [
    'a folder on PATH, whose programs run when their name is typed (an allow-listed command too)',
    ['**/.local/bin/**', '**/.cargo/bin/**'],
  ],
  [
    // rustup's cargo and rustc, and pyenv's python, on PATH are proxies that run the program of a toolchain: one a
    // rust-toolchain file names (by its channel, or any folder by its `path`), else the default; a toolchain folder
    // made or changed in rustup's or pyenv's own folder is what every cargo, rustc or python then runs, an
    // allow-listed `cargo fmt --check` too, and pyenv sources the hooks in its pyenv.d at every python. (pyenv refuses
    // a .python-version that names a path, so its own folder is enough.)
    'a version manager or a toolchain your cargo, rustc or python runs, or a toolchain file choosing one (an allow-listed command too)',
    ['**/rust-toolchain', '**/rust-toolchain.toml', '**/.rustup/**', '**/.pyenv/**'],
  ],
  [
    "git's configuration or a git hook",
    ['**/.gitconfig', '**/.config/git/config', '**/.git/hooks/**', '**/.husky/**', '**/.pre-commit-config.yaml', '**/lefthook.yml', '**/.lefthook.yml'],
  ],
  [
    "an editor's or a coding agent's settings, which can run commands or MCP servers",
    [
      '**/.vscode/tasks.json', '**/.vscode/settings.json', '**/.vscode/launch.json', '**/.vscode/mcp.json', '**/*.code-workspace',
      '**/.config/Code/User/settings.json', '**/.config/Code/User/tasks.json', '**/.cursor/mcp.json', '**/.mcp.json',
      '**/.claude/settings.json', '**/.claude/settings.local.json', '**/.claude.json', '**/.gemini/settings.json',
      '**/.codex/config.toml', '**/.vimrc', '**/.exrc', '**/.nvimrc', '**/.config/nvim/**', '**/.emacs', '**/.emacs.d/init.el',
    ],
  ],
  [
    // the files `chatbridge mcp import` reads (mcp-servers/import.ts), in each OS's place: Windsurf starts the
    // servers it lists, VS Code its user-level ones — and an import makes them this companion's. (Claude Desktop's
    // folder is denied outright, policy/schema.ts; Cursor's and Claude Code's are above.)
    "a desktop MCP client's list of servers, whose programs it starts (and chatbridge mcp import adds)",
    ['**/.codeium/windsurf/mcp_config.json', '**/Code/User/mcp.json', '**/Code/User/settings.json', '**/Code/User/tasks.json'],
  ],
  [
    'a start-up file of a terminal multiplexer, debugger or interactive interpreter, which runs its commands when it starts',
    [
      '**/.tmux.conf', '**/.config/tmux/tmux.conf', '**/.ipython/profile_*/startup/**', '**/.ipython/profile_*/ipython_config.py',
      '**/.Rprofile', '**/.gdbinit', '**/.config/gdb/gdbinit', '**/.irbrc', '**/.pryrc',
      // each runs shell commands from it: psql `\!`, sqlite3 `.shell`, lldb `platform shell`, GHCi `:!`, screen
      '**/.psqlrc', '**/.sqliterc', '**/.config/sqlite3/sqliterc', '**/.lldbinit', '**/.ghci', '**/.ghc/ghci.conf', '**/.screenrc',
      '**/.julia/config/startup.jl',
    ],
  ],
  [
    "a CI workflow or dev container, which runs with the repository's secrets or on opening the folder",
    ['**/.github/workflows/**', '**/.gitlab-ci.yml', '**/.devcontainer/**', '**/.devcontainer.json'],
  ],
  [
    "a package manager's or runtime's settings, which run code on install or start",
    // cargo's config: `build.rustc-wrapper` or a target's `runner` runs a command of its choosing at every build;
    // pip's (a virtualenv's own, or the user's) and uv's (the project's, or the user's): an `index-url` of the model's
    // makes the next pip install, uv sync or uv run build its package, whose setup.py runs; Gradle's init scripts run
    // at the start of every build of every project; npm's global config, `<prefix>/etc/npmrc` (nvm's
    // ~/.nvm/versions/node/<v>/etc/npmrc, a prefix set to ~/.npm-global), and the one npm ships in its own folder
    // are read by every npm run, an allow-listed `npm test` too: their `node-options` run code in it; Go's environment
    // file (`go env -w`, in the user config folder of each OS): a `GOFLAGS=-toolexec=…` there runs a program of its
    // choosing for every compile of every go build and go test, an allow-listed one too, in any project
    ['**/.config/go/env', '**/Library/Application Support/go/env', '**/AppData/Roaming/go/env', '**/etc/npmrc', '**/node_modules/npm/npmrc', '**/pip.conf', '**/pip.ini', '**/uv.toml', '**/.gradle/init.gradle', '**/.gradle/init.gradle.kts', '**/.gradle/init.d/**', '**/.npmrc', '**/.yarnrc', '**/.yarnrc.yml', '**/.cargo/config.toml', '**/.cargo/config', '**/.pnpmfile.cjs', '**/sitecustomize.py', '**/usercustomize.py', '**/site-packages/*.pth', '**/.envrc', '**/.config/direnv/**'],
  ],
];

const GLOBS = KINDS.flatMap(([, globs]) => globs);
const KIND_OF = KINDS.flatMap(([kind, globs]) => globs.map(() => kind));
/** any case, as the deny globs (path-guard.ts DENY_OPTIONS): a case-insensitive file system may hold the path */
const OPTIONS = { dot: true, windows: false, nocase: true } as const;

/** The folder this companion runs from (its code, its node_modules, the extension it builds), as given and real. */
const PROGRAM = givenAndReal(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..'));

/**
 * The folders on this companion's PATH (absolute entries only: `.` or an empty entry would make every folder it is
 * started in one), as given and real. A program written into one runs whenever its name is typed — by the person, or
 * by a command this companion runs, an allow-listed `npm test` included (`~/.local/bin/npm`). An entry starting
 * with `~` (`export PATH="~/tools:$PATH"`, the quotes keeping the tilde) is the home folder's: bash expands it when
 * it looks a command up, so `~/tools/git` runs for every git the person types. The usual per-user ones are also
 * named, for a PATH this process does not share with the person's shell: `~/.local/bin` above, and the home folder's
 * `bin`, which Debian's and Ubuntu's stock `.profile` puts first on PATH once it exists (`~/bin/git` would run for
 * every git typed after the next login).
 */
const PATH_DIRS = new Set(
  [...(process.env.PATH ?? '').split(path.delimiter).map(fromHomeFolder), path.join(homedir(), 'bin')]
    .filter((dir) => path.isAbsolute(dir))
    .flatMap(givenAndReal),
);

/**
 * The files git's configuration includes (`[include]` and `[includeIf "…"]` `path = …`), as given and real: git reads
 * an included file as if it stood in the including one, so its `core.fsmonitor`, `core.pager` or aliases run in every
 * git the person types — and in an allow-listed `git status`, with no card. `~/.gitconfig` and `~/.config/git/config`
 * are named above, but the file they include is named only by them: a common `path = ~/.gitconfig.local`, or a
 * work folder's `includeIf "gitdir:~/work/"`. Read from the person's global configuration (and the system's), as git
 * reads it: `~/` is the home folder, a relative path is relative to the folder of the file that names it, included
 * files are read for their own includes, ten deep as git does; every `includeIf` counts, whatever its condition. Read
 * when first asked, and again once a file read (or looked for) has changed since (ReadFiles): an include the person
 * adds, or one a card let a model write, names its file from then on — read once, such a file stayed an ordinary
 * write until the next start, so every later write of it was made with no card.
 */
let gitIncludes: (ReadFiles & { hooks: readonly string[] }) | undefined;
/** start-up and configuration files are small; one larger is not read for what it names */
const MAX_CONFIG_BYTES = 1024 * 1024;

function gitConfigIncludes(): ReadonlySet<string> {
  return gitConfig().found;
}

/**
 * The hooks folder the person's global configuration names (`core.hooksPath = ~/.githooks`), given and real: git runs
 * its hooks in every repository, as `.git/hooks` in one. Only an absolute or `~/` one: a relative one names a folder
 * of each repository, found with the repository (repositoryAt). So is the template folder it names (`init.templateDir
 * = ~/.git-templates`, every one it names): `git init` and `git clone` copy it into each new repository's `.git`, so a
 * hook written into its `hooks/` runs in every repository made from then on — `git clone` runs its post-checkout.
 */
function globalHooks(): readonly string[] {
  return gitConfig().hooks;
}

function gitConfig(): ReadFiles & { hooks: readonly string[] } {
  if (gitIncludes) return gitIncludes;
  const home = homedir();
  const xdg = process.env.XDG_CONFIG_HOME;
  const configs = [
    '/etc/gitconfig',
    path.join(xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'git', 'config'),
    path.join(home, '.gitconfig'),
  ];
  const found = new Set<string>();
  const read = new Map<string, string | undefined>();
  const texts = followIncludes(configs, found, read);
  const hooksPath = texts.map(hooksPathOf).filter((value) => value !== undefined).at(-1);
  const templates = texts.flatMap((text) => configValues(text, 'init', 'templatedir'));
  const folders = [hooksPath, ...templates]
    .map((dir) => (dir !== undefined && /^~(?=$|\/)/.test(dir) ? path.join(home, dir.slice(1)) : dir))
    .filter((dir): dir is string => dir !== undefined && path.isAbsolute(dir));
  gitIncludes = { found, read, hooks: folders.flatMap(givenAndReal) };
  return gitIncludes;
}

/**
 * Adds to `found` the files git configuration files include, read as git reads them (`~/` is the home folder, a
 * relative path is relative to the folder of the file that names it, ten deep); each file read goes in `read`.
 * Answers the texts of the files read, the configs' own first.
 */
function followIncludes(configs: readonly string[], found: Set<string>, read: Map<string, string | undefined>): string[] {
  const home = homedir();
  const texts: string[] = [];
  const follow = (file: string, depth: number): void => {
    if (depth > 10 || read.has(file)) return;
    read.set(file, undefined);
    const text = smallTextFile(file, read);
    if (text === undefined) return;
    texts.push(text);
    for (const named of includedPaths(text)) {
      const target = path.resolve(path.dirname(file), /^~(?=$|\/)/.test(named) ? path.join(home, named.slice(1)) : named);
      for (const each of givenAndReal(target)) {
        found.add(each);
        follow(each, depth + 1);
      }
    }
  };
  for (const config of configs) follow(config, 0);
  return texts;
}

/**
 * A repository's own git folder, as git finds it from a folder of its work tree or as the folder itself: its
 * `config` and `hooks/`, the files that config includes and the hooks folder its `core.hooksPath` names.
 */
interface Repository {
  gitDir: string;
  /** the config files (a linked work tree's own and the common one), given and real */
  configs: ReadonlySet<string>;
  includes: ReadonlySet<string>;
  /** the folders whose files git runs as hooks */
  hooks: readonly string[];
}

/**
 * A repository inside a root is the model's to write, but for the deny glob on `.git/**`: git reads the files its
 * `.git/config` includes (`[include] path = ../.gitconfig-project`, as projects share settings) and runs the hooks in
 * the folder `core.hooksPath` names (`.githooks`, husky's `.husky/_`) — a `core.fsmonitor` written into an included
 * file ran in the next allow-listed `git status`, with no card. A git folder that is not named `.git` (`git init
 * --separate-git-dir`, a `.git` file or link pointing elsewhere) is no deny glob's either: its `config` and `hooks/`
 * are git's configuration and hooks as `.git`'s are. Looked for in each folder above a written file, by the `.git`
 * there and by the shape of a git folder (`HEAD`, `objects/`, `refs/`); kept for one decision or walk
 * (rereadChangedStartFiles), so a walk over a large tree looks at each folder once, and a folder with none of them
 * across decisions while it stays as it was (noRepository): a write then costs a stat per folder above it.
 */
let repositories = new Map<string, Repository | null>();

/**
 * The folders found to hold no repository, by their signature then (project-links.ts FolderStat): kept across decisions, since a
 * `.git`, `HEAD`, `objects` or `refs` made there later changes the folder's times. Only folders where none of those
 * names is there at all (not even as a dangling link, which may resolve later) and whose times had settled.
 */
const noRepository = new Map<string, string>();

function repositoryAt(dir: string): Repository | null {
  const known = repositories.get(dir);
  if (known !== undefined) return known;
  let repository: Repository | null = null;
  const folder = onRemoteMount(dir) ? undefined : folderNow(dir);
  if (folder !== undefined && noRepository.get(dir) !== folder.signature) {
    const dotGit = path.join(dir, '.git');
    const kind = entryKind(dotGit);
    if (kind === 'directory') repository = repositoryOf(realOrGiven(dotGit), dir);
    else if (kind === 'file') {
      // a linked work tree's or a submodule's `.git` file: `gitdir: <folder>`
      const named = /^gitdir:[ \t]*(.+?)[ \t]*$/m.exec(smallTextFile(dotGit, new Map()) ?? '')?.[1];
      if (named !== undefined) repository = repositoryOf(realOrGiven(path.resolve(dir, named)), dir);
    }
    const head = repository === null ? entryKind(path.join(dir, 'HEAD')) : undefined;
    if (head === 'file' && entryKind(path.join(dir, 'objects')) === 'directory' && entryKind(path.join(dir, 'refs')) === 'directory') {
      repository = repositoryOf(realOrGiven(dir), dir);
    }
    if (repository === null && folder.settled && kind === undefined && head === undefined && !['.git', 'HEAD'].some((name) => anythingNamed(path.join(dir, name)))) {
      if (noRepository.size >= MAX_FOLDERS_KEPT) noRepository.clear();
      noRepository.set(dir, folder.signature);
    }
  }
  repositories.set(dir, repository);
  return repository;
}

/** Whether anything is there by that name, a dangling link too. */
function anythingNamed(entry: string): boolean {
  try {
    return lstatSync(entry, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

function repositoryOf(gitDir: string, workTree: string): Repository {
  // a linked work tree keeps its own config beside the common one (`commondir`)
  const common = smallTextFile(path.join(gitDir, 'commondir'), new Map())?.trim();
  const dirs = [gitDir, ...(common ? [path.resolve(gitDir, common)] : [])];
  const configs = dirs.flatMap((dir) => givenAndReal(path.join(dir, 'config')));
  const includes = new Set<string>();
  const texts = followIncludes(configs, includes, new Map());
  const hooksPath = texts.map(hooksPathOf).filter((value): value is string => value !== undefined).at(0);
  const hooks = dirs.flatMap((dir) => givenAndReal(path.join(dir, 'hooks')));
  if (hooksPath !== undefined) hooks.push(...givenAndReal(path.resolve(workTree, /^~(?=$|\/)/.test(hooksPath) ? path.join(homedir(), hooksPath.slice(1)) : hooksPath)));
  return { gitDir, configs: new Set(configs), includes, hooks };
}

/** The `core.hooksPath` a git config text sets, the last one (pure). */
export function hooksPathOf(text: string): string | undefined {
  return configValues(text, 'core', 'hookspath').at(-1);
}

/**
 * Every value a git config text sets for `section.key` (no subsection; `key` in lower case), in order, empty ones
 * left out (pure). Section and key names in any case, a key on the section's own line too (`[init] templateDir = x`).
 */
export function configValues(text: string, section: string, key: string): string[] {
  let inSection = false;
  const found: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(\s+"(?:[^"\\]|\\.)*")?\s*\](.*)$/.exec(line);
    if (header) {
      inSection = (header[1] as string).toLowerCase() === section && header[2] === undefined;
      line = (header[3] as string).trim();
    }
    const entry = inSection ? /^([A-Za-z][A-Za-z0-9-]*)\s*=(.*)$/.exec(line) : null;
    if (entry && (entry[1] as string).toLowerCase() === key) {
      const value = gitValue(entry[2] as string);
      if (value !== '') found.push(value);
    }
  }
  return found;
}

function entryKind(file: string): 'file' | 'directory' | undefined {
  try {
    const stat = statSync(file, { throwIfNoEntry: false });
    return stat?.isFile() ? 'file' : stat?.isDirectory() ? 'directory' : undefined;
  } catch {
    return undefined;
  }
}

function realOrGiven(file: string): string {
  return givenAndReal(file).at(-1) ?? file;
}

const GIT_REPOSITORY_INCLUDED = "a file a repository's git configuration includes, whose settings (core.fsmonitor, aliases) run commands in every git there (an allow-listed one too)";
const GIT_REPOSITORY = "git's configuration or a git hook";

/** What running code a file is to the git repositories around it (Repository), looked for in each folder above it. */
function repositoryRunsCode(resolved: string): string | undefined {
  for (let dir = path.dirname(resolved); ; dir = path.dirname(dir)) {
    const repository = repositoryAt(dir);
    if (repository !== null) {
      if (repository.includes.has(resolved)) return GIT_REPOSITORY_INCLUDED;
      if (repository.configs.has(resolved) || repository.hooks.some((hooks) => isInsideRoot(resolved, hooks))) return GIT_REPOSITORY;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The `path` values of a git config text's `[include]` and `[includeIf "…"]` sections, unquoted, without comments.
 * Pure; section and key names in any case, a key on the section's own line too (`[include] path = x`).
 */
export function includedPaths(text: string): string[] {
  const paths: string[] = [];
  let including = false;
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    const section = /^\[\s*([A-Za-z0-9.-]+)(\s+"(?:[^"\\]|\\.)*")?\s*\](.*)$/.exec(line);
    if (section) {
      including = /^include(if)?$/i.test(section[1] as string);
      line = (section[3] as string).trim();
    }
    if (!including) continue;
    const entry = /^path\s*=(.*)$/i.exec(line);
    if (!entry) continue;
    const value = gitValue(entry[1] as string);
    if (value !== '') paths.push(value);
  }
  return paths;
}

/** A git config value as git reads it: quotes joined, `\\` `\"` `\t` `\n` unescaped, a `#` or `;` outside quotes ends it. */
function gitValue(raw: string): string {
  let value = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && i + 1 < raw.length) {
      const next = raw[++i] as string;
      value += next === 't' ? '\t' : next === 'n' ? '\n' : next;
    } else if (!quoted && (c === '#' || c === ';')) break;
    else value += c;
  }
  return value.trim();
}

/** The start-up files a login or interactive shell reads in the home folder (named in the first kind above). */
const SHELL_START_FILES = ['.bashrc', '.bash_profile', '.bash_login', '.profile', '.bash_aliases', '.zshenv', '.zprofile', '.zshrc', '.zlogin', '.kshrc', '.mkshrc'];

/**
 * The files the person's shell start-up files source (`. "$HOME/.cargo/env"`, which rustup's installer appends;
 * `source ~/.aliases`; nvm's `\. "$NVM_DIR/nvm.sh"`), as given and real: the shell runs each at every start, as it
 * runs the start-up file, but no glob names them. Read as a shell would find them: `~`, `$HOME` and variables the
 * same file set plainly before (`export NVM_DIR="$HOME/.nvm"`) are expanded, a relative path is the home folder's
 * (where a login shell starts), and a sourced file is read for its own sources, five deep; a path holding anything
 * else a shell would expand is skipped, since what it names is not known here. Read when first asked, and again once
 * a file read has changed, like the git includes: a `source` line added since names its file from then on.
 */
let shellSourced: ReadFiles | undefined;

function shellSources(): ReadonlySet<string> {
  if (shellSourced) return shellSourced.found;
  const home = homedir();
  const found = new Set<string>();
  const read = new Map<string, string | undefined>();
  const follow = (file: string, depth: number): void => {
    if (depth > 5 || read.has(file)) return;
    read.set(file, undefined);
    const text = smallTextFile(file, read);
    if (text === undefined) return;
    for (const named of sourcedPaths(text, home)) {
      for (const each of givenAndReal(path.resolve(home, named))) {
        found.add(each);
        follow(each, depth + 1);
      }
    }
  };
  for (const name of SHELL_START_FILES) follow(path.join(home, name), 0);
  shellSourced = { found, read };
  return found;
}

/** `. file` or `source file` where a command starts: a line's start, after `;` `&&` `||` `|` `{` `(` `!`, `then`, `do`, `else`. */
const SOURCE_COMMAND = /(?:^|[;&|({!]|\b(?:then|do|else)\b)[ \t]*(?:\\?\.|source)[ \t]+("[^"\n]*"|'[^'\n]*'|[^\s;&|)#]+)/g;
const PLAIN_ASSIGNMENT = /^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=("[^"\n]*"|'[^'\n]*'|[^\s;&|]*)[ \t]*(?:$|[;#])/;

/**
 * The files a shell script sources, with `~`, `$HOME`/`${HOME}` and the variables it set plainly before expanded
 * (pure). A path that still holds `$`, a backquote or a glob character after that is left out: what it names is not
 * known without running the script.
 */
export function sourcedPaths(script: string, home: string): string[] {
  const vars = new Map<string, string>([['HOME', home]]);
  const expand = (word: string): string | undefined => {
    const literal = word.startsWith("'");
    let value = word.startsWith('"') || literal ? word.slice(1, -1) : word;
    if (!literal) {
      value = value.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (whole, braced?: string, bare?: string) => vars.get((braced ?? bare) as string) ?? whole);
    }
    if (!word.startsWith('"') && !literal && /^~(?=$|\/)/.test(value)) value = home + value.slice(1);
    return literal || !/[$`*?[]/.test(value) ? value : undefined;
  };
  const paths: string[] = [];
  for (const line of script.split(/\r?\n/)) {
    if (/^[ \t]*#/.test(line)) continue;
    const assignment = PLAIN_ASSIGNMENT.exec(line);
    if (assignment) {
      const value = expand(assignment[2] as string);
      if (value !== undefined) vars.set(assignment[1] as string, value);
      else vars.delete(assignment[1] as string);
    }
    for (const match of line.matchAll(SOURCE_COMMAND)) {
      const value = expand(match[1] as string);
      if (value !== undefined && value !== '') paths.push(value);
    }
  }
  return paths;
}

/**
 * The files a set was read from (those looked for but not there too), each with how it looked when read (`read`, the
 * file → its signature, undefined for one on a network or FUSE mount, which is not looked at again), and what they
 * name.
 */
interface ReadFiles {
  found: ReadonlySet<string>;
  read: ReadonlyMap<string, string | undefined>;
}

/**
 * A regular file's identity, size and change times, or `missing`: a file changed in place, replaced, made or removed
 * differs. A file with nothing by its name (not even a dangling link) in a folder whose times had settled is
 * `missing in` that folder's signature (project-links.ts FolderStat): nothing can be made there without changing it, so a later look
 * needs a stat of the folder only, which several such files share (most of the start-up files looked for are not
 * there).
 */
function signatureOf(file: string): string {
  try {
    // no error is made for each missing file at every write
    const stat = statSync(file, { throwIfNoEntry: false });
    // a FIFO or a terminal (`. /dev/stdin`) is never read, and its times change as it is used
    if (stat && !stat.isFile()) return 'not a file';
    return stat ? `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` : missingSignature(file);
  } catch (error) {
    return `missing:${(error as NodeJS.ErrnoException).code ?? ''}`;
  }
}

function missingSignature(file: string): string {
  const folder = folderNow(path.dirname(file));
  return folder?.settled && !anythingNamed(file) ? `missing in ${folder.signature}` : 'missing';
}

/** Whether every file `files` was read from still looks as it did then (a stat each, or of its folder). */
function unchanged(files: ReadFiles): boolean {
  for (const [file, signature] of files.read) {
    if (signature === undefined) continue;
    const folder = signature.startsWith('missing in ') ? folderNow(path.dirname(file)) : undefined;
    if (folder !== undefined && signature === `missing in ${folder.signature}`) continue;
    if (signatureOf(file) !== signature) return false;
  }
  return true;
}

/**
 * Forgets the repositories and project links looked at, and the git includes and the shell's sourced files when a
 * file they were read from has changed since, so the next runsCode reads them anew. Called once per decision
 * (policy/decide.ts) and per subtree walk, not per path: a walk asks runsCode of every entry of the tree it moves.
 */
export function rereadChangedStartFiles(): void {
  repositories = new Map();
  folderLinksNow = new Map();
  foldersNow = new Map();
  if (gitIncludes && !unchanged(gitIncludes)) gitIncludes = undefined;
  if (shellSourced && !unchanged(shellSourced)) shellSourced = undefined;
}

/**
 * A regular file's text, if it is one of a start-up file's size: a FIFO or a device would never finish reading. How
 * it looked before it was read goes in `read` (ReadFiles).
 */
function smallTextFile(file: string, read: Map<string, string | undefined>): string | undefined {
  // nor one on a network or FUSE mount, which might never answer (fsx/mounts.ts)
  if (onRemoteMount(file)) return undefined;
  read.set(file, signatureOf(file));
  try {
    // opened so that a FIFO or a device put in its place after the stat is not waited on or opened through
    return readRegularFileSync(file, MAX_CONFIG_BYTES, true)?.toString('utf8');
  } catch {
    return undefined; // a missing or unreadable file sources nothing
  }
}

const SHELL_SOURCED = 'a file your shell start-up file sources, which runs every time a shell starts';

const GIT_INCLUDED =
  "a file your git configuration includes, whose settings (core.fsmonitor, core.pager, aliases) run commands in every git (an allow-listed one too)";

const SERVER_PROGRAM = "the program of one of your MCP servers, which runs at the companion's next start";

interface ServerPrograms {
  files: ReadonlySet<string>;
  /** folders whose every file is the program (a Python package run with -m, the packages npx finds first) */
  folders: readonly string[];
}

const serverProgramsOf = new WeakMap<object, ServerPrograms>();

/** A dotted Python module name, as `python -m` takes it. */
const PYTHON_MODULE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * The files the person's stdio MCP servers run, given and real: the command and every argument that is not a flag
 * (a flag's `=value` too), resolved against the server's cwd (the companion's own when it has none) — `node
 * tools/server.mjs` runs `tools/server.mjs` at every start and every restart after a crash, so writing it is
 * writing code that runs. So is the module of `python -m mcp_server_x`: Python looks for it in the working directory
 * first, so `mcp_server_x.py` or a folder `mcp_server_x/` there is what runs, before the installed one. And npx
 * (`npx -y @scope/server`) runs a package's program from the project's `node_modules` (its `.bin`) before fetching
 * one, the project being the nearest folder up from the working directory that holds a package.json or a
 * node_modules — a server started in `tools/` of a project runs the project's — so the `node_modules` of the working
 * directory and of every folder above it is the program of a server npx starts (any of them is the one npx takes
 * once a folder on the way gets a package.json). uv changes into its `--directory` first (`uv --directory
 * <folder> run weather.py`, as the MCP quickstart writes a server), so the words after it are read from there. A
 * word that names no file costs nothing; a
 * file the program imports is not named here.
 */
function serverPrograms(servers: Policy['mcpServers'] | undefined): ServerPrograms {
  if (servers === undefined) return { files: new Set(), folders: [] };
  const known = serverProgramsOf.get(servers);
  if (known) return known;
  const files = new Set<string>();
  const folders: string[] = [];
  for (const entry of Object.values(servers)) {
    if (entry === null || typeof entry !== 'object') continue;
    const { command, args, cwd } = entry as { command?: unknown; args?: unknown; cwd?: unknown };
    if (typeof command !== 'string') continue;
    const base = typeof cwd === 'string' && path.isAbsolute(fromHomeFolder(cwd)) ? fromHomeFolder(cwd) : process.cwd();
    const words = [command, ...(Array.isArray(args) ? args : [])];
    if (/^(npx|bunx)(\.cmd|\.exe)?$/i.test(path.basename(command))) {
      // up from where the server starts, as named and as it really is (npm walks up from the real one)
      for (const start of givenAndReal(base)) {
        for (let dir = start; ; dir = path.dirname(dir)) {
          folders.push(...givenAndReal(path.join(dir, 'node_modules')));
          if (path.dirname(dir) === dir) break;
        }
      }
    }
    const uv = /^uv(\.exe)?$/i.test(path.basename(command));
    // where the words are read from: the working directory, or the folder uv changes into first
    let from = base;
    words.forEach((word, i) => {
      if (typeof word !== 'string') return;
      const value = word.startsWith('-') ? (word.includes('=') ? word.slice(word.indexOf('=') + 1) : '') : word;
      if (value === '' || value.includes('\0')) return;
      for (const file of givenAndReal(path.resolve(from, fromHomeFolder(value)))) files.add(file);
      if (words[i - 1] === '-m' && PYTHON_MODULE.test(value)) {
        const top = value.split('.')[0] as string;
        for (const file of givenAndReal(path.join(from, `${top}.py`))) files.add(file);
        folders.push(...givenAndReal(path.join(from, top)));
      }
      if (uv && (words[i - 1] === '--directory' || word.startsWith('--directory='))) from = path.resolve(from, fromHomeFolder(value));
    });
  }
  const programs = { files, folders };
  serverProgramsOf.set(servers, programs);
  return programs;
}

/**
 * What running code a file at `resolved` (absolute) is, if it is one of those. `servers` (the policy's
 * `mcpServers`) adds the programs the person's MCP servers run.
 */
export function runsCode(resolved: string, servers?: Policy['mcpServers'], roots?: readonly string[]): string | undefined {
  return runsCodeAsNamed(resolved, servers) ?? linkedRunsCode(resolved) ?? projectLinkedRunsCode(resolved, roots ?? []);
}

/** What running code a file is by its own (resolved) name. */
function runsCodeAsNamed(resolved: string, servers?: Policy['mcpServers']): string | undefined {
  if (PROGRAM.some((dir) => isInsideRoot(resolved, dir))) return "chatbridge's own program, which runs at its next start";
  const programs = serverPrograms(servers);
  if (programs.files.has(resolved) || programs.folders.some((dir) => isInsideRoot(resolved, dir))) return SERVER_PROGRAM;
  if (gitConfigIncludes().has(resolved)) return GIT_INCLUDED;
  if (globalHooks().some((hooks) => isInsideRoot(resolved, hooks))) return GIT_REPOSITORY;
  if (shellSources().has(resolved)) return SHELL_SOURCED;
  const repository = repositoryRunsCode(resolved);
  if (repository !== undefined) return repository;
  if (PATH_DIRS.has(path.dirname(resolved))) return 'a folder on PATH, whose programs run when their name is typed (an allow-listed command too)';
  const set = globSet(GLOBS, OPTIONS);
  const slashed = resolved.replace(/\\/g, '/');
  // `**/.config/autostart/**` names the folder itself too: a folder moved there is as good as a file written in it
  const index = Math.max(set.firstMatch(slashed), set.firstMatch(`${slashed}/`));
  return index >= 0 ? KIND_OF[index] : undefined;
}

/**
 * Files that run code by another name: a symlink where one of the files above is expected. Dotfile managers (GNU
 * Stow, rcm, a dotfiles repository's install script) make `~/.bashrc` a link to `~/dotfiles/bashrc` and
 * `~/.config/nvim` one to `~/dotfiles/nvim`; a program on PATH is often a link too (nvm's `bin/npm` to
 * `lib/node_modules/npm/bin/npm-cli.js`, pipx's and `npm link`'s programs). A write is decided on the path it
 * resolves to, which no glob names, so a write to the link's target — by either name — was an ordinary one while the
 * shell, the editor or the next `npm` runs it. The links looked for are those in the home folder, in its `.config`,
 * in the folders in either (its dot-folders: rcm links file by file, into a real `~/.claude` or `~/.config/fish`)
 * and in the folders on PATH, each whose own name runs code; a link to a folder makes everything under its target
 * count as it would by the link's name (`~/.config` itself may be the one). Read once, when first asked, like PATH
 * itself: a link made later counts from the companion's next start.
 */
let linked: LinkTable | undefined;

function linkedRunsCode(resolved: string): string | undefined {
  const home = homedir();
  const config = path.join(home, '.config');
  // the folders in those two too: rcm links file by file, into a real ~/.claude or ~/.config/fish
  linked ??= linksIn([home, config, ...foldersIn(home, (name) => name.startsWith('.')), ...foldersIn(config), ...PATH_DIRS], (link) => givenAndReal(link).at(-1));
  for (const { name, link } of namesThroughLinks(linked, resolved)) {
    const kind = runsCodeAsNamed(name);
    if (kind !== undefined) return `${kind}, through the link ${link}`;
  }
  return undefined;
}

/** The folders looked at in this decision or walk (cleared by rereadChangedStartFiles): a walk stats each once. */
let foldersNow = new Map<string, FolderStat | undefined>();
let folderLinksNow = new Map<string, FolderLinks | undefined>();

function folderNow(dir: string): FolderStat | undefined {
  if (foldersNow.has(dir)) return foldersNow.get(dir);
  const folder = folderStat(dir);
  foldersNow.set(dir, folder);
  return folder;
}

function linksOfFolder(dir: string): FolderLinks | undefined {
  if (folderLinksNow.has(dir)) return folderLinksNow.get(dir);
  const links = onRemoteMount(dir) ? undefined : folderLinks(dir, folderNow(dir));
  folderLinksNow.set(dir, links);
  return links;
}

/**
 * Files that run code through a link inside a project: hook managers link `.husky/pre-commit` or
 * `.git/hooks/pre-commit` to a tracked script, a project links `.envrc` to `config/envrc`, `.vscode` to a folder
 * it keeps its settings in or `.github/workflows` to a shared one. Such a file is decided on the path it resolves
 * to, which no name above says runs code, so a write to it by either name was an ordinary one. The links looked
 * for are those in the folders above the file up to its root (not outside the roots: the model writes nothing
 * there), in the PROJECT_FOLDERS of each, and in the hooks folders of the repositories around it. Each folder is
 * stat'ed once per decision and read again only once it has changed (linksOfFolder): a write costs a stat per
 * folder, and a read of its own folder when an earlier write there changed it.
 */
function projectLinkedRunsCode(resolved: string, roots: readonly string[]): string | undefined {
  const root = roots.find((each) => isInsideRoot(resolved, each));
  if (root === undefined || resolved === root) return undefined;
  const tables: LinkTable[] = [];
  const look = (dir: string): FolderLinks | undefined => {
    const links = linksOfFolder(dir);
    if (links) tables.push(links.table);
    return links;
  };
  for (let dir = path.dirname(resolved); ; dir = path.dirname(dir)) {
    for (const name of look(dir)?.folders ?? []) {
      const inner = PROJECT_FOLDERS[name];
      if (inner === undefined) continue;
      const held = look(path.join(dir, name));
      for (const deeper of held?.folders ?? []) if (inner.includes(deeper)) look(path.join(dir, name, deeper));
    }
    for (const hooks of repositoryAt(dir)?.hooks ?? []) look(hooks);
    if (dir === root || path.dirname(dir) === dir) break;
  }
  for (const table of tables) {
    for (const { name, link } of namesThroughLinks(table, resolved)) {
      const kind = runsCodeAsNamed(name);
      if (kind !== undefined) return `${kind}, through the link ${link}`;
    }
  }
  return undefined;
}

/** The action as the policy decides it: a write to a file that runs code is exec, and its label says why. */
export function asDecided(action: PlannedAction, policy?: Pick<Policy, 'mcpServers' | 'roots'>): PlannedAction {
  if (action.risk !== 'write') return action;
  for (const target of action.paths) {
    const kind = runsCode(target, policy?.mcpServers, policy?.roots);
    if (kind !== undefined) return { ...action, risk: 'exec', label: `${action.label} — ${kind}, so it counts as exec` };
  }
  return action;
}
