import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WS_CLOSE, wsServerMessageSchema, type WsServerMessage } from '../../../shared/api';
import { context, listen, makeWorld, mcpCall, removeWorld, type World } from './harness';
import { join } from 'node:path';

let world: World;
let served: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  world = makeWorld();
  served = await listen(world);
});
afterAll(async () => {
  await served.close();
  await world.close();
  removeWorld(world);
});

function open(options: { protocols?: string[]; headers?: Record<string, string>; autoPong?: boolean } = {}): WebSocket {
  return new WebSocket(`ws://127.0.0.1:${served.port}/ws`, options.protocols ?? [], { headers: options.headers ?? {}, autoPong: options.autoPong ?? true });
}

function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

/** Collects every message; `next(predicate)` resolves with the first matching one (already received or later). */
function inbox(ws: WebSocket) {
  const messages: WsServerMessage[] = [];
  const waiters: Array<{ match: (m: WsServerMessage) => boolean; resolve: (m: WsServerMessage) => void }> = [];
  ws.on('message', (data) => {
    const message = wsServerMessageSchema.parse(JSON.parse(String(data)));
    messages.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.match(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  return {
    messages,
    next(match: (m: WsServerMessage) => boolean): Promise<WsServerMessage> {
      const found = messages.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

describe('/ws authentication', () => {
  it('ws without token: closed after the auth timeout with a reason', async () => {
    const ws = open();
    const box = inbox(ws);
    const { code, reason } = await closed(ws);
    expect(code).toBe(WS_CLOSE.authTimeout);
    expect(reason).toContain('auth');
    expect(box.messages).toEqual([]);
  });

  it('ws with wrong token: closed as unauthorized, no events', async () => {
    const ws = open();
    const box = inbox(ws);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'auth', token: world.token + 'x' })));
    const { code, reason } = await closed(ws);
    expect(code).toBe(WS_CLOSE.unauthorized);
    expect(reason).toBe('invalid token');
    expect(box.messages).toEqual([]);
  });

  it('ws whose first message is not auth is closed', async () => {
    const ws = open();
    ws.on('open', () => ws.send(JSON.stringify({ type: 'ping' })));
    expect((await closed(ws)).code).toBe(WS_CLOSE.unauthorized);
  });

  it('ws with a wrong bearer subprotocol is not authenticated', async () => {
    const ws = open({ protocols: [`bearer.${world.token}x`] });
    expect((await closed(ws)).code).toBe(WS_CLOSE.authTimeout);
  });

  it('ws from a web Origin is refused at the handshake', async () => {
    const ws = open({ headers: { origin: 'https://evil.example' } });
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => undefined);
    });
    expect(status).toBe(403);
  });

  it('ws with a rebinding Host is refused at the handshake', async () => {
    const ws = open({ headers: { host: `evil.example:${served.port}` } });
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => undefined);
    });
    expect(status).toBe(403);
  });

  it('auth message: auth-ok, ping → pong', async () => {
    const ws = open({ headers: { origin: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop' } });
    const box = inbox(ws);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'auth', token: world.token })));
    expect(await box.next((m) => m.type === 'auth-ok')).toMatchObject({ type: 'auth-ok' });
    ws.send(JSON.stringify({ type: 'ping', t: 42 }));
    expect(await box.next((m) => m.type === 'pong')).toEqual({ type: 'pong', t: 42 });
    ws.close();
  });

  it('bearer subprotocol authenticates at once', async () => {
    const ws = open({ protocols: [`bearer.${world.token}`] });
    const box = inbox(ws);
    expect(await box.next((m) => m.type === 'auth-ok')).toMatchObject({ type: 'auth-ok' });
    ws.close();
  });

  it('a socket whose token is unpaired is closed as unauthorized; one opened with another token stays', async () => {
    const { code } = world.companion.pairing.newCode();
    const { token } = (await (await world.post('/v1/pair', { code }, null)).json()) as { token: string };
    const paired = open({ protocols: [`bearer.${token}`] });
    const other = open({ protocols: [`bearer.${world.token}`] });
    await Promise.all([inbox(paired).next((m) => m.type === 'auth-ok'), inbox(other).next((m) => m.type === 'auth-ok')]);
    const ended = closed(paired);
    expect(await (await world.post('/v1/unpair', {}, token)).json()).toEqual({ revoked: true });
    expect(await ended).toEqual({ code: WS_CLOSE.unauthorized, reason: 'token revoked' });
    expect(other.readyState).toBe(WebSocket.OPEN);
    other.close();
  });
});

