import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { ToolError } from '../../shared/errors';
import type { McpServerHealth } from '../../shared/api';
import { fromHomeFolder, homePaths, resolveHome } from '../home';
import { BUILTIN_REDACTIONS, REDACTED, redact } from '../policy/redact';
import { limitsSchema } from '../policy/schema';
import { isPlainWord, parseMcpServer, parseMcpServers, specCredentials, type McpServerSpec } from './config';
import { readConfigObject, serversOf, writeConfigObject } from './config-file';
import { desktopConfigSources, planImport, type ImportCandidate } from './import';
import { shownUrl } from './shown-url';
import { commandHow } from '../how-to-run';

/**
 * `chatbridge mcp …` (issue 11 §1): list, add, remove and import the person's MCP servers. Edits the config file
 * (`--config FILE`, else `<home>/config.json`, which `chatbridge start` loads when given no --config); a running
 * companion picks the change up when it is restarted. `list` asks the running companion for live health, and
 * falls back to what the config file says.
 */
export const MCP_HELP = `chatbridge mcp — your own MCP servers, usable from any chat under chatbridge's policy

  chatbridge mcp list                               servers, state, tools, last error
  chatbridge mcp add NAME [--env K=V]... [--cwd DIR] [--start-timeout-ms MS] -- COMMAND [ARGS...]
  chatbridge mcp add NAME --url URL [--header "Name: value"]... [--sse] [--start-timeout-ms MS]
  chatbridge mcp remove NAME
  chatbridge mcp import [--yes]                     servers from Claude Desktop, Claude Code, Cursor, Windsurf, VS Code

  --start-timeout-ms MS   how long the server may take to start and list its tools (its startTimeoutMs:
                          1000–600000, default 30000); more for one that downloads itself first (npx -y, docker run)
  --config FILE           the config file to read and change (default <home>/config.json)
Tools are named <server>.<tool>. Every call asks for approval unless the server's "policy" in the config says
otherwise (see the README, "Your MCP servers"). Restart chatbridge after a change.
`;

