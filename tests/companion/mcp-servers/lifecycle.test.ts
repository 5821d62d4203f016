import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeWorkspace, mcpRequestBlock, parseMcpResponse, processesWith, startCompanionProcess, waitUntil, type CompanionProcess } from '../load/live-companion';
import { EVERYTHING, fixture } from './world';

/*
 * The real companion process (companion/main.ts start, as `npm start` runs it) with a server of the person's:
 * it is started with the companion, found through <home>/config.json when no --config is given, shown by
 * `chatbridge status`, and at shutdown it goes with its whole process tree — also a grandchild it started. A
 * companion killed outright leaves the tree behind; its next start stops it.
 */
const workspace = makeWorkspace('cb-mcp-life-');
const started: CompanionProcess[] = [];

afterAll(async () => {
  for (const companion of started) await companion.kill();
  rmSync(workspace.base, { recursive: true, force: true });
});

function serverEntry(tag: string) {
  // the tag is an argument the fixture ignores: it marks this test's processes in /proc
  return { command: process.execPath, args: [fixture('features.mjs'), `--test-tag=${tag}`], policy: { default: 'auto' } };
}

async function start(config?: Record<string, unknown>): Promise<CompanionProcess> {
  const companion = await startCompanionProcess({ root: workspace.root, home: workspace.home, ...(config ? { config } : {}) });
  started.push(companion);
  return companion;
}

async function status(companion: CompanionProcess, token = true): Promise<Record<string, unknown>> {
  const response = await fetch(`http://127.0.0.1:${companion.port}/v1/status`, token ? { headers: { authorization: `Bearer ${companion.token}` } } : {});
  return (await response.json()) as Record<string, unknown>;
}

async function call(companion: CompanionProcess, name: string, args: Record<string, unknown>): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${companion.port}/v1/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${companion.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'mcp-request', text: mcpRequestBlock(randomBytes(4).toString('hex'), name, args), context: { site: 'chatgpt', conversationId: 'c', messageKey: randomBytes(6).toString('hex') } }),
  });
  const run = (await response.json()) as { resultText: string };
  const parsed = parseMcpResponse(run.resultText);
  if (!parsed.result) throw new Error(`${name} failed: ${JSON.stringify(parsed.error)}`);
  return parsed.result.content.map((c) => c.text).join('');
}

function cli(args: string[], home: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(__dirname, '../../../bin/chatbridge.js'), ...args], { env: { ...process.env, CHATBRIDGE_HOME: home } });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.on('exit', (code) => resolve({ code, stdout }));
  });
}

