/**
 * attack: a model's call to a tool of a server that is not running (given up after failing to start, or waiting out
 * its backoff) started the server's program before the policy was asked: a call the person's policy denies, or one
 * whose card they refused, still ran the server's command. The policy comes first; a server is started for a call only
 * once the call may run. The real registry, real server processes, the real pipeline.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, makeMcpWorld, mcpCall, mcpJson, waitUntil, type McpWorld } from './world';

const scratch = mkdtempSync(join(tmpdir(), 'cb-stopped-'));
const UP = join(scratch, 'up');
/** counts each start of the server's program; fails until UP exists, then is the features fixture */
const COUNTED = 'const fs = require("fs"); fs.appendFileSync(process.argv[1], "start\\n"); if (!fs.existsSync(process.argv[2])) { process.stderr.write("error: not up yet\\n"); process.exit(1) } import(process.argv[3])';
/** how many times the server's program was started */
const starts = (server: string) => readFileSync(join(scratch, server), 'utf8').split('\n').filter(Boolean).length;
const counted = (server: string) => ({ command: process.execPath, args: ['-e', COUNTED, join(scratch, server), UP, fixture('features.mjs')], policy: { tools: { leak: 'deny' } } });

let world: McpWorld;
const healthOf = async (name: string) => {
  const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string }> };
  return servers.find((s) => s.name === name)!;
};

beforeAll(async () => {
  world = await makeMcpWorld(
    { mcpServers: { denying: counted('denying'), asking: counted('asking') } },
    { maxFailures: 1, backoffBaseMs: 20, backoffMaxMs: 40, startTimeoutMs: 5_000 },
  );
  await waitUntil('both are given up', async () => (await healthOf('denying')).state === 'error' && (await healthOf('asking')).state === 'error', 20_000);
  writeFileSync(UP, '');
}, 60_000);

afterAll(async () => {
  await world?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('a call to a tool of a server that is not running', () => {
  it('denied by the person’s policy: refused as POLICY_BLOCKED, and the server is not started', async () => {
    const before = starts('denying');
    const run = await world.run('mcp-request', mcpCall('d1', 'denying.leak', {}), { waitMs: 5_000 });
    expect(mcpJson(run.resultText).error).toMatchObject({ data: { code: 'POLICY_BLOCKED' } });
    expect(starts('denying')).toBe(before);
    expect((await healthOf('denying')).state).toBe('error');
  });

  it('whose card the person refuses: nothing is started; one they approve starts it and is answered', async () => {
    const before = starts('asking');
    const refused = await world.run('mcp-request', mcpCall('c1', 'asking.peek', { what: 'a' }));
    expect(refused.status).toBe('pending');
    const denied = await world.decide(refused.runId, 'deny');
    expect(mcpJson(denied.resultText).error).toMatchObject({ data: { code: 'DENIED' } });
    expect(starts('asking')).toBe(before);
    const asked = await world.run('mcp-request', mcpCall('c2', 'asking.peek', { what: 'b' }));
    const approved = await world.decide(asked.runId, 'approve');
    expect(mcpJson(approved.resultText).result?.content[0]?.text).toBe('peeked b');
    expect(starts('asking')).toBe(before + 1);
  });
});