export interface McpCommandIo {
  out: (line: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** live health from the running companion; undefined when it is not running */
  liveHealth: () => Promise<McpServerHealth[] | undefined>;
}

interface Flags {
  config?: string;
  positional: string[];
  env: string[];
  headers: string[];
  cwd?: string;
  url?: string;
  startTimeoutMs?: string;
  sse: boolean;
  yes: boolean;
  /** everything after `--` */
  command: string[];
  /**
   * `mcp add NAME COMMAND ARGS…` without `--`: the words from COMMAND on, as written, and ours before them. They are
   * the command's: its own options (`npx -y`, `--port 3000`) were read as ours — `-y` as `--yes`, and dropped from
   * the line add then told the person to type.
   */
  unseparated?: { ours: string[]; command: string[] };
  /** --help or -h among our options */
  help: boolean;
}

/**
 * Whether `chatbridge mcp …` asks for its help: --help or -h among our options, not among a server's command's
 * (after `--`, or after the command's name in `mcp add NAME COMMAND …`, which is then refused saying what to type).
 */
export function mcpAsksForHelp(args: string[]): boolean {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h') return true;
  try {
    return parseFlags(rest, sub === 'add' ? 1 : undefined).help;
  } catch {
    // an option refused before it: the help is what the person needs
    const end = rest.indexOf('--');
    return (end === -1 ? rest : rest.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
  }
}

/** `positionals`: how many words the subcommand takes before a command of its own may start (add: NAME); none: no command */
function parseFlags(args: string[], positionals?: number): Flags {
  const flags: Flags = { positional: [], env: [], headers: [], sse: false, yes: false, command: [], help: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      flags.command = args.slice(i + 1);
      break;
    }
    if (positionals !== undefined && flags.positional.length === positionals && !arg.startsWith('-')) {
      flags.unseparated = { ours: args.slice(0, i), command: args.slice(i) };
      break;
    }
    const value = (): string => {
      const v = args[++i];
      if (v === undefined) throw new ToolError('INVALID_INPUT', `${arg} needs a value`);
      return v;
    };
    switch (arg) {
      case '--config':
        flags.config = value();
        break;
      case '--env':
        flags.env.push(value());
        break;
      case '--header':
        flags.headers.push(value());
        break;
      case '--cwd':
        flags.cwd = value();
        break;
      case '--url':
        flags.url = value();
        break;
      case '--start-timeout-ms':
        flags.startTimeoutMs = value();
        break;
      case '--sse':
        flags.sse = true;
        break;
      case '--yes':
      case '-y':
        flags.yes = true;
        break;
      case '--help':
      case '-h':
        flags.help = true;
        break;
      default:
        if (arg.startsWith('-')) throw new ToolError('INVALID_INPUT', `unknown option ${JSON.stringify(arg)}; see ${commandHow('mcp --help')}`);
        flags.positional.push(arg);
    }
  }
  return flags;
}

function configFile(flags: Flags, io: McpCommandIo): string {
  return flags.config ? resolve(io.cwd, flags.config) : homePaths(resolveHome(io.env, io.cwd)).config;
}

/** The built-in secret patterns: a password in a URL, a key after --api-key, a known token's shape. */
const BUILTIN_SECRETS = { redact: [...BUILTIN_REDACTIONS] };

/**
 * What a server is, shown without its env values or header values (they may be tokens), without a URL's query or
 * the parts of its path that look like a key (shown-url.ts), and with what looks like a secret in its command line
 * redacted (`postgresql://app:…@db`, `--api-key sk-…`).
 */
export function describeSpec(spec: McpServerSpec): string {
  const start = spec.startTimeoutMs !== undefined ? `  (start timeout: ${spec.startTimeoutMs} ms)` : '';
  if (spec.transport === 'stdio') {
    const env = Object.keys(spec.env);
    const commandLine = specCredentials(spec).reduce((line, secret) => hideCredential(line, secret), [spec.command, ...spec.args].join(' '));
    return `${redact(commandLine, BUILTIN_SECRETS)}${spec.cwd !== undefined ? `  (in ${spec.cwd})` : ''}${env.length > 0 ? `  (env: ${env.join(', ')})` : ''}${start}`;
  }
  const shown = shownUrl(spec.url);
  const headers = Object.keys(spec.headers);
  return `${spec.transport === 'sse' ? 'sse ' : ''}${shown}${headers.length > 0 ? `  (headers: ${headers.join(', ')})` : ''}${start}`;
}

/**
 * A credential taken out of a command line. One that is a plain word (a default password: postgres) only where it
 * stands as a value — a word of its own, or after = or : — not inside other words: every "postgres" of
 * `@modelcontextprotocol/server-postgres postgresql://postgres:postgres@localhost/postgres` was hidden, leaving
 * `server-[REDACTED] [REDACTED]ql://…`, which named neither the server nor its database.
 */
function hideCredential(line: string, secret: string): string {
  if (!isPlainWord(secret)) return line.replaceAll(secret, REDACTED);
  return line.replace(new RegExp(`(?<=^|[\\s=:])${secret}(?=$|[\\s@;,&])`, 'g'), REDACTED);
}

function describeEntry(name: string, entry: unknown): string {
  const parsed = parseMcpServer(name, entry);
  return parsed.ok ? describeSpec(parsed.spec) : JSON.stringify(entry).slice(0, 120);
}

/** A word as a POSIX shell reads it back: as it is when it holds nothing the shell would read, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function splitPair(text: string, separator: string, what: string): [string, string] {
  const at = text.indexOf(separator);
  if (at <= 0) throw new ToolError('INVALID_INPUT', `${what} ${JSON.stringify(text)} must look like ${separator === '=' ? 'KEY=value' : '"Name: value"'}`);
  return [text.slice(0, at).trim(), text.slice(at + separator.length).trim()];
}

export async function runMcpCommand(args: string[], io: McpCommandIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.out(MCP_HELP);
      return 0;
    case 'list':
      return list(parseFlags(rest), io);
    case 'add':
      return add(parseFlags(rest, 1), io);
    case 'remove':
    case 'rm':
      return remove(parseFlags(rest), io);
    case 'import':
      return importServers(parseFlags(rest), io);
    default:
      throw new ToolError('INVALID_INPUT', `unknown mcp command ${JSON.stringify(sub)}; see ${commandHow('mcp --help')}`);
  }
}

async function list(flags: Flags, io: McpCommandIo): Promise<number> {
  const file = configFile(flags, io);
  const live = flags.config ? undefined : await io.liveHealth();
  const config = readConfigObject(file);
  const servers = serversOf(config, file);
  const maxTimeoutMs = maxTimeoutOf(config);
  if (live) {
    // the running companion has the servers of its start; the file may have changed since (`mcp add`, `remove`),
    // and a list of the running ones alone said 'no MCP servers configured' right after an add
    const running = new Set(live.map((server) => server.name));
    const added = Object.keys(servers).filter((name) => !running.has(name));
    if (live.length === 0 && added.length === 0) io.out(`no MCP servers configured (add one with ${commandHow('mcp add')}, or ${commandHow('mcp import')})`);
    for (const server of live) {
      io.out(`${server.name}  ${server.state}  ${server.tools} tool${server.tools === 1 ? '' : 's'}  ${server.transport}${server.restarts > 0 ? `  restarts: ${server.restarts}` : ''}`);
      if (server.lastError) io.out(`    last error: ${server.lastError}`);
      for (const note of server.notes) if (note !== server.lastError) io.out(`    note: ${note}`);
      if (server.log) io.out(`    log: ${server.log}`);
      if (!Object.hasOwn(servers, server.name)) io.out(`    note: not in ${file}; it runs until chatbridge restarts`);
    }
    for (const name of added) {
      const parsed = parseMcpServer(name, servers[name], maxTimeoutMs);
      io.out(`${name}  not started  ${parsed.ok ? `${parsed.spec.disabled ? 'disabled  ' : ''}${describeSpec(parsed.spec)}` : `invalid  ${parsed.problems.join('; ')}`}`);
      io.out(`    note: in ${file}, not in the running chatbridge (added since it started, or it was started with another --config); restart it to start this server`);
    }
    return 0;
  }
  const parsed = parseMcpServers(servers, maxTimeoutMs);
  if (Object.keys(servers).length === 0) {
    io.out(`no MCP servers in ${file} (add one with ${commandHow('mcp add')}, or ${commandHow('mcp import')})`);
    return 0;
  }
  io.out(`${file} (chatbridge is not running; states show once it is):`);
  for (const spec of parsed.servers) io.out(`${spec.name}  ${spec.disabled ? 'disabled' : 'configured'}  ${describeSpec(spec)}`);
  for (const bad of parsed.broken) io.out(`${bad.name}  invalid  ${bad.problems.join('; ')}`);
  return 0;
}

/** The file's limits.maxTimeoutMs as the start takes it (its default when unset); none when its limits are refused. */
function maxTimeoutOf(config: Record<string, unknown>): number | undefined {
  const limits = limitsSchema.safeParse(config.limits ?? {});
  return limits.success ? limits.data.maxTimeoutMs : undefined;
}

async function add(flags: Flags, io: McpCommandIo): Promise<number> {
  const [name] = flags.positional;
  if (!name) throw new ToolError('INVALID_INPUT', 'npx chatbridge mcp add NAME -- COMMAND [ARGS...]  or  npx chatbridge mcp add NAME --url URL');
  if (flags.unseparated) {
    const { ours, command } = flags.unseparated;
    if (flags.url !== undefined) throw new ToolError('INVALID_INPUT', `unexpected ${JSON.stringify(command[0])} after the server's URL; a server is either a URL (--url) or a program (-- COMMAND)`);
    // every word after the command's name is the command's, as written: its options too, which are not ours
    const line = ['npx', 'chatbridge', 'mcp', 'add', ...ours, '--', ...command].map(shellWord).join(' ');
    throw new ToolError('INVALID_INPUT', `unexpected ${JSON.stringify(command[0])}; put the command after "--", so that its own options (such as -y) are its and not chatbridge's; run ${line}`);
  }
  let entry: Record<string, unknown>;
  if (flags.url !== undefined) {
    if (flags.command.length > 0 || flags.env.length > 0 || flags.cwd) throw new ToolError('INVALID_INPUT', 'a server is either a URL (--url) or a program (-- COMMAND), not both');
    entry = { url: flags.url };
    if (flags.sse) entry.type = 'sse';
    if (flags.headers.length > 0) entry.headers = Object.fromEntries(flags.headers.map((h) => splitPair(h, ':', '--header')));
  } else {
    const [command, ...commandArgs] = flags.command;
    if (!command) throw new ToolError('INVALID_INPUT', `say how to start ${name}: npx chatbridge mcp add ${name} -- COMMAND [ARGS...] (or --url URL)`);
    if (flags.headers.length > 0 || flags.sse) throw new ToolError('INVALID_INPUT', '--header and --sse are for a server added with --url');
    entry = { command, args: commandArgs };
    if (flags.env.length > 0) entry.env = Object.fromEntries(flags.env.map((e) => splitPair(e, '=', '--env')));
    if (flags.cwd) {
      const cwd = resolve(io.cwd, fromHomeFolder(flags.cwd));
      // spawn in a folder that is not there fails as if the command were missing: say so now, naming the folder
      if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
        throw new ToolError('INVALID_INPUT', `--cwd ${JSON.stringify(flags.cwd)} must be an existing directory (${JSON.stringify(cwd)} is not one)`);
      }
      entry.cwd = cwd;
    }
  }
  if (flags.startTimeoutMs !== undefined) {
    // a number as written goes to the config's rule (whole, 1000–600000), which names the key, the value and the bound
    entry.startTimeoutMs = /^-?\d+(?:\.\d+)?$/.test(flags.startTimeoutMs) ? Number(flags.startTimeoutMs) : flags.startTimeoutMs;
  }
  const checked = parseMcpServer(name, entry);
  if (!checked.ok) throw new ToolError('INVALID_INPUT', checked.problems.join('\n'));
  const file = configFile(flags, io);
  const config = readConfigObject(file);
  const servers = serversOf(config, file);
  if (Object.hasOwn(servers, name)) throw new ToolError('CONFLICT', `${name} is already configured in ${file}; remove it first (${commandHow(`mcp remove ${name}`)})`);
  writeConfigObject(file, { ...config, mcpServers: { ...servers, [name]: entry } });
  io.out(`added ${name} to ${file}: ${describeSpec(checked.spec)}`);
  io.out(`its tools will be named ${name}.<tool>; every call asks for approval unless its "policy" says otherwise. Restart chatbridge to start it.`);
  return 0;
}

