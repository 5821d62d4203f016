import { join } from 'node:path';
import { ToolError } from '../../shared/errors';
import { isToolName, TOOL_NAMES } from '../../shared/tools/names';
import { suggestToolName } from '../../shared/tools/suggest';
import { canonicalJson } from '../approvals/args-hash';
import { homePaths } from '../home';
import { programEnv } from '../plans/program-env';
import { redact } from '../policy/redact';
import type { Policy } from '../policy/schema';
import type { ProgramRecords } from '../processes';
import type { ExternalTool, ExternalToolListing, ExternalTools, ToolContext } from '../types';
import { DEFAULT_START_TIMEOUT_MS, parseMcpServers, type BrokenServer, type McpServerSpec } from './config';
import { readConfigObject, serversOf } from './config-file';
import { createServerConnection, type ExternalToolEntry, type ServerConnection, type ServerHealth, type ServerState } from './connection';
import { splitExternalName } from './names';
import { toolResultText } from './results';
import { externalToolRule } from './tool-policy';
import { createServerLog } from './server-log';

/**
 * The person's own MCP servers, mounted in the companion (issue 11): one connection per configured server, their
 * tools as `<server>.<tool>` in the same registry, pipeline, policy, approvals, audit and caps as the built-ins.
 *
 * Lifecycle: every server starts when the companion starts — in the background, so the companion listens at once
 * and a slow or broken server delays nothing. Eager rather than lazy because a model can only call a tool it was
 * told about: `tools/list`, `/v1/tools` and the prompts need the tools and their schemas before the first call,
 * and a server that cannot start is reported at once (`chatbridge status`, `chatbridge mcp list`) rather than in
 * the middle of a chat. A call that arrives while its server is still starting waits for it.
 */
export interface McpServersOptions {
  policy: Policy;
  /** the data directory: logs go to `<home>/mcp-logs/<server>.log` */
  home: string;
  version: string;
  /** where program records are kept, so a killed companion's servers are stopped at its next start */
  records?: ProgramRecords;
  /**
   * initialize + tools/list, and how long a call waits for a server that is still starting, for a server whose
   * entry has no startTimeoutMs (default DEFAULT_START_TIMEOUT_MS)
   */
  startTimeoutMs?: number;
  /** first retry after a crash (default 1 s), doubling up to backoffMaxMs (default 30 s) */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** failures in a row before a server is given up (default 5) */
  maxFailures?: number;
  /** a connection that lived this long resets the failure count (default 60 s) */
  stableMs?: number;
  /** SIGTERM → SIGKILL for a server's process tree (default 2 s) */
  killGraceMs?: number;
  /** the largest single message a stdio server may send (default 32 MiB) */
  maxMessageBytes?: number;
  /** bound of each server's log (default 1 MiB, plus one older file) */
  maxLogBytes?: number;
  /**
   * the config file the servers were read from: a server whose entry in it has changed since says so in its health
   * (the change applies at the next start)
   */
  configFile?: string;
}

export interface ToolProgress {
  runId: string;
  tool: string;
  progress: number;
  total?: number;
  message?: string;
}

export interface McpServersSummary {
  servers: number;
  ready: number;
  starting: number;
  failing: number;
  tools: number;
}

export interface McpServers extends ExternalTools {
  /** starts every enabled server in the background */
  start(): void;
  /** resolves once no server is starting (each is ready, retrying, given up or disabled) */
  settled(timeoutMs?: number): Promise<void>;
  health(): ServerHealth[];
  summary(): McpServersSummary;
  onProgress(listener: (progress: ToolProgress) => void): () => void;
  /** a server's state or tool list changed */
  onChange(listener: (health: ServerHealth) => void): () => void;
  /** closes every client and ends every server's process tree */
  close(): Promise<void>;
}

/** The longest tool description (or schema description) a tool list shows; the rest is cut. */
export const DESCRIPTION_CHARS = 2_000;

/** Windows cannot start a program without these, whatever envAllow says. */
const WINDOWS_ESSENTIALS = ['SYSTEMROOT', 'SystemRoot', 'WINDIR', 'COMSPEC', 'PATHEXT', 'APPDATA', 'LOCALAPPDATA', 'USERPROFILE', 'TEMP', 'TMP'];

export function serverEnv(policy: Pick<Policy, 'envAllow'>, own: Record<string, string>, source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const allow = process.platform === 'win32' ? [...policy.envAllow, ...WINDOWS_ESSENTIALS] : policy.envAllow;
  return { ...programEnv({ envAllow: allow }, source), ...own };
}

