/**
 * Attack: where writes are `auto` and `git status --short` is allow-listed, the person's `~/.gitconfig` includes
 * another file (`[include] path = ~/.gitconfig.local`, or a work folder's `[includeIf "gitdir:…"]`): no glob names
 * that file, so a model wrote it with no card — `core.fsmonitor` in it — and the next allow-listed `git status` ran
 * the command. A file the person's git configuration includes is decided as exec, as `~/.gitconfig` itself is.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configValues, hooksPathOf, includedPaths, rereadChangedStartFiles, runsCode } from '../../../companion/policy/runs-code';
import {
  context,
  makeWorkspace,
  mcpRequestBlock,
  parseMcpResponse,
  postBlock,
  writeDeniedAsExec,
  startCompanionProcess,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

describe('includedPaths (pure): the path values of [include] and [includeIf] sections', () => {
  it('reads both kinds, any case, quoted or not, without comments; other sections\' paths are not includes', () => {
    const text = [
      '[user]',
      '\tname = You',
      '[core]',
      '\thooksPath = ignored/here',
      '[include]',
      '\tpath = ~/.gitconfig.local ; the machine\'s own',
      '[includeIf "gitdir:~/work/"]',
      '\tpath = "work config.inc"',
      '[Include] PATH = rel/one',
      '[alias]',
      '\tpath = not/an/include',
    ].join('\n');
    expect(includedPaths(text)).toEqual(['~/.gitconfig.local', 'work config.inc', 'rel/one']);
  });
});

describe('hooksPathOf (pure): the folder core.hooksPath names', () => {
  it('the last one of [core], any case, quoted or not; a subsection or another section is not it', () => {
    expect(hooksPathOf('[core]\n\thooksPath = .githooks\n')).toBe('.githooks');
    expect(hooksPathOf('[Core] HOOKSPATH = "a b" ; note\n[core]\n\thookspath = .husky/_\n')).toBe('.husky/_');
    expect(hooksPathOf('[core "x"]\n\thooksPath = no\n[alias]\n\thooksPath = no\n')).toBeUndefined();
  });
});

describe('configValues (pure): what a git config text sets for a key', () => {
  it('every value of the section without a subsection, any case, quoted or not, on the section line too', () => {
    const text = '[init]\n\ttemplateDir = ~/.git-templates ; mine\n[Init "x"]\n\ttemplatedir = no\n[INIT] TemplateDir = "/opt/t"\n[alias]\n\ttemplateDir = no\n';
    expect(configValues(text, 'init', 'templatedir')).toEqual(['~/.git-templates', '/opt/t']);
    expect(configValues(text, 'core', 'hookspath')).toEqual([]);
  });
});

describe("a repository's own git files, found through a .git that is a link to a git folder elsewhere", () => {
  it('its config, its hooks and the hooks folder its core.hooksPath names run code; its other files do not', () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-git-link-')));
    try {
      execFileSync('git', ['init', '-q', 'q'], { cwd: base });
      renameSync(join(base, 'q', '.git'), join(base, 'qgit'));
      symlinkSync(join(base, 'qgit'), join(base, 'q', '.git'));
      execFileSync('git', ['config', 'core.hooksPath', 'hk'], { cwd: join(base, 'q') });
      rereadChangedStartFiles();
      for (const file of ['qgit/config', 'qgit/hooks/pre-commit', 'q/hk/post-checkout']) expect(runsCode(join(base, file)), file).toMatch(/git's configuration or a git hook/);
      expect(runsCode(join(base, 'q', 'src', 'a.ts'))).toBeUndefined();
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('attack: a file the person\'s git configuration includes, then an allow-listed git status (real companion, writes auto)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;
  const post = (tool: string, args: Record<string, unknown>) => {
    n++;
    return postBlock(companion, 'mcp-request', mcpRequestBlock(`gi${n}`, tool, args), context('conv-git-include', `m${n}`));
  };

  beforeAll(async () => {
    ws = makeWorkspace('cb-git-include-');
    // the root is the person's home, with their git configuration and a repository in it
    writeFileSync(
      join(ws.root, '.gitconfig'),
      '[user]\n\tname = You\n[core]\n\thooksPath = ~/.githooks\n[init]\n\ttemplateDir = ~/.git-templates\n[include]\n\tpath = ~/.gitconfig.local\n[includeIf "gitdir:~/work/"]\n\tpath = work/.gitconfig-work\n',
    );
    mkdirSync(join(ws.root, 'repo'));
    execFileSync('git', ['init', '-q'], { cwd: join(ws.root, 'repo'), env: { ...process.env, HOME: ws.root } });
    // a project that shares settings through a file of its own, with its hooks in a folder of its own, and one whose
    // git folder is not named .git
    const git = (args: string[], cwd = ws.root) => execFileSync('git', args, { cwd, env: { ...process.env, HOME: ws.root } });
    git(['init', '-q', 'project']);
    git(['config', 'include.path', '../.gitconfig-project'], join(ws.root, 'project'));
    git(['config', 'core.hooksPath', '.githooks'], join(ws.root, 'project'));
    git(['init', '-q', '--separate-git-dir', join(ws.root, 'store'), join(ws.root, 'apart')]);
    companion = await startCompanionProcess({
      root: ws.root,
      home: ws.home,
      env: { HOME: ws.root },
      config: { modes: { write: 'auto', exec: 'confirm' }, allowCommands: ['git status --short'] },
    });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it.each([
    ['~/.gitconfig.local', '.gitconfig.local'],
    ['work/.gitconfig-work (relative to the including file)', 'work/.gitconfig-work'],
  ])('a write of %s asks on an exec card that says why; denied, nothing is written and git status runs nothing', async (_name, file) => {
    const pwned = join(ws.base, 'PWNED');
    const path = join(ws.root, file);
    const content = `[core]\n\tfsmonitor = "touch ${pwned}; false"\n`;
    await writeDeniedAsExec(companion, { path, content, mode: 'overwrite' }, context('conv-git-include', file), /git configuration includes/);
    expect(existsSync(path)).toBe(false);
    const status = await post('process.run', { command: 'git', args: ['status', '--short'], cwd: join(ws.root, 'repo') });
    expect(parseMcpResponse(status.resultText).result?.content[0]?.text).toContain('exit code: 0'); // allow-listed: no card
    expect(existsSync(pwned)).toBe(false);
  });

  it.each([
    ["a file the repository's own .git/config includes", 'project/.gitconfig-project', 'project', /a repository's git configuration includes/],
    ['a hook in the folder its core.hooksPath names', 'project/.githooks/post-checkout', 'project', /git's configuration or a git hook/],
    ['the config of a git folder not named .git (--separate-git-dir)', 'store/config', 'apart', /git's configuration or a git hook/],
    ['a hook of that git folder', 'store/hooks/pre-commit', 'apart', /git's configuration or a git hook/],
    ['a hook in the folder the global core.hooksPath names, which runs in every repository', '.githooks/pre-commit', 'repo', /git's configuration or a git hook/],
    ['a hook in the template folder the global init.templateDir names, copied into every new repository', '.git-templates/hooks/post-checkout', 'repo', /git's configuration or a git hook/],
  ])('attack: %s, written where writes are auto, asks on an exec card; denied, git status there runs nothing', async (_name, file, repo, label) => {
    const pwned = join(ws.base, 'PWNED');
    const path = join(ws.root, file);
    const content = file.endsWith('config') || file.endsWith('project') ? `[core]\n\tfsmonitor = "touch ${pwned}; false"\n` : `#!/bin/sh\ntouch ${pwned}\n`;
    const original = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    await writeDeniedAsExec(companion, { path, content, mode: 'overwrite' }, context('conv-git-include', file), label);
    expect(existsSync(path) ? readFileSync(path, 'utf8') : undefined).toBe(original);
    const status = await post('process.run', { command: 'git', args: ['status', '--short'], cwd: join(ws.root, repo) });
    expect(parseMcpResponse(status.resultText).result?.content[0]?.text).toContain('exit code: 0');
    expect(existsSync(pwned)).toBe(false);
  });

  it('a file of that kind of name the configuration does not include is an ordinary write, auto as the person set it', async () => {
    const run = await post('fs.write', { path: join(ws.root, 'repo', '.gitconfig.local'), content: '[core]\n', mode: 'overwrite' });
    expect(parseMcpResponse(run.resultText).result?.content[0]?.text).toBe('WRITE_SUCCESS');
  });
});