async function remove(flags: Flags, io: McpCommandIo): Promise<number> {
  const [name] = flags.positional;
  if (!name) throw new ToolError('INVALID_INPUT', 'npx chatbridge mcp remove NAME');
  const file = configFile(flags, io);
  const config = readConfigObject(file);
  const servers = serversOf(config, file);
  if (!Object.hasOwn(servers, name)) {
    const names = Object.keys(servers);
    throw new ToolError('NOT_FOUND', `no MCP server ${JSON.stringify(name)} in ${file}${names.length > 0 ? `; the servers are ${names.join(', ')}` : ''}`);
  }
  const { [name]: _removed, ...others } = servers;
  writeConfigObject(file, { ...config, mcpServers: others });
  io.out(`removed ${name} from ${file}. Restart chatbridge to stop it.`);
  return 0;
}

function candidateLine(candidate: ImportCandidate, mark: string): string {
  const renamed = candidate.name !== candidate.sourceName ? ` (was ${JSON.stringify(candidate.sourceName)})` : '';
  const what = candidate.entry ? `  ${describeEntry(candidate.name, candidate.entry)}${candidate.entry.disabled === true ? '  (disabled: kept, not started)' : ''}` : '';
  return `  ${mark} ${candidate.name}${renamed}  from ${candidate.client}${what}`;
}

