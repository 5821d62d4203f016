/**
 * Attack: files that run code later but were not on runs-code's list, so where writes are `auto` a model wrote them
 * with no card. `~/.bash_aliases` first: Debian's and Ubuntu's stock `.bashrc` sources it, so a line in it runs in
 * every interactive shell the person opens (shown here with /etc/skel/.bashrc). Likewise tmux's config
 * (`run-shell` at start), IPython's startup folder and config, R's `.Rprofile` (home or project), gdb's and irb's
 * start-up files, oh-my-zsh's custom folder, and cargo's `.cargo/config.toml` (`build.rustc-wrapper`, a target's
 * `runner`: a command of its choosing at every build, in that folder and below). A write to one is decided as exec.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runsCode } from '../../../companion/policy/runs-code';
import { context, makeWorkspace, startCompanionProcess, writeDeniedAsExec, type CompanionProcess, type Workspace } from '../load/live-companion';

const HOME = '/home/you';

describe('more files that run code', () => {
  it.each([
    `${HOME}/.bash_aliases`,
    `${HOME}/.tmux.conf`,
    `${HOME}/.config/tmux/tmux.conf`,
    `${HOME}/.ipython/profile_default/startup/00-x.py`,
    `${HOME}/.ipython/profile_default/ipython_config.py`,
    `${HOME}/.Rprofile`,
    `${HOME}/p/.Rprofile`,
    `${HOME}/.gdbinit`,
    `${HOME}/.irbrc`,
    `${HOME}/.oh-my-zsh/custom/evil.zsh`,
    `${HOME}/.cargo/config.toml`,
    `${HOME}/p/.cargo/config`,
    // a virtualenv's pip.conf, and the user's: its index-url decides whose package the next pip install builds
    `${HOME}/p/.venv/pip.conf`,
    `${HOME}/.config/pip/pip.conf`,
    `${HOME}/.pip/pip.conf`,
    `${HOME}/p/venv/pip.ini`,
    // uv's, the project's and the user's: an index-url there decides whose package the next uv sync (and every
    // uv run, which syncs first) builds
    `${HOME}/p/uv.toml`,
    `${HOME}/.config/uv/uv.toml`,
    // Go's environment file (go env -w): GOFLAGS=-toolexec runs a program for every compile of every go build and test
    `${HOME}/.config/go/env`,
    `${HOME}/Library/Application Support/go/env`,
    `${HOME}/AppData/Roaming/go/env`,
    // Gradle's init scripts run at the start of every build of every project
    `${HOME}/.gradle/init.gradle`,
    `${HOME}/.gradle/init.gradle.kts`,
    `${HOME}/.gradle/init.d/evil.gradle`,
  ])('%s runs code', (file) => expect(runsCode(file)).toBeDefined());
  it.each([`${HOME}/p/bash_aliases.md`, `${HOME}/p/docs/tmux.conf.example`, `${HOME}/p/.ipython-notes.md`, `${HOME}/p/docs/pip.conf.md`, `${HOME}/p/docs/uv.toml.md`, `${HOME}/p/init.gradle`, `${HOME}/p/go/env`, `${HOME}/p/.config/go/env.md`])('%s is ordinary', (file) => expect(runsCode(file)).toBeUndefined());
});

describe.runIf(existsSync('/etc/skel/.bashrc'))('attack: a line in ~/.bash_aliases, where writes are auto (real companion)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-runs-code-more-');
    // the root is a home folder, with the distribution's stock .bashrc
    copyFileSync('/etc/skel/.bashrc', join(ws.root, '.bashrc'));
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: { modes: { write: 'auto', exec: 'confirm' } } });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it("cargo's config asks the same way", async () => {
    const config = join(ws.root, '.cargo', 'config.toml');
    await writeDeniedAsExec(companion, { path: config, content: '[build]\nrustc-wrapper = "/tmp/evil"\n', mode: 'overwrite' }, context('conv-more', 'm2'));
    expect(existsSync(config)).toBe(false);
  });

  it('the write asks on an exec card; denied, the next shell runs nothing', async () => {
    const pwned = join(ws.base, 'PWNED');
    await writeDeniedAsExec(companion, { path: join(ws.root, '.bash_aliases'), content: `touch ${pwned}\n`, mode: 'overwrite' }, context('conv-more', 'm1'));
    execFileSync('bash', ['-i', '-c', 'true'], { env: { HOME: ws.root, PATH: process.env.PATH ?? '' }, stdio: 'ignore' });
    expect(existsSync(pwned)).toBe(false);
  });
});
