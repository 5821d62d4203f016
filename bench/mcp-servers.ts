/**
 * What mounting a person's MCP server in the companion costs (issue 11): the "everything" reference server's
 * `echo` called directly with the SDK's Client over stdio — the floor any MCP client pays — against the same call
 * through the companion, as an mcp-request block via `POST /v1/run` and via the companion's own `/mcp` with the
 * SDK's Client. The companion is the real one (a child process); its server runs with `policy.default: "auto"`
 * so no approval is in the way. The paths alternate within each run so load on the machine hits them alike;
 * "added" is the difference of the medians within the same run.
 *
 * Every call through the companion also pays its pipeline — HTTP, token, parsing the block again, the run record,
 * the audit line — whatever the tool. So the same two paths are also timed with the cheapest built-in (fs.read of
 * a 16-byte file): the external call minus that built-in, through the same path, is what `<server>.<tool>` costs
 * over a tool of the companion's own.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { callViaRun, startCompanionProcess, type CompanionProcess } from './companion-process';
import { figureOf, nowMs, percentile, type Budget, type Figure } from './figure';
import { createHttpJsonClient, type HttpJsonClient } from './http-json';

export interface McpServersBenchOptions {
  runs: number;
  /** sequential calls per path per run */
  requests: number;
  log: (line: string) => void;
}

export const DEFAULT_MCP_SERVERS_BENCH: Omit<McpServersBenchOptions, 'log'> = { runs: 5, requests: 500 };

const ADDED_BUDGET: Budget = { max: 1, text: '< 1 ms' };
const EVERYTHING = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
const MESSAGE = 'the same call, three ways';

async function waitForServer(companion: CompanionProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const status = (await (await fetch(`http://127.0.0.1:${companion.port}/v1/status`)).json()) as { mcp?: { ready: number } };
    if (status.mcp?.ready === 1) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the companion's everything server did not become ready:\n${companion.output()}`);
}

