import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  PaginatedResultSchema,
  ToolSchema,
  type CallToolResult,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { McpServerProblem } from '../../shared/api';
import { MAX_NESTING, valueNestingExceeds } from '../../shared/protocols/json';
import { ToolError } from '../../shared/errors';
import type { ProgramRecords } from '../processes';
import { CHECK_MS, compileArgumentCheck, hasPattern, withinCheckTime, type ArgumentCheck } from './arguments';
import { ChildProcessTransport } from './child-transport';
import { fetchReadingMessages, isStreamEndedUnanswered } from './incoming-message';
import { limitedFetch } from './limited-fetch';
import { ToolResultSchema } from './results';
import { shownUrl, urlSecrets, withoutUrlSecrets } from './shown-url';
import { SIGN_IN_START_TIMEOUT_MS, type McpServerSpec } from './config';
import { externalToolName, isOfferedToolName, TOOL_NAME_RULE } from './names';
import type { ServerLog } from './server-log';
import { factsOf, ServerProblemError, type ProblemFacts } from './server-problem';
import { externalToolRule, unmatchedPolicyKeys, type ExternalToolRule } from './tool-policy';

/**
 * One of the person's MCP servers, kept connected (issue 11 §2): started, its tools listed and kept current
 * (`notifications/tools/list_changed`), restarted with backoff when it crashes or drops the connection — a
 * bounded number of times in a row — and closed with its whole process tree at shutdown.
 *
 *   starting → ready → (crash) → retrying → starting → …   after `maxFailures` failures in a row → error
 *   retrying | error → (a call asks for one of its tools) → starting → …   (from error, one more failure → error)
 *
 * A start that fails counts as a failure; a connection that lived `stableMs` or longer resets the count.
 */
export type ServerState = 'starting' | 'ready' | 'retrying' | 'error' | 'disabled' | 'closed';

export interface ExternalToolEntry {
  server: string;
  /** the tool's own name on its server */
  tool: string;
  /** `<server>.<tool>` */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  rule: ExternalToolRule;
  check: ArgumentCheck;
}

export interface ServerHealth {
  name: string;
  transport: 'stdio' | 'http' | 'sse' | 'invalid';
  state: ServerState;
  tools: number;
  /** what went wrong last (a start, a crash, the config), one line */
  lastError?: string;
  /** the same as facts, for the extension to word in the person's language */
  problem?: McpServerProblem;
  /** starts after the first */
  restarts: number;
  /** the server's log (stdio servers) */
  log?: string;
  /** tools not offered, and why; schema problems */
  notes: string[];
}

export interface ConnectionOptions {
  spec: McpServerSpec;
  /** the minimal environment for a stdio server, the server's own `env` already added */
  env: Record<string, string>;
  log: ServerLog;
  version: string;
  records?: ProgramRecords;
  startTimeoutMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  maxFailures: number;
  stableMs: number;
  killGraceMs: number;
  maxMessageBytes: number;
  /** a state or tool list changed */
  onChange(): void;
}

export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  maxTotalTimeoutMs: number;
  onprogress?: (progress: Progress) => void;
}

// one validator (results are checked against a tool's output schema with it, outputMismatch) for every connection
let sharedValidator: jsonSchemaValidator | undefined;

/**
 * The SDK's validator, with a schema that holds a pattern checked under the watchdog of the argument check
 * (arguments.ts): the server's pattern runs on the companion's own thread against the result the server sent, and
 * one that backtracks (made to, by a remote service) would otherwise hold the companion for hours.
 */
function watchedValidator(): jsonSchemaValidator {
  const ajv = new AjvJsonSchemaValidator();
  return {
    getValidator<T>(schema: Parameters<jsonSchemaValidator['getValidator']>[0]) {
      const validate = ajv.getValidator<T>(schema);
      if (!hasPattern(schema)) return validate;
      return (input: unknown) =>
        withinCheckTime(() => validate(input)) ?? {
          valid: false as const,
          data: undefined,
          errorMessage: `checking the result against the tool's output schema took more than ${CHECK_MS} ms (a "pattern" in the schema backtracks on it)`,
        };
    },
  };
}

/**
 * The most tools of one server that are offered. Every tool's input schema is compiled as its list is read, on the
 * companion's own thread (about half a millisecond each), and every tool list, prompt and tools/list block shows them
 * all: a server listing 20 000 tools (a bridge generated from a large API, or one that lists endlessly) held every
 * request, run and approval of the companion for seconds at each start and each change of its list, and one message
 * of its size limit holds some 300 000. No model chooses well among more than a few hundred tools anyway.
 */
export const MAX_TOOLS_PER_SERVER = 1_000;

/** What gives a server that is slow to start more time; the usual cause is a first start that downloads it. */
const SLOW_START = 'one that downloads itself first (npx -y, uvx, docker run) may need longer: raise its "startTimeoutMs" (up to 600000)';

/** Why chatbridge does not answer what a server may ask its client for (it declares none of these capabilities). */
const NOT_ANSWERED: Readonly<Record<string, string>> = {
  'sampling/createMessage': 'chatbridge runs no model for its MCP servers (sampling); the tool needs a client that does',
  'elicitation/create': "chatbridge does not ask the person questions for its MCP servers (elicitation); the tool's arguments must say what it needs",
  'roots/list': "chatbridge gives its MCP servers no roots; a server works in the folders its own command line or settings name",
};

/**
 * What the SDK's client is given to compile output schemas with: nothing. It compiles every tool's output schema as
 * it lists the tools — one it could not compile (a $ref to nowhere) failed the whole server's start, retried until
 * given up — and uses them only in callTool, which callOnce does not use. applyTools compiles them, one by one.
 */
