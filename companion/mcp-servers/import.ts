import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { canonicalJson } from '../approvals/args-hash';
import { readHandEditedText } from '../hand-edited-file';
import { DEFAULT_START_TIMEOUT_MS, kindOf, parseMcpServer, SIGN_IN_START_TIMEOUT_MS } from './config';
import { serverNameProblem, suggestServerName } from './names';
import { commandHow } from '../how-to-run';

/**
 * `chatbridge mcp import`: the MCP servers a person already set up for their desktop clients, found in the
 * clients' usual config files for this OS, turned into `mcpServers` entries (issue 11 §1). Reading only; the
 * command shows what it would add and writes on `--yes`.
 *
 * Which files, and why these: they are the clients that keep a user-level `mcpServers` file in a fixed place.
 *   Claude Desktop  macOS ~/Library/Application Support/Claude/claude_desktop_config.json,
 *                   Windows %APPDATA%\Claude\claude_desktop_config.json, Linux ~/.config/Claude/…  (mcpServers)
 *   Claude Code     ~/.claude.json, its user-scope servers                                       (mcpServers)
 *   Cursor          ~/.cursor/mcp.json                                                           (mcpServers)
 *   Windsurf        ~/.codeium/windsurf/mcp_config.json (remote servers as serverUrl)            (mcpServers)
 *   VS Code         the user folder's mcp.json: macOS ~/Library/Application Support/Code/User/, Windows
 *                   %APPDATA%\Code\User\, Linux ~/.config/Code/User/ (JSON with comments)        (servers)
 * Project-level files (.vscode/mcp.json, .cursor/mcp.json in a repository) are left out: they belong to a project,
 * not to the person, and often use the editor's own variables.
 */
export interface ImportEnvironment {
  home: string;
  platform: NodeJS.Platform;
  /** %APPDATA% on Windows */
  appData?: string;
  /** $XDG_CONFIG_HOME on Linux */
  xdgConfigHome?: string;
}

export interface DesktopConfigSource {
  client: string;
  file: string;
  /** where the servers are in that file */
  key: 'mcpServers' | 'servers';
}

export function desktopConfigSources(env: ImportEnvironment): DesktopConfigSource[] {
  const appData = env.appData ?? join(env.home, 'AppData', 'Roaming');
  const userConfig =
    env.platform === 'darwin' ? join(env.home, 'Library', 'Application Support') : env.platform === 'win32' ? appData : (env.xdgConfigHome ?? join(env.home, '.config'));
  return [
    { client: 'Claude Desktop', file: join(userConfig, 'Claude', 'claude_desktop_config.json'), key: 'mcpServers' },
    { client: 'Claude Code', file: join(env.home, '.claude.json'), key: 'mcpServers' },
    { client: 'Cursor', file: join(env.home, '.cursor', 'mcp.json'), key: 'mcpServers' },
    { client: 'Windsurf', file: join(env.home, '.codeium', 'windsurf', 'mcp_config.json'), key: 'mcpServers' },
    { client: 'VS Code', file: join(userConfig, 'Code', 'User', 'mcp.json'), key: 'servers' },
  ];
}

export type CandidateStatus = 'add' | 'exists' | 'conflict' | 'invalid';

export interface ImportCandidate {
  client: string;
  file: string;
  /** the name in the desktop client's file */
  sourceName: string;
  /** the name it gets here (differs when the source's name breaks the naming rule) */
  name: string;
  status: CandidateStatus;
  /** the entry as it would be written (for `add`) */
  entry?: Record<string, unknown>;
  /** why it was renamed, skipped or is invalid; which keys were left out */
  notes: string[];
}

export interface ImportPlan {
  /** the files found, with how many servers each holds, or why one could not be read, and what it holds besides */
  sources: Array<DesktopConfigSource & { servers: number; problem?: string; note?: string }>;
  candidates: ImportCandidate[];
}

/** Keys of desktop clients that approve tools without asking (Claude Desktop's extensions, Cline, Roo, Cursor). */
const APPROVAL_KEYS = ['autoApprove', 'alwaysAllow', 'autoapprove'];

/** Keys a desktop entry may have that mean the same here. */
const KEPT_KEYS = ['command', 'args', 'env', 'cwd', 'url', 'headers', 'disabled'] as const;

/**
 * JSON as the desktop clients write it: VS Code's mcp.json is JSON with comments and trailing commas, read here by
 * the parser VS Code itself uses, which allows those two and nothing else. Nothing is guessed: a file cut short or
 * missing a comma is refused whole (the first problem and where it is) rather than "repaired" into half of its servers.
 */
