import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerProblem } from '../../../shared/api';
import { fixtureServer, makeMcpWorld, mcpCall, mcpJson, waitUntil, type McpWorld } from './world';

/*
 * Servers that misbehave, written for these tests with the SDK's own server classes: one that dies mid-call, one
 * that never answers (stopped by the person, and by the timeout), one that prints garbage on stdout, one whose
 * result is 5 MB. Each call ends in a coded result in the block's own protocol, and the companion — its built-ins
 * and its other servers — keeps serving.
 */
let world: McpWorld;
let markFile: string;
let versionFile: string;

const auto = { policy: { default: 'auto' } };

beforeAll(async () => {
  markFile = join(process.env.TMPDIR ?? '/tmp', `cb-hang-mark-${process.pid}-${Date.now()}`);
  versionFile = `${markFile}-version`;
  writeFileSync(versionFile, '1');
  world = await makeMcpWorld({
    mcpServers: {
      crash: fixtureServer('crash.mjs', auto),
      hang: fixtureServer('hang.mjs', { ...auto, timeoutMs: 400, env: { HANG_MARK_FILE: markFile } }),
      slow: fixtureServer('hang.mjs', { ...auto, env: { HANG_MARK_FILE: markFile } }),
      garbage: fixtureServer('garbage.mjs', { ...auto, timeoutMs: 400 }),
      unterminated: fixtureServer('garbage.mjs', { ...auto, startTimeoutMs: 5_000, env: { GARBAGE_BANNER: 'unterminated' } }),
      big: fixtureServer('big-result.mjs', auto),
      features: fixtureServer('features.mjs', auto),
      errors: fixtureServer('error-text.mjs', auto),
      paged: fixtureServer('paged.mjs', auto),
      unlisted: fixtureServer('paged.mjs', { ...auto, env: { PAGED_FAIL_REFRESH: '1' } }),
      churning: fixtureServer('paged.mjs', { ...auto, env: { PAGED_PAGE: '100' } }),
      flood: fixtureServer('flood.mjs', { ...auto, env: { FLOOD_MS: '3000' } }),
      requests: fixtureServer('request-flood.mjs', { ...auto, timeoutMs: 20_000, env: { FLOOD_MS: '4000' } }),
      mute: fixtureServer('mute.mjs', { ...auto, timeoutMs: 20_000 }),
      versioned: fixtureServer('versioned.mjs', { policy: { default: 'confirm', tools: { restart: 'auto' } }, env: { VERSIONED_FILE: versionFile } }),
    },
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
  rmSync(versionFile, { force: true });
});

interface Health {
  state: string;
  restarts: number;
  lastError?: string;
  problem?: McpServerProblem;
  tools: number;
  notes: string[];
}

async function healthOf(name: string, of: McpWorld = world): Promise<Health> {
  const { servers } = (await (await of.request('/v1/mcp-servers')).json()) as { servers: Array<Health & { name: string }> };
  const found = servers.find((s) => s.name === name);
  if (!found) throw new Error(`no server ${name}`);
  return found;
}

async function stillServing(): Promise<void> {
  await writeProbe();
  const fsRead = await world.run('mcp-request', mcpCall('probe-fs', 'fs.read', { path: join(world.root, 'probe.txt') }));
  expect(mcpJson(fsRead.resultText).result?.content[0]?.text).toBe('probe\n');
  const other = await world.run('mcp-request', mcpCall('probe-big', 'big.ok', {}));
  expect(mcpJson(other.resultText).result?.content[0]?.text).toBe('small');
}

async function writeProbe(): Promise<void> {
  const { writeFile } = await import('node:fs/promises');
  await writeFile(join(world.root, 'probe.txt'), 'probe\n');
}

describe('a server that crashes mid-call', () => {
  it('answers UNAVAILABLE naming the exit, restarts the server, and the companion keeps serving', async () => {
    const run = await world.run('mcp-request', mcpCall('x1', 'crash.crash', {}), { waitMs: 10_000 });
    expect(run.status).toBe('error');
    const error = mcpJson(run.resultText).error;
    expect(error).toMatchObject({ code: -32012, data: { code: 'UNAVAILABLE' } });
    expect(error?.message).toMatch(/^UNAVAILABLE: crash\.crash: MCP server crash stopped during the call — the server exited \(code 3\); its stderr ended with: crash: exiting in the middle of a call; it restarts \(log: .*mcp-logs\/crash\.log\)$/);
    await stillServing();
    await waitUntil('crash is ready again', async () => (await healthOf('crash')).state === 'ready');
    const health = await healthOf('crash');
    expect(health.restarts).toBe(1);
    expect(health.lastError).toBe('the server exited (code 3); its stderr ended with: crash: exiting in the middle of a call');
    const again = await world.run('mcp-request', mcpCall('x2', 'crash.ok', {}));
    expect(mcpJson(again.resultText).result?.content[0]?.text).toMatch(/^alive pid \d+$/);
    // its stderr went to its log, not to the companion's terminal
    const logFile = join(world.home, 'mcp-logs', 'crash.log');
    await waitUntil('the exit is in the log', () => readFileSync(logFile, 'utf8').includes('exited (code 3)'));
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('crash: exiting in the middle of a call');
    expect(log).toContain('exited (code 3)');
  });
});

describe('a call to a server waiting to restart after a crash', () => {
  it('starts it now and is answered, instead of being refused until the backoff ends', async () => {
    const backingOff = await makeMcpWorld({ mcpServers: { crash: fixtureServer('crash.mjs', auto) } }, { backoffBaseMs: 20_000, backoffMaxMs: 20_000 });
    try {
      const crashed = await backingOff.run('mcp-request', mcpCall('r1', 'crash.crash', {}), { waitMs: 10_000 });
      expect(mcpJson(crashed.resultText).error?.data.code).toBe('UNAVAILABLE');
      expect(backingOff.servers.health()[0]?.state).toBe('retrying');
      const started = Date.now();
      const run = await backingOff.run('mcp-request', mcpCall('r2', 'crash.ok', {}), { waitMs: 10_000 });
      expect(mcpJson(run.resultText).error).toBeUndefined();
      expect(mcpJson(run.resultText).result?.content[0]?.text).toMatch(/^alive pid \d+$/);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(backingOff.servers.health()[0]).toMatchObject({ state: 'ready', restarts: 1 });
    } finally {
      await backingOff.close();
    }
  });
});

describe('a server that closes its output and goes on running', () => {
  it('is stopped and restarted, its call UNAVAILABLE saying why, not left up to time out every call', async () => {
    const run = await world.run('mcp-request', mcpCall('m1', 'mute.mute', {}), { waitMs: 25_000 });
    const error = mcpJson(run.resultText).error;
    expect(error?.data.code).toBe('UNAVAILABLE');
    expect(error?.message).toContain('the server closed its output and went on running, so it could answer nothing more; it was stopped');
    const again = await world.run('mcp-request', mcpCall('m2', 'mute.ok', {}), { waitMs: 10_000 });
    expect(mcpJson(again.resultText).result?.content[0]?.text).toMatch(/^alive pid \d+$/);
    expect((await healthOf('mute')).restarts).toBe(1);
  }, 40_000);
});

describe('a call approved while its server restarts after a crash', () => {
  it('starts it now and is answered, as a call before its card is, instead of being refused as restarting', async () => {
    const backingOff = await makeMcpWorld(
      { mcpServers: { crash: fixtureServer('crash.mjs', { policy: { default: 'auto', tools: { ok: 'confirm' } } }) } },
      { backoffBaseMs: 20_000, backoffMaxMs: 20_000 },
    );
    try {
      const waiting = await backingOff.run('mcp-request', mcpCall('a1', 'crash.ok', {}));
      expect(waiting.status).toBe('pending');
      // meanwhile another call crashes the server, which waits out its backoff
      const crashed = await backingOff.run('mcp-request', mcpCall('a2', 'crash.crash', {}), { waitMs: 10_000 });
      expect(mcpJson(crashed.resultText).error?.data.code).toBe('UNAVAILABLE');
      expect(backingOff.servers.health()[0]?.state).toBe('retrying');
      const run = await backingOff.decide(waiting.runId, 'approve');
      expect(mcpJson(run.resultText).error).toBeUndefined();
      expect(mcpJson(run.resultText).result?.content[0]?.text).toMatch(/^alive pid \d+$/);
      expect(backingOff.servers.health()[0]).toMatchObject({ state: 'ready', restarts: 1 });
    } finally {
      await backingOff.close();
    }
  });
});

describe('a call approved after its server restarted as another version while the card waited', () => {
  it('is not sent when the tool is gone or its schema no longer takes the approved arguments, and says so', async () => {
    const gone = await world.run('mcp-request', mcpCall('v1', 'versioned.erase', { title: 'groceries' }));
    const changed = await world.run('mcp-request', mcpCall('v2', 'versioned.note', { text: 'milk' }));
    expect([gone.status, changed.status]).toEqual(['pending', 'pending']);
    // the person updates the server meanwhile; it is up again, as version 2, before either card is decided
    writeFileSync(versionFile, '2');
    const before = (await healthOf('versioned')).restarts;
    const restarted = await world.run('mcp-request', mcpCall('v3', 'versioned.restart', {}), { waitMs: 10_000 });
    expect(mcpJson(restarted.resultText).result?.content[0]?.text).toBe('version 1 exiting');
    await waitUntil('versioned is up again as version 2', async () => {
      const health = await healthOf('versioned');
      return health.state === 'ready' && health.restarts > before;
    });
    expect(world.servers.health().find((h) => h.name === 'versioned')?.state).toBe('ready');

    const erase = mcpJson((await world.decide(gone.runId, 'approve')).resultText).error;
    expect(erase?.data.code).toBe('NOT_FOUND');
    expect(erase?.message).toBe(
      'NOT_FOUND: versioned.erase is no longer a tool of MCP server versioned: the server restarted or changed its tool list after the call was checked, and it was not sent; its tools are now restart, note',
    );
    const note = mcpJson((await world.decide(changed.runId, 'approve')).resultText).error;
    expect(note?.data.code).toBe('INVALID_INPUT');
    expect(note?.message).toMatch(
      /^INVALID_INPUT: the input schema of versioned\.note changed after the call was checked \(MCP server versioned restarted or changed its tool list\), and the arguments no longer fit it, so it was not sent: .*"body"/,
    );
    // a call written for the new version runs
    const fresh = await world.run('mcp-request', mcpCall('v4', 'versioned.note', { body: 'milk' }));
    expect(mcpJson((await world.decide(fresh.runId, 'approve')).resultText).result?.content[0]?.text).toBe('noted milk');
  });
});

describe('a server that never answers', () => {
  it('a timeout is TIMEOUT, and the server is told to cancel', async () => {
    const run = await world.run('flycode-call', '```flycode-call\n{"id":"h1","tool":"hang.hang","args":{"label":"by-timeout"}}\n```', { waitMs: 10_000 });
    expect(run.status).toBe('error');
    expect(run.resultText).toContain('[error] TIMEOUT: hang.hang did not answer within 400 ms; MCP server hang was told to cancel it');
    await waitUntil('the server saw the cancellation', () => existsSync(markFile) && readFileSync(markFile, 'utf8').includes('cancelled by-timeout'));
    expect((await healthOf('hang')).state).toBe('ready');
    await stillServing();
  });

  it('Stop (by block, while its answer is awaited) is CANCELLED, and the server is told to cancel', async () => {
    const text = mcpCall('h2', 'slow.hang', { label: 'by-stop' });
    const context = { site: 'chatgpt', url: 'https://chatgpt.com/c/x', conversationId: 'conv-stop', messageKey: 'msg-stop' };
    const answer = world.post('/v1/run', { kind: 'mcp-request', text, context, waitMs: 100 });
    await waitUntil('the call reached the server', () => existsSync(markFile) && readFileSync(markFile, 'utf8').includes('started by-stop'));
    // the chip's Stop may come before the run exists on a busy machine: it is simply tried again
    await waitUntil('the run is stopped', async () => (await world.post('/v1/runs/stop', { kind: 'mcp-request', text, context })).status === 200);
    const run = (await (await answer).json()) as { status: string; resultText: string; runId: string };
    expect(run.status).toBe('error');
    expect(mcpJson(run.resultText).error).toMatchObject({ code: -32013, data: { code: 'CANCELLED' } });
    expect(mcpJson(run.resultText).error?.message).toBe('CANCELLED: slow.hang was stopped; MCP server slow was told to cancel it');
    await waitUntil('the server saw the cancellation', () => readFileSync(markFile, 'utf8').includes('cancelled by-stop'));
    // stopping what is not running is NOT_FOUND
    expect((await world.post(`/v1/runs/${run.runId}/stop`, {})).status).toBe(404);
    const ok = await world.run('mcp-request', mcpCall('h3', 'slow.ok', {}));
    expect(mcpJson(ok.resultText).result?.content[0]?.text).toBe('still serving');
  });

  it('Stop by run id after an approval cancels the same way', async () => {
    const confirmWorld = await makeMcpWorld({ mcpServers: { slow: fixtureServer('hang.mjs', { env: { HANG_MARK_FILE: markFile } }) } });
    try {
      const pending = await confirmWorld.run('mcp-request', mcpCall('h4', 'slow.hang', { label: 'by-run-id' }));
      expect(pending.status).toBe('pending');
      const approval = await confirmWorld.approvalOf(pending.runId);
      await confirmWorld.post(`/v1/approvals/${approval.id}`, { decision: 'approve', argsHash: approval.argsHash });
      await waitUntil('the call reached the server', () => existsSync(markFile) && readFileSync(markFile, 'utf8').includes('started by-run-id'));
      expect((await confirmWorld.post(`/v1/runs/${pending.runId}/stop`, {})).status).toBe(200);
      const done = await confirmWorld.final(pending.runId);
      expect(mcpJson(done.resultText).error?.message).toMatch(/^CANCELLED: /);
      await waitUntil('the server saw the cancellation', () => readFileSync(markFile, 'utf8').includes('cancelled by-run-id'));
    } finally {
      await confirmWorld.close();
    }
  });
});

describe('a call that reports progress for longer than any call may take', () => {
  it('is TIMEOUT naming that limit, and the server is told to cancel it', async () => {
    const limited = await makeMcpWorld({
      limits: { defaultTimeoutMs: 300, maxTimeoutMs: 700 },
      mcpServers: { busy: fixtureServer('hang.mjs', { ...auto, env: { HANG_MARK_FILE: markFile } }) },
    });
    try {
      // ended by the limit: a call still running when the wait ends would have no error
      const run = await limited.run('mcp-request', mcpCall('b1', 'busy.busy', { label: 'past-the-limit' }), { waitMs: 10_000 });
      expect(mcpJson(run.resultText).error?.message).toBe(
        'TIMEOUT: busy.busy ran for longer than any call may (limits.maxTimeoutMs, 700 ms), though it kept reporting progress; MCP server busy was told to cancel it',
      );
      await waitUntil('the server saw the cancellation', () => readFileSync(markFile, 'utf8').includes('cancelled past-the-limit'), 5_000);
    } finally {
      await limited.close();
    }
  });
});

describe('a server that prints garbage on stdout', () => {
  it('starts despite a banner, answers despite noise mid-call; the noise is logged, never fatal', async () => {
    expect((await healthOf('garbage')).state).toBe('ready');
    const run = await world.run('mcp-request', mcpCall('g1', 'garbage.chatty', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('answered despite the noise');
    const logFile = join(world.home, 'mcp-logs', 'garbage.log');
    // the log is written behind the calls, never in their way
    await waitUntil('the noise is in the log', () => readFileSync(logFile, 'utf8').includes('{"hello": "not json-rpc"}'));
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('stdout line that is not JSON-RPC, skipped: Garbage Server v0.1 starting');
    expect(log).toContain('stdout line that is not JSON-RPC, skipped: debug: about to answer');
    expect(log).toContain('stdout JSON that is not a JSON-RPC message, skipped: {"hello": "not json-rpc"}');
  });

  it('starts when its banner has no newline, so that its first answer ends the banner\'s line: the banner is logged and skipped', async () => {
    expect((await healthOf('unterminated')).state).toBe('ready');
    const run = await world.run('mcp-request', mcpCall('g4', 'unterminated.chatty', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('answered despite the noise');
    const log = readFileSync(join(world.home, 'mcp-logs', 'unterminated.log'), 'utf8');
    expect(log).toContain('stdout text before a message on its line, skipped: Garbage Server v0.1 starting... {config: default} (this banner is not JSON-RPC) \n');
  });

  it('garbage instead of an answer ends in TIMEOUT, and the server stays up', async () => {
    const run = await world.run('mcp-request', mcpCall('g2', 'garbage.silent', {}), { waitMs: 10_000 });
    expect(mcpJson(run.resultText).error).toMatchObject({ code: -32010, data: { code: 'TIMEOUT' } });
    const again = await world.run('mcp-request', mcpCall('g3', 'garbage.chatty', {}));
    expect(mcpJson(again.resultText).result?.content[0]?.text).toBe('answered despite the noise');
  });
});

describe('a tool whose result is 5 MB', () => {
  it('is cut to the result cap with a marker and meta.truncated; the companion stays responsive', async () => {
    const started = Date.now();
    const run = await world.run('mcp-request', mcpCall('b1', 'big.dump', {}), { waitMs: 20_000 });
    expect(run.status).toBe('done');
    const response = mcpJson(run.resultText);
    expect(response.result?.meta.truncated).toBe(true);
    const text = response.result?.content[0]?.text ?? '';
    expect(text.length).toBeLessThan(world.policy.limits.maxResultChars + 500);
    expect(text).toMatch(/…\[truncated: showed 20000 of 5242880 characters .*narrow the call to see the rest\]$/);
    expect(Date.now() - started).toBeLessThan(15_000);
    await stillServing();
  });

  it('a message over the transport limit resets the connection: LIMIT_EXCEEDED, then the server restarts', async () => {
    const small = await makeMcpWorld({ mcpServers: { big: fixtureServer('big-result.mjs', auto) } }, { maxMessageBytes: 1024 * 1024 });
    try {
      const run = await small.run('mcp-request', mcpCall('b2', 'big.dump', {}), { waitMs: 20_000 });
      expect(mcpJson(run.resultText).error).toMatchObject({ code: -32008, data: { code: 'LIMIT_EXCEEDED' } });
      expect(mcpJson(run.resultText).error?.message).toContain('answered with more than 1048576 bytes');
      await waitUntil('big is ready again', async () => (await healthOf('big', small)).state === 'ready');
      // why it was reset, as facts the extension words in the person's language
      expect((await healthOf('big', small)).problem).toEqual({ code: 'message-too-large', starting: false, maxBytes: 1024 * 1024 });
      const ok = await small.run('mcp-request', mcpCall('b3', 'big.ok', {}));
      expect(mcpJson(ok.resultText).result?.content[0]?.text).toBe('small');
    } finally {
      await small.close();
    }
  });
});

describe('results and notifications', () => {
  it('isError is the protocol error TOOL_ERROR, redacted', async () => {
    const run = await world.run('mcp-request', mcpCall('f1', 'features.fail', {}));
    const error = mcpJson(run.resultText).error;
    expect(error).toMatchObject({ code: -32011, data: { code: 'TOOL_ERROR' } });
    expect(error?.message).toMatch(/^TOOL_ERROR: features\.fail failed: the repository is locked; key \[REDACTED[^\]]*\] was refused$/);
    const flycode = await world.run('flycode-call', '```flycode-call\n{"id":"f2","tool":"features.fail","args":{}}\n```');
    expect(flycode.resultText).toContain('[ok] false');
    expect(flycode.resultText).toContain('[error] TOOL_ERROR: features.fail failed:');
  });

  it("a JSON-RPC error's text is cut like a result, redacted, and says its code once", async () => {
    const limit = world.policy.limits.maxResultChars;
    const dump = await world.run('flycode-call', '```flycode-call\n{"id":"e1","tool":"errors.dump","args":{}}\n```');
    expect(dump.resultText).toContain('[error] TOOL_ERROR: errors.dump failed on MCP server errors (error -32603): upstream failed: at handler');
    expect(dump.resultText).toContain('; the rest of the error was left out]');
    expect(dump.resultText.length).toBeLessThan(limit + 1_000);
    expect(dump.resultText).not.toContain('hunter2');
    const short = await world.run('mcp-request', mcpCall('e2', 'errors.short', {}));
    expect(mcpJson(short.resultText).error?.message).toBe('TOOL_ERROR: errors.short failed on MCP server errors (error -32603): upstream failed: rate limited');
  });

  it('a long isError text is cut once, with one marker', async () => {
    const run = await world.run('mcp-request', mcpCall('e3', 'big.fail-long', {}));
    const message = mcpJson(run.resultText).error?.message ?? '';
    expect(message.startsWith('TOOL_ERROR: big.fail-long failed: ')).toBe(true);
    expect(message.match(/…\[truncated:/g)).toHaveLength(1);
    expect(message.length).toBeLessThan(world.policy.limits.maxResultChars + 300);
  });

  it('secrets in a result are redacted like a built-in result', async () => {
    const run = await world.run('mcp-request', mcpCall('f3', 'features.leak', {}));
    const text = mcpJson(run.resultText).result?.content[0]?.text ?? '';
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('AKIAIOSFODNN7EXAMPLE');
  });

  it('a tool name a model cannot type is not offered, and the health says so', async () => {
    const health = await healthOf('features');
    expect(health.notes).toContain('tool "has space" is not offered: a tool name is 1–64 letters, digits, "_", "-" or "."');
    const { tools } = (await (await world.request('/v1/tools')).json()) as { tools: Array<{ name: string }> };
    expect(tools.some((t) => t.name.startsWith('features.has'))).toBe(false);
  });

  it('notifications/tools/list_changed refreshes the list', async () => {
    const before = (await healthOf('features')).tools;
    const run = await world.run('mcp-request', mcpCall('f4', 'features.add-tool', {}));
    expect(run.status).toBe('done');
    await waitUntil('the new tool is listed', async () => (await healthOf('features')).tools === before + 1);
    const added = await world.run('mcp-request', mcpCall('f5', 'features.added', {}));
    expect(mcpJson(added.resultText).result?.content[0]?.text).toBe('I was added');
    expect(world.events.some((e) => e.type === 'mcp-server' && e.server.name === 'features' && e.server.tools === before + 1)).toBe(true);
  });

  it('a refreshed list is read page by page, as the first one is', async () => {
    await waitUntil('the paged server lists its five tools', async () => (await healthOf('paged')).tools === 5);
    const run = await world.run('mcp-request', mcpCall('p1', 'paged.grow', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('now 8 tools');
    await waitUntil('all eight tools are listed after the change', async () => (await healthOf('paged')).tools === 8);
    // the last page's tool is callable
    const last = await world.run('mcp-request', mcpCall('p2', 'paged.five', {}));
    expect(mcpJson(last.resultText).result?.content[0]?.text).toBe('called five');
  });

  it('a list changed twice in a row is the newest list, though the first read of it answers last', async () => {
    await waitUntil('churning lists its five tools', async () => (await healthOf('churning')).tools === 5);
    const run = await world.run('mcp-request', mcpCall('p4', 'churning.churn', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('now 7 tools');
    await waitUntil('both added tools are listed', async () => (await healthOf('churning')).tools === 7);
    // the first change's read answers late, with six tools: it must not take the newer list's place
    const settled = await world.run('mcp-request', mcpCall('p5', 'churning.settled', {}));
    expect(mcpJson(settled.resultText).result?.content[0]?.text).toBe('the late list was answered');
    expect((await healthOf('churning')).tools).toBe(7);
    const four = await world.run('mcp-request', mcpCall('p6', 'churning.four', {}));
    expect(mcpJson(four.resultText).result?.content[0]?.text).toBe('called four');
  });

  it('a changed list that cannot be read leaves the list read before, and the health says why as facts', async () => {
    await waitUntil('unlisted lists its five tools', async () => (await healthOf('unlisted')).tools === 5);
    const run = await world.run('mcp-request', mcpCall('p3', 'unlisted.grow', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('now 8 tools');
    await waitUntil('the failed refresh is said', async () => (await healthOf('unlisted')).lastError !== undefined);
    const health = await healthOf('unlisted');
    expect(health).toMatchObject({ state: 'ready', tools: 5 });
    expect(health.lastError).toBe('refreshing the tool list failed: MCP error -32603: the tool index is being rebuilt');
    expect(health.problem).toEqual({ code: 'list-refresh-failed', starting: false, cause: 'MCP error -32603: the tool index is being rebuilt' });
  });

  it('progress of a fixture tool reaches the hub with its message', async () => {
    const run = await world.run('mcp-request', mcpCall('f6', 'features.progress', { steps: 4 }), { waitMs: 10_000 });
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('done in 4 steps');
    const events = world.events.filter((e) => e.type === 'tool-progress' && e.runId === run.runId);
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events[0]).toMatchObject({ type: 'tool-progress', tool: 'features.progress', progress: 1, total: 4, message: 'step 1' });
  });
});

describe('a server that asks its client for what chatbridge does not give', () => {
  it("its tool's error says what was asked and why it was not answered, not only 'Method not found'", async () => {
    const sampled = await world.run('mcp-request', mcpCall('a1', 'features.summarize', {}));
    expect(mcpJson(sampled.resultText).error?.message).toBe(
      'TOOL_ERROR: features.summarize failed: could not summarize: MCP error -32601: sampling/createMessage: chatbridge runs no model for its MCP servers (sampling); the tool needs a client that does',
    );
    const roots = await world.run('mcp-request', mcpCall('a2', 'features.list-roots', {}));
    expect(mcpJson(roots.resultText).error?.message).toContain(
      'MCP error -32601: roots/list: chatbridge gives its MCP servers no roots; a server works in the folders its own command line or settings name',
    );
    const other = await world.run('mcp-request', mcpCall('a3', 'features.custom-ask', {}));
    expect(mcpJson(other.resultText).error?.message).toContain('MCP error -32601: constructor: chatbridge answers only ping from its MCP servers');
    expect(readFileSync(join(world.home, 'mcp-logs', 'features.log'), 'utf8')).toContain('the server asked for sampling/createMessage: chatbridge runs no model');
  });
});

describe('what a server says while a call runs', () => {
  it("a progress message is redacted like a result (the companion's own token too) and kept short", async () => {
    const run = await world.run('mcp-request', mcpCall('leak-1', 'features.progress-leak', { secret: world.token }), { waitMs: 10_000 });
    // the result itself was always redacted
    expect(run.resultText).not.toContain(world.token);
    const events = world.events.filter((e) => e.type === 'tool-progress' && e.runId === run.runId) as Array<{ message?: string }>;
    expect(events.length).toBeGreaterThanOrEqual(1);
    for (const event of events) {
      expect(event.message).not.toContain(world.token);
      expect(event.message?.length ?? 0).toBeLessThanOrEqual(500);
    }
  });
});

/** The largest growth of this process's resident memory while `task` runs, in MiB. */
async function peakGrowthMiB(task: () => Promise<unknown>): Promise<number> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    await task();
  } finally {
    clearInterval(timer);
  }
  return (Math.max(peak, process.memoryUsage().rss) - before) / 1024 / 1024;
}

describe('a server that floods its log', () => {
  it('stderr written faster than the log takes it is dropped, not held in memory (it once grew ~1 GB in 4 s)', async () => {
    const growth = await peakGrowthMiB(async () => {
      const run = await world.run('mcp-request', mcpCall('flood-1', 'flood.stderr-flood', {}), { waitMs: 20_000 });
      expect(mcpJson(run.resultText).result?.content[0]?.text).toMatch(/^wrote \d+ chunks$/);
    });
    expect(growth).toBeLessThan(150);
    // the note is written once the queue drains; more output after it may move it into the rotated file
    const logFiles = [join(world.home, 'mcp-logs', 'flood.log'), join(world.home, 'mcp-logs', 'flood.log.1')];
    await waitUntil('the log says what was dropped', () =>
      logFiles.some((file) => existsSync(file) && /bytes of the server's output were dropped/.test(readFileSync(file, 'utf8'))),
    );
  }, 30_000);
});

describe('a server that sends requests and never reads the answers', () => {
  it('is reset once it leaves 10 000 messages unread (the answers once piled up, ~50 MB a second); the call is UNAVAILABLE', async () => {
    let run: Awaited<ReturnType<McpWorld['run']>> | undefined;
    const growth = await peakGrowthMiB(async () => {
      run = await world.run('mcp-request', mcpCall('requests-1', 'requests.flood', {}), { waitMs: 20_000 });
    });
    expect(growth).toBeLessThan(150);
    const error = mcpJson(run!.resultText).error;
    expect(error?.data?.code).toBe('UNAVAILABLE');
    expect(error?.message).toMatch(/stopped reading what chatbridge sent it/);
    expect((await healthOf('requests')).problem).toEqual({ code: 'not-reading', starting: false });
  }, 30_000);
});
