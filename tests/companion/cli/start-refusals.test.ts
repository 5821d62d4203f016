import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../companion/cli';

/**
 * What a person reads when `chatbridge start` refuses to start, from the real command line: each message names
 * where the value came from (the config file, or --root on the command line), the value and the rule. Nothing
 * listens: the start is refused before the socket opens.
 */
const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-refusals-')));
const workspace = join(base, 'workspace');
mkdirSync(workspace);
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function refusedStart(args: string[], home: string): Promise<{ code: number; err: string; out: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['start', '--port', '0', '--no-build', ...args], {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: { CHATBRIDGE_HOME: join(base, home) },
    cwd: workspace,
  });
  return { code, err: err.join('\n'), out: out.join('\n') };
}

describe('chatbridge start refuses with a message that says where the mistake is', () => {
  it('a --root that does not exist is named as the command line\'s, not as a mistake in a config', async () => {
    const missing = join(base, 'no-such-project');
    const { code, err, out } = await refusedStart(['--root', missing], 'home-root');
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(`chatbridge: --root is invalid:\n  - --root: value ${JSON.stringify(missing)} — root ${missing} does not exist`);
  });

  it('a root or a redact pattern of the config file names that file, as its other mistakes do', async () => {
    const file = join(base, 'roots.json');
    writeFileSync(file, JSON.stringify({ roots: ['gone'], redact: ['(unclosed'] }));
    const { code, err } = await refusedStart(['--config', file], 'home-config');
    expect(code).toBe(2);
    expect(err).toContain(`chatbridge: ${file} is invalid:\n  - roots[0]: value "gone" — root ${join(base, 'gone')} does not exist\n  - redact[0]: value "(unclosed" — not a valid regular expression`);
    expect(err).not.toContain('config is invalid');
  });

  it('the <home>/config.json read without --config is named too', async () => {
    const home = join(base, 'home-implicit');
    mkdirSync(home, { mode: 0o700 });
    writeFileSync(join(home, 'config.json'), JSON.stringify({ roots: ['missing-folder'] }), { mode: 0o600 });
    const { err } = await refusedStart([], 'home-implicit');
    expect(err).toContain(`chatbridge: ${join(home, 'config.json')} is invalid:\n  - roots[0]: value "missing-folder"`);
  });

  it('a wrong type is said in the words of JSON: an object, an integer', async () => {
    const file = join(base, 'types.json');
    writeFileSync(file, JSON.stringify({ mcpServers: [], sites: 'chatgpt', approvalWaitMs: 1.5 }));
    const { err } = await refusedStart(['--config', file], 'home-types');
    expect(err).toContain('mcpServers: value [] — must be an object');
    expect(err).toContain('sites: value "chatgpt" — must be an object');
    expect(err).toContain('approvalWaitMs: value 1.5 — must be an integer');
    expect(err).not.toMatch(/must be (record|int)\b/);
  });
});

describe('limits that cannot hold together', () => {
  it('a defaultTimeoutMs above maxTimeoutMs is refused naming both, instead of being cut to the maximum unsaid', async () => {
    const file = join(base, 'timeouts.json');
    writeFileSync(file, JSON.stringify({ limits: { defaultTimeoutMs: 900_000 } }));
    const { code, err } = await refusedStart(['--config', file], 'home-timeouts');
    expect(code).toBe(2);
    expect(err).toContain(`chatbridge: ${file} is invalid:\n  - limits.defaultTimeoutMs: value 900000 — must be ≤ limits.maxTimeoutMs (600000)`);
  });

  it('a maximum raised with it is taken: what stops that start is its missing root alone', async () => {
    const file = join(base, 'timeouts-raised.json');
    writeFileSync(file, JSON.stringify({ limits: { defaultTimeoutMs: 900_000, maxTimeoutMs: 900_000 }, roots: ['/definitely/not/here'] }));
    // the limits pass; what stops this start is the root, named alone
    const { err } = await refusedStart(['--config', file], 'home-timeouts-raised');
    expect(err).not.toContain('limits.');
    expect(err).toContain('roots[0]: value "/definitely/not/here"');
  });
});

describe('a misspelt key', () => {
  it('is refused naming the keys its place takes, at the top level and inside', async () => {
    const file = join(base, 'typos.json');
    writeFileSync(file, JSON.stringify({ mode: { write: 'auto' }, limits: { maxFileSize: 1024 }, sites: { deepseek: { modes: { run: 'deny' } } } }));
    const { code, err } = await refusedStart(['--config', file], 'home-typos');
    expect(code).toBe(2);
    expect(err).toContain('top level: unknown key "mode" — not a setting here; the settings here are roots, deny, modes, allowCommands,');
    expect(err).toContain(
      'limits: unknown key "maxFileSize" — not a setting here; the settings here are maxFileBytes, maxResultChars, maxMatches, defaultTimeoutMs, maxTimeoutMs, maxOutputBytes, maxListEntries, maxActions, maxPendingApprovals',
    );
    expect(err).toContain('sites.deepseek.modes: unknown key "run" — not a setting here; the settings here are read, write, delete, exec');
  });
});