function parseJsonWithComments(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) {
    const line = text.slice(0, first.offset).split('\n').length;
    throw new SyntaxError(`${printParseErrorCode(first.error)} at line ${line}`);
  }
  return value;
}

/** A desktop client's entry in chatbridge's shape, with notes on what was changed or dropped. */
export function convertEntry(raw: unknown): { entry: Record<string, unknown>; notes: string[] } | { problem: string } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { problem: 'the entry is not an object' };
  const source = raw as Record<string, unknown>;
  // ${input:…}, ${env:…}, ${workspaceFolder} (VS Code, Cursor), ${VAR} and ${VAR:-default} (Claude Code): the client
  // fills them in when it starts the server; here the server would get the text as written
  const variable = /\$\{[^}\s]*\}/.exec(JSON.stringify(withoutOwnVariables(source)))?.[0];
  if (variable !== undefined) {
    const shown = variable.length > 40 ? `${variable.slice(0, 38)}…}` : variable;
    return {
      problem: `it uses ${shown}, a variable its client fills in when it starts the server; chatbridge does not, so the server would get the text as written. Add it by hand with ${commandHow('mcp add')}, with the value`,
    };
  }
  const entry: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const key of KEPT_KEYS) if (source[key] !== undefined) entry[key] = source[key];
  // Windsurf names a remote server's address serverUrl
  if (entry.url === undefined && typeof source.serverUrl === 'string') entry.url = source.serverUrl;
  const type = source.type ?? source.transport;
  if (type === 'sse') entry.type = 'sse';
  else if ((type === 'http' || type === 'streamable-http' || type === 'streamableHttp') && entry.url !== undefined) entry.type = 'http';
  // Windsurf's switched-off tools stay off: denied by the server's policy
  const off = source.disabledTools;
  if (Array.isArray(off) && off.length > 0 && off.every((tool) => typeof tool === 'string')) {
    entry.policy = { tools: Object.fromEntries(off.map((tool) => [tool, 'deny'])) };
    notes.push(`its disabled tools are denied: ${off.join(', ')}`);
  }
  // said by planImport, where it knows whether the entry is written
  if (runsSignInProxy(entry)) entry.startTimeoutMs = SIGN_IN_START_TIMEOUT_MS;
  const converted = [...KEPT_KEYS, 'serverUrl', 'type', 'transport', ...(entry.policy ? ['disabledTools'] : [])];
  const dropped = Object.keys(source).filter((key) => !converted.includes(key));
  const approvals = dropped.filter((key) => APPROVAL_KEYS.includes(key));
  const others = dropped.filter((key) => !APPROVAL_KEYS.includes(key) && key !== 'envFile');
  const quoted = (keys: string[]) => keys.map((k) => `"${k}"`).join(', ');
  if (approvals.length > 0) notes.push(`left out ${quoted(approvals)}: approvals come from chatbridge's policy (its "policy" key)`);
  if (dropped.includes('envFile')) {
    notes.push(`left out "envFile" (${String(source.envFile)}): chatbridge does not read env files; put what the server needs in its "env"`);
  }
  if (others.length > 0) notes.push(`left out ${quoted(others)} (not a chatbridge setting)`);
  return { entry, notes };
}

const SIGN_IN_WAIT = `mcp-remote opens a browser to sign in on its first start, and the default ${DEFAULT_START_TIMEOUT_MS} would stop it while you sign in`;

function startTimeoutOf(entry: unknown): unknown {
  return entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>).startTimeoutMs : undefined;
}

/**
 * Whether the entry runs mcp-remote, the local proxy hosted servers' pages give for desktop clients (`npx -y
 * mcp-remote URL`, `mcp-remote@latest`, an installed `mcp-remote`, behind Windows' `cmd /c`). Its desktop client waits
 * for it while it signs in; chatbridge stops a server that has not started within its start timeout.
 */
function runsSignInProxy(entry: Record<string, unknown>): boolean {
  const words = [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])];
  return words.some((word) => typeof word === 'string' && /^(?:.*[\\/])?mcp-remote(?:@[^\s/]*)?(?:\.cmd|\.exe)?$/i.test(word));
}

