import { existsSync, readFileSync } from 'node:fs';
import type { McpServerHealth } from '../shared/api';
import { MAX_AUDIT_LIMIT } from '../shared/audit-limit';
import { DEFAULT_PORT } from '../shared/default-port';
import { ToolError } from '../shared/errors';
import { revealHidden } from '../shared/reveal-hidden';
import { homePaths, readVersion, resolveHome } from './home';
import { START_HOW, commandHow } from './how-to-run';

/**
 * The `chatbridge` command line (DESIGN §5.1). Every command but `start` talks to the running companion over
 * HTTP, finding it through `<home>/companion.json` and authenticating with `CHATBRIDGE_TOKEN` or the CLI token
 * the companion writes to `<home>/cli.token` (mode 0600, new at every start).
 */
export const HELP = `chatbridge — run the tool blocks a chat model writes, on your machine, under your policy

Usage (in a clone, type these in its folder as \`npm start -- [options]\` and \`npx chatbridge <command>\`):
  chatbridge start [--root DIR]... [--port N] [--config FILE] [--token T] [--no-build]
      Start the companion on 127.0.0.1 (default port ${DEFAULT_PORT}; --port 0 picks a free one).
      Roots default to the current directory. Prints the extension folder to load, the port and a pairing code.
      --token shows in the process list to every user of the machine: prefer CHATBRIDGE_TOKEN.
      Ctrl-C in its terminal (or a SIGTERM) stops it, after running changes finish and programs are stopped.
  chatbridge pair       Ask the running companion for a new pairing code.
  chatbridge status     Is the companion running, on which port, is an extension paired.
  chatbridge undo [ID]  Undo a journal entry (default: the latest applied one).
  chatbridge audit [--limit N]  Print the latest audit records (default 20, at most ${MAX_AUDIT_LIMIT}).
  chatbridge mcp list|add|remove|import   Your own MCP servers (chatbridge mcp --help).
  chatbridge --help

Environment:
  CHATBRIDGE_HOME   data directory (default ~/.chatbridge)
  CHATBRIDGE_TOKEN  a bearer token (16+ characters) that 'start' accepts, for scripted use; the other commands
                    use the token the running companion writes to <home>/cli.token, else this one
`;

const COMMANDS = new Set(['start', 'pair', 'status', 'undo', 'audit', 'mcp']);

/** a preset token guards a daemon with shell access: no short ones */
export const MIN_TOKEN_LENGTH = 16;

export interface StartOptions {
  roots: string[];
  port: number;
  config?: string;
  token?: string;
  build: boolean;
}

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** A field printed within one line (a record, a list): its line breaks are shown, not taken. */
export function oneLine(text: string): string {
  return revealHidden(text, { oneLine: true });
}

/** Parses `start`'s flags; throws ToolError naming the flag and the rule. */
export function parseStartArgs(args: string[]): StartOptions {
  const options: StartOptions = { roots: [], port: DEFAULT_PORT, build: true };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined || v === '') throw new ToolError('INVALID_INPUT', `${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--root':
        options.roots.push(value());
        break;
      case '--port': {
        const raw = value();
        // digits only: Number() also reads "0x10", "1e3" and " 80 " as ports
        const port = /^\d+$/.test(raw) ? Number(raw) : NaN;
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ToolError('INVALID_INPUT', `--port ${raw} must be an integer from 0 to 65535`);
        options.port = port;
        break;
      }
      case '--config':
        options.config = value();
        break;
      case '--token': {
        const token = value();
        if (token.length < MIN_TOKEN_LENGTH) throw new ToolError('INVALID_INPUT', `--token must be at least ${MIN_TOKEN_LENGTH} characters`);
        options.token = token;
        break;
      }
      case '--no-build':
        options.build = false;
        break;
      default:
        throw new ToolError('INVALID_INPUT', `unknown option ${JSON.stringify(arg)} for start; see ${commandHow('--help')}`);
    }
  }
  return options;
}

/**
 * `npm start --port 8000` gives the option to npm: it keeps `--port` for itself (`npm_config_port=true` in the
 * script's environment) and passes on `8000` alone, and `--port=8000` or `--no-build` not at all — the companion
 * said '"8000" is an unknown option', or started on the default port as if nothing had been asked. Throws naming
 * the options npm kept and where they go.
 */
export function refuseOptionsNpmKept(env: NodeJS.ProcessEnv): void {
  const script = env.npm_lifecycle_event;
  if (script === undefined) return;
  const kept = ['root', 'port', 'config', 'token', 'build'].filter((name) => env[`npm_config_${name}`] !== undefined);
  if (kept.length === 0) return;
  const run = script === 'start' ? 'npm start --' : `npm run ${script} -- start`;
  throw new ToolError(
    'INVALID_INPUT',
    `npm kept ${kept.map((name) => (name === 'build' ? '--no-build' : `--${name}`)).join(', ')} for itself (an option before "--" is npm's): write the options for start after "--", as in ${run} --port 8000`,
  );
}