describe('/ws events', () => {
  it('pushes the approval when created and decided, and the run when final', async () => {
    const ws = open();
    const box = inbox(ws);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'auth', token: world.token })));
    await box.next((m) => m.type === 'auth-ok');
    const path = join(world.root, 'ws.txt');
    const res = await fetch(`http://127.0.0.1:${served.port}/v1/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'mcp-request', text: mcpCall('w1', 'fs.write', { path, mode: 'overwrite', content: 'x' }), context: context('ws-conv'), waitMs: 20 }),
    });
    const run = (await res.json()) as { runId: string; pendingConfirmationId: string };
    const created = await box.next((m) => m.type === 'approval' && m.change === 'created');
    if (created.type !== 'approval') throw new Error('unreachable');
    expect(created.approval.id).toBe(run.pendingConfirmationId);
    world.companion.approvals.decide(created.approval.id, 'approve', created.approval.argsHash);
    expect(await box.next((m) => m.type === 'approval' && m.change === 'decided')).toMatchObject({ approval: { state: 'approved' } });
    const final = await box.next((m) => m.type === 'run' && m.run.runId === run.runId && m.run.status === 'done');
    expect(final).toMatchObject({ run: { runId: run.runId, status: 'done' } });
    ws.close();
  });

  it('program output arrives with offsets that leave no gaps, then program-exit', async () => {
    const ws = open({ protocols: [`bearer.${world.token}`] });
    const box = inbox(ws);
    await box.next((m) => m.type === 'auth-ok');
    const handle = world.processes.start({
      name: 'counter',
      shell: 'for i in $(seq 1 200); do echo line-$i; done',
      cwd: world.root,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      timeoutMs: 10_000,
      maxOutputBytes: 1024 * 1024,
      origin: { runId: 'r', site: 'test', conversationId: 'c' },
    });
    await handle.done;
    const exit = await box.next((m) => m.type === 'program-exit' && m.program.id === handle.info.id);
    expect(exit).toMatchObject({ result: { status: 'completed', returncode: 0 } });
    const chunks = box.messages.filter((m) => m.type === 'program-output' && m.programId === handle.info.id && m.stream === 'stdout');
    let offset = 0;
    let text = '';
    for (const chunk of chunks) {
      if (chunk.type !== 'program-output') continue;
      expect(chunk.offset).toBe(offset);
      offset += Buffer.byteLength(chunk.chunk);
      text += chunk.chunk;
    }
    expect(text).toBe(Array.from({ length: 200 }, (_, i) => `line-${i + 1}\n`).join(''));
    ws.close();
  });
});

describe('attack: a secret in live program output reaches the chat through runtime feedback', () => {
  it('program-output events carry it redacted, even when the program writes it in two pieces', async () => {
    const token = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
    const ws = open({ protocols: [`bearer.${world.token}`] });
    const box = inbox(ws);
    await box.next((m) => m.type === 'auth-ok');
    const handle = world.processes.start({
      name: 'leaky',
      shell: `printf 'export GITHUB_TOKEN=${token.slice(0, 12)}'; sleep 0.05; printf '${token.slice(12)}\\n'; echo ok`,
      cwd: world.root,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      timeoutMs: 10_000,
      maxOutputBytes: 1024 * 1024,
      origin: { runId: 'r', site: 'test', conversationId: 'c' },
    });
    await handle.done;
    await box.next((m) => m.type === 'program-exit' && m.program.id === handle.info.id);
    const text = box.messages
      .flatMap((m) => (m.type === 'program-output' && m.programId === handle.info.id ? [m.chunk] : []))
      .join('');
    expect(text).toContain('[REDACTED]');
    expect(text).toContain('ok\n');
    expect(text).not.toContain(token.slice(0, 12));
    expect(text).not.toContain(token.slice(12));
    ws.close();
  });
});

describe('/ws limits', () => {
  it('an unauthenticated peer sending a huge frame is cut off', async () => {
    const ws = open();
    ws.on('open', () => ws.send('x'.repeat(1024 * 1024)));
    ws.on('error', () => undefined);
    const { code } = await closed(ws);
    expect(code).toBe(1009);
  });

  it('a peer that stops answering protocol pings is dropped', async () => {
    const ws = open({ protocols: [`bearer.${world.token}`], autoPong: false });
    const { code } = await closed(ws);
    expect(code).toBe(1006);
  });

  it('a peer that answers pings stays connected', async () => {
    const ws = open({ protocols: [`bearer.${world.token}`] });
    const box = inbox(ws);
    await box.next((m) => m.type === 'auth-ok');
    await new Promise((r) => setTimeout(r, 700));
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });
});

describe('live program output in a locale whose charset is not UTF-8', () => {
  it('program-output events read GBK as GBK, a character split between two writes included', async () => {
    const ws = open({ protocols: [`bearer.${world.token}`] });
    const box = inbox(ws);
    await box.next((m) => m.type === 'auth-ok');
    // 中文目录 in GBK, its first byte written alone: the first write that is not UTF-8 comes after ASCII
    const handle = world.processes.start({
      name: 'dir',
      shell: `printf 'dir:\\n'; sleep 0.05; printf '\\326'; sleep 0.05; printf '\\320\\316\\304\\304\\277\\302\\274\\n'`,
      cwd: world.root,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'zh_CN.GBK' },
      timeoutMs: 10_000,
      maxOutputBytes: 1024 * 1024,
      origin: { runId: 'r', site: 'test', conversationId: 'c' },
    });
    await handle.done;
    await box.next((m) => m.type === 'program-exit' && m.program.id === handle.info.id);
    const text = box.messages
      .flatMap((m) => (m.type === 'program-output' && m.programId === handle.info.id ? [m.chunk] : []))
      .join('');
    expect(text).toBe('dir:\n中文目录\n');
    ws.close();
  });
});
