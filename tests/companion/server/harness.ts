/**
 * A companion world for tests: real temp dirs, the real app, journal and process manager, and a tiny set of
 * test-only tool handlers (real contracts, trivial bodies) so the pipeline — parse, validate, decide, approve,
 * run, redact, audit, idempotency — is exercised on its own. Not a mock of anything under test.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerType } from '@hono/node-server';
import { createApp, type CompanionApp } from '../../../companion/app';
import type { ConnectionLimit } from '../../../companion/connection-limit';
import { createJournal } from '../../../companion/journal';
import { parseConfig, policyFromConfig } from '../../../companion/policy/load-config';
import type { Policy } from '../../../companion/policy/schema';
import { createProcessManager } from '../../../companion/processes';
import { serveCompanion, type ServeOptions } from '../../../companion/start-companion';
import type { PlanRunners } from '../../../companion/runs/block-job';
import type { ToolHandlers } from '../../../companion/runs/tool-call';
import type { ProcessManager, ToolHandler } from '../../../companion/types';
import { createWebSocketServer } from '../../../companion/ws/ws-route';
import { TOOL_CONTRACTS } from '../../../shared/tools';

export const TEST_PORT = 17_999;

export interface World {
  base: string;
  root: string;
  home: string;
  policy: Policy;
  companion: CompanionApp;
  processes: ProcessManager;
  token: string;
  /** how often each test tool's run() was entered */
  runs: Record<string, number>;
  port: { value: number };
  request(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>;
  post(path: string, body: unknown, token?: string | null): Promise<Response>;
  close(): Promise<void>;
}

type AnyHandler = ToolHandler;

export function testHandlers(runs: Record<string, number>): ToolHandlers {
  const count = (name: string) => (runs[name] = (runs[name] ?? 0) + 1);
  const read: AnyHandler = {
    contract: TOOL_CONTRACTS['fs.read'],
    plan: async (args: { path: string }) => ({ risk: 'read', paths: [args.path] }),
    preview: async (args: { path: string }) => ({ title: `fs.read ${args.path}`, paths: [args.path] }),
    run: async (args: { path: string }) => {
      count('fs.read');
      return { text: await readFile(args.path, 'utf8') };
    },
  };
  const write: AnyHandler = {
    contract: TOOL_CONTRACTS['fs.write'],
    plan: async (args: { path: string }) => ({ risk: 'write', paths: [args.path] }),
    preview: async (args: { path: string; content: string }) => ({ title: `fs.write ${args.path}`, paths: [args.path], diff: `+${args.content}` }),
    run: async (args: { path: string; content: string; mode: 'overwrite' | 'append' }) => {
      count('fs.write');
      await (args.mode === 'append' ? appendFile : writeFile)(args.path, args.content);
      return { text: 'WRITE_SUCCESS' };
    },
  };
  const shell: AnyHandler = {
    contract: TOOL_CONTRACTS['shell.exec'],
    plan: async (args: { command: string; cwd?: string }, ctx) => ({
      risk: 'exec',
      paths: [],
      command: { shell: args.command, cwd: args.cwd ?? (ctx.policy.roots[0] as string) },
    }),
    preview: async (args: { command: string }, ctx) => ({ title: `shell.exec ${args.command}`, paths: [], command: args.command, cwd: ctx.policy.roots[0] as string }),
    // the harness never runs a shell: what matters here is whether the pipeline let the call through
    run: async (args: { command: string }) => {
      count('shell.exec');
      return { text: `exit 0\n(test harness: would run ${args.command})` };
    },
  };
  return { 'fs.read': read, 'fs.write': write, 'shell.exec': shell } as ToolHandlers;
}

/** Plans that do what every real plan does with the pipeline: authorize once, then answer. */
export function testPlans(runs: Record<string, number>): PlanRunners {
  return {
    async runAutocoderPlan(plan, ctx) {
      if (plan.type === 'finish') return null;
      const planned = `${ctx.policy.roots[0]}/planned.txt`;
      await ctx.authorize({ tool: 'autocoder', args: plan, actions: [{ risk: 'write', label: 'create_file planned.txt', paths: [planned] }], preview: { title: 'autocoder plan', paths: [] } });
      runs.autocoder = (runs.autocoder ?? 0) + 1;
      return `#####--\n${JSON.stringify({ metadata: { step_id: plan.metadata?.step_id ?? '', reason: '', summary: 'applied' }, file_actions: [], program_execs: {} })}\n--#####`;
    },
    async runAxonPlan(payloads, ctx, meta) {
      await ctx.authorize({ tool: 'axon', args: payloads, actions: [{ risk: 'write', label: 'axon plan', paths: [] }], preview: { title: 'axon plan', paths: [] } });
      runs.axon = (runs.axon ?? 0) + 1;
      return '```axon-result\nplan: applied\nauditId: ' + meta.auditId + '\n```';
    },
  };
}