const uncompiled: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

/**
 * A tools/list answer as it is read from a server: each tool on its own (readTools). The SDK's ListToolsResultSchema
 * refused the whole list for one tool whose input schema has no "type" (valid JSON Schema, as servers on other SDKs
 * write one, or `{}` for a tool without arguments) or gives a property as the schema `true`: the server never started,
 * was retried until given up, and its error was a page of the SDK's schema errors naming no tool.
 */
const ToolListSchema = PaginatedResultSchema.extend({ tools: z.array(z.unknown()) });
/**
 * A tool as the SDK reads one — its input schema as every MCP client reads it, since /mcp lists it to them — with an
 * output schema of any JSON Schema object (only the output check reads it).
 */
const ListedToolSchema = ToolSchema.extend({ outputSchema: z.record(z.string(), z.unknown()).optional() });
type ListedTool = z.infer<typeof ListedToolSchema>;

/**
 * A tool written the way MCP clients read one, meaning what it meant: an optional field written as null (as servers
 * on other SDKs write one they leave empty) is left out; in its input schema, no "type" is an object's (a tool's
 * arguments are one), and a property given as the schema true or false is written {} or {"not": {}}.
 */
function clientShapedInput(listed: unknown): unknown {
  if (listed === null || typeof listed !== 'object' || Array.isArray(listed)) return listed;
  const tool = Object.fromEntries(Object.entries(listed).filter(([key, value]) => value !== null || key === 'name' || key === 'inputSchema'));
  const schema = (tool as { inputSchema?: unknown }).inputSchema;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return tool;
  const own = schema as Record<string, unknown>;
  const properties = own.properties;
  const shaped: Record<string, unknown> = { ...own, ...(own.type === undefined ? { type: 'object' } : {}) };
  if (properties !== null && typeof properties === 'object' && !Array.isArray(properties)) {
    shaped.properties = Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [key, value === true ? {} : value === false ? { not: {} } : value]),
    );
  }
  return { ...tool, inputSchema: shaped };
}

/** A tool of the list that is not read as a tool (no name, an annotation of the wrong type), and why. */
interface RefusedTool {
  name: string | undefined;
  why: string;
}

