import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { WebSocketServer } from 'ws';
import type { ConnectionLimit } from './connection-limit';
import { DEFAULT_PORT } from '../shared/api';
import { ToolError } from '../shared/errors';
import { createApp } from './app';
import { MIN_TOKEN_LENGTH, oneLine, type Io, type StartOptions } from './cli';
import { remoteMountHolding } from './fsx/mounts';
import { ensureHome, fromHomeFolder, readVersion, resolveHome, writeFileAtomic, type HomePaths } from './home';
import { lockHome } from './home-lock';
import { createJournal } from './journal';
import { runAutocoderPlan, runAxonPlan } from './plans';
import { configuredCredentials } from './mcp-servers/config';
import { createMcpServers } from './mcp-servers/registry';
import { loadPolicy } from './policy/load-config';
import { protectDataDir } from './policy/data-dir';
import { withOwnSecrets } from './policy/redact';
import { createProcessManager, createProgramRecords, stopLeftoverPrograms } from './processes';
import { requestTimeoutOptions, type RequestTimeouts } from './request-timeouts';
import { toolHandlers } from './tools';
import { createWebSocketServer } from './ws/ws-route';
import { extensionBuildIsCurrent } from './extension-build';
import { commandHow } from './how-to-run';

/**
 * `chatbridge start` (cli.ts loads this module for it alone): the companion's one listening socket, and everything a
 * start does before it answers — the data directory locked, the journal recovered, leftover programs stopped, the
 * person's MCP servers started in the background, the extension built when its sources are newer.
 */

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `npm start` on a fresh clone: the extension is built so there is a folder to load; after an update (its sources
 * newer than the build) it is built again, and the browser, which keeps what it loaded, is to reload it.
 */