export interface WorldOptions {
  config?: Record<string, unknown>;
  /** reuse the data dir and workspace of an earlier world (a restart) */
  reuse?: { base: string };
  tools?: ToolHandlers;
  plans?: PlanRunners;
  maxBodyBytes?: number;
  clock?: () => number;
  /** protocol pings on /ws; short by default so dead peers show up fast */
  wsHeartbeatMs?: number;
  /** how often an /mcp call that asked for progress is told it still waits */
  mcpProgressMs?: number;
  /** the cap on connections without a token (a small one, to reach it with few sockets) */
  connections?: ConnectionLimit;
}

export function makeWorld(options: WorldOptions = {}): World {
  const base = options.reuse?.base ?? realpathSync(mkdtempSync(join(tmpdir(), 'cb-server-')));
  const root = join(base, 'root');
  const home = join(base, 'home');
  mkdirSync(root, { recursive: true });
  const policy = policyFromConfig(parseConfig(options.config ?? {}), [{ root, base: root, key: 'test' }]);
  const journal = createJournal({ dir: join(home, 'journal'), policy });
  const processes = createProcessManager({ killGraceMs: 200 });
  const runs: Record<string, number> = {};
  const port = { value: TEST_PORT };
  const companion = createApp({
    policy,
    journal,
    processes,
    home,
    tools: options.tools ?? testHandlers(runs),
    plans: options.plans ?? testPlans(runs),
    getPort: () => port.value,
    maxBodyBytes: options.maxBodyBytes ?? 256 * 1024,
    wsAuthTimeoutMs: 300,
    wsHeartbeatMs: options.wsHeartbeatMs ?? 200,
    ...(options.mcpProgressMs !== undefined ? { mcpProgressMs: options.mcpProgressMs } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.connections ? { connections: options.connections } : {}),
  });
  const token = companion.tokens.issue('test');
  const world: World = {
    base,
    root,
    home,
    policy,
    companion,
    processes,
    token,
    runs,
    port,
    request(path, init = {}) {
      const { token: t = token, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (t !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${t}`);
      return Promise.resolve(companion.app.request(`http://127.0.0.1:${port.value}${path}`, { ...rest, headers }));
    },
    post(path, body, t) {
      return world.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        ...(t !== undefined ? { token: t } : {}),
      });
    },
    async close() {
      await processes.stopAll();
      await companion.close();
    },
  };
  return world;
}

export function removeWorld(world: Pick<World, 'base'>): void {
  rmSync(world.base, { recursive: true, force: true });
}

/**
 * Serves the world on 127.0.0.1 port 0 with ws, as `chatbridge start` does (serveCompanion); `serving` sets what a
 * test changes of it: the ws server, request timeouts, the connection cap.
 */
export async function listen(
  world: World,
  serving: Partial<Pick<ServeOptions, 'wss' | 'timeouts' | 'connections'>> = {},
): Promise<{ port: number; server: ServerType; close(): Promise<void> }> {
  const server = await serveCompanion({ fetch: world.companion.app.fetch, port: 0, wss: createWebSocketServer(), ...serving });
  const port = (server.address() as AddressInfo).port;
  world.port.value = port;
  return {
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

export const context = (conversationId = 'conv-1', messageKey = 'msg-1') => ({ site: 'chatgpt', url: 'https://chatgpt.com/c/x', conversationId, messageKey });

export function mcpCall(id: string, name: string, args: Record<string, unknown>): string {
  return '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) + '\n```';
}

export function flycodeCall(id: string | undefined, tool: string, args: Record<string, unknown>): string {
  return '```flycode-call\n' + JSON.stringify({ ...(id !== undefined ? { id } : {}), tool, args }) + '\n```';
}

/** The JSON of an mcp-response block. */
export function mcpJson(resultText: string): { id: unknown; result?: { content: Array<{ text: string }>; meta: Record<string, unknown> }; error?: { code: number; message: string; data: Record<string, unknown> } } {
  const match = /```+mcp-response\n(.*)\n```+/s.exec(resultText);
  if (!match) throw new Error(`not an mcp-response block: ${resultText}`);
  return JSON.parse(match[1] as string);
}
