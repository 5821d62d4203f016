import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import {
  approvalDecisionRequestSchema,
  forgetGrantRequestSchema,
  pairRequestSchema,
  runRequestSchema,
  type ApiError,
  type McpServerProblem,
} from '../shared/api';
import { MAX_AUDIT_LIMIT } from '../shared/audit-limit';
import { ToolError, type ErrorCode } from '../shared/errors';
import { createApprovalStore, type ApprovalStore } from './approvals/store';
import { createAuditLog, type AuditLog } from './audit/audit-log';
import { bearerToken, hostGuard, originGuard, tokenGuard } from './auth/guards';
import { createPairing, type Pairing } from './auth/pairing';
import { createTokenStore, type TokenStore } from './auth/token-store';
import { createConnectionLimit, socketOf, type ConnectionLimit } from './connection-limit';
import { ensureHome, readVersion } from './home';
import { mcpRoute } from './mcp/mcp-route';
import type { McpServers } from './mcp-servers/registry';
import { protectDataDir } from './policy/data-dir';
import { createOutputRedactor } from './processes/redacted-output';
import { redact, redactFromNowOn, withOwnSecrets } from './policy/redact';
import { approvalWaitFor } from './policy/decide';
import type { Policy } from './policy/schema';
import { blockJob, type PlanRunners } from './runs/block-job';
import { blockKey, createRunManager, responseOf, tokenDigest, type RunManager } from './runs/run-manager';
import { createRunStore } from './runs/run-store';
import type { ToolHandlers } from './runs/tool-call';
import { listAllTools } from './runs/tool-list';
import { revealHidden } from '../shared/reveal-hidden';
import type { Journal, ProcessManager } from './types';
import { createEventHub, type EventHub } from './ws/event-hub';
import { wsRoute } from './ws/ws-route';
import { commandHow } from './how-to-run';

export interface AppDeps {
  policy: Policy;
  journal: Journal;
  processes: ProcessManager;
  /** the data dir (tokens, run map, audit) */
  home: string;
  tools: ToolHandlers;
  plans: PlanRunners;
  /** the listening port, known only after listen (`--port 0`) */
  getPort: () => number;
  clock?: () => number;
  tokens?: TokenStore;
  pairing?: Pairing;
  version?: string;
  /** request body cap; default the largest file plus 1 MiB of envelope */
  maxBodyBytes?: number;
  wsAuthTimeoutMs?: number;
  wsHeartbeatMs?: number;
  /** how often an /mcp call that asked for progress is told it still waits; default 5 s */
  mcpProgressMs?: number;
  /** the person's own MCP servers; started and closed by the caller, like the programs */
  mcpServers?: McpServers;
  /** the cap on connections without a token; the server it counts is given to it by serveCompanion */
  connections?: ConnectionLimit;
}

export interface CompanionApp {
  app: Hono;
  hub: EventHub;
  approvals: ApprovalStore;
  runs: RunManager;
  audit: AuditLog;
  /** the journal every run uses; changes through it are pushed as `journal` events */
  journal: Journal;
  tokens: TokenStore;
  pairing: Pairing;
  /** which connections showed a token: serveCompanion counts the others (connection-limit.ts) */
  connections: ConnectionLimit;
  version: string;
  /** aborts runs, expires approvals, flushes the audit; does not stop programs (the caller owns them) */
  close(): Promise<void>;
}

const HTTP_STATUS: Partial<Record<ErrorCode, ContentfulStatusCode>> = {
  INVALID_INPUT: 400,
  PARSE_ERROR: 400,
  INVALID_REQUEST: 400,
  NOT_FOUND: 404,
  METHOD_NOT_FOUND: 404,
  FORBIDDEN: 403,
  POLICY_BLOCKED: 403,
  DENIED: 403,
  CONFLICT: 409,
  MISMATCH: 409,
  AMBIGUOUS: 409,
  LIMIT_EXCEEDED: 413,
  NOT_SUPPORTED: 501,
  TIMEOUT: 504,
};

function errorBody(code: string, message: string, data?: Record<string, unknown>): ApiError {
  return { error: { code, message, ...(data && Object.keys(data).length > 0 ? { data } : {}) } };
}

async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new ToolError('INVALID_INPUT', 'the request body must be JSON');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
    throw new ToolError('INVALID_INPUT', `invalid request body: ${issues.join('; ')}`, { issues });
  }
  return parsed.data;
}

function limitParam(c: Context, fallback: number, max: number): number {
  const raw = c.req.query('limit');
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new ToolError('INVALID_INPUT', `limit ${JSON.stringify(raw)} must be an integer from 1 to ${max}`);
  return n;
}

