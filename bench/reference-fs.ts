/**
 * The companion against the MCP project's reference filesystem server (`@modelcontextprotocol/server-filesystem`,
 * a dev dependency) on the same operations, side by side in one run (issue 13): read a 1 KB file, list a folder of
 * 1000 files, write (overwrite) a 1 KB file. Three paths:
 *  - reference: the reference server over stdio with the SDK's own Client (`read_text_file`, `list_directory`,
 *    `list_directory_with_sizes`, `write_file`) — what any MCP client pays for a local filesystem server;
 *  - /mcp: the companion's own MCP endpoint with the same SDK Client over Streamable HTTP (`fs.read`, `fs.ls`,
 *    `fs.ls` with `sizes: true`, `fs.write`), twice: with the transport's default fetch (Node's own), what an MCP
 *    client on Node pays, and with a keep-alive node:http fetch (http-fetch.ts), which leaves out the ~0.4 ms of
 *    client CPU per call that Node's fetch costs, as /v1/run's client does;
 *  - /v1/run: the same calls as mcp-request blocks through `POST /v1/run`, as the extension sends them.
 * Each path's round trip without a tool is timed beside them (Caller.floor: the MCP ping; GET /v1/runs/:id), so the
 * read's figure splits into what the transport costs and what reading the file costs on top of it. Under those, a
 * bare node:http server (a child process that answers every request with a few bytes of JSON: no framework, no
 * guard, no tool) with the same keep-alive client: what one local HTTP round trip costs on this machine, against
 * the stdio ping's floor. And the least any MCP server over Streamable HTTP can do (least-http-mcp.mjs: node:http
 * and JSON-RPC by hand, the operation's own file system calls and nothing else), with the same SDK Client, with
 * each fetch: the floor the /mcp rows' ratio budgets are held against — reported beside them, not budgeted.
 * The companion is the real one (a child process) with `modes.write: "auto"`, so no approval is in the way; its
 * writes still go through the journal (before-image and intent on disk first). Per run, every operation goes
 * through every path in alternating blocks of 50 calls, so a burst of load on the machine lands on all of them
 * alike; the ratio companion ÷ reference is taken within each run. The listing is timed twice, like for like: names
 * only (`fs.ls` by default ÷ `list_directory`, which answers names and [FILE]/[DIR]) and with each file's size
 * (`fs.ls` with `sizes: true`, one lstat per entry ÷ `list_directory_with_sizes`, one stat per entry).
 *
 * Beside it, the throughput of `POST /v1/run` fs.read with 32 concurrent clients, and the companion's CPU time
 * per call during it (user + system of all its threads, from /proc).
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cpuMs } from './cpu';
import { callViaRun, mcpResultText, runRequest, startCompanionProcess, type CompanionProcess } from './companion-process';
import { figureOf, nowMs, percentile, type Budget, type Figure } from './figure';
import { createHttpFetch, type HttpFetch } from './http-fetch';
import { createHttpJsonClient, type HttpJsonClient } from './http-json';

export interface ReferenceFsBenchOptions {
  runs: number;
  /** sequential calls per operation per path per run */
  requests: number;
  concurrency: number;
  /** requests per client in a throughput run */
  perClient: number;
  log: (line: string) => void;
}

export const DEFAULT_REFERENCE_FS_BENCH: Omit<ReferenceFsBenchOptions, 'log'> = { runs: 5, requests: 300, concurrency: 32, perClient: 50 };

const REFERENCE = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
const LIST_SIZE = 1000;
const BLOCK = 50;
/** issue 13: 3× the 686 req/s the README table had before */
const THROUGHPUT_BUDGET: Budget = { max: 3 * 686, atLeast: true, text: '≥ 2058 req/s' };
const RATIO_BUDGET = { read: 1.5, list: 1.5, listSizes: 1.5, write: 2.5, floor: null } as const;

