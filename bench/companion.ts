/**
 * Companion figures (DESIGN §9): the round trip of a 1 KB `fs.read` through `POST /v1/run` (an mcp-request block)
 * and through `/mcp` with the SDK's own Client, each as p50/p99 over sequential keep-alive requests, and as
 * requests per second with 32 concurrent clients. The companion is the real one, a child process with the
 * embedded default policy (read: auto) on a temp workspace.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cpuMs } from './cpu';
import { mcpResultText, runRequest, startCompanionProcess, type CompanionProcess } from './companion-process';
import { figureOf, nowMs, percentile, type Budget, type Figure } from './figure';
import { createHttpJsonClient, type HttpJsonClient } from './http-json';

export interface CompanionBenchOptions {
  runs: number;
  /** sequential requests per latency run */
  requests: number;
  concurrency: number;
  /** requests per client in a throughput run */
  perClient: number;
  log: (line: string) => void;
}

export const DEFAULT_COMPANION_BENCH: Omit<CompanionBenchOptions, 'log'> = { runs: 5, requests: 1000, concurrency: 32, perClient: 50 };

const READ_BUDGET: Budget = { max: 3, text: '< 3 ms' };

interface RunResponseBody {
  status?: string;
  resultText?: string;
}

function checkRead(response: { status: number; json: unknown }, expected: string | undefined): void {
  const body = response.json as RunResponseBody;
  if (response.status !== 200 || body.status !== 'done') throw new Error(`fs.read through /v1/run failed: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  if (expected !== undefined && mcpResultText(body.resultText ?? '') !== expected) throw new Error('fs.read through /v1/run answered other text than the file holds');
}

const readRequest = (file: string) => runRequest('fs.read', { path: file });

async function runLatency(http: HttpJsonClient, file: string, content: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const body = readRequest(file);
    const started = nowMs();
    const response = await http.post('/v1/run', body);
    times.push(nowMs() - started);
    checkRead(response, i === 0 ? content : undefined);
  }
  return times;
}

async function runThroughput(http: HttpJsonClient, file: string, clients: number, perClient: number): Promise<number> {
  const started = nowMs();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < perClient; i++) checkRead(await http.post('/v1/run', readRequest(file)), undefined);
    }),
  );
  return (clients * perClient) / ((nowMs() - started) / 1000);
}

async function connectMcp(companion: CompanionProcess): Promise<Client> {
  const client = new Client({ name: 'chatbridge-bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${companion.port}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${companion.token}` } },
  });
  await client.connect(transport);
  return client;
}

