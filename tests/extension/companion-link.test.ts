// @vitest-environment node
// The background service worker has no DOM; its link to the companion is tested in Node, with Node's fetch.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as NodeWebSocket, WebSocketServer } from 'ws';
import { CompanionError, companionRefusal, createCompanionClient, pairingRefusal } from '../../extension/companion/client';
import { CompanionSocket, HEARTBEAT_MS, closedDetail, type ConnectionState } from '../../extension/companion/socket';
import { connectionTip } from '../../extension/ui/indicator';
import { t } from '../../extension/ui/i18n';
import { StartedRuns } from '../../extension/companion/callers';
import { countApprovalsInto, createBadge } from '../../extension/companion/badge';
import type { WsEvent } from '../../extension/companion/api-types';
import { ProgramOutputBuffer } from '../../extension/content/program-output';
import { runRequest, startCompanionProcess } from '../../bench/companion-process';
import { useLocale } from './i18n-fake';

/**
 * The background's link to the companion against real local servers on an ephemeral port: an HTTP server that
 * answers like the companion (or wrongly, to check the client refuses it), and a ws server that checks the
 * first-message auth the way the companion does.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('companion HTTP client', () => {
  it('sends the bearer token, validates answers against the shared schemas, and names failures', async () => {
    const seen: Array<{ method: string; url: string; auth: string | undefined; body: string }> = [];
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body });
        res.setHeader('content-type', 'application/json');
        if (req.url === '/v1/status') return res.end(JSON.stringify({ name: 'chatbridge', version: '0.1.0', paired: true }));
        if (req.url === '/v1/pair') return res.end(JSON.stringify({ token: 'tok-123' }));
        if (req.url === '/v1/run') {
          return res.end(JSON.stringify({ runId: 'r1', status: 'done', resultText: '```mcp-response\n{}\n```', auditId: 'a1' }));
        }
        if (req.url === '/v1/runs/r2') return res.end(JSON.stringify({ runId: 'r2', status: 'finished' }));
        if (req.url === '/v1/approvals') return res.end(JSON.stringify({ approvals: [] }));
        res.statusCode = 403;
        res.end(JSON.stringify({ error: { code: 'FORBIDDEN', message: 'nope' } }));
      });
    });
    const base = await listen(server);
    let token = '';
    const client = createCompanionClient({ baseUrl: async () => base, token: async () => token });

    await expect(client.run({ kind: 'mcp-request', text: 'x', context: { site: 's', url: '', conversationId: 'c', messageKey: 'm' } })).rejects.toMatchObject({
      code: 'NOT_PAIRED',
    });
    expect((await client.status()).paired).toBe(true);
    token = await client.pair(' 123456 ');
    expect(token).toBe('tok-123');
    const run = await client.run({ kind: 'mcp-request', text: 'x', context: { site: 's', url: '', conversationId: 'c', messageKey: 'm' } });
    expect(run.runId).toBe('r1');
    expect(seen.find((s) => s.url === '/v1/run')?.auth).toBe('Bearer tok-123');
    expect(seen.find((s) => s.url === '/v1/pair')).toMatchObject({ auth: undefined, body: '{"code":"123456"}' });
    expect(await client.approvals()).toEqual([]);
    await expect(client.getRun('r2')).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
    await expect(client.undo('j1')).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN', message: 'nope' });
  });

  it("lists the MCP servers of a newer companion whose problem codes this build does not know, by their English error", async () => {
    const newer = { code: 'a-code-from-a-newer-companion', starting: false };
    const known = { code: 'exited', starting: false, program: 'pg-mcp', exitCode: 3 };
    const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
      res.setHeader('content-type', 'application/json');
      const health = (name: string, problem: object) => ({ name, transport: 'stdio', state: 'retrying', tools: 0, lastError: `${name} went away`, problem, restarts: 1, notes: [] });
      res.end(JSON.stringify({ servers: [health('notes', newer), health('db', known)] }));
    });
    const base = await listen(server);
    const client = createCompanionClient({ baseUrl: async () => base, token: async () => 't' });
    const servers = await client.mcpServers();
    expect(servers.map((s) => [s.name, s.problem?.code, s.lastError])).toEqual([
      ['notes', undefined, 'notes went away'],
      ['db', 'exited', 'db went away'],
    ]);
  });

  it('says the companion is unreachable when nothing listens', async () => {
    const server = createServer();
    const base = await listen(server);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    cleanups.pop();
    const client = createCompanionClient({ baseUrl: async () => base, token: async () => 't' });
    const error = await client.programs().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CompanionError);
    expect(error).toMatchObject({ status: 0, code: 'UNREACHABLE' });
  });
});

// Each test starts a real companion (a child process under tsx): seconds on a busy machine, past the 5 s default.
describe('pairing refusals', { timeout: 30_000 }, () => {
  it("the companion's refusals and nothing answering are told in the person's language, with what to do next", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'chatbridge-pair-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(path.join(dir, 'root'));
    const companion = await startCompanionProcess({ root: path.join(dir, 'root'), home: path.join(dir, 'home') });
    cleanups.push(() => companion.stop());
    const base = `http://127.0.0.1:${companion.port}`;
    const client = createCompanionClient({ baseUrl: async () => base, token: async () => '' });

    const wrong = await client.pair('NOTTHIS1').catch((e: unknown) => e);
    expect(wrong).toMatchObject({ code: 'FORBIDDEN', data: { reason: 'wrong', triesLeft: 4 } });
    expect(pairingRefusal(wrong, base)).toBe('Wrong pairing code: 4 tries left. Type the code the companion printed.');
    useLocale('zh_CN');
    expect(pairingRefusal(wrong, base)).toBe('配对码不对：还可以再试 4 次。请输入本地助手显示的配对码。');
    // Pair with the field left empty, or with something far longer than a code pasted into it
    for (const typed of ['  ', 'x'.repeat(40)]) {
      const notACode = await client.pair(typed).catch((e: unknown) => e);
      expect(notACode).toMatchObject({ code: 'INVALID_INPUT' });
      expect(pairingRefusal(notACode, base)).toBe('这不是配对码：请输入本地助手显示的配对码（8 个字符）。');
    }
    for (let i = 0; i < 2; i += 1) await client.pair('NOTTHIS1').catch(() => undefined);
    // the last try: its words follow the count
    const last = await client.pair('NOTTHIS1').catch((e: unknown) => e);
    expect(last).toMatchObject({ data: { triesLeft: 1 } });
    useLocale('en');
    expect(pairingRefusal(last, base)).toBe('Wrong pairing code: 1 try left. Type the code the companion printed.');
    useLocale('zh_CN');
    await client.pair('NOTTHIS1').catch(() => undefined);
    const spent = await client.pair('NOTTHIS1').catch((e: unknown) => e);
    expect(pairingRefusal(spent, base)).toContain('chatbridge pair');
    // no English in it but the command and the folder's name
    expect(pairingRefusal(spent, base).replace(/npx chatbridge pair|chatbridge/g, '')).toMatch(/^[^A-Za-z]*$/);

    await companion.stop();
    const away = await client.pair('NOTTHIS1').catch((e: unknown) => e);
    expect(pairingRefusal(away, base)).toBe(`${base} 没有响应：请在这台电脑上启动本地助手（在 chatbridge 文件夹中运行 npm start），或检查“本地助手地址”。`);
    useLocale('en');
    expect(pairingRefusal(away, base)).toBe(`Nothing answers at ${base}: start the companion on this computer (npm start in the chatbridge folder), or check the companion URL.`);
  });

  it("the companion's refusals a person meets on a card, a chip or a page are worded in their language, its facts kept", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'chatbridge-refusal-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const root = path.join(dir, 'root');
    mkdirSync(root);
    const companion = await startCompanionProcess({ root, home: path.join(dir, 'home') });
    cleanups.push(() => companion.stop());
    const base = `http://127.0.0.1:${companion.port}`;
    const client = createCompanionClient({ baseUrl: async () => base, token: async () => companion.token });
    const request = { ...runRequest('fs.write', { path: path.join(root, 'a.txt'), content: 'one\n', mode: 'overwrite' }), kind: 'mcp-request' as const };
    const stale = await createCompanionClient({ baseUrl: async () => base, token: async () => 'not-the-token' })
      .run(request)
      .catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: 'UNAUTHORIZED' });

    // a write under the default policy asks: approved once, then decided again (the card of a second tab, say)
    const pending = await client.run({ ...request, waitMs: 0 });
    expect(pending.status, pending.resultText).toBe('pending');
    const [card] = await client.approvals();
    await client.decide(card!.id, 'approve', card!.argsHash);
    const twice = await client.decide(card!.id, 'deny', card!.argsHash).catch((e: unknown) => e);
    expect(twice).toMatchObject({ code: 'CONFLICT' });
    for (let i = 0; i < 100 && (await client.journal()).length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    const [entry] = await client.journal();
    writeFileSync(path.join(root, 'a.txt'), 'changed by hand\n');
    const undo = await client.undo(entry!.id).catch((e: unknown) => e);
    expect(undo).toMatchObject({ code: 'CONFLICT' });
    const ended = await client.stopProgram('p-gone').catch((e: unknown) => e);
    expect(ended).toMatchObject({ code: 'NOT_FOUND' });
    const other = await client.getRun('r-gone').catch((e: unknown) => e);
    expect(other).toMatchObject({ code: 'NOT_FOUND' });

    useLocale('zh_CN');
    expect(companionRefusal(stale, 'run')).toBe('本地助手不再接受这个令牌（例如它的数据目录被重置了）：请重新配对');
    expect(companionRefusal(twice, 'decide')).toBe('这个批准已不在等待：它已被决定过，或已过期；这次什么也没有决定');
    expect(companionRefusal(ended, 'stop-program')).toBe('这个程序已经结束了');
    // an Undo of a file changed since is said whole in the person's language, naming the file
    expect(companionRefusal(undo, 'undo')).toBe(`没有撤销：${path.join(root, 'a.txt')} 在这次改动之后又被改过，撤销会把那些改动丢掉。请先撤销后来的改动，或手动恢复这个文件`);
    // put back as the change left it, the Undo goes through; a second Undo of it is said so too
    writeFileSync(path.join(root, 'a.txt'), 'one\n');
    await client.undo(entry!.id);
    const again = await client.undo(entry!.id).catch((e: unknown) => e);
    expect(again).toMatchObject({ code: 'CONFLICT' });
    expect(companionRefusal(again, 'undo')).toBe('没有撤销：这次改动已经撤销过了');
    expect(companionRefusal(other, 'get-run')).toBe('本地助手拒绝了这个请求（NOT_FOUND）：no run "r-gone"');
    useLocale('en');
    expect(companionRefusal(twice, 'decide')).toBe('This approval is no longer waiting: it was decided already, or it expired; nothing was decided now');
    expect(companionRefusal(undo, 'undo')).toBe(`Not undone: ${path.join(root, 'a.txt')} was changed after this change, and undoing it would throw that away. Undo the later change first, or put the file back by hand`);
    expect(companionRefusal(again, 'undo')).toBe('Not undone: this change was undone already');
    // a refusal the extension has no words of its own for keeps the companion's
    const gone = await client.undo('j-gone').catch((e: unknown) => e);
    expect(companionRefusal(gone, 'undo')).toBe(`Not undone: ${(gone as Error).message}`);
    expect(companionRefusal(ended, 'stop-program')).toBe('This program has already ended');
    expect(companionRefusal(stale, 'run')).toBe('the companion no longer takes this token (its data directory was reset, for one): pair again');
  });
});

describe("the toolbar badge's count of approvals waiting", () => {
  it('an approval made while a count reads the list is counted: the count runs once more after that read', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'chatbridge-badge-count-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const root = path.join(dir, 'root');
    mkdirSync(root);
    const companion = await startCompanionProcess({ root, home: path.join(dir, 'home') });
    cleanups.push(() => companion.stop());
    const base = `http://127.0.0.1:${companion.port}`;
    const client = createCompanionClient({ baseUrl: async () => base, token: async () => companion.token });
    const badge = createBadge({ setBadgeText: () => undefined, setBadgeBackgroundColor: () => undefined, setTitle: () => undefined });
    badge.setConnection('connected');
    // the first read's answer is held once the companion gave it, as an answer still on its way is
    let listRead!: () => void;
    const read = new Promise<void>((resolve) => (listRead = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    const count = countApprovalsInto(
      badge,
      async () => {
        const list = await client.approvals();
        reads += 1;
        if (reads === 1) {
          listRead();
          await held;
        }
        return list;
      },
      () => undefined,
    );

    const first = count();
    await read;
    // writes under the default policy ask: three cards made after the list was read, each counted as its event comes
    const asked: Array<Promise<void>> = [];
    for (const name of ['a.txt', 'b.txt', 'c.txt']) {
      const pending = await client.run({ ...runRequest('fs.write', { path: path.join(root, name), content: 'x\n', mode: 'overwrite' }), kind: 'mcp-request', waitMs: 0 });
      expect(pending.status, pending.resultText).toBe('pending');
      asked.push(count());
    }
    release();
    await Promise.all([first, ...asked]);
    expect(badge.current()).toMatchObject({ state: 'approvals', text: '3' });
  }, 20_000);
});

describe('companion socket', () => {
  async function wsServer(onConnection: (socket: NodeWebSocket, firstMessage: unknown) => void): Promise<{ base: string; wss: WebSocketServer }> {
    const server = createServer();
    const wss = new WebSocketServer({ server, path: '/ws' });
    wss.on('connection', (socket) => {
      socket.once('message', (data) => onConnection(socket, JSON.parse(String(data))));
    });
    cleanups.push(() => new Promise<void>((resolve) => wss.close(() => resolve())));
    const base = await listen(server);
    return { base, wss };
  }

  /** Timers run 1000× faster so heartbeats and backoff show up in milliseconds. */
  const fast = {
    setTimer: (fn: () => void, ms: number) => setTimeout(fn, Math.max(1, ms / 1000)),
    clearTimer: (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>),
  };

  it('authenticates with the first message, forwards events, answers heartbeats, and reconnects after a drop', async () => {
    const auths: unknown[] = [];
    const pings: unknown[] = [];
    const { base, wss } = await wsServer((socket, first) => {
      auths.push(first);
      socket.send(JSON.stringify({ type: 'auth-ok', version: '0.1.0' }));
      socket.on('message', (data) => pings.push(JSON.parse(String(data))));
      socket.send(JSON.stringify({ type: 'run', run: { runId: 'r1', status: 'done', resultText: 'ok', auditId: 'a' } }));
      socket.send(JSON.stringify({ type: 'nonsense', anything: 1 }));
    });
    const states: ConnectionState[] = [];
    const events: WsEvent[] = [];
    const socket = new CompanionSocket({
      baseUrl: async () => base,
      token: async () => 'secret-token',
      onEvent: (e) => events.push(e),
      onState: (s) => states.push(s),
      WebSocket: NodeWebSocket as unknown as typeof WebSocket,
      ...fast,
    });
    cleanups.push(() => socket.stop());
    await socket.start();
    await until(() => events.length === 1 && states.includes('connected'));
    expect(auths).toEqual([{ type: 'auth', token: 'secret-token' }]);
    expect(events[0]).toMatchObject({ type: 'run', run: { runId: 'r1' } });
    await until(() => pings.some((p) => (p as { type: string }).type === 'ping'));
    expect(HEARTBEAT_MS).toBe(20_000);

    for (const client of wss.clients) client.terminate();
    // the server has the second auth before the socket has its answer
    await until(() => auths.length === 2 && states.at(-1) === 'connected');
    expect(states).toContain('disconnected');
  });

  it('opens one socket when starts overlap (a page, the popup and the worker asking at once), so each event comes once', async () => {
    const auths: unknown[] = [];
    const { base } = await wsServer((socket, first) => {
      auths.push(first);
      socket.send(JSON.stringify({ type: 'auth-ok', version: '0.1.0' }));
      socket.send(JSON.stringify({ type: 'run', run: { runId: 'r1', status: 'done', resultText: 'ok', auditId: 'a' } }));
    });
    let token = 'old-token';
    const events: WsEvent[] = [];
    const socket = new CompanionSocket({
      baseUrl: async () => base,
      token: async () => token,
      onEvent: (e) => events.push(e),
      onState: () => undefined,
      WebSocket: NodeWebSocket as unknown as typeof WebSocket,
      ...fast,
    });
    cleanups.push(() => socket.stop());
    await Promise.all([socket.start(), socket.start(), socket.start()]);
    await until(() => events.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(auths).toEqual([{ type: 'auth', token: 'old-token' }]);
    expect(events).toHaveLength(1);

    // the token changes while a start is still reading the old one: only the new token's socket is opened
    socket.stop();
    const starting = socket.start();
    token = 'new-token';
    await Promise.all([starting, socket.restart()]);
    await until(() => events.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(auths.slice(1)).toEqual([{ type: 'auth', token: 'new-token' }]);
    expect(events).toHaveLength(2);
  });

  it('stops retrying and says "unpaired" when the companion refuses the token, why in the person\'s language', async () => {
    useLocale('zh_CN');
    let attempts = 0;
    const { base } = await wsServer((socket) => {
      attempts++;
      socket.close(4401, 'unauthorized');
    });
    const states: ConnectionState[] = [];
    const details: Array<string | undefined> = [];
    const socket = new CompanionSocket({
      baseUrl: async () => base,
      token: async () => 'wrong',
      onEvent: () => undefined,
      onState: (s, detail) => {
        states.push(s);
        details.push(detail);
      },
      WebSocket: NodeWebSocket as unknown as typeof WebSocket,
      ...fast,
    });
    cleanups.push(() => socket.stop());
    await socket.start();
    await until(() => states.includes('unpaired'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(attempts).toBe(1);
    expect(details.at(-1)).toBe('本地助手不再接受这个令牌（例如它的数据目录被重置了）：请重新配对');
  });

  it("says why it is not connected in the person's language, the close code only as a detail", async () => {
    // the tooltip and the in-page badge's tip said 'closed (1006)', in English on a Chinese browser
    useLocale('zh_CN');
    const watch = async (base: string): Promise<string> => {
      const details: Array<string | undefined> = [];
      const socket = new CompanionSocket({
        baseUrl: async () => base,
        token: async () => 'token',
        onEvent: () => undefined,
        onState: (state, detail) => details.push(state === 'disconnected' ? detail : undefined),
        WebSocket: NodeWebSocket as unknown as typeof WebSocket,
        ...fast,
      });
      cleanups.push(() => socket.stop());
      await socket.start();
      await until(() => details.some((detail) => detail !== undefined));
      socket.stop();
      return details.find((detail) => detail !== undefined)!;
    };
    // nothing listens at the companion's address: the companion is not running
    const gone = createServer();
    const nobody = await listen(gone);
    await new Promise((resolve) => gone.close(resolve));
    const unreachable = await watch(nobody);
    expect(unreachable).toBe('无法连接到本地助手：它没有运行、已经停止，或这台电脑上有程序拦截了它的地址。（详细信息：WebSocket 1006）');
    expect(connectionTip('disconnected', unreachable)).toBe(`${t('conn.disconnectedTip')}${unreachable}`);
    // the companion going away closes the socket itself
    const { base } = await wsServer((socket) => socket.close(1001, ''));
    expect(await watch(base)).toBe('本地助手关闭了连接：它被停止或重启了。（详细信息：WebSocket 1001）');
    // no frame for too long: the socket closes itself
    expect(closedDetail(4000, 'heartbeat lost')).toBe('本地助手不再响应（电脑休眠过，或本地助手卡住了）：如果一直这样，请重启它。（详细信息：WebSocket 4000, heartbeat lost）');
    useLocale('en');
    expect(closedDetail(1006, '')).toBe('It could not be reached: it is not running, it stopped, or something on this computer blocks its address. (details: WebSocket 1006)');
    expect(closedDetail(1011, 'boom')).toBe('The companion closed the connection. (details: WebSocket 1011, boom)');
  });

  it('does not connect at all without a token', async () => {
    const states: ConnectionState[] = [];
    const socket = new CompanionSocket({
      baseUrl: async () => 'http://127.0.0.1:9',
      token: async () => '',
      onEvent: () => undefined,
      onState: (s) => states.push(s),
      WebSocket: NodeWebSocket as unknown as typeof WebSocket,
    });
    await socket.start();
    expect(states).toEqual(['unpaired']);
  });
});

describe('unpairing', { timeout: 30_000 }, () => {
  it('Forget token revokes the paired token on the real companion: its calls and its open socket are refused at once, and after a restart', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'chatbridge-unpair-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const root = path.join(dir, 'root');
    const home = path.join(dir, 'home');
    mkdirSync(root);
    let companion = await startCompanionProcess({ root, home });
    cleanups.push(() => companion.stop());
    const base = () => `http://127.0.0.1:${companion.port}`;
    const given = createCompanionClient({ baseUrl: async () => base(), token: async () => companion.token });
    const codeAnswer = await fetch(`${base()}/v1/pair/code`, { method: 'POST', headers: { authorization: `Bearer ${companion.token}` } });
    const { code } = (await codeAnswer.json()) as { code: string };
    const token = await createCompanionClient({ baseUrl: async () => base(), token: async () => '' }).pair(code);
    const paired = createCompanionClient({ baseUrl: async () => base(), token: async () => token });
    expect(await paired.approvals()).toEqual([]);
    const states: ConnectionState[] = [];
    const socket = new CompanionSocket({
      baseUrl: async () => base(),
      token: async () => token,
      onEvent: () => undefined,
      onState: (s) => states.push(s),
      WebSocket: NodeWebSocket as unknown as typeof WebSocket,
    });
    cleanups.push(() => socket.stop());
    await socket.start();
    await until(() => socket.state === 'connected');

    expect(await paired.unpair()).toEqual({ revoked: true });
    // the socket it opened is closed as unauthorized, not left hearing every run's events
    await until(() => socket.state === 'unpaired');
    await expect(paired.approvals()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    await expect(paired.run({ ...runRequest('fs.read', { path: path.join(root, 'x') }), kind: 'mcp-request' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    const again = new NodeWebSocket(`${base().replace(/^http/, 'ws')}/ws`, [`bearer.${token}`]);
    const closed = await new Promise<number>((resolve) => {
      again.on('open', () => again.send(JSON.stringify({ type: 'ping' })));
      again.on('close', (closeCode) => resolve(closeCode));
    });
    expect(closed).toBe(4401);
    // the pairing the person took back is not there after a restart either
    await companion.stop();
    companion = await startCompanionProcess({ root, home });
    await expect(paired.approvals()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await given.status()).paired).toBe(false);
    // the token the companion was started with is the person's own: not revoked, and it still works
    expect(await given.unpair()).toMatchObject({ revoked: false, note: expect.stringContaining('--token') });
    expect(await given.approvals()).toEqual([]);

    // unpairing a companion that is not running keeps the token and says why: it would still work there
    await companion.stop();
    const away = await given.unpair().catch((e: unknown) => e);
    expect(companionRefusal(away, 'unpair')).toBe(
      `The token is kept: the companion did not revoke it, so it would still work there (the companion does not answer at ${base()}: start it on this computer (npm start in the chatbridge folder)). Start the companion and forget the token again`,
    );
    useLocale('zh_CN');
    expect(companionRefusal(away, 'unpair')).toMatch(/^令牌没有忘记：本地助手没有吊销它/);
    useLocale('en');
  });
});

describe('a block posted again', { timeout: 30_000 }, () => {
  it("after the service worker stopped before the companion answered is this browser's run to deliver, and another paired browser's repost is told it is not its own", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'chatbridge-repost-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const root = path.join(dir, 'root');
    mkdirSync(root);
    writeFileSync(path.join(root, 'a.txt'), 'hello\n');
    const companion = await startCompanionProcess({ root, home: path.join(dir, 'home') });
    cleanups.push(() => companion.stop());
    const base = `http://127.0.0.1:${companion.port}`;
    const pairBrowser = async (): Promise<ReturnType<typeof createCompanionClient>> => {
      const { code } = (await (await fetch(`${base}/v1/pair/code`, { method: 'POST', headers: { authorization: `Bearer ${companion.token}` } })).json()) as { code: string };
      const token = await createCompanionClient({ baseUrl: async () => base, token: async () => '' }).pair(code);
      return createCompanionClient({ baseUrl: async () => base, token: async () => token });
    };
    const [thisBrowser, otherBrowser] = [await pairBrowser(), await pairBrowser()];
    const block = { ...runRequest('fs.read', { path: path.join(root, 'a.txt') }), kind: 'mcp-request' as const };
    // the first request reached the companion; the worker that sent it stopped before the answer, so nothing heard it
    const first = await thisBrowser.run(block);
    // the worker started again knows nothing of it: the companion's answer to the page's repost says whose run it is
    const again = new StartedRuns().answered(await thisBrowser.run(block), true);
    expect(again).toMatchObject({ runId: first.runId, status: 'done' });
    expect(again.reused).toBeUndefined();
    const theirs = new StartedRuns().answered(await otherBrowser.run(block), true);
    expect(theirs).toMatchObject({ runId: first.runId, reused: true, startedByYou: false });
  });
});

describe('program output for runtime feedback', () => {
  it('hands out only what is new, drops repeats, trims overlaps and marks gaps', () => {
    const buffer = new ProgramOutputBuffer();
    buffer.add({ programId: 'p', name: 'build', stream: 'stdout', chunk: 'abc', offset: 0 });
    buffer.add({ programId: 'p', name: 'build', stream: 'stdout', chunk: 'abc', offset: 0 });
    expect(buffer.take('p')).toEqual({ name: 'build', stdout: 'abc', stderr: '' });
    expect(buffer.take('p')).toEqual({ name: 'build', stdout: '', stderr: '' });
    buffer.add({ programId: 'p', name: 'build', stream: 'stdout', chunk: 'cdé', offset: 2 });
    buffer.add({ programId: 'p', name: 'build', stream: 'stderr', chunk: 'late', offset: 10 });
    expect(buffer.take('p')).toEqual({ name: 'build', stdout: 'dé', stderr: '\n[… 10 bytes of output not received …]\nlate' });
    expect(buffer.take('unknown')).toBeNull();
  });

  it('a flood of output between two feedbacks is cut to its start and its newest end, saying how much was left out', () => {
    const buffer = new ProgramOutputBuffer();
    const lines = Array.from({ length: 50_000 }, (_, i) => `log line ${i}\n`);
    let offset = 0;
    for (const line of lines) {
      buffer.add({ programId: 'p', name: 'serve', stream: 'stdout', chunk: line, offset });
      offset += line.length;
    }
    const { stdout } = buffer.take('p')!;
    // typed into the chat box as one message: a few thousand characters, not the 700 kB the program printed
    expect(stdout.length).toBeLessThan(10_000);
    expect(stdout.startsWith('log line 0\n')).toBe(true);
    expect(stdout.endsWith('log line 49999\n')).toBe(true);
    expect(stdout).toMatch(/\[… \d+ characters of output left out …\]/);
    // the next feedback starts afresh
    buffer.add({ programId: 'p', name: 'serve', stream: 'stdout', chunk: 'next\n', offset });
    expect(buffer.take('p')!.stdout).toBe('next\n');
  });
});

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