type Op = 'read' | 'list' | 'listSizes' | 'write' | 'floor';
type Path = 'reference' | 'mcp' | 'mcpFetch' | 'run' | 'least' | 'leastFetch';
const OPS: readonly Op[] = ['read', 'list', 'listSizes', 'write', 'floor'];
const PATHS: readonly Path[] = ['reference', 'mcp', 'mcpFetch', 'run', 'least', 'leastFetch'];
/** the floors under /mcp (least-http-mcp.mjs): reported, not budgeted, and their p99 left out */
const LEAST_PATHS: readonly Path[] = ['least', 'leastFetch'];
const OP_NAME: Record<Op, string> = {
  read: 'read a 1 KB file',
  list: `list a folder of ${LIST_SIZE} files, names only`,
  listSizes: `list a folder of ${LIST_SIZE} files with sizes`,
  write: 'write a 1 KB file',
  floor: 'round trip without a tool',
};
/** the reference's tool per operation; the companion's are fs.read, fs.ls, fs.ls with sizes: true, fs.write */
const REFERENCE_TOOL: Record<Exclude<Op, 'floor'>, string> = { read: 'read_text_file', list: 'list_directory', listSizes: 'list_directory_with_sizes', write: 'write_file' };
const PATH_NAME: Record<Path, string> = {
  reference: 'reference server (stdio)',
  mcp: 'companion /mcp',
  mcpFetch: 'companion /mcp, keep-alive node:http fetch',
  run: 'companion POST /v1/run',
  least: 'the least a Streamable HTTP server can do (bare node:http, no SDK server, no guard)',
  leastFetch: 'the least a Streamable HTTP server can do, keep-alive node:http fetch',
};

