/**
 * Attack: where writes are `auto` and `git status --short` is allow-listed (the README's example), a model plants a
 * git directory under another name than `.git` — `HEAD`, `objects/`, `refs/` and a `config` setting
 * `core.worktree` and `core.fsmonitor` — so no deny glob (`**\/.git/**`) and no runs-code rule (`.git/hooks/**`,
 * `.gitconfig`) names any of it, then runs the allow-listed `git status --short` with that folder as its cwd: git
 * takes the folder for a bare repository and runs the fsmonitor command, with no card. Every program the companion
 * starts now has `safe.bareRepository=explicit`, so git refuses a repository it was not told to use; an ordinary
 * repository (a `.git` folder) still works.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, makeWorkspace, mcpRequestBlock, parseMcpResponse, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

describe('attack: a git directory under another name, then an allow-listed git status (real companion)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;
  const post = (tool: string, args: Record<string, unknown>) => {
    n++;
    return postBlock(companion, 'mcp-request', mcpRequestBlock(`g${n}`, tool, args), context('conv-gitdir', `m${n}`));
  };

  beforeAll(async () => {
    ws = makeWorkspace('cb-gitdir-');
    mkdirSync(join(ws.root, 'repo'));
    execFileSync('git', ['init', '-q'], { cwd: join(ws.root, 'repo') });
    writeFileSync(join(ws.root, 'repo', 'a.txt'), 'a\n');
    companion = await startCompanionProcess({
      root: ws.root,
      home: ws.home,
      config: { modes: { write: 'auto', exec: 'confirm' }, allowCommands: ['git status --short'] },
    });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('the planted config does not run; git refuses the folder it was not told to use', async () => {
    const pwned = join(ws.base, 'PWNED');
    const config = `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch ${pwned}; false"\n`;
    // the config first: once HEAD, objects/ and refs/ are there, the folder has a git folder's shape and a write of its
    // config is decided as exec (policy/runs-code.ts), which a model planting one need not wait for
    for (const [file, content] of [['config', config], ['HEAD', 'ref: refs/heads/main\n'], ['objects/keep', ''], ['refs/keep', '']] as const) {
      const run = await post('fs.write', { path: join(ws.root, 'evil', file), content, mode: 'overwrite' });
      expect(parseMcpResponse(run.resultText).result?.isError).toBeFalsy(); // ordinary writes, auto as the person set
    }
    const run = await post('process.run', { command: 'git', args: ['status', '--short'], cwd: join(ws.root, 'evil') });
    expect(run.status).toBe('done'); // allow-listed: no card
    expect(existsSync(pwned)).toBe(false);
    expect(run.resultText).toContain('safe.bareRepository');
  });

  it('an ordinary repository still answers the allow-listed command', async () => {
    const run = await post('process.run', { command: 'git', args: ['status', '--short'], cwd: join(ws.root, 'repo') });
    expect(run.resultText).toContain('exit code: 0');
    expect(run.resultText).toContain('?? a.txt');
  });
});
