import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolHandlers } from '../../../companion/tools';
import { environmentFor, timeoutFor } from '../../../companion/tools/run-program';
import { createWorld, DEFAULT_LIMITS, type World } from './world';

const NODE = process.execPath;

describe('process.run', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld();
  });
  afterEach(() => world.cleanup());

  it('runs argv without a shell and answers exit code, stdout and stderr', async () => {
    const out = await world.call('process.run', {
      command: NODE,
      args: ['-e', 'console.log("hello"); console.error("oops"); process.exit(3)'],
    });
    expect(out.text).toMatch(/^exit code: 3 \(failure in [\d.]+ s\)\nstdout:\nhello\nstderr:\noops$/);
    expect(out.data).toMatchObject({ status: 'failure', returncode: 3 });
  });

  it('shell syntax in arguments is literal (no chaining, no substitution)', async () => {
    const out = await world.call('process.run', { command: NODE, args: ['-e', 'console.log(process.argv.slice(1).join("|"))', 'a; touch pwned', '$(id)', '`id`', 'x && y'] });
    expect(out.text).toContain('a; touch pwned|$(id)|`id`|x && y');
    expect(await world.exists(path.join(world.root, 'pwned'))).toBe(false);
  });

  it('cwd defaults to the workspace root and may be any directory inside the roots', async () => {
    const script = ['-e', 'console.log(process.cwd())'];
    expect((await world.call('process.run', { command: NODE, args: script })).text).toContain(`stdout:\n${world.root}\n`);
    await fs.mkdir(path.join(world.root, 'sub'));
    expect((await world.call('process.run', { command: NODE, args: script, cwd: path.join(world.root, 'sub') })).text).toContain(
      `stdout:\n${path.join(world.root, 'sub')}\n`,
    );
  });

  it('environment: only envAllow names from the companion plus the call env', async () => {
    process.env.CHATBRIDGE_TEST_SECRET = 'must-not-leak';
    try {
      const out = await world.call('process.run', {
        command: NODE,
        args: ['-e', 'console.log(JSON.stringify(Object.keys(process.env).sort()), process.env.FOO)'],
        env: { FOO: 'bar' },
      });
      const keys = JSON.parse(out.text.split('\n')[2]!.split(' ')[0]!) as string[];
      expect(keys).toContain('FOO');
      expect(keys).not.toContain('CHATBRIDGE_TEST_SECRET');
      // plus the per-run marker the companion sets itself, to find the program's strays (issue 9, finding 9), and
      // git's safe.bareRepository=explicit as command-line configuration (git-dir-attacks.test.ts)
      for (const key of keys) expect([...world.policy.envAllow, 'FOO', 'CHATBRIDGE_RUN', 'GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_CONFIG_VALUE_0']).toContain(key);
      expect(keys).toContain('CHATBRIDGE_RUN');
      expect(out.text).toContain(' bar');
    } finally {
      delete process.env.CHATBRIDGE_TEST_SECRET;
    }
    expect(environmentFor({ env: { A: '1' } }, { envAllow: ['HOME'] }, { HOME: '/h', SECRET: 's' })).toEqual({ HOME: '/h', A: '1' });
    expect(() => environmentFor({ env: { 'BAD NAME': '1' } }, { envAllow: [] })).toThrow(/not a valid variable name/);
  });

  it('plan: the command the policy sees carries the call env, so an allow-listed argv with env is a different command', async () => {
    const handler = toolHandlers['process.run'];
    expect(await handler.plan({ command: 'npm', args: ['test'] }, world.ctx)).toEqual({
      risk: 'exec',
      paths: [world.root],
      command: { argv: ['npm', 'test'], cwd: world.root },
    });
    const withEnv = await handler.plan({ command: 'npm', args: ['test'], env: { NODE_OPTIONS: '--require /tmp/x.js' } }, world.ctx);
    expect(withEnv.command?.argv).toEqual(['NODE_OPTIONS=--require /tmp/x.js', 'npm', 'test']);
    const preview = await handler.preview({ command: 'npm', args: ['test'] }, world.ctx);
    expect(preview).toMatchObject({ command: '"npm" "test"', cwd: world.root });
  });

  it('timeout kills the program; timeoutMs defaults to and is capped by the policy', async () => {
    const out = await world.call('process.run', { command: NODE, args: ['-e', 'setTimeout(() => {}, 30000)'], timeoutMs: 300 });
    expect(out.text).toMatch(/^exit code: none \(timed out after 300 ms; the process tree was killed\)/);
    expect(timeoutFor({}, world.policy)).toBe(DEFAULT_LIMITS.defaultTimeoutMs);
    expect(timeoutFor({ timeoutMs: 10_000_000 }, world.policy)).toBe(DEFAULT_LIMITS.maxTimeoutMs);
  });

  it('huge output is cut to head and tail with a marker', async () => {
    await world.cleanup();
    world = await createWorld({ limits: { ...DEFAULT_LIMITS, maxResultChars: 2000 } });
    const out = await world.call('process.run', { command: NODE, args: ['-e', 'process.stdout.write("a".repeat(50000) + "END")'] });
    expect(out.truncated).toBe(true);
    expect(out.text).toMatch(/characters omitted; write the output to a file/);
    expect(out.text).toContain('aEND');
    expect(out.text.length).toBeLessThan(2500);
  });

  it('a missing program is a failure result that says so', async () => {
    const out = await world.call('process.run', { command: 'no-such-program-chatbridge' });
    expect(out.text).toMatch(/exit code: none/);
    expect(out.text).toMatch(/not found|ENOENT/);
  });

  it('errors: cwd outside FORBIDDEN, cwd missing NOT_FOUND, cwd a file INVALID_INPUT, relative cwd INVALID_INPUT, argv as string INVALID_INPUT', async () => {
    await world.fails('process.run', { command: NODE, cwd: world.outside }, 'FORBIDDEN');
    await world.fails('process.run', { command: NODE, cwd: path.join(world.root, 'nope') }, 'NOT_FOUND');
    const file = await world.write('f.txt', '');
    await world.fails('process.run', { command: NODE, cwd: file }, 'INVALID_INPUT', /not a directory/);
    await world.fails('process.run', { command: NODE, cwd: 'sub' }, 'INVALID_INPUT');
    await world.fails('process.run', { command: NODE, args: '-v' }, 'INVALID_INPUT');
    await world.fails('process.run', { command: NODE, timeoutMs: 0 }, 'INVALID_INPUT');
  });
});
