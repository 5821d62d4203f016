import { existsSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolHandlers } from '../../../companion/runs/tool-call';
import { toolHandlers } from '../../../companion/tools';
import { context, listen, makeWorld, mcpCall, removeWorld, TEST_PORT, type World } from './harness';

const PROTECTED: Array<[string, string]> = [
  ['POST', '/v1/run'],
  ['GET', '/v1/runs/run-x'],
  ['GET', '/v1/approvals'],
  ['POST', '/v1/approvals/confirm-x'],
  ['GET', '/v1/journal'],
  ['POST', '/v1/journal/j-x/undo'],
  ['GET', '/v1/audit'],
  ['GET', '/v1/tools'],
  ['GET', '/v1/programs'],
  ['POST', '/v1/programs/p-x/stop'],
  ['POST', '/v1/pair/code'],
  ['POST', '/v1/unpair'],
  ['POST', '/mcp'],
];

let world: World;
beforeAll(() => {
  world = makeWorld({ maxBodyBytes: 4096 });
});
afterAll(async () => {
  await world.close();
  removeWorld(world);
});

describe('token guard', () => {
  it.each(PROTECTED)('missing token: %s %s → 401', async (method, path) => {
    const res = await world.request(path, { method, token: null, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  });

  it.each(PROTECTED)('wrong token: %s %s → 401', async (method, path) => {
    const res = await world.request(path, { method, token: world.token + 'x', ...(method === 'POST' ? { body: '{}' } : {}) });
    expect(res.status).toBe(401);
  });

  it('a malformed Authorization header is refused', async () => {
    for (const header of [world.token, `Basic ${world.token}`, `Bearer`, `Bearer ${world.token} extra`]) {
      const res = await world.request('/v1/tools', { headers: { authorization: header }, token: null });
      expect(res.status).toBe(401);
    }
  });

  it('the right token passes', async () => {
    const res = await world.request('/v1/tools');
    expect(res.status).toBe(200);
  });

  it('status needs no token and tells only name, version and paired', async () => {
    const res = await world.request('/v1/status', { token: null });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['name', 'paired', 'version']);
    expect(body).toMatchObject({ name: 'chatbridge', paired: true });
  });
});

describe('origin guard', () => {
  it.each([['https://evil.example'], ['http://localhost:3000'], ['null'], ['file://'], ['chrome-extension://']])(
    'web Origin %s is refused with 403 and no CORS headers, even with a valid token',
    async (origin) => {
      for (const path of ['/v1/status', '/v1/tools']) {
        const res = await world.request(path, { headers: { origin } });
        expect(res.status).toBe(403);
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
      }
    },
  );

  it('web Origin preflight gets 403 and no CORS headers', async () => {
    const res = await world.request('/v1/run', { method: 'OPTIONS', token: null, headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('web Origin cannot pair either (a page guessing the code)', async () => {
    const { code } = world.companion.pairing.newCode();
    const res = await world.request('/v1/pair', { method: 'POST', token: null, headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    // the refused request never reached the code: it still works for the person
    expect((await world.post('/v1/pair', { code }, null)).status).toBe(200);
  });

  it.each([['chrome-extension://abcdefghijklmnopabcdefghijklmnop'], ['moz-extension://0e5c8e7a-1111-4c4c-9d9d-123456789abc']])(
    'extension Origin %s gets CORS and preflights',
    async (origin) => {
      const preflight = await world.request('/v1/run', { method: 'OPTIONS', token: null, headers: { origin, 'access-control-request-method': 'POST' } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
      const res = await world.request('/v1/tools', { headers: { origin } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    },
  );
});

describe('host guard (DNS rebinding)', () => {
  it.each([[`evil.example:${TEST_PORT}`], [`127.0.0.1:${TEST_PORT + 1}`], ['127.0.0.1'], [`localhost.evil.example:${TEST_PORT}`], [`127.0.0.2:${TEST_PORT}`]])(
    'rebinding Host %s → 403',
    async (host) => {
      const res = await world.request('/v1/status', { headers: { host } });
      expect(res.status).toBe(403);
    },
  );

  it.each([[`127.0.0.1:${TEST_PORT}`], [`localhost:${TEST_PORT}`], [`[::1]:${TEST_PORT}`], [`LOCALHOST:${TEST_PORT}`]])('Host %s is accepted', async (host) => {
    const res = await world.request('/v1/status', { headers: { host } });
    expect(res.status).toBe(200);
  });
});

describe('body limit', () => {
  it('body too large → 413 LIMIT_EXCEEDED before anything runs', async () => {
    const res = await world.post('/v1/run', { kind: 'mcp-request', text: 'x'.repeat(10_000), context: { site: 's', conversationId: 'c' } });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('LIMIT_EXCEEDED');
  });

  it('a route without a token takes no more body than a pairing code needs: the rest, read and parsed, cost the companion its thread for nothing', async () => {
    // any program may call /v1/pair; with the others' cap (11 MiB by default) each call had 11 MiB of JSON read and
    // parsed before the code was looked at. Whitespace is JSON, so without the cap this call pairs.
    const { code } = world.companion.pairing.newCode();
    const padded = await world.request('/v1/pair', { method: 'POST', token: null, headers: { 'content-type': 'application/json' }, body: `{"code": "${code}"${' '.repeat(2000)}}` });
    expect(padded.status).toBe(413);
    expect(((await padded.json()) as { error: { code: string; message: string } }).error).toEqual({ code: 'LIMIT_EXCEEDED', message: 'request body is larger than 1024 bytes' });
    // its code is not spent, and a request with the token still takes the whole cap
    expect((await world.post('/v1/pair', { code }, null)).status).toBe(200);
    const run = await world.post('/v1/runs/stop', { kind: 'mcp-request', text: 'x'.repeat(2000), context: { site: 'chatgpt', url: 'https://chatgpt.com/c/1', conversationId: '1', messageKey: 'm' } });
    expect(run.status).toBe(404);
  });
});

describe('pairing over HTTP', () => {
  it('pairing brute force: 5 wrong codes void the code; the right one fails afterwards', async () => {
    const { code } = world.companion.pairing.newCode();
    const wrong = code === 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA';
    for (let i = 0; i < 5; i++) {
      const res = await world.post('/v1/pair', { code: wrong }, null);
      expect(res.status).toBe(403);
    }
    const late = await world.post('/v1/pair', { code }, null);
    expect(late.status).toBe(403);
    expect(((await late.json()) as { error: { message: string } }).error.message).toContain('no pairing code');
  });

  it('the right code gives a token that works, once', async () => {
    const { code } = world.companion.pairing.newCode();
    const res = await world.post('/v1/pair', { code }, null);
    expect(res.status).toBe(200);
    const { token } = (await res.json()) as { token: string };
    expect((await world.request('/v1/tools', { token })).status).toBe(200);
    expect((await world.post('/v1/pair', { code }, null)).status).toBe(403);
  });

  it('a paired token asks for no pairing code: a copy of it would pair a token of its own, which outlives the unpair', async () => {
    const { code } = world.companion.pairing.newCode();
    const { token } = (await (await world.post('/v1/pair', { code }, null)).json()) as { token: string };
    const asked = await world.post('/v1/pair/code', {}, token);
    let minted: string | undefined;
    if (asked.status === 200) {
      // what a copy of the extension's token could do before the person forgets it
      const { code: second } = (await asked.json()) as { code: string };
      minted = ((await (await world.post('/v1/pair', { code: second }, null)).json()) as { token: string }).token;
    }
    expect(((await (await world.post('/v1/unpair', {}, token)).json()) as { revoked: boolean }).revoked).toBe(true);
    if (minted !== undefined) expect((await world.request('/v1/tools', { token: minted })).status).toBe(401);
    expect(asked.status).toBe(403);
    expect(((await asked.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/^a pairing code is given only for the token the companion was started with .*chatbridge pair/),
    });
  });

  it('a new code can be asked for with a token (chatbridge pair)', async () => {
    // chatbridge pair asks with the CLI token, which the companion is given at start
    const given = 'cli-token-given-at-start-0123456789';
    world.companion.tokens.addEphemeral(given);
    const res = await world.post('/v1/pair/code', {}, given);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { code: string }).code).toMatch(/^[A-Z2-9]{8}$/);
  });
});

// attack: a request let in with a token waits (a run for the person's approval, an /mcp call for its program) and the
// token is revoked meanwhile — the extension unpaired, or the person revoked a token that leaked: the answer that
// comes after is not given to it.
describe('a token revoked while its request waits', () => {
  let real: World;
  beforeAll(() => {
    real = makeWorld({ tools: toolHandlers as ToolHandlers });
    writeFileSync(join(real.root, 'notes.txt'), 'private notes\n');
  });
  afterAll(async () => {
    await real.close();
    removeWorld(real);
  });
  const pairToken = async () => {
    const { code } = real.companion.pairing.newCode();
    return ((await (await real.post('/v1/pair', { code }, null)).json()) as { token: string }).token;
  };
  const pendingCard = async () => {
    await expect.poll(() => real.companion.approvals.pending().length).toBe(1);
    return real.companion.approvals.pending()[0]!;
  };

  it('POST /v1/run waiting for approval is answered 401 once its token is unpaired, not with the result approved after', async () => {
    const token = await pairToken();
    const block = mcpCall('r1', 'shell.exec', { command: 'cat notes.txt', cwd: real.root });
    const waiting = real.post('/v1/run', { kind: 'mcp-request', text: block, context: context('conv-revoke', 'm1'), waitMs: 10_000 }, token);
    const card = await pendingCard();
    expect(await (await real.post('/v1/unpair', {}, token)).json()).toEqual({ revoked: true });
    real.companion.approvals.decide(card.id, 'approve', card.argsHash);
    const answer = await waiting;
    expect(answer.status).toBe(401);
    const body = await answer.text();
    expect(body).not.toContain('private notes');
    expect(JSON.parse(body)).toEqual({
      error: { code: 'UNAUTHORIZED', message: 'the bearer token was revoked (unpaired) while this request waited; its answer is not given to it' },
    });
  });

  it('an /mcp call answered with progress is stopped by the unpair: its card withdrawn, nothing written', async () => {
    const token = await pairToken();
    const path = join(real.root, 'after-unpair.txt');
    const call = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'fs.write', arguments: { path, mode: 'overwrite', content: 'x' }, _meta: { progressToken: 'p' } } };
    const response = await real.request('/mcp', {
      method: 'POST',
      token,
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify(call),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const card = await pendingCard();
    await real.post('/v1/unpair', {}, token);
    const stream = await response.text();
    expect(stream).toContain('the token the MCP client called with was revoked (unpaired) before the answer');
    expect(real.companion.approvals.get(card.id)?.state).not.toBe('pending');
    expect(() => real.companion.approvals.decide(card.id, 'approve', card.argsHash)).toThrow();
    expect(existsSync(path)).toBe(false);
  });
});

describe('bad requests never 500', () => {
  it('non-JSON body → 400 INVALID_INPUT', async () => {
    const res = await world.request('/v1/run', { method: 'POST', body: 'not json', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
  });
  it('unknown kind → 400 naming the field', async () => {
    const res = await world.post('/v1/run', { kind: 'bash', text: 'ls', context: { site: 's', conversationId: 'c' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('kind');
  });
  it('unknown route → 404 JSON', async () => {
    const res = await world.request('/v1/nope');
    expect(res.status).toBe(404);
  });
  it('bad limit → 400', async () => {
    expect((await world.request('/v1/audit?limit=abc')).status).toBe(400);
  });
});

describe('guards over a real socket', () => {
  it('rebinding Host and web Origin are refused; the real Host passes', async () => {
    const served = await listen(world);
    try {
      const send = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port: served.port, path: '/v1/status', headers }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await send({ host: `evil.example:${served.port}` })).toBe(403);
      expect(await send({ host: `127.0.0.1:${served.port + 1}` })).toBe(403);
      expect(await send({ host: `127.0.0.1:${served.port}`, origin: 'https://evil.example' })).toBe(403);
      expect(await send({ host: `127.0.0.1:${served.port}` })).toBe(200);
      const res = await fetch(`http://127.0.0.1:${served.port}/v1/tools`);
      expect(res.status).toBe(401);
      // body too large, sent chunked (no Content-Length to trust)
      const big = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1024)));
          controller.close();
        },
      });
      const tooLarge = await fetch(`http://127.0.0.1:${served.port}/v1/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${world.token}`, 'content-type': 'application/json' },
        body: big,
        duplex: 'half',
      } as RequestInit);
      expect(tooLarge.status).toBe(413);
    } finally {
      await served.close();
      world.port.value = TEST_PORT;
    }
  });
});