/** 1 KB of printable text in lines, like a small source file; `tag` makes each written version different. */
function kilobyte(tag: string): string {
  const text = Array.from({ length: 16 }, (_, i) => `line ${String(i).padStart(2, '0')} ${tag} ${'abcdefghij'.repeat(4)}`.padEnd(63, '.').slice(0, 63) + '\n').join('');
  if (Buffer.byteLength(text) !== 1024) throw new Error(`the 1 KB text is ${Buffer.byteLength(text)} bytes`);
  return text;
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>, what: string): string {
  if (result.isError) throw new Error(`${what} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  return (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
}

interface Workspace {
  root: string;
  file: string;
  content: string;
  folder: string;
  written: Record<Path, string>;
}

/** One call of each operation through one path; checks the answer (cheaply) every time. */
interface Caller {
  read(): Promise<void>;
  list(): Promise<void>;
  listSizes(): Promise<void>;
  write(tag: string): Promise<void>;
  /**
   * The path's own round trip with no tool behind it, the floor under every call: the MCP `ping` for the SDK client
   * (both servers answer it in their protocol layer), and for `/v1/run` a `GET /v1/runs/:id` of a finished read —
   * the same guards and token check and an answer of the same size, without the block, policy, tool or logs.
   */
  floor(): Promise<void>;
}

/**
 * Checks a listing of the 1000-file folder: 1000 entry lines, each ending in a size ("7 B") when sizes were asked
 * and none otherwise. `entry` picks the entry lines (`list_directory_with_sizes` adds a summary under them).
 */
function checkListing(text: string, what: string, withSizes: boolean, entry: (line: string) => boolean): void {
  let entries = 0;
  let sized = 0;
  for (const line of text.split('\n')) {
    if (!entry(line)) continue;
    entries += 1;
    if (/\d B\s*$/.test(line)) sized += 1;
  }
  if (entries !== LIST_SIZE) throw new Error(`${what} listed ${entries} entries, not ${LIST_SIZE}`);
  if (sized !== (withSizes ? LIST_SIZE : 0)) throw new Error(`${what} answered ${sized} sizes for ${entries} entries${withSizes ? '' : ' without sizes asked'}`);
}

const companionEntry = (line: string) => line.trim() !== '';
const referenceEntry = (line: string) => line.startsWith('[FILE]') || line.startsWith('[DIR]');

/** which server an SDK client talks to: the reference (stdio), the companion's /mcp, or the least server (least-http-mcp.mjs) */
type SdkServer = 'reference' | 'companion' | 'least';
const SDK_TOOLS: Record<SdkServer, Record<Exclude<Op, 'floor'>, string>> = {
  reference: REFERENCE_TOOL,
  companion: { read: 'fs.read', list: 'fs.ls', listSizes: 'fs.ls', write: 'fs.write' },
  least: { read: 'read', list: 'list', listSizes: 'listSizes', write: 'write' },
};

/** The SDK client's calls to one of the servers. */
function sdkCaller(client: Client, server: SdkServer, ws: Workspace, target: string): Caller {
  const names = SDK_TOOLS[server];
  const companion = server === 'companion';
  const entry = server === 'reference' ? referenceEntry : companionEntry;
  const writeArgs = (content: string) => (companion ? { mode: 'overwrite', content } : { content });
  return {
    async read() {
      const text = textOf(await client.callTool({ name: names.read, arguments: { path: ws.file } }), names.read);
      if (text !== ws.content) throw new Error(`${names.read} answered other text than the file holds`);
    },
    async list() {
      checkListing(textOf(await client.callTool({ name: names.list, arguments: { path: ws.folder } }), names.list), names.list, false, entry);
    },
    async listSizes() {
      const args = companion ? { path: ws.folder, sizes: true } : { path: ws.folder };
      checkListing(textOf(await client.callTool({ name: names.listSizes, arguments: args }), names.listSizes), names.listSizes, true, entry);
    },
    async write(tag) {
      textOf(await client.callTool({ name: names.write, arguments: { path: target, ...writeArgs(kilobyte(tag)) } }), names.write);
    },
    async floor() {
      await client.ping();
    },
  };
}

function runCaller(http: HttpJsonClient, ws: Workspace): Caller {
  // the floor reads back the latest read's run (older ones leave the run store's 2000)
  let lastRead: string | undefined;
  return {
    async read() {
      const response = await http.post('/v1/run', runRequest('fs.read', { path: ws.file }));
      const body = response.json as { status?: string; runId?: string; resultText?: string };
      if (response.status !== 200 || body.status !== 'done') throw new Error(`fs.read through /v1/run failed: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      if (mcpResultText(body.resultText ?? '') !== ws.content) throw new Error('fs.read through /v1/run answered other text than the file holds');
      lastRead = body.runId;
    },
    async list() {
      checkListing(await callViaRun(http, 'fs.ls', { path: ws.folder }), 'fs.ls through /v1/run', false, companionEntry);
    },
    async listSizes() {
      checkListing(await callViaRun(http, 'fs.ls', { path: ws.folder, sizes: true }), 'fs.ls sizes: true through /v1/run', true, companionEntry);
    },
    async write(tag) {
      await callViaRun(http, 'fs.write', { path: ws.written.run, mode: 'overwrite', content: kilobyte(tag) });
    },
    async floor() {
      if (lastRead === undefined) await this.read();
      const answer = await http.get(`/v1/runs/${lastRead}`);
      if (answer.status !== 200 || (answer.json as { status?: string }).status !== 'done') throw new Error(`GET /v1/runs/${lastRead} answered ${answer.status}`);
    },
  };
}

/** `fetch`: the transport's own (Node's fetch) when not given */
async function connectMcp(companion: CompanionProcess, fetch?: HttpFetch['fetch']): Promise<Client> {
  const client = new Client({ name: 'chatbridge-bench-reference', version: '1.0.0' });
  const url = new URL(`http://127.0.0.1:${companion.port}/mcp`);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${companion.token}` } }, ...(fetch ? { fetch } : {}) }));
  return client;
}

/** The SDK client over Streamable HTTP to the least server; `fetch`: the transport's own when not given. */
async function connectLeast(port: number, fetch?: HttpFetch['fetch']): Promise<Client> {
  const client = new Client({ name: 'chatbridge-bench-reference', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), fetch ? { fetch } : {}));
  return client;
}

async function connectReference(root: string): Promise<Client> {
  const client = new Client({ name: 'chatbridge-bench-reference', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [REFERENCE, root], stderr: 'ignore' }));
  return client;
}

/** A node child process that prints the port it listens on: `args` after node's path. */
async function startPortPrinter(what: string, args: string[]): Promise<{ port: number; stop(): void }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before it listened`)));
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  return { port, stop: () => child.kill() };
}