async function direct(): Promise<Client> {
  const client = new Client({ name: 'chatbridge-bench-direct', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  return client;
}

async function viaMcp(companion: CompanionProcess): Promise<Client> {
  const client = new Client({ name: 'chatbridge-bench-mcp', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${companion.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${companion.token}` } } }),
  );
  return client;
}

async function echo(client: Client, name: string): Promise<void> {
  const result = await client.callTool({ name, arguments: { message: MESSAGE } });
  const text = (result.content as Array<{ text?: string }>)[0]?.text;
  if (result.isError || text !== `Echo: ${MESSAGE}`) throw new Error(`${name} answered ${JSON.stringify(result).slice(0, 300)}`);
}

async function viaRun(http: HttpJsonClient, name: string, args: Record<string, unknown>, expected: string): Promise<void> {
  const text = await callViaRun(http, name, args);
  if (text !== expected) throw new Error(`${name} through /v1/run answered ${JSON.stringify(text).slice(0, 300)}`);
}

/**
 * The same tools/call as one JSON-RPC POST to /mcp on the plain keep-alive client: the companion's side of /mcp
 * without the SDK client's own HTTP transport (fetch, stream parsing), which costs the caller more than the stdio one.
 */
let rawId = 0;
async function echoViaRawMcp(http: HttpJsonClient): Promise<void> {
  const response = await http.post(
    '/mcp',
    { jsonrpc: '2.0', id: ++rawId, method: 'tools/call', params: { name: 'everything.echo', arguments: { message: MESSAGE } } },
    { accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
  );
  const text = ((response.json as { result?: { content?: Array<{ text?: string }> } }).result?.content ?? [])[0]?.text;
  if (text !== `Echo: ${MESSAGE}`) throw new Error(`a plain POST to /mcp answered ${response.status} ${JSON.stringify(response.json).slice(0, 300)}`);
}

async function readViaMcp(client: Client, path: string): Promise<void> {
  const result = await client.callTool({ name: 'fs.read', arguments: { path } });
  if (result.isError || (result.content as Array<{ text?: string }>)[0]?.text !== TINY) throw new Error(`fs.read through /mcp answered ${JSON.stringify(result).slice(0, 300)}`);
}

const TINY = 'sixteen bytes!!\n';

async function timed(count: number, call: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = nowMs();
    await call();
    times.push(nowMs() - started);
  }
  return times;
}

export async function runMcpServersBench(options: McpServersBenchOptions): Promise<Figure[]> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-bench-mcp-')));
  const root = join(base, 'workspace');
  mkdirSync(root);
  const tiny = join(root, 'tiny.txt');
  writeFileSync(tiny, TINY);
  const echoViaRun = () => viaRun(http, 'everything.echo', { message: MESSAGE }, `Echo: ${MESSAGE}`);
  const readViaRun = () => viaRun(http, 'fs.read', { path: tiny }, TINY);
  const companion = await startCompanionProcess({
    root,
    home: join(base, 'home'),
    config: { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], policy: { default: 'auto' } } } },
  });
  const http = createHttpJsonClient(companion.port, companion.token, 1);
  const series = ['directP50', 'directP99', 'runP50', 'runP99', 'mcpP50', 'mcpP99', 'runAdded', 'mcpAdded', 'runReadP50', 'mcpReadP50', 'runMount', 'mcpMount', 'rawP50', 'rawAdded'] as const;
  const perRun = Object.fromEntries(series.map((name) => [name, [] as number[]])) as Record<(typeof series)[number], number[]>;
  let baseline: Client | undefined;
  try {
    await waitForServer(companion);
    baseline = await direct();
    // warm-up: JIT on both sides, the run store's first appends, sockets
    const warm = await viaMcp(companion);
    await timed(100, () => echo(baseline as Client, 'echo'));
    await timed(100, echoViaRun);
    await timed(100, () => echo(warm, 'everything.echo'));
    await timed(100, readViaRun);
    await timed(100, () => readViaMcp(warm, tiny));
    await timed(100, () => echoViaRawMcp(http));
    await warm.close();
    for (let run = 1; run <= options.runs; run++) {
      // a fresh /mcp client per run (the SDK client adds a listener per call to one signal; see companion.ts)
      const mcp = await viaMcp(companion);
      const times = { direct: [] as number[], run: [] as number[], mcp: [] as number[], runRead: [] as number[], mcpRead: [] as number[], raw: [] as number[] };
      // alternate in blocks of 50 so a burst of load on the machine lands on every path alike
      for (let done = 0; done < options.requests; done += 50) {
        const n = Math.min(50, options.requests - done);
        times.direct.push(...(await timed(n, () => echo(baseline as Client, 'echo'))));
        times.run.push(...(await timed(n, echoViaRun)));
        times.mcp.push(...(await timed(n, () => echo(mcp, 'everything.echo'))));
        times.runRead.push(...(await timed(n, readViaRun)));
        times.mcpRead.push(...(await timed(n, () => readViaMcp(mcp, tiny))));
        times.raw.push(...(await timed(n, () => echoViaRawMcp(http))));
      }
      await mcp.close();
      const p = (samples: number[], q: number) => percentile(samples, q);
      perRun.directP50.push(p(times.direct, 50));
      perRun.directP99.push(p(times.direct, 99));
      perRun.runP50.push(p(times.run, 50));
      perRun.runP99.push(p(times.run, 99));
      perRun.mcpP50.push(p(times.mcp, 50));
      perRun.mcpP99.push(p(times.mcp, 99));
      perRun.runAdded.push(p(times.run, 50) - p(times.direct, 50));
      perRun.mcpAdded.push(p(times.mcp, 50) - p(times.direct, 50));
      perRun.runReadP50.push(p(times.runRead, 50));
      perRun.mcpReadP50.push(p(times.mcpRead, 50));
      perRun.runMount.push(p(times.run, 50) - p(times.runRead, 50));
      perRun.mcpMount.push(p(times.mcp, 50) - p(times.mcpRead, 50));
      perRun.rawP50.push(p(times.raw, 50));
      perRun.rawAdded.push(p(times.raw, 50) - p(times.direct, 50));
      options.log(
        `  mcp run ${run}/${options.runs}: direct p50 ${p(times.direct, 50).toFixed(2)} ms; /v1/run p50 ${p(times.run, 50).toFixed(2)} ms ` +
          `(fs.read ${p(times.runRead, 50).toFixed(2)}); /mcp p50 ${p(times.mcp, 50).toFixed(2)} ms (fs.read ${p(times.mcpRead, 50).toFixed(2)})`,
      );
    }
  } finally {
    http.close();
    await baseline?.close();
    await companion.stop();
    rmSync(base, { recursive: true, force: true });
  }
  const seq = `${options.requests} sequential calls per path per run, the paths alternating in blocks of 50`;
  return [
    figureOf('mcp servers: everything.echo direct (SDK Client, stdio), p50', 'ms', perRun.directP50, null, seq),
    figureOf('mcp servers: everything.echo direct (SDK Client, stdio), p99', 'ms', perRun.directP99, null, seq),
    figureOf('mcp servers: everything.echo via POST /v1/run, p50', 'ms', perRun.runP50, null, seq),
    figureOf('mcp servers: everything.echo via POST /v1/run, p99', 'ms', perRun.runP99, null, seq),
    figureOf('mcp servers: everything.echo via /mcp (SDK Client), p50', 'ms', perRun.mcpP50, null, seq),
    figureOf('mcp servers: everything.echo via /mcp (SDK Client), p99', 'ms', perRun.mcpP99, null, seq),
    figureOf('mcp servers: added by the companion via /v1/run, p50', 'ms', perRun.runAdded, ADDED_BUDGET, 'p50 via /v1/run − p50 direct, within each run'),
    figureOf('mcp servers: added by the companion via /mcp, p50', 'ms', perRun.mcpAdded, ADDED_BUDGET, 'p50 via /mcp − p50 direct, within each run'),
    figureOf('mcp servers: everything.echo via /mcp (plain HTTP POST, no SDK client), p50', 'ms', perRun.rawP50, null, seq),
    figureOf('mcp servers: added via /mcp without the SDK client\'s transport, p50', 'ms', perRun.rawAdded, null, 'p50 plain POST to /mcp − p50 direct, within each run: the companion\'s part of the /mcp figure'),
    figureOf('mcp servers: pipeline floor, fs.read 16 B via POST /v1/run, p50', 'ms', perRun.runReadP50, null, seq),
    figureOf('mcp servers: pipeline floor, fs.read 16 B via /mcp, p50', 'ms', perRun.mcpReadP50, null, seq),
    figureOf('mcp servers: everything.echo − fs.read 16 B, both via POST /v1/run, p50', 'ms', perRun.runMount, null, 'within each run'),
    figureOf('mcp servers: everything.echo − fs.read 16 B, both via /mcp, p50', 'ms', perRun.mcpMount, null, 'within each run'),
  ];
}