describe('the person’s MCP servers live and die with the companion', { timeout: 120_000 }, () => {
  it('<home>/config.json is loaded without --config; status shows the server; SIGTERM ends its whole tree', async () => {
    const tag = `life-${randomBytes(4).toString('hex')}`;
    const grandchild = `grandchild-${tag}`;
    mkdirSync(workspace.home, { recursive: true });
    writeFileSync(join(workspace.home, 'config.json'), JSON.stringify({ mcpServers: { features: serverEntry(tag) } }));
    const companion = await start();
    // the start is known from its first line; the rest of the banner may come in a later chunk of stdout
    await waitUntil('the banner names the MCP servers', () => companion.output().includes('MCP servers:'));
    expect(companion.output()).toContain(`config: ${join(workspace.home, 'config.json')}`);
    expect(companion.output()).toContain('MCP servers: features (starting in the background; `npx chatbridge mcp list` in the chatbridge folder)');
    await waitUntil('features is ready', async () => ((await status(companion, false)).mcp as { ready?: number } | undefined)?.ready === 1);

    const answer = await call(companion, 'features.spawn-child', { marker: grandchild });
    expect(answer).toMatch(/^grandchild \d+$/);
    expect(processesWith(tag).length).toBeGreaterThan(0);
    expect(processesWith(grandchild).length).toBe(1);

    const shown = await cli(['status'], workspace.home);
    expect(shown.stdout).toMatch(/MCP server features: ready, \d+ tools/);
    const listed = await cli(['mcp', 'list'], workspace.home);
    expect(listed.stdout).toMatch(/^features {2}ready {2}\d+ tools {2}stdio/m);

    await companion.stop();
    expect((await companion.exited).code).toBe(0);
    await waitUntil('the server and its grandchild are gone', () => processesWith(tag).length === 0 && processesWith(grandchild).length === 0, 10_000);
    rmSync(join(workspace.home, 'config.json'));
  });

  it('mcp list while it runs also names a server added or removed since its start, instead of "no MCP servers configured"', async () => {
    const tag = `listed-${randomBytes(4).toString('hex')}`;
    mkdirSync(workspace.home, { recursive: true });
    const configPath = join(workspace.home, 'config.json');
    writeFileSync(configPath, JSON.stringify({ mcpServers: { features: serverEntry(tag) } }));
    const companion = await start();
    try {
      await listedWhileRunning(companion, configPath);
    } finally {
      await companion.stop();
      await companion.exited;
      await waitUntil('the server is gone', () => processesWith(tag).length === 0, 10_000);
      rmSync(configPath);
    }
  });

  async function listedWhileRunning(companion: CompanionProcess, configPath: string): Promise<void> {
    await waitUntil('features is ready', async () => ((await status(companion, false)).mcp as { ready?: number } | undefined)?.ready === 1);

    const added = await cli(['mcp', 'add', 'later', '--', process.execPath, fixture('features.mjs')], workspace.home);
    expect(added.code).toBe(0);
    const listed = await cli(['mcp', 'list'], workspace.home);
    expect(listed.stdout).toMatch(/^features {2}ready {2}\d+ tools {2}stdio/m);
    expect(listed.stdout).toContain(`later  not started  ${process.execPath} ${fixture('features.mjs')}\n`);
    expect(listed.stdout).toContain(`in ${configPath}, not in the running chatbridge (added since it started, or it was started with another --config); restart it to start this server`);
    expect(listed.stdout).not.toContain('no MCP servers configured');
    expect(listed.stdout).not.toContain('has changed since chatbridge started');

    // the person edits the running server's entry (here its policy): the change waits for a restart, and is said so
    const config = JSON.parse(readFileSync(configPath, 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> };
    writeFileSync(configPath, JSON.stringify({ ...config, mcpServers: { ...config.mcpServers, features: { ...config.mcpServers.features, policy: { default: 'confirm' } } } }));
    const edited = await cli(['mcp', 'list'], workspace.home);
    expect(edited.stdout).toMatch(
      new RegExp(`^features {2}ready {2}\\d+ tools {2}stdio\n(?: {4}.*\n)*? {4}note: its entry in ${configPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} has changed since chatbridge started; restart chatbridge to use the change$`, 'm'),
    );
    expect(edited.stdout.match(/has changed since chatbridge started/g)).toHaveLength(1);

    expect((await cli(['mcp', 'remove', 'features'], workspace.home)).code).toBe(0);
    const afterRemove = await cli(['mcp', 'list'], workspace.home);
    expect(afterRemove.stdout).toMatch(/^features {2}ready {2}\d+ tools {2}stdio\n(?: {4}.*\n)*? {4}note: not in .*config\.json; it runs until chatbridge restarts$/m);
  }

  it("the credentials in a server's env and headers are not shown when a server quotes them back", async () => {
    const token = 'q8Zr4LpW2vX9mK3tNotes';
    const companion = await start({
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { NOTES_SERVICE_TOKEN: token, NOTES_REGION: 'eu-west-3a' }, policy: { default: 'auto' } },
      },
    });
    await waitUntil('everything is ready', async () => ((await status(companion, false)).mcp as { ready?: number } | undefined)?.ready === 1);
    const env = JSON.parse(await call(companion, 'everything.get-env', {})) as Record<string, string>;
    expect(env.NOTES_SERVICE_TOKEN).toBe('[REDACTED]');
    // a name that says nothing of a credential keeps its value
    expect(env.NOTES_REGION).toBe('eu-west-3a');
    const echoed = await call(companion, 'everything.echo', { message: `the service refused ${token}` });
    expect(echoed).not.toContain(token);
    expect(echoed).toContain('the service refused [REDACTED]');
    await companion.stop();
  });

  it('a companion killed outright leaves its servers; the next start stops them', async () => {
    const tag = `killed-${randomBytes(4).toString('hex')}`;
    const grandchild = `grandchild-${tag}`;
    const first = await start({ mcpServers: { features: serverEntry(tag) } });
    await waitUntil('features is ready', async () => ((await status(first, false)).mcp as { ready?: number } | undefined)?.ready === 1);
    await call(first, 'features.spawn-child', { marker: grandchild });
    await first.kill();
    // the grandchild outlives a SIGKILLed companion: nothing was there to stop it
    await new Promise((r) => setTimeout(r, 300));
    expect(processesWith(grandchild).length).toBe(1);

    const second = await start();
    await waitUntil('the leftover tree is stopped', () => processesWith(tag).length === 0 && processesWith(grandchild).length === 0, 10_000);
    expect(second.output()).toMatch(/stopped \d+ programs? left running by a previous run: mcp server features:/);
    await second.stop();
  });
});
