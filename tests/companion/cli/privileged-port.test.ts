import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm start -- --port 80` typed by a person who is not an administrator: the real CLI, run as an unprivileged user
 * (as `nobody` when the suite runs as root), meets the kernel's refusal. Where every user may open low ports
 * (ip_unprivileged_port_start lowered, as in some containers) there is nothing to refuse, and the test says so.
 */
const repo = resolve(__dirname, '../../..');
const PORT = 80;
const asRoot = process.getuid?.() === 0;
const runuser = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find((path) => existsSync(path));
const lowestOpenPort = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8').trim());
  } catch {
    return 1024;
  }
})();
/** as root, the test runs the CLI as nobody: only where nobody can read this checkout and its node_modules */
const nobodyReads = (): boolean =>
  runuser !== undefined &&
  spawnSync(runuser, ['-u', 'nobody', '--', 'test', '-r', join(repo, 'node_modules', 'tsx', 'package.json')]).status === 0 &&
  spawnSync(runuser, ['-u', 'nobody', '--', 'test', '-r', join(repo, 'companion', 'main.ts')]).status === 0;
const refusable = process.platform === 'linux' && lowestOpenPort > PORT && (!asRoot || nobodyReads());

const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-low-port-')));
// the unprivileged user makes its own data directory here, and reads this folder as its root
chmodSync(base, 0o777);
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('a port this user may not open', () => {
  // one start of the real CLI, which loads the whole companion before it listens
  it.skipIf(!refusable)(`--port ${PORT} is refused naming the port, the rule and what to do instead`, { timeout: 90_000 }, async () => {
    const command = [process.execPath, join(repo, 'bin', 'chatbridge.js'), 'start', '--port', String(PORT), '--no-build', '--root', base];
    const env = { PATH: process.env.PATH ?? '', HOME: base, CHATBRIDGE_HOME: join(base, 'data') };
    const [program, ...args] = asRoot ? [runuser as string, '-u', 'nobody', '--', 'env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...command] : command;
    const result = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolvePromise) => {
      const child = spawn(program as string, args, { env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += String(d);
        // it listened after all: stopped, and the expectations below say what it printed
        if (stdout.includes('pairing code')) child.kill('SIGTERM');
      });
      child.stderr.on('data', (d) => (stderr += String(d)));
      child.on('exit', (status) => resolvePromise({ status, stdout, stderr }));
    });
    expect(result.stdout).not.toContain('pairing code');
    expect(result.stderr).toContain(`chatbridge: port ${PORT} may not be opened by this user (on most systems a port below 1024 needs administrator rights; the default is 17890): pick another with --port N (0 = any free port)`);
    expect(result.stderr).not.toContain('EACCES');
    expect(result.status).toBe(1);
  });
});