/**
 * The entry without the `${NAME}` of its args that name a variable of its own `env`: the program fills those in from
 * the environment it is given, as mcp-remote does with `--header "Authorization:${AUTH_HEADER}"` beside
 * `"env": {"AUTH_HEADER": "Bearer …"}` — the way its README, and every hosted server's page after it, bridges Claude
 * Desktop to a remote server. Taken for a variable of the client, that entry was never imported, though chatbridge
 * gives the program the same env and it runs as it did there.
 */
function withoutOwnVariables(source: Record<string, unknown>): Record<string, unknown> {
  const env = source.env;
  if (!Array.isArray(source.args) || env === null || typeof env !== 'object' || Array.isArray(env)) return source;
  const own = (name: string) => Object.hasOwn(env, name) && typeof (env as Record<string, unknown>)[name] === 'string';
  const args = source.args.map((arg: unknown) => (typeof arg === 'string' ? arg.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => (own(name) ? '' : whole)) : arg));
  return { ...source, args };
}

/**
 * The same server, judged on what says how to reach it (chatbridge's own policy keys aside), as the companion reads
 * each entry: an empty env, args or headers is none, and "http" is the type a URL has when none is given, so the
 * server `chatbridge mcp add` wrote is the one a client writes with `"env": {}` or `"type": "http"`.
 */
function sameEntry(name: string, configured: unknown, imported: Record<string, unknown>): boolean {
  const reach = (entry: unknown): string | undefined => {
    const parsed = parseMcpServer(name, entry);
    if (!parsed.ok) return undefined;
    const { policy: _policy, timeoutMs: _timeout, startTimeoutMs: _start, disabled: _disabled, ...how } = parsed.spec;
    return canonicalJson(how);
  };
  const configuredReach = reach(configured);
  return configuredReach !== undefined && configuredReach === reach(imported);
}

/**
 * Servers Claude Code keeps per project in the same file (`projects.<folder>.mcpServers`, where `claude mcp add` puts
 * them by default): like a repository's own .cursor/mcp.json they belong to one project and are not imported, but
 * counted, so a file that shows 0 servers says where the person's are.
 */
function projectScopedServers(file: Record<string, unknown>): number {
  const projects = file.projects;
  if (projects === null || typeof projects !== 'object' || Array.isArray(projects)) return 0;
  let count = 0;
  for (const project of Object.values(projects)) {
    const servers = project !== null && typeof project === 'object' ? (project as Record<string, unknown>).mcpServers : undefined;
    if (servers !== null && typeof servers === 'object' && !Array.isArray(servers)) count += Object.keys(servers).length;
  }
  return count;
}

/**
 * A program entry written for Windows, as it can run on another system. `cmd /c npx …` (the form READMEs give for
 * Windows, where npx is a .cmd file) is the program after /c with its words, which runs it the same; a command given
 * as a Windows path (`C:\\Program Files\\nodejs\\npx.cmd`) or by a Windows program's file name (`uvx.exe`) names
 * nothing here, and is refused with the name to write. Imported as written, such an entry failed at every start.
 */
function forThisSystem(entry: Record<string, unknown>, platform: NodeJS.Platform): { entry: Record<string, unknown>; note?: string } | { problem: string } {
  if (platform === 'win32' || typeof entry.command !== 'string') return { entry };
  const args = Array.isArray(entry.args) ? (entry.args as unknown[]) : [];
  let converted = entry;
  let note: string | undefined;
  if (/^cmd(?:\.exe)?$/i.test(entry.command) && typeof args[0] === 'string' && /^\/c$/i.test(args[0]) && typeof args[1] === 'string' && /^\S+$/.test(args[1])) {
    const [, program, ...rest] = args as string[];
    converted = { ...entry, command: program, args: rest };
    note = `written for Windows ("cmd /c ${program} …"): imported as "${program}" with the words after it, which runs it on this system`;
  }
  const command = converted.command as string;
  const windowsPath = /^[A-Za-z]:[\\/]|^\\\\|\\/.test(command);
  const windowsFile = /\.(?:exe|cmd|bat)$/i.test(command);
  if (!windowsPath && !windowsFile) return note === undefined ? { entry: converted } : { entry: converted, note };
  const name = (command.split(/[\\/]/).pop() ?? command).replace(/\.(?:exe|cmd|bat)$/i, '');
  const shown = command.length > 80 ? `${command.slice(0, 79)}…` : command;
  return {
    problem:
      `its command ${JSON.stringify(shown)} is ${windowsPath ? 'a Windows path' : "a Windows program's file name"}, which names no program on this system: ` +
      `add it by hand (${commandHow('mcp add')}) with the program as it is here${name === '' ? '' : ` (e.g. "${name}", when it is on the PATH)`}`,
  };
}