async function importServers(flags: Flags, io: McpCommandIo): Promise<number> {
  const file = configFile(flags, io);
  const config = readConfigObject(file);
  const existing = serversOf(config, file);
  const home = io.env.HOME || io.env.USERPROFILE || homedir();
  const sources = desktopConfigSources({
    home,
    platform: process.platform,
    ...(io.env.APPDATA ? { appData: io.env.APPDATA } : {}),
    ...(io.env.XDG_CONFIG_HOME ? { xdgConfigHome: io.env.XDG_CONFIG_HOME } : {}),
  });
  const plan = planImport(sources, existing);
  if (plan.sources.length === 0) {
    io.out(`no desktop client config found; looked at:\n${sources.map((s) => `  ${s.client}: ${s.file}`).join('\n')}`);
    return 0;
  }
  io.out('found:');
  for (const source of plan.sources) {
    io.out(`  ${source.client}: ${source.file} — ${source.problem ?? `${source.servers} server${source.servers === 1 ? '' : 's'}`}`);
    if (source.note) io.out(`      ${source.note}`);
  }
  const toAdd = plan.candidates.filter((c) => c.status === 'add');
  const skipped = plan.candidates.filter((c) => c.status !== 'add');
  if (toAdd.length > 0) io.out(flags.yes ? 'adding:' : 'would add:');
  for (const candidate of toAdd) {
    io.out(candidateLine(candidate, '+'));
    for (const note of candidate.notes) io.out(`      ${note}`);
  }
  if (skipped.length > 0) io.out('skipped:');
  for (const candidate of skipped) {
    io.out(candidateLine(candidate, candidate.status === 'exists' ? '=' : '!'));
    for (const note of candidate.notes) io.out(`      ${note}`);
  }
  if (toAdd.length === 0) {
    io.out('nothing to add');
    return 0;
  }
  if (!flags.yes) {
    io.out(`nothing was written; run ${commandHow('mcp import --yes')} to add ${toAdd.length === 1 ? 'it' : `these ${toAdd.length}`} to ${file}`);
    return 0;
  }
  const added = Object.fromEntries(toAdd.map((c) => [c.name, c.entry]));
  writeConfigObject(file, { ...config, mcpServers: { ...existing, ...added } });
  io.out(`added ${toAdd.length} server${toAdd.length === 1 ? '' : 's'} to ${file}; every call to their tools asks for approval unless a server's "policy" says otherwise. Restart chatbridge to start them.`);
  return 0;
}