interface Client {
  port: number;
  token: string | undefined;
}

function findCompanion(io: Io): Client {
  const paths = homePaths(resolveHome(io.env, io.cwd));
  if (!existsSync(paths.runtime)) throw new ToolError('NOT_FOUND', `chatbridge is not running (no ${paths.runtime}); start it with ${START_HOW}`);
  let runtime: { port?: unknown };
  try {
    runtime = JSON.parse(readFileSync(paths.runtime, 'utf8')) as { port?: unknown };
  } catch (error) {
    throw new ToolError('INVALID_INPUT', `${paths.runtime} is not the runtime file a running companion writes (${error instanceof Error ? error.message : String(error)}); start the companion again (${START_HOW}) to rewrite it`);
  }
  const port = runtime?.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ToolError('INVALID_INPUT', `${paths.runtime} has no port (a port is an integer from 1 to 65535); start the companion again (${START_HOW}) to rewrite it`);
  }
  // the CLI token is written by the running companion itself, so it is right even when CHATBRIDGE_TOKEN is stale
  const token = existsSync(paths.cliToken) ? readFileSync(paths.cliToken, 'utf8').trim() : io.env.CHATBRIDGE_TOKEN || undefined;
  return { port, token };
}

async function call(client: Client, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`http://127.0.0.1:${client.port}${path}`, {
      method,
      headers: {
        ...(client.token ? { authorization: `Bearer ${client.token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ToolError('NOT_FOUND', `chatbridge is not answering on port ${client.port}; start it with ${START_HOW}`);
  }
  const json = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  if (!response.ok) throw new ToolError('INTERNAL', `${json.error?.code ?? response.status}: ${json.error?.message ?? response.statusText}`);
  return json;
}

/** The arguments of a command that takes at most `max` plain values (no options); throws naming the first extra one. */
function plainArgs(command: string, args: string[], max: number): string[] {
  const option = args.find((arg) => arg.startsWith('-'));
  if (option !== undefined) throw new ToolError('INVALID_INPUT', `unknown option ${JSON.stringify(option)} for ${command}; see ${commandHow('--help')}`);
  if (args.length > max) {
    throw new ToolError('INVALID_INPUT', `${command} takes ${max === 0 ? 'no arguments' : `at most ${max} argument`}; ${JSON.stringify(args[max])} is one too many; see ${commandHow('--help')}`);
  }
  return args;
}

/**
 * `audit`'s flags: `--limit N` (or `--limit=N`), an integer from 1 to what the companion returns at most; anything
 * else is refused naming it. A larger one was sent on, and the companion's answer named its query parameter
 * (`limit "20000"`), not the option the person typed, with the exit code of a failure rather than of a usage error.
 */
export function parseAuditArgs(args: string[]): { limit: number } {
  let limit = 20;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const inline = arg.startsWith('--limit=') ? arg.slice('--limit='.length) : undefined;
    if (arg !== '--limit' && inline === undefined) throw new ToolError('INVALID_INPUT', `unknown option ${JSON.stringify(arg)} for audit; see ${commandHow('--help')}`);
    const raw = inline ?? args[++i];
    if (raw === undefined || raw === '') throw new ToolError('INVALID_INPUT', '--limit needs a value');
    limit = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(limit) || limit < 1 || limit > MAX_AUDIT_LIMIT) {
      throw new ToolError('INVALID_INPUT', `--limit ${raw} must be a positive integer no larger than ${MAX_AUDIT_LIMIT}`);
    }
  }
  return { limit };
}

/**
 * `--help` (or `-h`) among a command's own options, before a `--`: `start --help` was refused as an unknown option,
 * and `status -h` too. `mcp` reads its own (mcpAsksForHelp): a server's command line may hold one.
 */
function asksForHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** Runs one command; resolves to the exit code (start resolves once listening and keeps the process alive). */
export async function runCli(argv: string[], terminal: Io): Promise<number> {
  // what a model chose (a path, a command, a label) reaches these lines: a terminal never gets an escape from them
  const io: Io = { ...terminal, out: (line) => terminal.out(revealHidden(line)), err: (line) => terminal.err(revealHidden(line)) };
  const [command, ...rest] = argv;
  if (command === 'mcp' ? (await import('./mcp-servers/mcp-command')).mcpAsksForHelp(rest) : command !== undefined && COMMANDS.has(command) && asksForHelp(rest)) {
    io.out(command === 'mcp' ? (await import('./mcp-servers/mcp-command')).MCP_HELP : HELP);
    return 0;
  }
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.out(HELP);
        return 0;
      case '--version':
        io.out(readVersion());
        return 0;
      case 'start': {
        refuseOptionsNpmKept(io.env);
        const options = parseStartArgs(rest);
        // The server's modules are loaded for `start` only: every other command is a short HTTP call or a config edit.
        const { startCompanion } = await import('./start-companion');
        // The signals are heard from before the start: one that came between its last line and handlers set after it
        // (a service manager's SIGTERM as soon as it read the pairing code) ended the process with no shutdown.
        let shutdown: (() => Promise<void>) | undefined;
        let stopping = false;
        const shutDown = (stopNow: () => Promise<void>): void => {
          void stopNow().then(
            () => process.exit(0),
            (error: unknown) => {
              io.err(`shutdown failed: ${String(error)}`);
              process.exit(1);
            },
          );
        };
        const stop = (signal: string) => {
          if (stopping && !shutdown) {
            // a second one while the start still runs (a journal recovery on a slow disk): the person means it
            io.out(`${signal}: stopping before the start finished`);
            process.exit(1);
          }
          // A second Ctrl-C (or a SIGTERM after it) must not end the process with a change half applied: the
          // shutdown already under way waits for running changes to finish and stops the programs.
          if (stopping) {
            io.out(`${signal}: still stopping — waiting for running changes to finish and programs to stop, so no file is left half-written`);
            return;
          }
          stopping = true;
          io.out(`${signal}: stopping programs and shutting down…`);
          // during the start: shut down as soon as it has finished
          if (shutdown) shutDown(shutdown);
        };
        process.on('SIGINT', () => stop('SIGINT'));
        process.on('SIGTERM', () => stop('SIGTERM'));
        // the terminal window closed: the programs run in their own process groups, which the hangup does not reach
        process.on('SIGHUP', () => stop('SIGHUP'));
        const running = await startCompanion(options, io);
        shutdown = running.shutdown;
        if (stopping) shutDown(shutdown);
        return -1;
      }
      case 'status': {
        plainArgs('status', rest, 0);
        let client: Client;
        try {
          client = findCompanion(io);
        } catch (error) {
          io.out(error instanceof ToolError ? error.message : String(error));
          return 1;
        }
        const status = (await call(client, 'GET', '/v1/status')) as { version: string; paired: boolean; mcp?: { servers: number; ready: number; failing: number; tools: number } };
        io.out(`chatbridge ${status.version} running on http://127.0.0.1:${client.port}; ${status.paired ? 'an extension is paired' : `no extension paired yet (${commandHow('pair')})`}`);
        if (client.token) {
          const programs = (await call(client, 'GET', '/v1/programs')) as { programs: Array<{ status: string }> };
          const approvals = (await call(client, 'GET', '/v1/approvals')) as { approvals: unknown[] };
          io.out(`programs running: ${programs.programs.filter((p) => p.status === 'running').length}; approvals waiting: ${approvals.approvals.length}`);
          const { servers } = (await call(client, 'GET', '/v1/mcp-servers')) as { servers: Array<{ name: string; state: string; tools: number; lastError?: string }> };
          for (const server of servers) io.out(`MCP server ${server.name}: ${server.state}, ${server.tools} tool${server.tools === 1 ? '' : 's'}${server.lastError ? ` — ${server.lastError}` : ''}`);
        } else if (status.mcp && status.mcp.servers > 0) {
          io.out(`MCP servers: ${status.mcp.ready} of ${status.mcp.servers} ready, ${status.mcp.tools} tools${status.mcp.failing > 0 ? `, ${status.mcp.failing} failing` : ''}`);
        }
        return 0;
      }
      case 'mcp': {
        const { runMcpCommand } = await import('./mcp-servers/mcp-command');
        return await runMcpCommand(rest, {
          out: io.out,
          env: io.env,
          cwd: io.cwd,
          async liveHealth() {
            try {
              const client = findCompanion(io);
              if (!client.token) return undefined;
              return ((await call(client, 'GET', '/v1/mcp-servers')) as { servers: McpServerHealth[] }).servers;
            } catch {
              return undefined;
            }
          },
        });
      }
      case 'pair': {
        plainArgs('pair', rest, 0);
        const client = findCompanion(io);
        const { code, expiresAt } = (await call(client, 'POST', '/v1/pair/code')) as { code: string; expiresAt: string };
        io.out(`pairing code: ${code}  (valid until ${new Date(expiresAt).toLocaleTimeString()}, 5 tries)`);
        return 0;
      }
      case 'undo': {
        let [id] = plainArgs('undo', rest, 1);
        const client = findCompanion(io);
        if (!id) {
          const { entries } = (await call(client, 'GET', '/v1/journal?limit=200')) as { entries: Array<{ id: string; state: string }> };
          id = entries.find((e) => e.state === 'applied')?.id;
          if (!id) {
            io.out('nothing to undo');
            return 0;
          }
        }
        const { entry } = (await call(client, 'POST', `/v1/journal/${encodeURIComponent(id)}/undo`)) as { entry: { id: string; label: string; paths: string[] } };
        io.out(`undone ${entry.id}: ${oneLine(entry.label)} (${entry.paths.map(oneLine).join(', ')})`);
        return 0;
      }
      case 'audit': {
        const { limit } = parseAuditArgs(rest);
        const client = findCompanion(io);
        const { records } = (await call(client, 'GET', `/v1/audit?limit=${limit}`)) as {
          records: Array<{ time: string; auditId: string; site: string; tool: string; decision: string; outcome: string; durationMs: number; paths: string[]; commands: string[] }>;
        };
        if (records.length === 0) io.out('no audit records yet');
        for (const r of records) {
          const fields = [r.time, r.auditId, r.site, r.tool, `decision=${r.decision}`, `outcome=${r.outcome}`, `${r.durationMs}ms`, ...r.paths, ...r.commands];
          io.out(fields.map(oneLine).join(' ').trim());
        }
        return 0;
      }
      case 'stop':
        // the command a person guesses first: the whole help said nothing of how the companion stops
        io.err(`chatbridge has no stop command: press Ctrl-C in the terminal the companion runs in (a SIGTERM to it does the same); ${commandHow('status')} says whether it still runs`);
        return 2;
      default:
        io.err(`unknown command ${JSON.stringify(command)}\n\n${HELP}`);
        return 2;
    }
  } catch (error) {
    io.err(`chatbridge: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof ToolError && error.code === 'INVALID_INPUT' ? 2 : 1;
  }
}