/** What an import would do, given the servers already configured. Reads the files; writes nothing. */
export function planImport(sources: DesktopConfigSource[], existing: Record<string, unknown>, platform: NodeJS.Platform = process.platform): ImportPlan {
  const plan: ImportPlan = { sources: [], candidates: [] };
  // each name taken, by a configured server (no client) or by one this import adds (the client it comes from)
  const taken = new Map<string, { entry: unknown; client?: string }>(Object.entries(existing).map(([name, entry]) => [name, { entry }]));
  for (const source of sources) {
    if (!existsSync(source.file)) continue;
    let value: unknown;
    try {
      value = parseJsonWithComments(readHandEditedText(source.file));
    } catch (error) {
      const reason = error instanceof SyntaxError ? `is not valid JSON (${error.message})` : `cannot be read (${error instanceof Error ? error.message : String(error)})`;
      plan.sources.push({ ...source, servers: 0, problem: `${reason}; none of its servers were imported` });
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      plan.sources.push({ ...source, servers: 0, problem: `holds ${kindOf(value)}, not a JSON object; none of its servers were imported` });
      continue;
    }
    const found = (value as Record<string, unknown>)[source.key];
    if (found !== undefined && (found === null || typeof found !== 'object' || Array.isArray(found))) {
      plan.sources.push({ ...source, servers: 0, problem: `"${source.key}" is ${kindOf(found)} — must be an object of servers by name; none were imported` });
      continue;
    }
    const servers = (found ?? {}) as Record<string, unknown>;
    const projectServers = projectScopedServers(value as Record<string, unknown>);
    plan.sources.push({
      ...source,
      servers: Object.keys(servers).length,
      ...(projectServers > 0
        ? { note: `${projectServers} more set up for single projects (under "projects", e.g. by \`claude mcp add\` without --scope user) are not imported; add those by hand` }
        : {}),
    });
    for (const [sourceName, raw] of Object.entries(servers)) {
      const notes: string[] = [];
      let name = sourceName;
      const nameProblem = serverNameProblem(sourceName);
      if (nameProblem) {
        name = suggestServerName(sourceName);
        notes.push(`renamed from ${JSON.stringify(sourceName)}: ${nameProblem}`);
      }
      const base = { client: source.client, file: source.file, sourceName, name };
      const read = convertEntry(raw);
      const converted = 'problem' in read ? read : forThisSystem(read.entry, platform);
      if ('problem' in converted) {
        plan.candidates.push({ ...base, status: 'invalid', notes: [...notes, converted.problem] });
        continue;
      }
      if (converted.note !== undefined) notes.push(converted.note);
      notes.push(...(read as { notes: string[] }).notes);
      const checked = parseMcpServer(name, converted.entry);
      if (!checked.ok) {
        plan.candidates.push({ ...base, status: 'invalid', notes: [...notes, ...checked.problems] });
        continue;
      }
      const holder = taken.get(name);
      if (holder) {
        const same = sameEntry(name, holder.entry, converted.entry);
        const where = holder.client === undefined ? 'configured' : `imported from ${holder.client}`;
        plan.candidates.push({
          ...base,
          status: same ? 'exists' : 'conflict',
          notes: [
            ...notes,
            same
              ? `already ${where}`
              : `a different server is ${where} as ${name}; add this one by hand under another name (${commandHow('mcp add')})`,
            ...(same && converted.entry.startTimeoutMs === SIGN_IN_START_TIMEOUT_MS && startTimeoutOf(holder.entry) === undefined
              ? [`its entry has no "startTimeoutMs", so the default ${DEFAULT_START_TIMEOUT_MS} ms would stop mcp-remote while you sign in on its first start: set it to ${SIGN_IN_START_TIMEOUT_MS}`]
              : []),
          ],
        });
        continue;
      }
      taken.set(name, { entry: converted.entry, client: source.client });
      if (converted.entry.startTimeoutMs === SIGN_IN_START_TIMEOUT_MS) notes.push(`its start timeout is ${SIGN_IN_START_TIMEOUT_MS} ms ("startTimeoutMs"): ${SIGN_IN_WAIT}`);
      plan.candidates.push({ ...base, status: 'add', entry: converted.entry, notes });
    }
  }
  return plan;
}