function ensureExtensionBuilt(io: Io, dist: string): void {
  if (extensionBuildIsCurrent(packageRoot, dist)) return;
  const rebuild = existsSync(join(dist, 'manifest.json'));
  io.out(rebuild ? 'the extension is older than its sources: building it again (npx wxt build)…' : 'building the extension (npx wxt build)…');
  const result = spawnSync('npx', ['wxt', 'build'], { cwd: packageRoot, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) io.err(`the extension build failed (exit ${String(result.status)}); run \`npm run build\` to see why`);
  else if (rebuild) io.out('  built again: press the reload arrow on chatbridge in chrome://extensions, where it was loaded before');
}

/**
 * Where to load the extension from — or, when that folder holds no build (`--no-build` on a fresh clone, a build
 * that failed), that there is nothing to load yet and how to make it: a folder named as if it were there sent a
 * new person to Load unpacked with nothing to pick.
 */
function tellExtensionFolder(io: Io, dist: string, packageDir: string): void {
  if (existsSync(join(dist, 'manifest.json'))) {
    io.out(`load the extension from: ${dist}`);
    io.out(`  (chrome://extensions → Developer mode → Load unpacked)`);
    return;
  }
  io.err(`the extension is not built: ${dist} holds no manifest.json. Run \`npm run build\` in ${packageDir}, then load that folder (chrome://extensions → Developer mode → Load unpacked); the companion is running meanwhile`);
}

export interface ServeOptions {
  fetch: (request: Request) => Response | Promise<Response>;
  /** 0 picks a free port */
  port: number;
  /** the ws server `/ws` upgrades go to (createWebSocketServer) */
  wss: WebSocketServer;
  /** defaults in request-timeouts.ts; tests shorten them */
  timeouts?: Partial<RequestTimeouts>;
  /** the app's cap on connections without a token (CompanionApp.connections) */
  connections?: ConnectionLimit;
}

/**
 * The companion's one listening socket: HTTP, `/ws` and `/mcp` on 127.0.0.1, with request timeouts. Resolves with
 * the server once it listens; a listen error (EADDRINUSE, EACCES) rejects.
 */
export function serveCompanion(options: ServeOptions): Promise<ServerType> {
  return new Promise<ServerType>((resolvePromise, reject) => {
    const server = serve(
      {
        fetch: options.fetch,
        port: options.port,
        hostname: '127.0.0.1',
        websocket: { server: options.wss },
        serverOptions: requestTimeoutOptions(options.timeouts),
      },
      () => resolvePromise(server),
    );
    options.connections?.watch(server as Server);
    server.once('error', reject);
  });
}

export interface RunningCompanion {
  port: number;
  server: ServerType;
  shutdown(): Promise<void>;
}

export async function startCompanion(options: StartOptions, io: Io): Promise<RunningCompanion> {
  const envToken = io.env.CHATBRIDGE_TOKEN;
  if (options.token === undefined && envToken !== undefined && envToken !== '' && envToken.length < MIN_TOKEN_LENGTH) {
    throw new ToolError('INVALID_INPUT', `CHATBRIDGE_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters`);
  }
  if (options.token !== undefined) {
    // the command line of every process is readable by every user of the machine (ps, /proc/<pid>/cmdline), its
    // environment only by the same user
    io.err(
      'warning: --token shows in the process list to every user of this machine (ps, /proc/<pid>/cmdline) for as long as chatbridge runs; set CHATBRIDGE_TOKEN in the environment instead',
    );
  }
  const home = resolveHome(io.env, io.cwd);
  const paths = ensureHome(home);
  // before anything reads the journal or the run log: they are this process's alone until shutdown
  const releaseHome = lockHome(home, paths.lock);
  return startOnLockedHome(options, io, paths, releaseHome).catch((error: unknown) => {
    releaseHome();
    throw error;
  });
}

async function startOnLockedHome(options: StartOptions, io: Io, paths: HomePaths, releaseHome: () => void): Promise<RunningCompanion> {
  const home = paths.root;
  // the folder the command was typed in, `npm start`'s too (main.ts)
  const cwd = io.cwd;
  // without --config, <home>/config.json when it exists (`chatbridge mcp add` writes it)
  const configFile = options.config !== undefined ? resolve(cwd, fromHomeFolder(options.config)) : existsSync(paths.config) ? paths.config : undefined;
  const presetToken = options.token ?? io.env.CHATBRIDGE_TOKEN;
  const cliToken = randomBytes(32).toString('base64url');
  const loaded = loadPolicy({ ...(configFile ? { configFile } : {}), roots: options.roots, cwd });
  // no tool reaches the data directory or the config file (read as loadPolicy reads it), and the tokens this
  // process knows in plain text never show in an answer, whatever path their bytes take
  const ownConfig = configFile;
  // nor do the credentials written into the person's MCP servers' env and headers, which a server may quote back
  const policy = withOwnSecrets(protectDataDir(loaded, home, ownConfig), [cliToken, presetToken, ...configuredCredentials(loaded.mcpServers ?? {})]);
  const extensionDir = join(packageRoot, 'dist', 'chrome-mv3');
  if (options.build) ensureExtensionBuilt(io, extensionDir);

  const journal = createJournal({
    dir: paths.journal,
    policy,
    onQuarantine: (id, reason) => io.out(`journal: entry ${id} failed validation (${reason}); moved to ${join(paths.journal, 'quarantine', id)}, never applied`),
    onKeptAsFound: (id, kept) =>
      io.out(`journal: unfinished change ${id} rolled back, but not over what was changed after it was interrupted, kept as found: ${kept.join('; ')}; what they held before the change is kept in journal entry ${id} under ${paths.journal}`),
  });
  const repaired = await journal.recover();
  if (repaired.length > 0) io.out(`journal: rolled back ${repaired.length} unfinished change(s): ${repaired.join(', ')}`);
  await journal.prune();
  // programs a previous run started and could not stop (it was killed, or crashed) are stopped before new ones run
  const leftovers = await stopLeftoverPrograms(paths.programs);
  const stopped = leftovers.stopped.length;
  if (stopped > 0) io.out(`stopped ${stopped} program${stopped === 1 ? '' : 's'} left running by a previous run: ${leftovers.stopped.map((r) => oneLine(r.command)).join('; ')}`);
  if (leftovers.unverifiable.length > 0) {
    io.out(`${leftovers.unverifiable.length} program(s) of a previous run may still be running (this system cannot verify process identity): ${leftovers.unverifiable.map((r) => `pid ${r.pid} ${oneLine(r.command)}`).join('; ')}`);
  }
  const processes = createProcessManager({ recordDir: paths.programs });
  const mcpServers = createMcpServers({
    policy,
    home,
    version: readVersion(),
    records: createProgramRecords(paths.programs),
    ...(ownConfig !== undefined ? { configFile: ownConfig } : {}),
  });

  let port = options.port;
  const companion = createApp({
    policy,
    journal,
    processes,
    home,
    tools: toolHandlers,
    plans: { runAutocoderPlan, runAxonPlan },
    getPort: () => port,
    mcpServers,
  });
  if (presetToken) companion.tokens.addEphemeral(presetToken);
  companion.tokens.addEphemeral(cliToken);

  const wss = createWebSocketServer();
  const pickAnother = `pick another with ${io.env.npm_lifecycle_event === 'start' ? 'npm start -- --port N' : '--port N'} (0 = any free port)`;
  const server = await serveCompanion({ fetch: companion.app.fetch, port: options.port, wss, connections: companion.connections }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') {
      throw new ToolError('CONFLICT', `port ${options.port} is in use — is chatbridge already running (${commandHow('status')})? Or ${pickAnother}`);
    }
    // `--port 80` as a person, not an administrator: Node said only "listen EACCES: permission denied 127.0.0.1:80"
    if (error.code === 'EACCES') {
      throw new ToolError(
        'FORBIDDEN',
        `port ${options.port} may not be opened by this user (on most systems a port below 1024 needs administrator rights; the default is ${DEFAULT_PORT}): ${pickAnother}`,
      );
    }
    throw error;
  });
  port = (server.address() as AddressInfo).port;

  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    stopping ??= (async () => {
      const closed = new Promise<void>((r) => server.close(() => r()));
      // idle keep-alive sockets and upgraded ws connections (the extension's) must not hold the exit
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      for (const client of wss.clients) client.terminate();
      await closed;
      await processes.stopAll();
      await mcpServers.close();
      await companion.close();
      rmSync(paths.runtime, { force: true });
      rmSync(paths.cliToken, { force: true });
      releaseHome();
    })();
    return stopping;
  };

  // the person's own MCP servers start in the background, once listening: the companion does not wait for them
  mcpServers.start();
  try {
    writeFileAtomic(paths.cliToken, cliToken);
    writeFileAtomic(paths.runtime, JSON.stringify({ port, pid: process.pid, version: companion.version, startedAt: new Date().toISOString() }));
  } catch (error) {
    // a start that fails here (the data dir's disk full) must not go on listening, unlocked and unfindable by the CLI
    await shutdown();
    throw error;
  }
  const { code, expiresAt } = companion.pairing.newCode();

  io.out(`chatbridge ${companion.version} listening on http://127.0.0.1:${port}`);
  io.out(`port: ${port}`);
  io.out(`workspace root${policy.roots.length > 1 ? 's' : ''}: ${policy.roots.join(', ')}`);
  io.out(`data: ${home}`);
  const slowHome = remoteMountHolding(home);
  if (slowHome) {
    io.out(
      `  note: it is on ${slowHome.type} (mounted at ${slowHome.mountPoint}), a network or FUSE file system: every change waits for the journal's fsyncs there, and every call's log lines. A folder on a local disk (CHATBRIDGE_HOME) is faster, and keeps working when that server does not answer.`,
    );
  }
  if (configFile) io.out(`config: ${configFile}`);
  const servers = mcpServers.health();
  // a broken entry is not starting: it is named with its problem instead
  const starting = servers.filter((s) => s.transport !== 'invalid' && s.state !== 'disabled');
  if (starting.length > 0) io.out(`MCP servers: ${starting.map((s) => s.name).join(', ')} (starting in the background; ${commandHow('mcp list')})`);
  for (const broken of servers.filter((s) => s.transport === 'invalid')) io.out(`MCP server ${broken.name} cannot start: ${broken.lastError ?? ''}`);
  tellExtensionFolder(io, extensionDir, packageRoot);
  if (port !== DEFAULT_PORT) {
    // the popup pairs with the default address until told another: a code typed there went to a port nobody listens on
    io.out(`the popup looks for the companion at http://127.0.0.1:${DEFAULT_PORT}: before Pair, open its "Companion URL" and type http://127.0.0.1:${port}`);
  }
  io.out(`pairing code: ${code}  (type it into the extension's popup; valid until ${new Date(expiresAt).toLocaleTimeString()}, 5 tries)`);

  return { port, server, shutdown };
}