/** A node:http server in a child process that answers any request with `{"status":"done"}`, once the body is read. */
function startBareHttp(): Promise<{ port: number; stop(): void }> {
  const script = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => { s.writeHead(200, { 'content-type': 'application/json', 'content-length': 17 }); s.end('{"status":"done"}'); }); }).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
  return startPortPrinter('the bare node:http server', ['-e', script]);
}

async function timed(count: number, call: (i: number) => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = nowMs();
    await call(i);
    times.push(nowMs() - started);
  }
  return times;
}

/**
 * What one fsync costs on its own here: a 1 KB file written and fsync'd in the companion's data directory (the
 * journal's file system), only the fsync timed. The journal's promise needs several in turn per change.
 */
async function fsyncAlone(dir: string, count: number): Promise<number[]> {
  const times: number[] = [];
  const bytes = Buffer.from(kilobyte('fsync'));
  for (let i = 0; i < count; i++) {
    const handle = await open(join(dir, `fsync-${i % 4}.bin`), 'w');
    try {
      await handle.write(bytes);
      const started = nowMs();
      await handle.sync();
      times.push(nowMs() - started);
    } finally {
      await handle.close();
    }
  }
  return times;
}

async function throughput(http: HttpJsonClient, ws: Workspace, clients: number, perClient: number): Promise<number> {
  const started = nowMs();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < perClient; i++) if ((await callViaRun(http, 'fs.read', { path: ws.file })) !== ws.content) throw new Error('fs.read answered other text');
    }),
  );
  return (clients * perClient) / ((nowMs() - started) / 1000);
}

function makeWorkspace(base: string): Workspace {
  const root = join(base, 'workspace');
  const folder = join(root, 'thousand');
  mkdirSync(folder, { recursive: true });
  for (let i = 0; i < LIST_SIZE; i++) writeFileSync(join(folder, `file-${String(i).padStart(4, '0')}.txt`), `file ${i}\n`);
  const content = kilobyte('read');
  const file = join(root, 'one-kilobyte.txt');
  writeFileSync(file, content);
  const written: Record<Path, string> = {
    reference: join(root, 'written-reference.txt'),
    mcp: join(root, 'written-mcp.txt'),
    mcpFetch: join(root, 'written-mcp-fetch.txt'),
    run: join(root, 'written-run.txt'),
    least: join(root, 'written-least.txt'),
    leastFetch: join(root, 'written-least-fetch.txt'),
  };
  // every write overwrites an existing file, on every path
  for (const target of Object.values(written)) writeFileSync(target, kilobyte('seed'));
  return { root, file, content, folder, written };
}

