/**
 * Attack: rustup's `cargo` and `rustc` and pyenv's `python` are proxies that run a toolchain's program, and which one
 * is read from files a model can write: a project's `rust-toolchain.toml` (or `rust-toolchain`) names a toolchain by
 * its channel, or any folder by its `path`, and a folder in `~/.rustup/toolchains` or `~/.pyenv/versions` is a
 * toolchain (and pyenv sources the hooks in its `pyenv.d` at every python). Where writes are `auto`, a model wrote a script as `tc/bin/cargo` and a rust-toolchain.toml whose path
 * is `tc`, and the allow-listed `cargo --version` ran the script, with no card. A write to one of those files is
 * decided as exec.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runsCode } from '../../../companion/policy/runs-code';
import {
  context,
  makeWorkspace,
  mcpRequestBlock,
  parseMcpResponse,
  postBlock,
  startCompanionProcess,
  writeDeniedAsExec,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

const HOME = '/home/you';

describe('toolchains and the files that choose one run code', () => {
  it.each([
    `${HOME}/p/rust-toolchain.toml`,
    `${HOME}/p/crates/x/rust-toolchain`,
    `${HOME}/.rustup/toolchains/evil/bin/cargo`,
    `${HOME}/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/rustc`,
    `${HOME}/.pyenv/versions/3.12.1/bin/python3`,
    `${HOME}/.pyenv/versions/evil`,
    // pyenv sources these at every python its shims run
    `${HOME}/.pyenv/pyenv.d/exec/evil.bash`,
    `${HOME}/.pyenv/libexec/pyenv-exec`,
  ])('%s runs code', (file) => expect(runsCode(file)).toMatch(/toolchain/));
  it.each([`${HOME}/p/docs/rust-toolchain.md`, `${HOME}/p/rust-toolchain.toml.example`, `${HOME}/p/docs/.rustup.md`, `${HOME}/p/.python-version`])(
    '%s is ordinary',
    (file) => expect(runsCode(file)).toBeUndefined(),
  );
});

/** rustup's proxy, as the person's PATH finds it */
function rustupCargo(): boolean {
  try {
    return execFileSync('cargo', ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] }).length > 0 && existsSync(join(homedir(), '.rustup'));
  } catch {
    return false;
  }
}

describe.runIf(rustupCargo())('attack: a rust-toolchain.toml naming a folder the model wrote, where writes are auto (real companion)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-toolchain-');
    companion = await startCompanionProcess({
      root: ws.root,
      home: ws.home,
      config: { modes: { write: 'auto', exec: 'confirm' }, allowCommands: ['cargo --version'], envAllow: ['PATH', 'HOME'] },
    });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('the toolchain file asks on an exec card; denied, the allow-listed cargo runs the real one', async () => {
    const pwned = join(ws.base, 'PWNED');
    // the toolchain folder itself is an ordinary folder of the project: the file that names it is what runs it
    mkdirSync(join(ws.root, 'tc', 'bin'), { recursive: true });
    for (const program of ['cargo', 'rustc']) {
      writeFileSync(join(ws.root, 'tc', 'bin', program), `#!/bin/sh\ntouch ${pwned}\necho model-cargo\n`);
      chmodSync(join(ws.root, 'tc', 'bin', program), 0o755);
    }
    const toolchainFile = join(ws.root, 'rust-toolchain.toml');
    await writeDeniedAsExec(
      companion,
      { path: toolchainFile, content: `[toolchain]\npath = "${join(ws.root, 'tc')}"\n`, mode: 'overwrite' },
      context('conv-toolchain', 'm1'),
      /toolchain/,
    );
    expect(existsSync(toolchainFile)).toBe(false);
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock('m2', 'process.run', { command: 'cargo', args: ['--version'], cwd: ws.root }), context('conv-toolchain', 'm2'));
    const text = parseMcpResponse(run.resultText ?? '').result?.content?.[0]?.text ?? '';
    expect(text).toMatch(/^exit code: 0/);
    expect(text).not.toContain('model-cargo');
    expect(existsSync(pwned)).toBe(false);
  });
});