/** Emits a `journal` event for every change, whoever makes it (tools, plans, undo). */
function observedJournal(journal: Journal, hub: EventHub): Journal {
  return {
    async apply(label, ops, origin, options) {
      const entry = await journal.apply(label, ops, origin, options);
      hub.publish({ type: 'journal', entry });
      return entry;
    },
    async undo(id) {
      const entry = await journal.undo(id);
      hub.publish({ type: 'journal', entry });
      return entry;
    },
    list: (limit) => journal.list(limit),
    recover: () => journal.recover(),
    prune: () => journal.prune(),
  };
}

/** The body a route without a token takes: `{"code": "…"}` of a pairing code is some 50 bytes. */
export const OPEN_ROUTE_BODY_BYTES = 1024;

/** The longest progress message shown; a server may send megabytes in one. */
const PROGRESS_MESSAGE_CHARS = 500;

function shortLine(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A server's health as shown to the extension and the CLI: an error may quote a token from its config. */
function shownHealth<H extends { lastError?: string; problem?: McpServerProblem; notes: string[] }>(health: H, policy: Policy): H {
  // the problem's facts say what lastError says (a stderr line, a PATH, a path written in the config)
  const problem = health.problem && Object.fromEntries(Object.entries(health.problem).map(([key, value]) => [key, typeof value === 'string' ? redact(value, policy) : value]));
  return {
    ...health,
    ...(health.lastError !== undefined ? { lastError: redact(health.lastError, policy) } : {}),
    ...(problem !== undefined ? { problem } : {}),
    notes: health.notes.map((note) => redact(note, policy)),
  };
}

/**
 * The companion's HTTP + ws + /mcp surface (DESIGN §5). Builds everything, listens on nothing: main.ts serves
 * `app.fetch`, tests call `app.request` or serve it on port 0.
 */
export function createApp(deps: AppDeps): CompanionApp {
  const clock = deps.clock ?? Date.now;
  const version = deps.version ?? readVersion();
  const paths = ensureHome(deps.home);
  // whatever policy it was given, no tool reaches the companion's own data, and no answer shows a token it knows
  const policy = withOwnSecrets(protectDataDir(deps.policy, paths.root), []);
  // a paired extension's token is never shown in an answer, once the companion has seen it (it keeps only hashes)
  const tokens = deps.tokens ?? createTokenStore({ file: paths.tokens, clock, onKnown: (token) => redactFromNowOn(policy.redact, token) });
  const pairing = deps.pairing ?? createPairing({ clock });
  const connections = deps.connections ?? createConnectionLimit();
  const hub = createEventHub();
  const journal = observedJournal(deps.journal, hub);
  const approvals = createApprovalStore({
    ttlMs: policy.approvalTtlMs,
    maxPending: policy.limits.maxPendingApprovals,
    clock,
    onChange: (change, approval) => hub.publish({ type: 'approval', change, approval }),
  });
  const audit = createAuditLog({ dir: paths.audit, clock });
  const runStore = createRunStore({ file: paths.runs, clock });
  const runs = createRunManager({
    policy,
    journal,
    processes: deps.processes,
    approvals,
    audit,
    store: runStore,
    publish: (event) => hub.publish(event),
    clock,
  });
  // live output is typed into the chat as auto_coder runtime feedback: redacted like every result a model reads
  const output = createOutputRedactor(policy, (event) => hub.publish({ type: 'program-output', ...event }));
  const stopOutput = deps.processes.onOutput((event) => output.push(event));
  const mcpServers = deps.mcpServers;
  // a progress message is the server's text, shown in the chip while the call runs: redacted like its result (it
  // may quote a secret, or the companion's own token), and kept to a line
  const stopProgress = mcpServers?.onProgress((progress) =>
    hub.publish({
      type: 'tool-progress',
      ...progress,
      ...(progress.message !== undefined ? { message: shortLine(redact(progress.message, policy), PROGRESS_MESSAGE_CHARS) } : {}),
    }),
  );
  const stopServerChange = mcpServers?.onChange((server) => hub.publish({ type: 'mcp-server', server: shownHealth(server, policy) }));
  const stopExit = deps.processes.onExit((program, result) => {
    output.end(program.id);
    hub.publish({
      type: 'program-exit',
      program,
      result: { status: result.status, returncode: result.returncode, runtime: result.runtime, truncated: result.truncated },
    });
  });

  const app = new Hono();
  const maxBodyBytes = deps.maxBodyBytes ?? policy.limits.maxFileBytes + 1024 * 1024;

  app.use('*', hostGuard(deps.getPort));
  app.use('*', originGuard());
  // The routes that need no token take no more body than a pairing code's: any program may call them, and with the
  // cap of the others (the largest file plus 1 MiB) each of its calls had the companion read and parse 11 MiB of JSON
  // before the code was even looked at, a third of a second of its one thread per call.
  const open = (method: string, path: string) => (method === 'GET' && (path === '/v1/status' || path === '/ws')) || (method === 'POST' && path === '/v1/pair');
  const tooLarge = (c: Context, max: number) => c.json(errorBody('LIMIT_EXCEEDED', `request body is larger than ${max} bytes`), 413);
  const limitBody = bodyLimit({ maxSize: maxBodyBytes, onError: (c) => tooLarge(c, maxBodyBytes) });
  const limitOpenBody = bodyLimit({ maxSize: OPEN_ROUTE_BODY_BYTES, onError: (c) => tooLarge(c, OPEN_ROUTE_BODY_BYTES) });
  app.use('*', async (c, next) => {
    // What bodyLimit decides from the headers alone, decided here from the headers alone: bodyLimit first asks for
    // the request's body stream, which makes the Node adapter build a whole web Request (undici, a ReadableStream)
    // for every call — ~0.1 ms of CPU per call (bench) — and then reads the length from the headers anyway. A body
    // without a length (chunked) still goes through bodyLimit, which counts it as it arrives.
    const length = c.req.header('content-length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    // a GET or HEAD without either carries no body (the status and run polls)
    if (length === undefined && !chunked && (c.req.method === 'GET' || c.req.method === 'HEAD')) return next();
    const max = open(c.req.method, c.req.path) ? OPEN_ROUTE_BODY_BYTES : maxBodyBytes;
    if (length !== undefined && !chunked) {
      if (Number.parseInt(length || '0', 10) > max) return tooLarge(c, max);
      return next();
    }
    return (max === maxBodyBytes ? limitBody : limitOpenBody)(c, next);
  });
  app.use('*', tokenGuard(tokens, open, (c, token) => connections.trust(socketOf(c.env), token)));
  // what a revoked token made trusted is a stranger's again: counted by the connection cap, the first it closes
  const stopDistrust = tokens.onRevoke((hash) => connections.distrust(hash));

  app.onError((error, c) => {
    if (error instanceof ToolError) return c.json(errorBody(error.code, error.message, error.data), HTTP_STATUS[error.code] ?? 500);
    if (error instanceof HTTPException) return error.getResponse();
    console.error(revealHidden(`chatbridge: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
    return c.json(errorBody('INTERNAL', 'internal error; see the companion log'), 500);
  });
  app.notFound((c) => c.json(errorBody('NOT_FOUND', `no route ${c.req.method} ${c.req.path}`), 404));

  // no token here: counts of the MCP servers (when there are any) only, never their names, commands, URLs or errors
  app.get('/v1/status', (c) => {
    const mcp = mcpServers?.summary();
    return c.json({ name: 'chatbridge' as const, version, paired: tokens.paired(), ...(mcp && mcp.servers > 0 ? { mcp } : {}) });
  });

  app.post('/v1/pair', async (c) => {
    const { code } = await readJson(c, pairRequestSchema);
    const result = pairing.exchange(code);
    if (!result.ok) {
      const why = {
        'no-code': `there is no pairing code; run ${commandHow('pair')} for a new one`,
        expired: `the pairing code expired; run ${commandHow('pair')} for a new one`,
        exhausted: `too many wrong codes; this code is void now; run ${commandHow('pair')} for a new one`,
        wrong: `wrong pairing code; ${result.triesLeft} ${result.triesLeft === 1 ? 'try' : 'tries'} left`,
      }[result.reason];
      return c.json(errorBody('FORBIDDEN', why, { reason: result.reason, triesLeft: result.triesLeft }), 403);
    }
    return c.json({ token: tokens.issue('extension') });
  });

  // Unpair in the extension: the token the request carries stops working now, not when the data dir is reset. One
  // given at start (--token, CHATBRIDGE_TOKEN, the CLI token) is the person's own and lasts until the companion stops.
  app.post('/v1/unpair', (c) => {
    const outcome = tokens.revoke(bearerToken(c.req.header('authorization')) ?? '');
    if (outcome === 'given') {
      return c.json({ revoked: false, note: 'this token was given to the companion when it started (--token, CHATBRIDGE_TOKEN or its CLI token), not paired: it works until the companion stops' });
    }
    // 'unknown': the token guard let it in a moment ago, so a second unpair of the same token revoked it meanwhile
    return c.json({ revoked: true });
  });

  // Only for the person's own token (the CLI's, for chatbridge pair): a paired extension's asks for none, and a copy of
  // one that could would pair a token of its own, which outlives the unpair of the one it was copied from.
  app.post('/v1/pair/code', (c) => {
    if (!tokens.given(bearerToken(c.req.header('authorization')))) {
      throw new ToolError(
        'FORBIDDEN',
        `a pairing code is given only for the token the companion was started with (its CLI token, --token or CHATBRIDGE_TOKEN), not for a paired extension's; run ${commandHow('pair')} for one`,
      );
    }
    const { code, expiresAt } = pairing.newCode();
    return c.json({ code, expiresAt: new Date(expiresAt).toISOString() });
  });

  app.post('/v1/run', async (c) => {
    const request = await readJson(c, runRequestSchema);
    const job = blockJob(request, { policy, tools: deps.tools, plans: deps.plans, version, ...(mcpServers ? { external: mcpServers } : {}) });
    // whose request this is: a repost of a block is told whether its own token's request started the run
    const token = bearerToken(c.req.header('authorization'));
    const by = token === undefined ? undefined : tokenDigest(token);
    const { run, reused } = runs.start(job, { rerun: request.rerun === true, ...(by !== undefined ? { by } : {}) });
    const record = await runs.wait(run, request.waitMs ?? approvalWaitFor(policy, request.context.site));
    return c.json(responseOf(record, reused, by));
  });

  app.get('/v1/runs/:id', (c) => {
    const record = runs.get(c.req.param('id'));
    if (!record) throw new ToolError('NOT_FOUND', `no run ${JSON.stringify(c.req.param('id'))}`);
    return c.json(responseOf(record));
  });

  // Stop in the chip: the run's signal is aborted; a call to the person's MCP server is cancelled on the server too.
  // By block (the body of its POST /v1/run) while its answer is still awaited, or by run id.
  app.post('/v1/runs/stop', async (c) => {
    const { kind, text, context } = await readJson(c, runRequestSchema);
    const runId = runs.stopByKey(blockKey({ kind, site: context.site, conversationId: context.conversationId, messageKey: context.messageKey, text }));
    if (!runId) throw new ToolError('NOT_FOUND', 'that block has no running run');
    return c.json({ stopped: runId });
  });
  app.post('/v1/runs/:id/stop', (c) => {
    const id = c.req.param('id');
    if (!runs.stop(id)) throw new ToolError('NOT_FOUND', `no running run ${JSON.stringify(id)}`);
    return c.json({ stopped: id });
  });

  app.get('/v1/approvals', (c) => c.json({ approvals: approvals.pending() }));

  app.post('/v1/approvals/:id', async (c) => {
    const { decision, argsHash } = await readJson(c, approvalDecisionRequestSchema);
    return c.json({ approval: approvals.decide(c.req.param('id'), decision, argsHash) });
  });

  app.get('/v1/grants', (c) => c.json({ grants: approvals.grants() }));
  app.post('/v1/grants/forget', async (c) => {
    const grant = await readJson(c, forgetGrantRequestSchema);
    approvals.forgetGrant(grant);
    return c.json({ forgotten: grant });
  });

  app.get('/v1/journal', async (c) => c.json({ entries: await journal.list(limitParam(c, 50, 1000)) }));
  app.post('/v1/journal/:id/undo', async (c) => c.json({ entry: await journal.undo(c.req.param('id')) }));
  app.get('/v1/audit', async (c) => c.json({ records: await audit.recent(limitParam(c, 50, MAX_AUDIT_LIMIT)) }));
  app.get('/v1/tools', (c) => c.json({ tools: listAllTools(mcpServers) }));
  app.get('/v1/mcp-servers', (c) => c.json({ servers: (mcpServers?.health() ?? []).map((server) => shownHealth(server, policy)) }));
  app.get('/v1/programs', (c) => c.json({ programs: deps.processes.list() }));
  app.post('/v1/programs/:id/stop', async (c) => {
    const id = c.req.param('id');
    if (!deps.processes.get(id)) throw new ToolError('NOT_FOUND', `no program ${JSON.stringify(id)}`);
    await deps.processes.stop(id, 'stopped by the person');
    return c.json({ stopped: id });
  });

  app.get(
    '/ws',
    wsRoute({
      tokens,
      hub,
      version,
      onAuthenticated: (c, token) => connections.trust(socketOf(c.env), token),
      ...(deps.wsAuthTimeoutMs !== undefined ? { authTimeoutMs: deps.wsAuthTimeoutMs } : {}),
      ...(deps.wsHeartbeatMs !== undefined ? { heartbeatMs: deps.wsHeartbeatMs } : {}),
    }),
  );
  app.all(
    '/mcp',
    mcpRoute({
      policy,
      tools: deps.tools,
      runs,
      version,
      ...(mcpServers ? { external: mcpServers } : {}),
      ...(deps.mcpProgressMs !== undefined ? { progressMs: deps.mcpProgressMs } : {}),
      tokens,
    }),
  );

  return {
    app,
    hub,
    approvals,
    runs,
    audit,
    journal,
    tokens,
    pairing,
    connections,
    version,
    async close() {
      stopDistrust();
      stopOutput();
      stopExit();
      output.close();
      stopProgress?.();
      stopServerChange?.();
      approvals.close();
      await runs.stopAll();
      // after the runs' last answers: what the run log still owes is tried once more, or named
      runStore.close();
      await audit.flush();
    },
  };
}
