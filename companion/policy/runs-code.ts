import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PlannedAction } from '../types';
import { globSet } from './glob-set';
import { givenAndReal, isInsideRoot } from './path-guard';

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
      '**/.bashrc', '**/.bash_profile', '**/.bash_login', '**/.bash_logout', '**/.profile', '**/.zshrc', '**/.zshenv',
      '**/.zprofile', '**/.zlogin', '**/.zlogout', '**/.kshrc', '**/.mkshrc', '**/.cshrc', '**/.tcshrc',
      '**/.config/fish/**', '**/.xprofile', '**/.xinitrc', '**/.xsession', '**/.xsessionrc', '**/.pam_environment',
      '**/.config/environment.d/**', '**/Documents/PowerShell/**', '**/Documents/WindowsPowerShell/**',
    ],
  ],
  [
    'an autostart entry or a scheduled job',
    ['**/.config/autostart/**', '**/.config/systemd/user/**', '**/Library/LaunchAgents/**', '**/Start Menu/Programs/Startup/**', '**/crontab'],
  ],
  [
    'a folder on PATH, whose programs run when their name is typed (an allow-listed command too)',
    ['**/.local/bin/**', '**/.cargo/bin/**'],
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
    "a CI workflow or dev container, which runs with the repository's secrets or on opening the folder",
    ['**/.github/workflows/**', '**/.gitlab-ci.yml', '**/.devcontainer/**', '**/.devcontainer.json'],
  ],
  [
    "a package manager's or runtime's settings, which run code on install or start",
    ['**/.npmrc', '**/.yarnrc', '**/.yarnrc.yml', '**/.pnpmfile.cjs', '**/sitecustomize.py', '**/usercustomize.py', '**/site-packages/*.pth', '**/.envrc', '**/.config/direnv/**'],
  ],
];

const GLOBS = KINDS.flatMap(([, globs]) => globs);
const KIND_OF = KINDS.flatMap(([kind, globs]) => globs.map(() => kind));

// The folders on the way to each such file, below the `**` its glob starts with (`**/.config/autostart/**` gives
// `**/.config`): a folder moved there could bring one along. A folder prepared as `prep/autostart/x` and renamed to
// a `~/.config` that did not exist yet holds no code-running path before the move, and one after it.
const FOLDER_GLOBS: string[] = [];
const FOLDER_KIND_OF: string[] = [];
for (const [kind, globs] of KINDS) {
  for (const glob of globs) {
    const segments = glob.split('/');
    for (let end = 2; end < segments.length; end++) {
      const folder = segments.slice(0, end).join('/');
      if (segments[0] !== '**' || segments[end - 1]!.includes('*') || FOLDER_GLOBS.includes(folder)) continue;
      FOLDER_GLOBS.push(folder);
      FOLDER_KIND_OF.push(kind);
    }
  }
}
const OPTIONS = { dot: true, windows: false, nocase: process.platform === 'darwin' || process.platform === 'win32' } as const;

/** The folder this companion runs from (its code, its node_modules, the extension it builds), as given and real. */
const PROGRAM = givenAndReal(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..'));

/**
 * The folders on this companion's PATH (absolute entries only: `.` or an empty entry would make every folder it is
 * started in one), as given and real. A program written into one runs whenever its name is typed — by the person, or
 * by a command this companion runs, an allow-listed `npm test` included (`~/.local/bin/npm`). The usual per-user
 * ones are also named above for a PATH this process does not share with the person's shell.
 */
const PATH_DIRS = new Set(
  (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir))
    .flatMap(givenAndReal),
);

/** What running code a file at `resolved` (absolute) is, if it is one of those. */
export function runsCode(resolved: string): string | undefined {
  if (PROGRAM.some((dir) => isInsideRoot(resolved, dir))) return "chatbridge's own program, which runs at its next start";
  if (PATH_DIRS.has(path.dirname(resolved))) return 'a folder on PATH, whose programs run when their name is typed (an allow-listed command too)';
  const set = globSet(GLOBS, OPTIONS);
  const slashed = resolved.replace(/\\/g, '/');
  // `**/.config/autostart/**` names the folder itself too: a folder moved there is as good as a file written in it
  const index = Math.max(set.firstMatch(slashed), set.firstMatch(`${slashed}/`));
  if (index >= 0) return KIND_OF[index];
  const folder = globSet(FOLDER_GLOBS, OPTIONS).firstMatch(slashed);
  if (folder >= 0) return `a folder that would hold ${FOLDER_KIND_OF[folder]}`;
  for (const dir of PATH_DIRS) {
    if (isInsideRoot(dir, resolved)) return 'a folder that would hold a folder on PATH, whose programs run when their name is typed';
  }
  return undefined;
}

/** The action as the policy decides it: a write to a file that runs code is exec, and its label says why. */
export function asDecided(action: PlannedAction): PlannedAction {
  if (action.risk !== 'write') return action;
  for (const target of action.paths) {
    const kind = runsCode(target);
    if (kind !== undefined) return { ...action, risk: 'exec', label: `${action.label} — ${kind}, so it counts as exec` };
  }
  return action;
}
