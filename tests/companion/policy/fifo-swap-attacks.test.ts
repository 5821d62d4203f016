/**
 * attack: a file the companion reads for itself (a repository's `.git` file, a package.json whose scripts a card
 * pins) swapped, again and again, between a regular file and a FIFO by a process in the workspace. Once a gap: each
 * was a stat, then a plain open of the path; an open that came after the swap waited on the FIFO for a writer — on
 * the main thread (the policy's decisions) the whole companion, in the thread pool a thread each time.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pinScripts } from '../../../companion/approvals/scripts-run';

const REPO = resolve(__dirname, '../../..');
const ROUNDS = 300;

let dir: string;
let swapper: ChildProcess | undefined;
let decider: ChildProcess | undefined;

afterEach(() => {
  swapper?.kill('SIGKILL');
  decider?.kill('SIGKILL');
  swapper = decider = undefined;
  // a read still waiting on the FIFO ends: it sees a writer come and go
  try {
    closeSync(openSync(join(dir, 'fifo'), constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // ENXIO: nobody waits on it
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Puts the FIFO, then `regular`, at `target`, over and over (a hard link of each renamed into place), until killed. */
function swapForever(target: string, regular: string): void {
  const fifo = join(dir, 'fifo');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const loop = `const fs = require('fs'); const [fifo, regular, target] = process.argv.slice(1); const temp = target + '.swap';
    for (;;) for (const each of [fifo, regular]) { fs.rmSync(temp, { force: true }); fs.linkSync(each, temp); fs.renameSync(temp, target); }`;
  swapper = spawn(process.execPath, ['-e', loop, fifo, regular, target], { stdio: 'ignore' });
}

describe('attack: a file read for a decision swapped for a FIFO right after its stat', () => {
  it("a repository's .git file: the decisions go on, none waits on the FIFO", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'cb-fifo-git-')));
    mkdirSync(join(dir, 'work'));
    const regular = join(dir, 'dotgit');
    writeFileSync(regular, `gitdir: ${join(dir, 'elsewhere')}\n`);
    swapForever(join(dir, 'work', '.git'), regular);
    // the policy decides on the main thread: run in a process of its own, so this one can tell it stopped
    const decide = `import { rereadChangedStartFiles, runsCode } from ${JSON.stringify(join(REPO, 'companion/policy/runs-code.ts'))};
      for (let i = 0; i < ${ROUNDS}; i++) { rereadChangedStartFiles(); runsCode(${JSON.stringify(join(dir, 'work', 'notes.txt'))}, undefined, [${JSON.stringify(dir)}]); }
      console.log('decided');`;
    decider = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', decide], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    decider.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const code = await new Promise<number | null>((done) => decider?.once('exit', done));
    expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'decided' });
  }, 30_000);

  it("a package.json a card's `npm run` pins: every pin is made, none waits on the FIFO", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'cb-fifo-pkg-')));
    const regular = join(dir, 'package.regular');
    writeFileSync(regular, JSON.stringify({ scripts: { test: 'node test.js' } }));
    swapForever(join(dir, 'package.json'), regular);
    for (let i = 0; i < ROUNDS; i++) await pinScripts([{ argv: ['npm', 'run', 'test'], cwd: dir }], [dir]);
  }, 30_000);
});
