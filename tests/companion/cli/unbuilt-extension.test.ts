import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `chatbridge start` from a chatbridge folder whose extension was never built (a fresh clone started with
 * --no-build, or a build that failed): the real CLI, run from a copy of the package that has no dist/.
 */
const repo = resolve(__dirname, '../../..');
const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-unbuilt-')));
const pkg = join(base, 'chatbridge');
const workspace = join(base, 'workspace');
mkdirSync(workspace);
for (const part of ['bin', 'companion', 'shared', 'package.json']) cpSync(join(repo, part), join(pkg, part), { recursive: true });
symlinkSync(join(repo, 'node_modules'), join(pkg, 'node_modules'));
const dist = join(pkg, 'dist', 'chrome-mv3');

afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Starts the copy, reads what it prints up to the pairing code, and stops it. */
function startAndStop(home: string, build = false): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(pkg, 'bin', 'chatbridge.js'), 'start', '--port', '0', ...(build ? [] : ['--no-build'])], {
      env: { ...process.env, CHATBRIDGE_HOME: home, CHATBRIDGE_TOKEN: '' },
      cwd: workspace,
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`companion did not start:\n${stdout}\n${stderr}`)), 60_000);
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.stdout.on('data', (d) => {
      stdout += String(d);
      if (/^pairing code: /m.test(stdout)) child.kill('SIGTERM');
    });
    child.on('exit', () => {
      clearTimeout(timer);
      resolvePromise({ stdout, stderr });
    });
  });
}

describe('chatbridge start with no built extension', { timeout: 90_000 }, () => {
  it('says the extension is not built and how to build it, instead of naming a folder with nothing to load', async () => {
    const { stdout, stderr } = await startAndStop(join(base, 'home-unbuilt'));
    expect(stdout).toMatch(/^pairing code: [A-Z0-9]+/m);
    expect(stdout).not.toContain('load the extension from');
    expect(stderr).toContain(`the extension is not built: ${dist} holds no manifest.json`);
    expect(stderr).toContain(`Run \`npm run build\` in ${pkg}`);
  });

  it('once built, names the folder to load', async () => {
    mkdirSync(dist, { recursive: true });
    writeFileSync(join(dist, 'manifest.json'), '{}');
    const { stdout, stderr } = await startAndStop(join(base, 'home-built'));
    expect(stdout).toContain(`load the extension from: ${dist}\n`);
    expect(stderr).not.toContain('not built');
  });

  it('a build older than its sources (after an update) is built again, not named as it is', async () => {
    const current = await startAndStop(join(base, 'home-current'), true);
    expect(current.stdout).not.toContain('building');
    expect(current.stdout).toContain(`load the extension from: ${dist}\n`);

    // the sources changed after the build (a git pull): this copy has no extension to build, so the build fails
    utimesSync(join(dist, 'manifest.json'), new Date('2020-01-01'), new Date('2020-01-01'));
    const { stdout, stderr } = await startAndStop(join(base, 'home-stale'), true);
    expect(stdout).toContain('the extension is older than its sources: building it again (npx wxt build)…');
    expect(stderr).toContain('the extension build failed (exit 1); run `npm run build` to see why');
  });
});
