import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, makeWorkspace, mcpRequestBlock, parseMcpResponse, serversReady, startCompanionProcess, waitUntil, type CompanionProcess, type Workspace } from '../load/live-companion';
import { fixture } from './world';

/*
 * A server over HTTP — a service on the internet, not a program of the person's — that answers a call with a message
 * that never ends: an event stream whose first `data:` line goes on for as long as it is read, or a JSON body that
 * does. The stdio transport bounds one message (32 MiB); over HTTP the SDK read it whole, and the real companion grew
 * by ~125 MB a second until the call's timeout (a minute by default). Now the message is cut at the same bound: the
 * call is LIMIT_EXCEEDED at once, the connection is reset and the server is used again.
 */
let ws: Workspace;
let companion: CompanionProcess;
const servers: ChildProcess[] = [];

async function startEndless(mode: 'sse' | 'json'): Promise<number> {
  const child = spawn(process.execPath, [fixture('endless-http.mjs')], { env: { ...process.env, ENDLESS_MODE: mode }, stdio: ['ignore', 'pipe', 'ignore'] });
  servers.push(child);
  let output = '';
  child.stdout?.on('data', (d) => (output += String(d)));
  await waitUntil(`the ${mode} server listens`, () => /listening on port \d+/.test(output));
  return Number(/listening on port (\d+)/.exec(output)?.[1]);
}

function rssMiB(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) / 1024;
}

beforeAll(async () => {
  const [ssePort, jsonPort] = await Promise.all([startEndless('sse'), startEndless('json')]);
  ws = makeWorkspace('cb-mcp-http-overflow-');
  companion = await startCompanionProcess({
    root: ws.root,
    home: ws.home,
    config: {
      mcpServers: {
        stream: { url: `http://127.0.0.1:${ssePort}/mcp`, policy: { default: 'auto' } },
        body: { url: `http://127.0.0.1:${jsonPort}/mcp`, policy: { default: 'auto' } },
      },
    },
  });
}, 60_000);

afterAll(async () => {
  await companion?.kill();
  for (const child of servers) child.kill('SIGKILL');
  if (ws) rmSync(ws.base, { recursive: true, force: true });
});

async function post(name: string, key: string): Promise<{ status: string; resultText: string }> {
  const response = await fetch(`http://127.0.0.1:${companion.port}/v1/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${companion.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'mcp-request', text: mcpRequestBlock(key, name, {}), context: context('c1', key), waitMs: 30_000 }),
  });
  return (await response.json()) as { status: string; resultText: string };
}

describe.runIf(process.platform === 'linux')('a server over HTTP whose answer never ends', { timeout: 60_000 }, () => {
  it.each([
    ['stream', 'an event stream'],
    ['body', 'a JSON body'],
  ])('%s (%s): LIMIT_EXCEEDED within seconds, memory bounded; the server is used again', async (server) => {
    await serversReady(companion, [server], 20_000);
    const started = Date.now();
    let peak = rssMiB(companion.pid);
    let over = false;
    const watch = setInterval(() => {
      peak = Math.max(peak, rssMiB(companion.pid));
      // the hole: the companion reads on until the call's timeout; stop before it takes the machine with it
      if (peak > 700 && !over) {
        over = true;
        void companion.kill();
      }
    }, 50);
    let run: { status: string; resultText: string } | undefined;
    try {
      run = await post(`${server}.endless`, `${server}-1`);
    } catch {
      // the companion was stopped by the watch above
    } finally {
      clearInterval(watch);
    }
    expect(over, `the companion grew to ${Math.round(peak)} MiB reading one answer`).toBe(false);
    expect(peak).toBeLessThan(400);
    expect(Date.now() - started).toBeLessThan(15_000);
    const error = parseMcpResponse(run!.resultText).error;
    expect(error?.data?.code).toBe('LIMIT_EXCEEDED');
    await serversReady(companion, [server], 20_000);
    const ok = await post(`${server}.ok`, `${server}-2`);
    expect(parseMcpResponse(ok.resultText).result?.content[0]?.text).toBe('small');
  });
});