export function createMcpServers(options: McpServersOptions): McpServers {
  const { policy } = options;
  const parsed = parseMcpServers(policy.mcpServers ?? {}, policy.limits.maxTimeoutMs);
  const broken = new Map<string, BrokenServer>(parsed.broken.map((b) => [b.name, b]));
  const connections = new Map<string, ServerConnection>();
  const progressListeners = new Set<(progress: ToolProgress) => void>();
  const changeListeners = new Set<(health: ServerHealth) => void>();
  const defaultStartMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const startTimeoutFor = (spec: McpServerSpec): number => spec.startTimeoutMs ?? defaultStartMs;
  const settleWaiters = new Set<() => void>();

  for (const spec of parsed.servers) {
    const connection: ServerConnection = createServerConnection({
      spec,
      env: spec.transport === 'stdio' ? serverEnv(policy, spec.env) : {},
      log: createServerLog(join(homePaths(options.home).mcpLogs, `${spec.name}.log`), options.maxLogBytes),
      version: options.version,
      ...(options.records ? { records: options.records } : {}),
      startTimeoutMs: startTimeoutFor(spec),
      backoffBaseMs: options.backoffBaseMs ?? 1_000,
      backoffMaxMs: options.backoffMaxMs ?? 30_000,
      maxFailures: options.maxFailures ?? 5,
      stableMs: options.stableMs ?? 60_000,
      killGraceMs: options.killGraceMs ?? 2_000,
      maxMessageBytes: options.maxMessageBytes ?? 32 * 1024 * 1024,
      onChange: () => {
        const health = connection.health();
        for (const listener of [...changeListeners]) listener(health);
        for (const wake of [...settleWaiters]) wake();
      },
    });
    connections.set(spec.name, connection);
  }

  /**
   * The servers whose entry in the config file differs from the one read at the start: the person fixed a command or
   * rotated a token, and `chatbridge mcp list` went on showing the old server's error with no word that the fix waits
   * for a restart (a call to a given-up server tries the old entry again). A file that cannot be read says nothing.
   */
  function changedSinceStart(): Set<string> {
    const now = entriesNow();
    if (now === undefined) return new Set();
    const started = policy.mcpServers ?? {};
    return new Set(Object.keys(started).filter((name) => Object.hasOwn(now, name) && canonicalJson(now[name]) !== canonicalJson(started[name])));
  }

  /** The config file's server entries as they are now; undefined when there is no file or it cannot be read. */
  function entriesNow(): Record<string, unknown> | undefined {
    const file = options.configFile;
    if (file === undefined) return undefined;
    try {
      return serversOf(readConfigObject(file), file);
    } catch {
      return undefined;
    }
  }

  /**
   * A given-up server is started again by the next call with the entry it started with (connection.ts). Not when the
   * person removed or changed that entry since (chatbridge mcp remove, `disabled: true`, a stricter policy): a call
   * would run what they took away.
   */
  function refuseEditedGivenUp(name: string): void {
    const now = entriesNow();
    const started = policy.mcpServers ?? {};
    if (now === undefined || !Object.hasOwn(started, name)) return;
    const removed = !Object.hasOwn(now, name);
    if (!removed && canonicalJson(now[name]) === canonicalJson(started[name])) return;
    throw new ToolError(
      'UNAVAILABLE',
      `MCP server ${name} was given up after failing to start, and its entry was ${removed ? 'removed from' : 'changed in'} ${options.configFile} since chatbridge started: ` +
        'the entry it started with is not started again; restart chatbridge to use the config as it is now',
    );
  }

  function brokenHealth(entry: BrokenServer): ServerHealth {
    const lastError = entry.problems.join('; ');
    return { name: entry.name, transport: 'invalid', state: 'error', tools: 0, lastError, problem: { code: 'config', starting: true, detail: lastError }, restarts: 0, notes: entry.problems };
  }

  function allTools(): ExternalToolEntry[] {
    return [...connections.values()].flatMap((c) => (c.state() === 'ready' ? [...c.tools().values()] : []));
  }

  /** each tool's listing as shown, made once per tool list (and again when the redaction list grows) */
  const shown = new WeakMap<ExternalToolEntry, { patterns: number; listing: ExternalToolListing }>();

  /**
   * A tool as tool lists show it — typed into the chat by a tools/list block, pasted with a generated prompt, read
   * by MCP clients: the server's texts redacted like a result (a description may quote the connection string or
   * key the server was configured with), and a description cut to DESCRIPTION_CHARS so one tool cannot flood the
   * chat. The argument check still uses the schema as the server sent it.
   */
  function shownListing(t: ExternalToolEntry): ExternalToolListing {
    const cached = shown.get(t);
    if (cached && cached.patterns === policy.redact.length) return cached.listing;
    const text = (value: string, key?: string): string => {
      const clean = redact(value, policy);
      return (key === 'description' || key === 'title') && clean.length > DESCRIPTION_CHARS ? `${clean.slice(0, DESCRIPTION_CHARS - 1)}…` : clean;
    };
    const strings = (value: unknown, key?: string): unknown => {
      if (typeof value === 'string') return text(value, key);
      if (Array.isArray(value)) return value.map((item) => strings(item));
      if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strings(v, k)]));
      return value;
    };
    const listing: ExternalToolListing = {
      name: t.name,
      description: text(t.description, 'description'),
      risk: t.rule.risk,
      inputSchema: strings(t.inputSchema) as Record<string, unknown>,
      server: t.server,
    };
    shown.set(t, { patterns: policy.redact.length, listing });
    return listing;
  }

  function notFound(name: string): ToolError {
    const external = allTools().map((t) => t.name);
    // a server still starting, restarting after a crash, or given up after its failures may have the tool: its names
    // are not known, so no other name is suggested for it
    const inState = (state: ServerState) => [...connections.values()].filter((c) => c.state() === state).map((c) => c.name);
    const starting = inState('starting');
    const restarting = inState('retrying');
    const givenUp = inState('error');
    const calledAs = (servers: string[]) => servers.map((server) => `${server} (its tools are called ${server}.<tool>)`).join(', ');
    // a tool's own name without its server (`read_graph`, as prompts for other MCP clients write it) stands for that
    // server's tool when one server has it, before any near name of a built-in
    const bare = external.filter((full) => splitExternalName(full)?.tool === name);
    // one several servers have (two memory servers, GitHub's and GitLab's search_code) is theirs to choose from: a
    // near name of a built-in (fs.read for read_graph) does something else
    const suggestion =
      starting.length + restarting.length + givenUp.length > 0 || bare.length > 1 ? undefined : bare.length === 1 ? bare[0] : suggestToolName(name, [...TOOL_NAMES, ...external]);
    const listed = external.length > 20 ? `${external.slice(0, 20).join(', ')} and ${external.length - 20} more (tools/list has them all)` : external.join(', ');
    return new ToolError(
      'NOT_FOUND',
      `unknown tool ${JSON.stringify(name)}; chatbridge's own tools are ${TOOL_NAMES.join(', ')}` +
        (external.length > 0 ? `; from your MCP servers: ${listed}` : '; your MCP servers offer none right now') +
        (starting.length > 0 ? `; still starting, so their tools are not known yet: ${calledAs(starting)}` : '') +
        (restarting.length > 0 ? `; restarting after a failure, so their tools are not known now: ${calledAs(restarting)}` : '') +
        (givenUp.length > 0 ? `; given up after failing to start, so their tools are not known now (a call to one starts it again): ${calledAs(givenUp)}` : '') +
        (bare.length > 1 ? `; ${JSON.stringify(name)} is a tool of several of your MCP servers, name the one meant: ${bare.join(', ')}` : '') +
        (suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`),
    );
  }

  function timeoutFor(spec: McpServerSpec): number {
    return Math.min(spec.timeoutMs ?? policy.limits.defaultTimeoutMs, policy.limits.maxTimeoutMs);
  }

  /** The arguments as an object (none is `{}`), or the refusal naming the rule. */
  function argumentsObject(name: string, args: unknown): ReturnType<ExternalTool['validate']> {
    const given = args === undefined ? {} : args;
    if (given === null || typeof given !== 'object' || Array.isArray(given)) {
      return { ok: false, code: 'INVALID_INPUT', message: `${name} arguments must be an object like {"name": value}` };
    }
    return { ok: true, args: given as Record<string, unknown> };
  }

  function planOf(rule: ExternalToolEntry['rule']): Awaited<ReturnType<ExternalTool['plan']>> {
    return { risk: rule.risk, paths: [], ...(rule.mode !== undefined ? { mode: rule.mode } : {}) };
  }

  function previewOf(name: string, server: string, tool: string, args: Record<string, unknown>): Awaited<ReturnType<ExternalTool['preview']>> {
    // the person approves exactly these arguments (the approval is bound to their hash)
    return { title: `${name} — MCP server "${server}", tool "${tool}"`, heading: { kind: 'mcp', server, tool }, paths: [], diff: JSON.stringify(args, null, 2) };
  }

  /** The listed tool `tool` of a server that is up; NOT_FOUND naming its tools (or why it is left out) when it has none. */
  function entryOf(connection: ServerConnection, name: string, tool: string): ExternalToolEntry {
    const entry = connection.tools().get(tool);
    if (entry) return entry;
    const skipped = connection.skipped(tool);
    if (skipped) throw new ToolError('NOT_FOUND', `${name} is ${skipped}`);
    const own = [...connection.tools().values()].map((t) => t.name);
    const suggestion = suggestToolName(name, own);
    throw new ToolError(
      'NOT_FOUND',
      `MCP server ${connection.name} has no tool ${JSON.stringify(tool)}; its tools are ${own.join(', ') || '(none)'}` +
        (suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`),
    );
  }

  /**
   * A tool of a server that is not running (given up after failing to start, or waiting out its backoff), when its
   * config alone gives the tool's rule — `trustAnnotations` off: every tool is exec, its mode the config's. The call is
   * decided, and the person asked, before the server is started: starting it first ran the server's program for a call
   * the policy then denied, or whose card the person refused. Its tools and their schemas come with the server, so
   * the tool's name and arguments are checked once it is up, before anything is sent to it. With `trustAnnotations`
   * the rule needs the tool's annotations: the server is started first, as before.
   */
  function toolOfStoppedServer(connection: ServerConnection, name: string, tool: string): ExternalTool | undefined {
    if (connection.spec.policy.trustAnnotations === true) return undefined;
    const rule = externalToolRule(connection.spec.policy, connection.name, tool, undefined);
    return {
      name,
      validate: (args) => argumentsObject(name, args),
      plan: async () => planOf(rule),
      preview: async (args) => previewOf(name, connection.name, tool, args),
      async run(args, ctx) {
        await upForCall(connection, ctx.signal);
        const entry = entryOf(connection, name, tool);
        const checked = entry.check(args);
        if (!checked.ok) throw new ToolError('INVALID_INPUT', checked.message);
        return externalTool(connection, entry).run(args, ctx);
      },
    };
  }

  function externalTool(connection: ServerConnection, entry: ExternalToolEntry): ExternalTool {
    return {
      name: entry.name,
      validate(args) {
        const given = argumentsObject(entry.name, args);
        if (!given.ok) return given;
        const checked = entry.check(given.args);
        return checked.ok ? given : { ok: false, code: 'INVALID_INPUT', message: checked.message };
      },
      plan: async () => planOf(entry.rule),
      preview: async (args) => previewOf(entry.name, entry.server, entry.tool, args),
      async run(args, ctx: ToolContext) {
        // it crashed or dropped its connection while the card waited (or between the plan and the run): started for
        // the call, as a call before its card is
        if (connection.state() !== 'ready') await upForCall(connection, ctx.signal);
        checkAgainstCurrentList(connection, entry, args);
        const result = await connection.call(entry.tool, args, {
          signal: ctx.signal,
          timeoutMs: timeoutFor(connection.spec),
          maxTotalTimeoutMs: policy.limits.maxTimeoutMs,
          onprogress: (p) => {
            const event: ToolProgress = { runId: ctx.origin.runId, tool: entry.name, progress: p.progress };
            if (p.total !== undefined) event.total = p.total;
            if (p.message !== undefined) event.message = p.message;
            for (const listener of [...progressListeners]) listener(event);
          },
        });
        const text = toolResultText(result);
        // redacted and cut where every error message is (errorOutcome), like the JSON-RPC errors of other servers
        if (result.isError === true) throw new ToolError('TOOL_ERROR', `${entry.name} failed: ${text || '(the server gave no reason)'}`);
        return { text };
      },
    };
  }

  /**
   * The call checked again when the server's tool list was read anew since it was checked (and its card shown): the
   * server restarted, perhaps as another version, or said its list changed. A quick restart leaves it ready by the
   * time the person approves, so its state says nothing of it; the tool's entry does. A tool the new list lacks, or
   * whose schema no longer takes the approved arguments, is said so and nothing is sent: the server's own "tool not
   * found" read as a refusal of the arguments, and a changed schema could take them to mean something else.
   */
  function checkAgainstCurrentList(connection: ServerConnection, checked: ExternalToolEntry, args: Record<string, unknown>): void {
    const current = connection.tools().get(checked.tool);
    if (current === checked) return;
    if (current === undefined) {
      const skipped = connection.skipped(checked.tool);
      const own = [...connection.tools().values()].map((t) => t.tool);
      throw new ToolError(
        'NOT_FOUND',
        `${checked.name} is no longer a tool of MCP server ${connection.name}: the server restarted or changed its tool list after the call was checked, and it was not sent; ` +
          (skipped === undefined ? `its tools are now ${own.join(', ') || '(none)'}` : `it is ${skipped}`),
      );
    }
    if (canonicalJson(current.inputSchema) === canonicalJson(checked.inputSchema)) return;
    const fits = current.check(args);
    if (!fits.ok) {
      throw new ToolError(
        'INVALID_INPUT',
        `the input schema of ${checked.name} changed after the call was checked (MCP server ${connection.name} restarted or changed its tool list), and the arguments no longer fit it, so it was not sent: ${fits.message}`,
      );
    }
  }

  /**
   * The server up for a call: one still starting waited for, one waiting out its backoff or given up started now
   * (connection.ts) — unless it is given up and the person has since removed or changed its entry.
   */
  async function upForCall(connection: ServerConnection, signal: AbortSignal): Promise<void> {
    if (connection.state() === 'error') refuseEditedGivenUp(connection.name);
    await connection.ready(signal, startTimeoutFor(connection.spec));
  }

  async function resolve(name: string, signal: AbortSignal): Promise<ExternalTool | undefined> {
    if (connections.size === 0 && broken.size === 0) return undefined;
    const parts = splitExternalName(name);
    if (!parts) throw notFound(name);
    const bad = broken.get(parts.server);
    if (bad) throw new ToolError('UNAVAILABLE', `MCP server ${parts.server} is not usable: ${bad.problems.join('; ')}`);
    const connection = connections.get(parts.server);
    if (!connection) throw notFound(name);
    if (connection.state() === 'error') refuseEditedGivenUp(parts.server);
    if (connection.state() === 'error' || connection.state() === 'retrying') {
      const stopped = toolOfStoppedServer(connection, name, parts.tool);
      if (stopped) return stopped;
    }
    await upForCall(connection, signal);
    return externalTool(connection, entryOf(connection, name, parts.tool));
  }

  return {
    resolve,
    answers(name) {
      return (connections.size > 0 || broken.size > 0) && !isToolName(name);
    },
    listings(): ExternalToolListing[] {
      return allTools().map(shownListing);
    },
    serverNames() {
      return [...connections.keys(), ...broken.keys()];
    },
    start() {
      for (const connection of connections.values()) connection.start();
    },
    settled(timeoutMs = Math.max(defaultStartMs, ...parsed.servers.map(startTimeoutFor))) {
      const starting = () => [...connections.values()].some((c) => c.state() === 'starting');
      if (!starting()) return Promise.resolve();
      return new Promise((done) => {
        const finish = () => {
          clearTimeout(timer);
          settleWaiters.delete(check);
          done();
        };
        const check = () => {
          if (!starting()) finish();
        };
        const timer = setTimeout(finish, timeoutMs);
        settleWaiters.add(check);
      });
    },
    health() {
      const changed = changedSinceStart();
      const all = [...[...connections.values()].map((c) => c.health()), ...[...broken.values()].map(brokenHealth)].map((health) =>
        changed.has(health.name)
          ? { ...health, notes: [...health.notes, `its entry in ${options.configFile} has changed since chatbridge started; restart chatbridge to use the change`] }
          : health,
      );
      return all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    summary() {
      const states = [...connections.values()].map((c) => c.state());
      return {
        servers: connections.size + broken.size,
        ready: states.filter((s) => s === 'ready').length,
        starting: states.filter((s) => s === 'starting').length,
        failing: broken.size + states.filter((s) => s === 'retrying' || s === 'error').length,
        tools: allTools().length,
      };
    },
    onProgress(listener) {
      progressListeners.add(listener);
      return () => progressListeners.delete(listener);
    },
    onChange(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    async close() {
      await Promise.all([...connections.values()].map((c) => c.close()));
    },
  };
}
