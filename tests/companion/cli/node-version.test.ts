import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { NEEDED_NODE, nodeVersionProblem } from '../../../companion/node-version';

/*
 * On a Node.js older than package.json's engines, `npm start` and `npx chatbridge` failed inside some module's
 * loading, with an error that named neither Node nor the version needed. They now say both, before anything else.
 */
const repo = resolve(__dirname, '../../..');
const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-node-version-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

it('the version needed is the one package.json says', () => {
  const { engines } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { engines: { node: string } };
  expect(engines.node).toBe(`>=${NEEDED_NODE}`);
});

it.each([
  ['18.20.4', false],
  ['20.9.0', false],
  ['20.18.3', false],
  ['20.19.0', true],
  ['20.20.2', true],
  ['22.1.0', true],
  ['24.0.0', true],
])('Node.js %s is enough: %s', (version, enough) => {
  const problem = nodeVersionProblem(version, '/usr/bin/node');
  if (enough) expect(problem).toBeUndefined();
  else expect(problem).toBe(`chatbridge needs Node.js 20.19 or newer, and this is Node.js ${version} (/usr/bin/node): install a newer Node.js, then run the command again`);
});

it('npx chatbridge on an older Node.js says so, and does nothing else', () => {
  // the real command, in a Node.js that reports itself as 20.18.1
  const older = join(base, 'older-node.mjs');
  writeFileSync(older, "Object.defineProperty(process.versions, 'node', { value: '20.18.1' });\n");
  const home = join(base, 'home');
  const result = spawnSync(process.execPath, ['--import', older, join(repo, 'bin', 'chatbridge.js'), 'start', '--port', '0', '--no-build'], {
    env: { ...process.env, CHATBRIDGE_HOME: home, CHATBRIDGE_TOKEN: '' },
    cwd: base,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(result.stderr.trim()).toBe(`chatbridge needs Node.js 20.19 or newer, and this is Node.js 20.18.1 (${process.execPath}): install a newer Node.js, then run the command again`);
  expect(result.stdout).toBe('');
  expect(result.status).toBe(1);
});