export async function runReferenceFsBench(options: ReferenceFsBenchOptions): Promise<Figure[]> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-bench-reference-')));
  const ws = makeWorkspace(base);
  const companion = await startCompanionProcess({ root: ws.root, home: join(base, 'home'), config: { modes: { write: 'auto' } } });
  const http = createHttpJsonClient(companion.port, companion.token, 1);
  const pool = createHttpJsonClient(companion.port, companion.token, options.concurrency);
  const reference = await connectReference(ws.root);
  const nodeFetch = createHttpFetch();
  const bareServer = await startBareHttp();
  const leastServer = await startPortPrinter('the least Streamable HTTP server', [fileURLToPath(new URL('least-http-mcp.mjs', import.meta.url))]);
  // the least server keeps nothing between calls: one client each for the whole bench
  const least = await connectLeast(leastServer.port);
  const leastFetch = await connectLeast(leastServer.port, nodeFetch.fetch);
  const bare = createHttpJsonClient(bareServer.port, 'none', 1);
  const bareP50: number[] = [];
  const samples = Object.fromEntries(OPS.flatMap((op) => PATHS.map((p) => [`${op}:${p}`, { p50: [] as number[], p99: [] as number[], ratio: [] as number[] }]))) as Record<
    `${Op}:${Path}`,
    { p50: number[]; p99: number[]; ratio: number[] }
  >;
  /** per run: read p50 − floor p50 of the same path, what reading the file costs on top of the round trip */
  const overFloor: Record<Path, number[]> = { reference: [], mcp: [], mcpFetch: [], run: [], least: [], leastFetch: [] };
  const rps: number[] = [];
  const cpuPerCall: number[] = [];
  const fsyncP50: number[] = [];
  const fsyncDir = join(base, 'home', 'fsync-alone');
  let tag = 0;
  try {
    const referenceCaller = sdkCaller(reference, 'reference', ws, ws.written.reference);
    const leastCallers = { least: sdkCaller(least, 'least', ws, ws.written.least), leastFetch: sdkCaller(leastFetch, 'least', ws, ws.written.leastFetch) };
    const runs = runCaller(http, ws);
    // warm-up: JIT on all sides, the run store's and journal's first appends, sockets
    const warmMcp = await connectMcp(companion);
    const warmMcpFetch = await connectMcp(companion, nodeFetch.fetch);
    const warm: Record<Path, Caller> = {
      reference: referenceCaller,
      mcp: sdkCaller(warmMcp, 'companion', ws, ws.written.mcp),
      mcpFetch: sdkCaller(warmMcpFetch, 'companion', ws, ws.written.mcpFetch),
      run: runs,
      ...leastCallers,
    };
    for (const path of PATHS) {
      await timed(100, () => warm[path].read());
      await timed(30, () => warm[path].list());
      await timed(30, () => warm[path].listSizes());
      await timed(50, () => warm[path].write(`w${(tag += 1)}`));
      await timed(100, () => warm[path].floor());
    }
    await timed(100, () => bare.get('/').then(() => undefined));
    await warmMcp.close();
    await warmMcpFetch.close();
    await throughput(pool, ws, options.concurrency, 10);

    for (let run = 1; run <= options.runs; run++) {
      // a fresh /mcp client per run (the SDK client adds a listener per call to one signal; see companion.ts)
      const mcp = await connectMcp(companion);
      const mcpFetch = await connectMcp(companion, nodeFetch.fetch);
      const callers: Record<Path, Caller> = {
        reference: referenceCaller,
        mcp: sdkCaller(mcp, 'companion', ws, ws.written.mcp),
        mcpFetch: sdkCaller(mcpFetch, 'companion', ws, ws.written.mcpFetch),
        run: runs,
        ...leastCallers,
      };
      const times = Object.fromEntries(OPS.flatMap((op) => PATHS.map((p) => [`${op}:${p}`, [] as number[]]))) as Record<`${Op}:${Path}`, number[]>;
      const bareTimes: number[] = [];
      for (let done = 0; done < options.requests; done += BLOCK) {
        const n = Math.min(BLOCK, options.requests - done);
        for (const op of OPS) {
          for (const path of PATHS) {
            const caller = callers[path];
            const call =
              op === 'read'
                ? () => caller.read()
                : op === 'list'
                  ? () => caller.list()
                  : op === 'listSizes'
                    ? () => caller.listSizes()
                    : op === 'floor'
                      ? () => caller.floor()
                      : () => caller.write(`r${run}-${(tag += 1)}`);
            times[`${op}:${path}`].push(...(await timed(n, call)));
          }
        }
        bareTimes.push(...(await timed(n, () => bare.get('/').then(() => undefined))));
      }
      bareP50.push(percentile(bareTimes, 50));
      await mcp.close();
      await mcpFetch.close();
      mkdirSync(fsyncDir, { recursive: true });
      fsyncP50.push(percentile(await fsyncAlone(fsyncDir, 100), 50));
      // the last write of each path is on disk as sent
      for (const path of PATHS) if (!readFileSync(ws.written[path], 'utf8').startsWith('line 00 r')) throw new Error(`the ${path} writes did not land in ${ws.written[path]}`);
      for (const op of OPS) {
        const referenceP50 = percentile(times[`${op}:reference`], 50);
        for (const path of PATHS) {
          const s = samples[`${op}:${path}`];
          s.p50.push(percentile(times[`${op}:${path}`], 50));
          s.p99.push(percentile(times[`${op}:${path}`], 99));
          s.ratio.push(percentile(times[`${op}:${path}`], 50) / referenceP50);
        }
      }
      for (const path of PATHS) overFloor[path].push(percentile(times[`read:${path}`], 50) - percentile(times[`floor:${path}`], 50));
      const before = cpuMs(companion.pid);
      rps.push(await throughput(pool, ws, options.concurrency, options.perClient));
      const after = cpuMs(companion.pid);
      if (before !== undefined && after !== undefined) cpuPerCall.push((after - before) / (options.concurrency * options.perClient));
      const line = OPS.map(
        (op) => `${op} ${PATHS.map((p) => samples[`${op}:${p}`].p50.at(-1)?.toFixed(2)).join('/')} ms`,
      ).join('; ');
      options.log(`  reference run ${run}/${options.runs} (${PATHS.join('/')} p50): ${line}; /v1/run ${options.concurrency} clients ${rps.at(-1)?.toFixed(0)} req/s`);
    }
  } finally {
    http.close();
    pool.close();
    nodeFetch.close();
    bare.close();
    bareServer.stop();
    leastServer.stop();
    await reference.close();
    await least.close();
    await leastFetch.close();
    await companion.stop();
    rmSync(base, { recursive: true, force: true });
  }

  const seq = `${options.requests} sequential calls per path per run, operations and paths alternating in blocks of ${BLOCK}`;
  const figures: Figure[] = [];
  for (const op of OPS) {
    for (const path of PATHS) {
      const s = samples[`${op}:${path}`];
      figures.push(figureOf(`reference: ${OP_NAME[op]}, ${PATH_NAME[path]}, p50`, 'ms', s.p50, null, seq));
      if (!LEAST_PATHS.includes(path)) figures.push(figureOf(`reference: ${OP_NAME[op]}, ${PATH_NAME[path]}, p99`, 'ms', s.p99, null, seq));
    }
    if (op === 'floor') {
      figures.push(figureOf('reference: round trip of a bare node:http server (no framework, no guard, no tool), the /v1/run client, p50', 'ms', bareP50, null, 'timed in the same blocks'));
      for (const path of PATHS) figures.push(figureOf(`reference: read a 1 KB file − the round trip without a tool, ${PATH_NAME[path]}, p50`, 'ms', overFloor[path], null, 'within each run'));
      continue;
    }
    for (const path of ['mcp', 'mcpFetch', 'run', ...LEAST_PATHS] as const) {
      const max = RATIO_BUDGET[op];
      // the least server's ratio is the floor the budget is held against, not a figure of the companion's
      const budget = LEAST_PATHS.includes(path) ? null : { max, inclusive: true, text: `≤ ${max}×` };
      // a listing names the reference's tool it is compared with: the same operation on both sides
      const against = op === 'list' || op === 'listSizes' ? `reference ${REFERENCE_TOOL[op]}` : 'reference server';
      figures.push(figureOf(`reference: ${OP_NAME[op]}, ${PATH_NAME[path]} ÷ ${against}, p50`, '×', samples[`${op}:${path}`].ratio, budget, 'within each run'));
    }
  }
  figures.push(
    figureOf('reference: one fsync of a 1 KB file alone (the journal\'s file system), p50', 'ms', fsyncP50, null, '100 per run; a change to a file waits for 5 fsyncs in turn'),
  );
  const conc = `${options.concurrency} concurrent clients × ${options.perClient} requests, once per run`;
  figures.push(figureOf(`reference: POST /v1/run fs.read 1 KB, ${options.concurrency} clients`, 'req/s', rps, THROUGHPUT_BUDGET, conc));
  if (cpuPerCall.length > 0) {
    figures.push(figureOf(`reference: companion CPU per fs.read via POST /v1/run, ${options.concurrency} clients`, 'ms', cpuPerCall, null, 'companion process CPU (user + system, all threads) ÷ requests'));
  }
  return figures;
}
