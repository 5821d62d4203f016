/**
 * A companion with the person's own MCP servers mounted, for the tests of companion/mcp-servers: real temp dirs,
 * the real app with the real tool handlers and plans, the real registry starting real server processes (the
 * reference servers installed as dev dependencies, or the small misbehaving ones in fixtures/), served over real
 * HTTP on 127.0.0.1. Nothing of the pipeline is replaced.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ApprovalView, RunResponse, WsEvent } from '../../../shared/api';
import { createApp, type CompanionApp } from '../../../companion/app';
import { createJournal } from '../../../companion/journal';
import { createMcpServers, type McpServers, type McpServersOptions } from '../../../companion/mcp-servers/registry';
import { runAutocoderPlan, runAxonPlan } from '../../../companion/plans';
import { parseConfig, policyFromConfig } from '../../../companion/policy/load-config';
import type { Policy } from '../../../companion/policy/schema';
import { createProcessManager } from '../../../companion/processes';
import type { ToolHandlers } from '../../../companion/runs/tool-call';
import { toolHandlers } from '../../../companion/tools';
import { createWebSocketServer } from '../../../companion/ws/ws-route';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export function fixture(name: string): string {
  return join(here, 'fixtures', name);
}

/** A fixture server as a config entry: this very node runs it. */
export function fixtureServer(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [fixture(name)], ...extra };
}

/** The installed reference servers' entry points. */
export const EVERYTHING = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
export const MEMORY = join(dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');

export interface McpWorld {
  base: string;
  root: string;
  home: string;
  policy: Policy;
  companion: CompanionApp;
  servers: McpServers;
  port: number;
  token: string;
  events: WsEvent[];
  request(path: string, init?: RequestInit): Promise<Response>;
  post(path: string, body: unknown): Promise<Response>;
  /** POST /v1/run with a block; waits at most waitMs for an approval (default 300 ms) */
  run(kind: string, text: string, options?: { conversationId?: string; messageKey?: string; waitMs?: number; site?: string }): Promise<RunResponse>;
  /** the pending approval of a run */
  approvalOf(runId: string): Promise<ApprovalView>;
  /** decides the run's approval and waits for the run's final answer */
  decide(runId: string, decision: 'approve' | 'approve-conversation' | 'deny'): Promise<RunResponse>;
  /** waits until the run is final */
  final(runId: string, timeoutMs?: number): Promise<RunResponse>;
  mcpClient(): Promise<Client>;
  close(): Promise<void>;
}

let messageSeq = 0;

export async function makeMcpWorld(config: Record<string, unknown>, options: Partial<Omit<McpServersOptions, 'policy' | 'home' | 'version'>> = {}): Promise<McpWorld> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-mcp-')));
  const root = join(base, 'root');
  const home = join(base, 'home');
  mkdirSync(root, { recursive: true });
  const policy = policyFromConfig(parseConfig(config), [{ root, base: root, key: 'test' }]);
  const journal = createJournal({ dir: join(home, 'journal'), policy });
  const processes = createProcessManager({ killGraceMs: 200 });
  const servers = createMcpServers({
    policy,
    home,
    version: 'test',
    backoffBaseMs: 100,
    backoffMaxMs: 400,
    killGraceMs: 500,
    ...options,
  });
  let port = 0;
  const companion = createApp({
    policy,
    journal,
    processes,
    home,
    tools: toolHandlers as ToolHandlers,
    plans: { runAutocoderPlan, runAxonPlan },
    getPort: () => port,
    mcpServers: servers,
  });
  const events: WsEvent[] = [];
  companion.hub.subscribe((event) => events.push(event));
  const token = companion.tokens.issue('test');
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: companion.app.fetch, port: 0, hostname: '127.0.0.1', websocket: { server: createWebSocketServer() } }, () => resolve(s));
  });
  port = (server.address() as AddressInfo).port;
  servers.start();
  await servers.settled(30_000);

  const request = (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
    return fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers });
  };
  const post = (path: string, body: unknown) => request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const world: McpWorld = {
    base,
    root,
    home,
    policy,
    companion,
    servers,
    port,
    token,
    events,
    request,
    post,
    async run(kind, text, runOptions = {}) {
      messageSeq += 1;
      const response = await post('/v1/run', {
        kind,
        text,
        waitMs: runOptions.waitMs ?? 300,
        context: {
          site: runOptions.site ?? 'chatgpt',
          url: 'https://chatgpt.com/c/x',
          conversationId: runOptions.conversationId ?? 'conv-1',
          messageKey: runOptions.messageKey ?? `msg-${messageSeq}`,
        },
      });
      if (response.status !== 200) throw new Error(`POST /v1/run answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as RunResponse;
    },
    async approvalOf(runId) {
      const { approvals } = (await (await request('/v1/approvals')).json()) as { approvals: ApprovalView[] };
      const approval = approvals.find((a) => a.runId === runId);
      if (!approval) throw new Error(`no pending approval for ${runId}: ${JSON.stringify(approvals)}`);
      return approval;
    },
    async decide(runId, decision) {
      const approval = await world.approvalOf(runId);
      const response = await post(`/v1/approvals/${approval.id}`, { decision, argsHash: approval.argsHash });
      if (response.status !== 200) throw new Error(`deciding answered ${response.status}: ${await response.text()}`);
      return world.final(runId);
    },
    async final(runId, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const run = (await (await request(`/v1/runs/${runId}`)).json()) as RunResponse;
        if (run.status === 'done' || run.status === 'error') return run;
        if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async mcpClient() {
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      return client;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await servers.close();
      await processes.stopAll();
      await companion.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
  return world;
}

/** Polls until check() is true; throws naming what it waited for. */
export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
}

export function mcpCall(id: string, name: string, args: Record<string, unknown>): string {
  return '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) + '\n```';
}

export function flycodeCall(id: string, tool: string, args: Record<string, unknown>): string {
  return '```flycode-call\n' + JSON.stringify({ id, tool, args }) + '\n```';
}

/** The JSON inside an mcp-response block. */
export function mcpJson(resultText: string): {
  id: unknown;
  result?: { content: Array<{ text: string }>; meta: Record<string, unknown> };
  error?: { code: number; message: string; data: Record<string, unknown> };
} {
  const match = /```+mcp-response\n(.*)\n```+/s.exec(resultText);
  if (!match) throw new Error(`not an mcp-response block: ${resultText}`);
  return JSON.parse(match[1] as string);
}