/** The tools of a page of tools/list, each read on its own: one the server describes wrongly is left out, not the list. */
function readTools(items: unknown[]): { tools: ListedTool[]; refused: RefusedTool[] } {
  const tools: ListedTool[] = [];
  const refused: RefusedTool[] = [];
  for (const item of items) {
    const parsed = ListedToolSchema.safeParse(clientShapedInput(item));
    if (parsed.success) {
      tools.push(parsed.data);
      continue;
    }
    const name = (item as { name?: unknown } | null)?.name;
    const why = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.map(String).join('.') || 'the tool'}: ${issue.message}`)
      .join('; ');
    refused.push({ name: typeof name === 'string' ? name : undefined, why });
  }
  return { tools, refused };
}

const TOO_MANY_TOOLS = `chatbridge offers at most ${MAX_TOOLS_PER_SERVER} tools of one server, in the order it lists them`;

export interface ServerConnection {
  readonly name: string;
  readonly spec: McpServerSpec;
  state(): ServerState;
  health(): ServerHealth;
  tools(): ReadonlyMap<string, ExternalToolEntry>;
  /** why a tool of this server is not offered, if it was skipped */
  skipped(tool: string): string | undefined;
  start(): void;
  /** resolves once ready; throws ToolError UNAVAILABLE when the server is down, or once `waitMs` has passed */
  ready(signal: AbortSignal, waitMs: number): Promise<void>;
  call(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult>;
  close(): Promise<void>;
}

export function createServerConnection(options: ConnectionOptions): ServerConnection {
  const { spec, log } = options;
  // an error of the HTTP transport may quote the server's URL (a redirect's target built from it): its key stays out
  // of the health, the log and the answers, as it stays out of chatbridge mcp list
  const secrets = spec.transport === 'stdio' ? [] : urlSecrets(spec.url);
  const messageOf = (error: unknown): string => withoutUrlSecrets(errorText(error), secrets).slice(0, 500);
  let state: ServerState = spec.disabled ? 'disabled' : 'starting';
  let client: Client | undefined;
  let transport: Transport | undefined;
  let tools = new Map<string, ExternalToolEntry>();
  let skippedTools = new Map<string, string>();
  /** each offered tool's output schema, compiled (outputMismatch) */
  let outputChecks = new Map<string, JsonSchemaValidator<unknown>>();
  let notes: string[] = [];
  let lastError: string | undefined;
  let problem: McpServerProblem | undefined;
  let failures = 0;
  let restarts = 0;
  let connectedAt = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let retryAt = 0;
  /** a generation per connection attempt, so a late event of an old client changes nothing */
  let generation = 0;
  const waiters = new Set<() => void>();
  // read through a function: an await may have closed the connection since the last check
  const isClosed = () => state === 'closed';

  function setState(next: ServerState): void {
    state = next;
    for (const wake of [...waiters]) wake();
    options.onChange();
  }

  /** `offered: false`: the server's capabilities name no tools, so it was not asked for a list */
  function applyTools({ tools: list, refused }: { tools: ListedTool[]; refused: RefusedTool[] }, offered = true): void {
    const next = new Map<string, ExternalToolEntry>();
    const skipped = new Map<string, string>();
    const checks = new Map<string, JsonSchemaValidator<unknown>>();
    const newNotes: string[] = offered ? [] : ["the server offers no tools (its capabilities name none); chatbridge calls a server's tools only"];
    const names = new Set([...list.map((tool) => tool.name), ...refused.flatMap((tool) => (tool.name === undefined ? [] : [tool.name]))]);
    for (const { name, why } of refused) {
      const what = `the server's description of it is not a valid tool (${why.slice(0, 300)})`;
      if (name !== undefined) skipped.set(name, `not offered: ${what}`);
      newNotes.push(`tool ${name === undefined ? '(with no name)' : JSON.stringify(name.slice(0, 80))} is not offered: ${what}`);
    }
    if (list.length > MAX_TOOLS_PER_SERVER) {
      for (const tool of list.slice(MAX_TOOLS_PER_SERVER)) skipped.set(tool.name, `not offered: ${TOO_MANY_TOOLS}`);
      newNotes.push(`the server lists more than ${MAX_TOOLS_PER_SERVER} tools: only its first ${MAX_TOOLS_PER_SERVER} are offered (${TOO_MANY_TOOLS})`);
    }
    for (const tool of list.slice(0, MAX_TOOLS_PER_SERVER)) {
      if (!isOfferedToolName(tool.name)) {
        skipped.set(tool.name, `not offered: ${TOOL_NAME_RULE}`);
        newNotes.push(`tool ${JSON.stringify(tool.name.slice(0, 80))} is not offered: ${TOOL_NAME_RULE}`);
        continue;
      }
      // every tool list shows the schema (redacted, part by part), and the argument check and a card walk it: one
      // nested 100 000 levels deep (which a server on another SDK can send) overflowed the stack in each tool list, so
      // /v1/tools, /mcp's tools/list and a tools/list block failed whole, the built-ins' with it
      if (valueNestingExceeds(tool.inputSchema, MAX_NESTING)) {
        skipped.set(tool.name, `not offered: its input schema nests deeper than ${MAX_NESTING} levels of objects and arrays`);
        newNotes.push(`tool ${tool.name} is not offered: its input schema nests deeper than ${MAX_NESTING} levels of objects and arrays`);
        continue;
      }
      if (tool.execution?.taskSupport === 'required') {
        skipped.set(tool.name, 'not offered: it only runs as a long-running task, which chatbridge does not call');
        newNotes.push(`tool ${tool.name} is not offered: it only runs as a task`);
        continue;
      }
      const name = externalToolName(spec.name, tool.name);
      const inputSchema = { ...(tool.inputSchema as Record<string, unknown>), type: 'object' };
      const compiled = compileArgumentCheck(name, inputSchema);
      if (compiled.problem) newNotes.push(compiled.problem);
      if (tool.outputSchema !== undefined) {
        try {
          checks.set(tool.name, (sharedValidator ??= watchedValidator()).getValidator(tool.outputSchema as Parameters<jsonSchemaValidator['getValidator']>[0]));
        } catch (error) {
          newNotes.push(`the output schema of ${name} cannot be compiled, so its results are not checked against it: ${messageOf(error)}`);
        }
      }
      next.set(tool.name, {
        server: spec.name,
        tool: tool.name,
        name,
        description: tool.description ?? tool.title ?? '',
        inputSchema,
        rule: externalToolRule(spec.policy, spec.name, tool.name, tool.annotations),
        check: compiled.check,
      });
    }
    const keys = unmatchedPolicyKeys(spec.policy, spec.name, names);
    for (const key of keys.none) {
      newNotes.push(
        `policy.tools.${JSON.stringify(key.slice(0, 80))} names no tool of ${spec.name}, so its mode holds for none: a key is a tool's own name (or ${spec.name}.<tool>) as the server lists it`,
      );
    }
    for (const { key, tool } of keys.loose) {
      newNotes.push(
        `policy.tools.${JSON.stringify(key.slice(0, 80))} is not written as ${spec.name} lists its tool ${JSON.stringify(tool)} (case or characters differ): a deny or confirm so written holds for it, an auto does not; write the name as the server lists it`,
      );
    }
    tools = next;
    skippedTools = skipped;
    outputChecks = checks;
    notes = newNotes;
    options.onChange();
  }

  async function listAllTools(c: Client): Promise<{ tools: ListedTool[]; refused: RefusedTool[] }> {
    let all: ListedTool[] = [];
    let refused: RefusedTool[] = [];
    let cursor: string | undefined;
    // bounded: a server that pages forever must not hold the start; past the tools offered, one more is enough to
    // know there are more
    for (let page = 0; page < 100 && all.length <= MAX_TOOLS_PER_SERVER; page++) {
      const result = await c.request({ method: 'tools/list', ...(cursor ? { params: { cursor } } : {}) }, ToolListSchema, { timeout: options.startTimeoutMs });
      const read = readTools(result.tools);
      // not push(...tools): a page of 200 000 tools is more arguments than a call may take
      all = all.concat(read.tools);
      refused = refused.concat(read.refused);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return { tools: all, refused };
  }

  function newClient(mine: number): Client {
    // One read of the list at a time: a change said while one is read makes that read stale, so its list is dropped
    // and the list read again once it ends. Two reads side by side answered in either order, and the older list,
    // answering last, took the newer one's place (a tool the server added not offered, one it removed offered).
    let reading = false;
    let changedWhileReading = false;
    const refresh = (): void => {
      if (reading) {
        changedWhileReading = true;
        return;
      }
      reading = true;
      changedWhileReading = false;
      listAllTools(c)
        .then(
          (list) => {
            if (mine === generation && !changedWhileReading) applyTools(list);
          },
          (error: unknown) => {
            if (mine !== generation || changedWhileReading) return;
            lastError = `refreshing the tool list failed: ${messageOf(error)}`;
            problem = { code: 'list-refresh-failed', starting: false, cause: messageOf(error) };
          },
        )
        .finally(() => {
          reading = false;
          if (changedWhileReading && mine === generation) refresh();
        });
    };
    const c = new Client(
      { name: 'chatbridge', version: options.version },
      {
        capabilities: {},
        jsonSchemaValidator: uncompiled,
        listChanged: {
          tools: {
            // the SDK's own refresh reads the first page only: the list is read page by page, as at the start
            autoRefresh: false,
            onChanged: () => {
              if (mine === generation) refresh();
            },
          },
        },
      },
    );
    // a server that asks its client for something (a model's answer, the person's input, roots) though chatbridge
    // declared none of it: 'Method not found' was all its tool could report, naming nothing
    c.fallbackRequestHandler = async (request) => {
      const method = request.method.slice(0, 80);
      const why = Object.hasOwn(NOT_ANSWERED, method) ? NOT_ANSWERED[method] : 'chatbridge answers only ping from its MCP servers';
      log.note(`the server asked for ${method}: ${why}`);
      // not an McpError, whose message carries its code: the server's SDK puts the code before it once more
      throw Object.assign(new Error(`${method}: ${why}`), { code: ErrorCode.MethodNotFound });
    };
    c.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      const { level, logger, data } = notification.params;
      log.note(`log ${level}${logger ? ` ${logger}` : ''}: ${typeof data === 'string' ? data : JSON.stringify(data)}`.slice(0, 2000));
    });
    // what breaks the connection ends in onclose (reported there); the rest is worth a line in the server's log
    c.onerror = (error) => {
      log.note(`protocol error: ${messageOf(error)}`);
      // an HTTP server that went away mid-call breaks the call's event stream, and nothing else tells: without
      // this, the call waited out its whole timeout and was then reported as not answering. With no call waiting,
      // the next call finds out (a refused connection, or a session the server no longer knows)
      if (error instanceof Error && error.message.startsWith('SSE stream disconnected') && callsWaiting > 0) void checkAlive(mine, c);
    };
    return c;
  }

  let checking = false;
  /** calls sent and not yet answered */
  let callsWaiting = 0;

  /**
   * Pings an HTTP server whose event stream broke; one that cannot be reached is lost (its calls end UNAVAILABLE).
   * One that answers late is busy, not gone: a stream cut by a proxy is resumed by the transport, and a call that
   * waits still ends at its own timeout.
   */
  async function checkAlive(mine: number, c: Client): Promise<void> {
    if (checking || mine !== generation || state !== 'ready') return;
    checking = true;
    const timeoutMs = Math.min(options.startTimeoutMs, 5_000);
    try {
      await c.ping({ timeout: timeoutMs });
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        log.note(`a call's event stream broke and the server did not answer a ping within ${timeoutMs} ms; its calls wait on`);
        return;
      }
      if (mine === generation && state === 'ready') {
        const reason = `the server stopped answering (${messageOf(error)})`;
        void lost(reason, { code: 'not-answering', cause: messageOf(error) });
      }
    } finally {
      checking = false;
    }
  }

  /** the WWW-Authenticate of the last 401 or 403 an HTTP transport met ('' when it had none) */
  const authChallenges = new WeakMap<Transport, string>();
  /** the last redirect an HTTP transport met: the URL asked for and the one it led to */
  const redirects = new WeakMap<Transport, { from: URL; to: URL; keepsMethod: boolean }>();
  /** HTTP transports reset because the server sent a message over maxMessageBytes (limited-fetch.ts) */
  const overflowedHttp = new WeakSet<Transport>();
  const overflowed = (t: Transport | undefined) => (t instanceof ChildProcessTransport && t.overflowed) || (t !== undefined && overflowedHttp.has(t));

  function newTransport(kind: 'stdio' | 'http' | 'sse'): Transport {
    if (spec.transport === 'stdio') {
      return new ChildProcessTransport({
        name: spec.name,
        command: spec.command,
        args: spec.args,
        env: options.env,
        ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
        log,
        maxMessageBytes: options.maxMessageBytes,
        killGraceMs: options.killGraceMs,
        ...(options.records ? { records: options.records } : {}),
      });
    }
    const requestInit = { headers: spec.headers };
    // what the SDK's errors do not carry: how a 401 or 403 says the server signs people in (WWW-Authenticate), and
    // where a redirect it did not follow led
    const heard: FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      if (response.status === 401 || response.status === 403) authChallenges.set(transport, response.headers.get('www-authenticate') ?? '');
      const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
      if (location !== null) {
        try {
          const keepsMethod = response.status === 307 || response.status === 308 || (init?.method ?? 'GET').toUpperCase() === 'GET';
          redirects.set(transport, { from: new URL(url), to: new URL(location, url), keepsMethod });
        } catch {
          // a Location that is no URL: the SDK's own error says so
        }
      }
      return response;
    };
    const limited = limitedFetch(
      options.maxMessageBytes,
      () => {
        if (overflowedHttp.has(transport)) return;
        overflowedHttp.add(transport);
        log.note(`the server sent a message larger than ${options.maxMessageBytes} bytes; the connection was reset`);
        void transport.close().catch(() => undefined);
      },
      heard,
    );
    // each message read as the stdio transport reads it (a `_meta: null`, an answer that is no valid answer)
    const reading = fetchReadingMessages(limited, (problem) => log.note(problem));
    const transport: Transport =
      kind === 'sse'
        ? new SSEClientTransport(new URL(spec.url), { requestInit, fetch: reading })
        : new StreamableHTTPClientTransport(new URL(spec.url), { requestInit, fetch: reading });
    return transport;
  }

  /**
   * Clients still connecting, not yet the connection's own: closing the connection closes them too. Left to their
   * start, a server that had not answered yet when the companion shut down (one downloading itself, one stuck before
   * its first answer) ran on for up to its startTimeoutMs, and past the companion's exit, in a process group of its
   * own, for as long as it ignored its closed input.
   */
  const connecting = new Set<{ client: Client; transport: Transport }>();

  async function connectWith(kind: 'stdio' | 'http' | 'sse', mine: number): Promise<{ client: Client; transport: Transport }> {
    const c = newClient(mine);
    const t = newTransport(kind);
    const attempt = { client: c, transport: t };
    connecting.add(attempt);
    try {
      await c.connect(t, { timeout: options.startTimeoutMs });
    } catch (error) {
      // "Connection closed" says nothing: a server that exited by itself says how, and what it printed last
      const exited = t instanceof ChildProcessTransport && t.exit !== undefined;
      await closeQuietly(c, t);
      if (exited) throw closeProblem(t);
      const refused = refusedAuth(error, authChallenges.get(t)) ?? redirectNotFollowed(error, redirects.get(t));
      if (refused) throw refused;
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new ServerProblemError(`it did not answer within ${options.startTimeoutMs} ms of being started, and was stopped; ${SLOW_START}`, {
          code: 'start-timeout',
          timeoutMs: options.startTimeoutMs,
        });
      }
      throw error;
    } finally {
      connecting.delete(attempt);
    }
    return attempt;
  }

  async function connect(): Promise<void> {
    const mine = ++generation;
    retryTimer = undefined;
    if (state === 'closed') return;
    setState('starting');
    try {
      let connected: { client: Client; transport: Transport };
      if (spec.transport === 'stdio') connected = await connectWith('stdio', mine);
      else if (spec.transport === 'sse') {
        try {
          connected = await connectWith('sse', mine);
        } catch (error) {
          throw error instanceof ServerProblemError ? error : new Error(messageOf(error));
        }
      }
      else {
        try {
          connected = await connectWith('http', mine);
        } catch (error) {
          if (mine !== generation) throw error;
          // a server that refuses the credentials is there: the older transport would only hide why
          if (error instanceof ServerProblemError && error.facts.code === 'auth-refused') throw error;
          // servers from before Streamable HTTP speak HTTP+SSE at the same URL (the SDK's documented fallback)
          log.note(`Streamable HTTP failed (${messageOf(error)}); trying the older HTTP+SSE transport`);
          try {
            connected = await connectWith('sse', mine);
          } catch (sseError) {
            // the same redirect met by both: said once
            if (isRedirectProblem(error) && isRedirectProblem(sseError) && error.message === sseError.message) throw error;
            throw new Error(`Streamable HTTP: ${messageOf(error)}; then HTTP+SSE: ${messageOf(sseError)}`);
          }
        }
      }
      if (mine !== generation || isClosed()) {
        await closeQuietly(connected.client, connected.transport);
        return;
      }
      client = connected.client;
      transport = connected.transport;
      client.onclose = () => {
        if (mine !== generation) return;
        const closed = closeProblem(connected.transport);
        void lost(closed.message, closed.facts);
      };
      // a server of resources or prompts only answers tools/list with Method not found: it is up, with no tools
      if (client.getServerCapabilities()?.tools === undefined) applyTools({ tools: [], refused: [] }, false);
      else {
        applyTools(
          await listAllTools(client).catch((error: unknown) => {
            if (!(error instanceof McpError && error.code === ErrorCode.RequestTimeout)) throw error;
            throw new ServerProblemError(`it started but did not list its tools within ${options.startTimeoutMs} ms, and was stopped; ${SLOW_START}`, {
              code: 'list-timeout',
              timeoutMs: options.startTimeoutMs,
            });
          }),
        );
      }
      if (mine !== generation) return;
      connectedAt = Date.now();
      setState('ready');
    } catch (error) {
      if (mine !== generation || isClosed()) return;
      // why, in chatbridge's own words, is not cut as a server's text is: it may end in a command line to type
      const said = error instanceof ServerProblemError ? withoutUrlSecrets(errorText(error), secrets).slice(0, 1000) : messageOf(error);
      await lost(`could not start: ${said}`, factsOf(error, said), true);
    }
  }

  /** The connection is gone (a crash, a failed start, a dropped HTTP session): retry with backoff, or give up. */
  async function lost(reason: string, facts: ProblemFacts, starting = false): Promise<void> {
    if (state === 'closed' || state === 'disabled') return;
    const old = { client, transport };
    generation++;
    client = undefined;
    transport = undefined;
    tools = new Map();
    lastError = reason;
    problem = { ...facts, starting };
    const lived = connectedAt > 0 ? Date.now() - connectedAt : 0;
    connectedAt = 0;
    failures = lived >= options.stableMs ? 1 : failures + 1;
    log.note(reason);
    if (old.client) void closeQuietly(old.client, old.transport);
    if (failures >= options.maxFailures) {
      lastError = `${reason} (gave up after ${failures} failures in a row; the next call to one of its tools tries it again; restart chatbridge after changing its entry)`;
      problem = { ...problem, failures };
      log.note(`gave up after ${failures} failures in a row`);
      setState('error');
      return;
    }
    const delay = Math.min(options.backoffMaxMs, options.backoffBaseMs * 2 ** (failures - 1));
    retryAt = Date.now() + delay;
    setState('retrying');
    retryTimer = setTimeout(restartNow, delay);
    retryTimer.unref?.();
  }

  function restartNow(): void {
    if (retryTimer) clearTimeout(retryTimer);
    restarts++;
    void connect();
  }

  /**
   * A call for a server waiting out its backoff starts it now, rather than being refused until the next try (up to
   * 30 s after a crash the call did not cause). A server given up is tried once more the same way: what made it
   * fail is often gone by then (a hosted server back from a deploy, a database started, the network back after
   * sleep), and backoff gives up after ~15 s of failures; one more failure gives it up again at once, so a server
   * that stays broken costs each call one start.
   */
  function startForCall(): void {
    if (state === 'error') failures = options.maxFailures - 1;
    log.note('a call asked for it: starting it now');
    restartNow();
  }

  /**
   * Why an HTTP server turned the connection down, when it said so with 401 or 403. One whose challenge names its
   * OAuth metadata (`WWW-Authenticate: Bearer resource_metadata="…"`, as the MCP authorization spec has servers
   * write it) signs people in with OAuth, in a browser: it was told to take a token in "headers", which such a
   * server takes only when its service issues one for programs.
   */
  function refusedAuth(error: unknown, challenge: string | undefined): ServerProblemError | undefined {
    const status = error instanceof StreamableHTTPError || error instanceof SseError ? error.code : undefined;
    if (status !== 401 && status !== 403) return undefined;
    const configured = spec.transport === 'stdio' ? [] : Object.keys(spec.headers);
    const oauth = challenge !== undefined && /\bresource_metadata\s*=/i.test(challenge);
    const refused = `the server answered HTTP ${status} (${status === 401 ? 'not signed in' : 'forbidden'}): `;
    if (oauth) {
      const url = spec.transport === 'stdio' ? '' : shownUrl(spec.url);
      return new ServerProblemError(
        refused +
          (configured.length > 0 ? `it did not accept the credentials in its "headers" (${configured.join(', ')}), and it` : 'it') +
          ' signs people in with OAuth in a browser, which chatbridge does not do. Give it a token its service issues for programs ' +
          '(an API key) in "headers", or put a proxy that signs in for it in its place, in the chatbridge folder: ' +
          `\`npx chatbridge mcp remove ${spec.name}\`, then \`npx chatbridge mcp add ${spec.name} --start-timeout-ms ${SIGN_IN_START_TIMEOUT_MS} -- npx -y mcp-remote ${url}\``,
        { code: 'auth-refused', httpStatus: status, headers: configured, signIn: 'oauth' },
      );
    }
    return new ServerProblemError(
      refused +
        (configured.length > 0
          ? `it did not accept the credentials in its "headers" (${configured.join(', ')})`
          : 'it wants credentials; put a token in its "headers", e.g. "Authorization": "Bearer …" (sign-in flows such as OAuth are not supported)'),
      { code: 'auth-refused', httpStatus: status, headers: configured },
    );
  }

  /**
   * A redirect the SDK did not follow, said with what to do: it was 'Redirect to https://host/mcp not followed
   * (redirectPolicy: 'same-origin')', an option of the SDK no entry can set, twice (once per transport). A server's
   * URL written with http:// for an https:// service, or without the slash its web server adds, is redirected so.
   */
  function redirectNotFollowed(error: unknown, redirect: { from: URL; to: URL; keepsMethod: boolean } | undefined): ServerProblemError | undefined {
    if (redirect === undefined || !/\bnot followed\b/.test(messageOf(error))) return undefined;
    const to = shownUrl(redirect.to.href);
    const sameOrigin = redirect.to.origin === redirect.from.origin && redirect.to.username === redirect.from.username && redirect.to.password === redirect.from.password;
    const message =
      redirect.to.protocol === 'http:' && redirect.from.protocol === 'https:'
        ? `its URL redirects to plain http (${to}), which chatbridge does not follow: what is sent to the server (its "headers" too) would go unencrypted`
        : sameOrigin && redirect.keepsMethod
          ? `its URL redirects again and again (the last time to ${to}), and chatbridge stopped following: write the URL the server answers at as its "url"`
          : `its URL redirects to ${to}, which chatbridge does not follow (it follows one to the same scheme, host and port only, and for a POST only a 307 or 308): ` +
            'if that is where the server is, write that URL as its "url"';
    return new ServerProblemError(message, { code: 'other', detail: message });
  }

  function isRedirectProblem(error: unknown): error is ServerProblemError {
    return error instanceof ServerProblemError && error.facts.code === 'other' && error.message.startsWith('its URL redirects ');
  }

  function closeProblem(t: Transport): ServerProblemError {
    if (overflowed(t)) {
      return new ServerProblemError(`the server sent a message larger than ${options.maxMessageBytes} bytes; the connection was reset`, {
        code: 'message-too-large',
        maxBytes: options.maxMessageBytes,
      });
    }
    if (t instanceof ChildProcessTransport && t.outputClosed) {
      return new ServerProblemError('the server closed its output and went on running, so it could answer nothing more; it was stopped', { code: 'connection-closed' });
    }
    if (t instanceof ChildProcessTransport && t.stalled) {
      return new ServerProblemError('the server stopped reading what chatbridge sent it; the connection was reset', { code: 'not-reading' });
    }
    if (t instanceof ChildProcessTransport && t.exit) {
      const { code, signal } = t.exit;
      const said = t.lastStderrLine;
      return new ServerProblemError(
        `the server exited (${signal ? `signal ${signal}` : `code ${String(code)}`})${said !== undefined ? `; its stderr ended with: ${said}` : ''}`,
        {
          code: 'exited',
          ...(spec.transport === 'stdio' ? { program: spec.command } : {}),
          ...(signal ? { signal } : code !== null ? { exitCode: code } : {}),
          ...(said !== undefined ? { stderr: said } : {}),
        },
      );
    }
    return new ServerProblemError('the connection to the server was closed', { code: 'connection-closed' });
  }

  function unavailable(): ToolError {
    const why = lastError ? `: ${lastError}` : '';
    const logHint = spec.transport === 'stdio' ? `; its log: ${log.file}` : '';
    switch (state) {
      case 'disabled':
        return new ToolError('UNAVAILABLE', `MCP server ${spec.name} is disabled in the config`);
      case 'retrying':
        return new ToolError(
          'UNAVAILABLE',
          `MCP server ${spec.name} is restarting (next try in ${Math.max(0, Math.ceil((retryAt - Date.now()) / 1000))} s)${why}${logHint}`,
        );
      case 'closed':
        return new ToolError('UNAVAILABLE', `MCP server ${spec.name} is shut down`);
      default:
        return new ToolError('UNAVAILABLE', `MCP server ${spec.name} is not running${why}${logHint}`);
    }
  }

  function ready(signal: AbortSignal, waitMs: number): Promise<void> {
    if (state === 'ready') return Promise.resolve();
    if (state === 'error' || state === 'retrying') startForCall();
    if (state !== 'starting') return Promise.reject(unavailable());
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
        signal.removeEventListener('abort', onAbort);
      };
      const check = () => {
        if (state === 'ready') {
          done();
          resolve();
        } else if (state !== 'starting') {
          done();
          reject(unavailable());
        }
      };
      const onAbort = () => {
        done();
        reject(new ToolError('CANCELLED', `stopped while MCP server ${spec.name} was starting`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new ToolError('UNAVAILABLE', `MCP server ${spec.name} did not finish starting within ${waitMs} ms${lastError ? ` (last error: ${lastError})` : ''}`));
      }, waitMs);
      waiters.add(check);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async function call(tool: string, args: Record<string, unknown>, callOptions: CallOptions): Promise<CallToolResult> {
    const c = client;
    const t = transport;
    if (state !== 'ready' || !c) throw unavailable();
    const sentAt = Date.now();
    try {
      return await callOnce(c, tool, args, callOptions);
    } catch (error) {
      if (!sessionGone(error, t) || callOptions.signal.aborted) throw callError(error, tool, callOptions, t);
      // the server refused the session, so it did nothing with the call: a new session, and the call sent once more —
      // both within the call's own timeout, not the server's start timeout and then a whole timeout again
      log.note(`the server no longer knows its session (${messageOf(error)}); a new one is opened and ${tool} sent again`);
      renewSession(t);
      const left = () => Math.max(1, callOptions.timeoutMs - (Date.now() - sentAt));
      try {
        await ready(callOptions.signal, Math.min(options.startTimeoutMs, left()));
      } catch (waitError) {
        if (!(waitError instanceof ToolError && waitError.code === 'UNAVAILABLE' && left() <= 1)) throw waitError;
        throw new ToolError(
          'TIMEOUT',
          `${externalToolName(spec.name, tool)} did not answer within ${callOptions.timeoutMs} ms: MCP server ${spec.name} no longer knew its session (it restarted?) and had not opened a new one in that time`,
          { timeoutMs: callOptions.timeoutMs },
        );
      }
      const renewed = client;
      const renewedTransport = transport;
      if (!renewed) throw unavailable();
      try {
        return await callOnce(renewed, tool, args, { ...callOptions, timeoutMs: left() });
      } catch (retryError) {
        throw callError(retryError, tool, callOptions, renewedTransport);
      }
    }
  }

  /**
   * One tools/call. Sent as a plain request, not with the SDK's callTool: that throws away a result whose
   * structuredContent does not match the tool's output schema (or is missing), after the tool ran — a created issue or
   * a sent mail then read as a failure, and a model would do it again. The result is kept, with the mismatch named.
   */
  async function callOnce(c: Client, tool: string, args: Record<string, unknown>, callOptions: CallOptions): Promise<CallToolResult> {
    callsWaiting++;
    let result: CallToolResult;
    try {
      result = (await c.request({ method: 'tools/call', params: { name: tool, arguments: args } }, ToolResultSchema, {
        signal: callOptions.signal,
        timeout: callOptions.timeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: callOptions.maxTotalTimeoutMs,
        ...(callOptions.onprogress ? { onprogress: callOptions.onprogress } : {}),
      })) as CallToolResult;
    } finally {
      callsWaiting--;
    }
    const mismatch = outputMismatch(tool, result);
    if (mismatch === undefined) return result;
    log.note(`${tool}: ${mismatch}`);
    return { ...result, content: [...result.content, { type: 'text', text: `[${mismatch}; shown as the server sent it]` }] };
  }

  /** How a result breaks the tool's own output schema (MCP spec: structuredContent, matching it, unless isError). */
  function outputMismatch(tool: string, result: CallToolResult): string | undefined {
    const validate = outputChecks.get(tool);
    if (validate === undefined || result.isError === true) return undefined;
    if (result.structuredContent === undefined) return "the tool declares an output schema but the server's result has no structuredContent";
    let checked: ReturnType<typeof validate>;
    try {
      checked = validate(result.structuredContent);
    } catch (error) {
      return `the server's structuredContent could not be checked against the tool's output schema: ${messageOf(error)}`;
    }
    return checked.valid ? undefined : `the server's structuredContent does not match the tool's own output schema: ${checked.errorMessage ?? 'no reason given'}`;
  }

  /**
   * A Streamable HTTP server that no longer knows the session (it restarted, or ended idle sessions) refuses every
   * message of it before reading it: 404 as the spec says, or 400 naming the session as the SDK's own example
   * servers answer. The spec's remedy is a new session.
   */
  function sessionGone(error: unknown, t: Transport | undefined): boolean {
    if (!(error instanceof StreamableHTTPError) || !(t instanceof StreamableHTTPClientTransport) || t.sessionId === undefined) return false;
    return error.code === 404 || (error.code === 400 && /session/i.test(error.message));
  }

  /** Opens a new session in place of the one on `old`, unless a call that met the same refusal already did. */
  function renewSession(old: Transport | undefined): void {
    if (transport !== old || state !== 'ready') return;
    const previous = { client, transport };
    void connect();
    if (previous.client) void closeQuietly(previous.client, previous.transport);
  }

  function callError(error: unknown, tool: string, callOptions: CallOptions, t: Transport | undefined): ToolError {
    const name = externalToolName(spec.name, tool);
    if (callOptions.signal.aborted) {
      return new ToolError('CANCELLED', `${name} was stopped; MCP server ${spec.name} was told to cancel it`);
    }
    if (error instanceof McpError) {
      // progress resets the call's timeout, up to the longest any call may take: past that, that is what to name
      if (error.code === ErrorCode.RequestTimeout && (error.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout !== undefined) {
        return new ToolError(
          'TIMEOUT',
          `${name} ran for longer than any call may (limits.maxTimeoutMs, ${callOptions.maxTotalTimeoutMs} ms), though it kept reporting progress; MCP server ${spec.name} was told to cancel it`,
          { timeoutMs: callOptions.maxTotalTimeoutMs },
        );
      }
      if (error.code === ErrorCode.RequestTimeout) {
        return new ToolError('TIMEOUT', `${name} did not answer within ${callOptions.timeoutMs} ms; MCP server ${spec.name} was told to cancel it`, {
          timeoutMs: callOptions.timeoutMs,
        });
      }
      if (error.code === ErrorCode.ConnectionClosed) {
        if (overflowed(t)) {
          return new ToolError('LIMIT_EXCEEDED', `${name}: MCP server ${spec.name} answered with more than ${options.maxMessageBytes} bytes; the connection was reset and it restarts`);
        }
        const how = t ? closeProblem(t).message : 'the connection was closed';
        return new ToolError('UNAVAILABLE', `${name}: MCP server ${spec.name} stopped during the call — ${how}; it restarts${spec.transport === 'stdio' ? ` (log: ${log.file})` : ''}`);
      }
      if (isStreamEndedUnanswered(error.data)) {
        return new ToolError(
          'UNAVAILABLE',
          `${name}: MCP server ${spec.name} ended the call's event stream without answering it, and gave no event id to resume it by, so no answer can come; whether the tool ran is not known`,
        );
      }
      // the SDK prefixes the code once on the server and again here
      const text = withoutUrlSecrets(error.message.replace(/^(?:MCP error -?\d+: )+/, ''), secrets);
      if (/output schema/i.test(text)) return new ToolError('TOOL_ERROR', `${name}: the server's result does not match its own output schema: ${text}`);
      if (error.code === ErrorCode.InvalidParams) return new ToolError('INVALID_INPUT', `${name}: the server refused the arguments: ${text}`);
      if (error.code === ErrorCode.MethodNotFound) return new ToolError('NOT_FOUND', `${name}: the server says: ${text}`);
      return new ToolError('TOOL_ERROR', `${name} failed on MCP server ${spec.name} (error ${error.code}): ${text}`);
    }
    // a transport-level failure (the HTTP server is gone, the pipe is broken): the connection is not usable
    const reason = `calling ${tool} failed: ${messageOf(error)}`;
    if (state === 'ready') void lost(reason, { code: 'call-failed', tool, cause: messageOf(error) });
    return new ToolError('UNAVAILABLE', `${name}: MCP server ${spec.name} cannot be reached (${messageOf(error)}); it reconnects`);
  }

  return {
    name: spec.name,
    spec,
    state: () => state,
    health() {
      return {
        name: spec.name,
        transport: spec.transport,
        state,
        tools: tools.size,
        ...(lastError !== undefined ? { lastError } : {}),
        ...(problem !== undefined ? { problem } : {}),
        restarts,
        ...(spec.transport === 'stdio' ? { log: log.file } : {}),
        notes,
      };
    },
    tools: () => tools,
    skipped: (tool) => skippedTools.get(tool),
    start() {
      if (state === 'starting' && generation === 0) void connect();
    },
    ready,
    call,
    async close() {
      const wasOpen = state !== 'closed';
      generation++;
      if (retryTimer) clearTimeout(retryTimer);
      const old = { client, transport };
      client = undefined;
      transport = undefined;
      tools = new Map();
      if (wasOpen && state !== 'disabled') setState('closed');
      else if (wasOpen) state = 'closed';
      // a client still connecting may not hold its transport yet: that is closed by itself
      const closing = [...connecting].map(async (attempt) => {
        await closeQuietly(attempt.client, attempt.transport);
        await attempt.transport.close().catch(() => undefined);
      });
      if (old.client) closing.push(closeQuietly(old.client, old.transport));
      await Promise.all(closing);
      await log.flush();
    },
  };
}

async function closeQuietly(client: Client, transport: Transport | undefined): Promise<void> {
  try {
    // an HTTP session is ended politely; the server may not support it (405), which is fine
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      await Promise.race([transport.terminateSession().catch(() => {}), new Promise((r) => setTimeout(r, 1000).unref())]);
    }
    await client.close();
  } catch {
    // closing what is already broken
  }
}

function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${message}${cause}`.replace(/\s+/g, ' ');
}
