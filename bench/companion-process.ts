/**
 * The real companion as a child process, started the way `chatbridge start` starts it (companion/main.ts under
 * tsx, `--port 0`, a preset token, `CHATBRIDGE_HOME` for the data dir). Used by the benchmarks and by the load and
 * fault tests, which need to SIGKILL it and start it again on the same home.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpJsonClient } from './http-json';

export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

export interface CompanionStartOptions {
  /** workspace root (passed as --root) */
  root: string;
  /** CHATBRIDGE_HOME; reuse it to restart "the same" companion */
  home: string;
  /** a config object, written next to the home as JSON and passed as --config */
  config?: Record<string, unknown>;
  /** extra environment (e.g. CHATBRIDGE_JOURNAL_TEST_DELAY_MS, CHATBRIDGE_SEARCH_BACKEND) */
  env?: Record<string, string>;
  /** wraps the node argv, e.g. to drop privileges or set a resource limit: (argv) => ['setpriv', ..., ...argv] */
  launcher?: (argv: string[]) => string[];
  token?: string;
  startTimeoutMs?: number;
}

export interface CompanionProcess {
  child: ChildProcess;
  pid: number;
  port: number;
  token: string;
  home: string;
  /** everything it printed so far (stdout and stderr) */
  output(): string;
  /** resolves once the process has exited */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, then wait for the exit */
  kill(): Promise<void>;
  /** SIGTERM (clean shutdown), then wait; SIGKILL after `graceMs` */
  stop(graceMs?: number): Promise<void>;
}

export async function startCompanionProcess(options: CompanionStartOptions): Promise<CompanionProcess> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const args = [process.execPath, '--import', 'tsx', join(REPO_ROOT, 'companion', 'main.ts'), 'start', '--root', options.root, '--port', '0', '--token', token, '--no-build'];
  if (options.config) {
    const file = `${options.home.replace(/\/+$/, '')}.config.json`;
    writeFileSync(file, JSON.stringify(options.config, null, 2));
    args.push('--config', file);
  }
  const argv = options.launcher ? options.launcher(args) : args;
  const [command, ...rest] = argv as [string, ...string[]];
  const env: NodeJS.ProcessEnv = { ...process.env, CHATBRIDGE_HOME: options.home, ...options.env };
  delete env.CHATBRIDGE_TOKEN;
  const child = spawn(command, rest, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolvePromise) =>
    child.once('exit', (code, signal) => resolvePromise({ code, signal })),
  );

  const port = await new Promise<number>((resolvePromise, reject) => {
    const timeoutMs = options.startTimeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the companion did not print its port within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = () => {
      const match = /^port: (\d+)$/m.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      resolvePromise(Number(match[1]));
    };
    child.stdout?.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the companion exited (code ${String(code)}, signal ${String(signal)}) before listening:\n${output}`));
    });
  });

  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return {
    child,
    pid: child.pid as number,
    port,
    token,
    home: options.home,
    output: () => output,
    exited,
    kill,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The text of an mcp-request block calling one tool, as a model writes it. */
export function mcpRequestBlock(id: string | number, name: string, args: Record<string, unknown>): string {
  return '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) + '\n```';
}

export interface McpResponse {
  id: unknown;
  result?: { content: Array<{ type: string; text: string }>; meta?: Record<string, unknown>; isError?: boolean };
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** The JSON inside an mcp-response block; throws when resultText is not one. */
export function parseMcpResponse(resultText: string): McpResponse {
  const match = /^(`{3,})mcp-response\n([\s\S]*)\n\1\s*$/.exec(resultText);
  if (!match) throw new Error(`not an mcp-response block:\n${resultText.slice(0, 500)}`);
  return JSON.parse(match[2] as string) as McpResponse;
}

/** The text of a successful mcp-response; throws with the error when it is not one. */
export function mcpResultText(resultText: string): string {
  const response = parseMcpResponse(resultText);
  if (!response.result) throw new Error(`the call failed: ${JSON.stringify(response.error)}`);
  return response.result.content.map((c) => c.text).join('');
}

let sequence = 0;
/** A `POST /v1/run` body calling one tool; every one is a new block (a new message key), so none is answered from the idempotency map. */
export function runRequest(name: string, args: Record<string, unknown>) {
  sequence += 1;
  return {
    kind: 'mcp-request',
    text: mcpRequestBlock(sequence, name, args),
    context: { site: 'bench', url: 'http://127.0.0.1/bench', conversationId: 'bench', messageKey: `m-${sequence}` },
  };
}

/** One tool called through `POST /v1/run`: the text of its result; throws when the run did not end done. */
export async function callViaRun(http: HttpJsonClient, name: string, args: Record<string, unknown>): Promise<string> {
  const response = await http.post('/v1/run', runRequest(name, args));
  const body = response.json as { status?: string; resultText?: string };
  if (response.status !== 200 || body.status !== 'done') throw new Error(`${name} through /v1/run failed: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  return mcpResultText(body.resultText ?? '');
}