async function mcpRead(client: Client, file: string, expected: string | undefined): Promise<void> {
  const result = await client.callTool({ name: 'fs.read', arguments: { path: file } });
  if (result.isError) throw new Error(`fs.read through /mcp failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
  if (expected !== undefined && text !== expected) throw new Error('fs.read through /mcp answered other text than the file holds');
}

async function runMcpLatency(client: Client, file: string, content: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = nowMs();
    await mcpRead(client, file, i === 0 ? content : undefined);
    times.push(nowMs() - started);
  }
  return times;
}

async function runMcpThroughput(clients: Client[], file: string, perClient: number): Promise<number> {
  const started = nowMs();
  await Promise.all(
    clients.map(async (client) => {
      for (let i = 0; i < perClient; i++) await mcpRead(client, file, undefined);
    }),
  );
  return (clients.length * perClient) / ((nowMs() - started) / 1000);
}

export async function runCompanionBench(options: CompanionBenchOptions): Promise<Figure[]> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-bench-companion-')));
  const root = join(base, 'workspace');
  mkdirSync(root);
  const file = join(root, 'one-kilobyte.txt');
  // 1 KB of printable text in lines, like a small source file
  const content = Array.from({ length: 16 }, (_, i) => `line ${String(i).padStart(2, '0')} ${'abcdefghij'.repeat(5)}`.padEnd(63, '.') + '\n').join('');
  writeFileSync(file, content);
  if (Buffer.byteLength(content) !== 1024) throw new Error(`the 1 KB file is ${Buffer.byteLength(content)} bytes`);

  const companion = await startCompanionProcess({ root, home: join(base, 'home') });
  const http = createHttpJsonClient(companion.port, companion.token, 1);
  const pool = createHttpJsonClient(companion.port, companion.token, options.concurrency);
  const mcpClients = await Promise.all(Array.from({ length: options.concurrency }, () => connectMcp(companion)));
  const perRun = {
    runP50: [] as number[],
    runP99: [] as number[],
    runCpu: [] as number[],
    runRps: [] as number[],
    mcpP50: [] as number[],
    mcpP99: [] as number[],
    mcpCpu: [] as number[],
    mcpRps: [] as number[],
  };
  const cpuPerRequest = async (count: number, work: () => Promise<number[]>): Promise<{ times: number[]; cpu: number | undefined }> => {
    const before = cpuMs(companion.pid);
    const times = await work();
    const after = cpuMs(companion.pid);
    return { times, cpu: before === undefined || after === undefined ? undefined : (after - before) / count };
  };
  try {
    // warm-up: JIT, the run store's first appends, sockets
    await runLatency(http, file, content, 200);
    const warmMcp = await connectMcp(companion);
    await runMcpLatency(warmMcp, file, content, 100);
    await warmMcp.close();
    for (let run = 1; run <= options.runs; run++) {
      const latency = await cpuPerRequest(options.requests, () => runLatency(http, file, content, options.requests));
      perRun.runP50.push(percentile(latency.times, 50));
      perRun.runP99.push(percentile(latency.times, 99));
      if (latency.cpu !== undefined) perRun.runCpu.push(latency.cpu);
      perRun.runRps.push(await runThroughput(pool, file, options.concurrency, options.perClient));
      // a fresh client per run: the SDK client adds an abort listener per call to one signal, and past 1500 of them
      // every call also prints a warning, which would be measured as the companion's time
      const mcp = await connectMcp(companion);
      const mcpLatency = await cpuPerRequest(options.requests, () => runMcpLatency(mcp, file, content, options.requests));
      await mcp.close();
      perRun.mcpP50.push(percentile(mcpLatency.times, 50));
      perRun.mcpP99.push(percentile(mcpLatency.times, 99));
      if (mcpLatency.cpu !== undefined) perRun.mcpCpu.push(mcpLatency.cpu);
      perRun.mcpRps.push(await runMcpThroughput(mcpClients, file, options.perClient));
      options.log(
        `  companion run ${run}/${options.runs}: /v1/run p50 ${perRun.runP50.at(-1)?.toFixed(2)} ms, ${perRun.runRps.at(-1)?.toFixed(0)} req/s; ` +
          `/mcp p50 ${perRun.mcpP50.at(-1)?.toFixed(2)} ms, ${perRun.mcpRps.at(-1)?.toFixed(0)} req/s`,
      );
    }
  } finally {
    http.close();
    pool.close();
    await Promise.allSettled(mcpClients.map((c) => c.close()));
    await companion.stop();
    rmSync(base, { recursive: true, force: true });
  }
  const seq = `${options.requests} sequential requests on one keep-alive connection`;
  const conc = `${options.concurrency} concurrent clients × ${options.perClient} requests`;
  const cpu = 'companion process CPU (user + system, all threads) ÷ requests, during the p50 runs';
  return [
    figureOf('companion: fs.read 1 KB via POST /v1/run, p50', 'ms', perRun.runP50, READ_BUDGET, seq),
    figureOf('companion: fs.read 1 KB via POST /v1/run, p99', 'ms', perRun.runP99, null, seq),
    ...(perRun.runCpu.length > 0 ? [figureOf('companion: CPU per fs.read via POST /v1/run', 'ms', perRun.runCpu, null, cpu)] : []),
    figureOf(`companion: POST /v1/run fs.read, ${options.concurrency} clients`, 'req/s', perRun.runRps, null, conc),
    figureOf('companion: fs.read 1 KB via /mcp (SDK Client), p50', 'ms', perRun.mcpP50, READ_BUDGET, seq),
    figureOf('companion: fs.read 1 KB via /mcp (SDK Client), p99', 'ms', perRun.mcpP99, null, seq),
    ...(perRun.mcpCpu.length > 0 ? [figureOf('companion: CPU per fs.read via /mcp', 'ms', perRun.mcpCpu, null, cpu)] : []),
    figureOf(`companion: /mcp tools/call fs.read, ${options.concurrency} clients`, 'req/s', perRun.mcpRps, null, conc),
  ];
}
