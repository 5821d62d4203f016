import type { Context, Handler } from 'hono';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { DEFAULT_MAX_REQUEST_BODY_SIZE, readRequestBody, requestBodyTooLargeMessage } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, CancelledNotificationSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Outcome } from '../../shared/results/outcome';
import { onRevokeOf } from '../auth/guards';
import type { TokenStore } from '../auth/token-store';
import { approvalWaitFor } from '../policy/decide';
import type { Policy } from '../policy/schema';
import { oneLine } from '../../shared/results/outcome';
import { pendingWhat } from '../runs/block-job';
import type { Job, RunManager } from '../runs/run-manager';
import type { RunRecord } from '../runs/run-store';
import { callTool, type ToolHandlers } from '../runs/tool-call';
import { listAllTools } from '../runs/tool-list';
import { kindOf } from '../mcp-servers/config';
import type { ExternalTools } from '../types';
import { MCP_SITE } from '../../shared/site-ids';

/**
 * `/mcp`: Streamable HTTP for real MCP clients, over the same tool registry, policy, approvals, audit and journal
 * as the chat blocks. Stateless (a fresh server and transport per request, JSON responses): every call carries the
 * bearer token anyway, and nothing here needs a session. Calls count as site `mcp`, conversation `mcp`, so
 * "approve for this conversation" and per-site overrides work for MCP clients too.
 */
export { MCP_SITE };

/** A streamed body (no Content-Length) that grew past the transport's size limit while it was read here. */
const TOO_LARGE = Symbol('too large');

/**
 * A POST's JSON body, read the Node adapter's direct way; undefined when the transport should read it itself. The
 * transport reads `request.body` as a stream, which makes the adapter build a whole web Request (undici, a
 * ReadableStream) per call — ~0.1 ms of CPU (bench). It is handed the parsed body instead, and still checks the
 * Accept and Content-Type headers first. A body the transport would refuse is left to it, so its answer is the
 * same: over its declared size limit (413), or not JSON (-32700: the body read here leaves it an empty one, which is
 * not JSON either). A streamed body is read here too, within the same limit (TOO_LARGE past it): what a POST holds is
 * checked before anything in it runs (batchRefusal), however it was sent.
 */
async function readJsonBody(c: Context): Promise<unknown> {
  if (c.req.method !== 'POST') return undefined;
  const length = Number(c.req.header('content-length'));
  if (length > DEFAULT_MAX_REQUEST_BODY_SIZE) return undefined;
  let text: string;
  if (Number.isFinite(length) && c.req.header('transfer-encoding') === undefined) {
    text = await c.req.text();
  } else {
    const read = await readRequestBody(c.req.raw, DEFAULT_MAX_REQUEST_BODY_SIZE);
    if (read.tooLarge) return TOO_LARGE;
    text = read.text;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A JSON-RPC batch (an array) holding a tools/call request: refused whole, before anything in it runs. The
 * transport hands a batch's calls to their handlers side by side, each decided alone, so a write where writes are
 * auto and an allow-listed `npm test` beside it ran the script the write put there with no card — where the same two
 * steps in one `<function_calls>` block or plan ask (an allow-listed command is auto only when nothing in the same
 * call can change what it runs, policy/decide.ts). MCP has had no batches since 2025-06-18 and the SDK's client
 * sends none; a batch of notifications (cancels) is still taken.
 */
function batchRefusal(body: unknown): { jsonrpc: '2.0'; id: null; error: { code: number; message: string } } | undefined {
  if (!Array.isArray(body)) return undefined;
  const calls = body.filter(
    (message): message is { params?: { name?: unknown } } =>
      typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'tools/call' && (message as { id?: unknown }).id !== undefined,
  );
  if (calls.length === 0) return undefined;
  const names = calls.map((call) => (typeof call.params?.name === 'string' ? call.params.name : '(no name)')).join(', ');
  const message =
    `Invalid Request: a JSON-RPC batch may not hold tools/call (this one holds ${calls.length}: ${names.length > 200 ? `${names.slice(0, 199)}…` : names}); ` +
    'send each tools/call in a POST of its own. Calls in a batch would run side by side, each decided without the others, ' +
    'so a command could run what a write beside it changed without the card that change asks for. Nothing in this batch was run.';
  return { jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest, message } };
}

/**
 * What a call answered before its end is told: in a chat the result is typed in when it comes, but an MCP client's
 * call is over once answered, and the same call sent again is a new one — a second card, and once both are approved
 * it runs twice.
 */
const NOT_ON_THIS_CALL =
  'This call ends here: its result will not be sent to this client (it stays in chatbridge). Do not send the same call again to get it — that asks the person again and can run it twice.';

/** How often a call that asked for progress is told it still waits: within MCP Inspector's 10 s timeout, twice. */
const PROGRESS_MS = 4000;

/**
 * A single tools/call with no tool name, or whose arguments are not an object of names and values: the refusal a client is answered with
 * (-32602, naming what it sent and the rule), or undefined. The SDK's server refused them as -32603, an internal
 * error, with its schema library's report as the message. `null` is taken for no arguments, as an absent key is.
 */
function argumentsRefusal(body: unknown): { jsonrpc: '2.0'; id: unknown; error: { code: number; message: string } } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, params, id } = body as { method?: unknown; params?: unknown; id?: unknown };
  // a tools/call with no id is no request, and left to the transport
  if (method !== 'tools/call' || id === undefined || typeof params !== 'object' || params === null) return undefined;
  const given = params as { name?: unknown; arguments?: unknown };
  const refusal = (message: string) => ({ jsonrpc: '2.0' as const, id, error: { code: ErrorCode.InvalidParams, message } });
  if (typeof given.name !== 'string') return refusal(`tools/call needs "name", the tool's name as a string; got ${given.name === undefined ? 'none' : kindOf(given.name)}`);
  if (given.arguments === null) delete given.arguments;
  const args = given.arguments;
  if (args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args))) return undefined;
  const shown = JSON.stringify(args);
  const message =
    `tools/call arguments must be an object of argument names and values, e.g. {"path": "/a"}; got ${kindOf(args)}: ` +
    `${shown.length > 80 ? `${shown.slice(0, 79)}…` : shown}${typeof args === 'string' ? ' (a string of JSON is not read as the object it writes)' : ''}`;
  return refusal(message);
}

/** A single tools/call whose `_meta` carries a progressToken. */
function asksForProgress(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { method, params } = body as { method?: unknown; params?: { _meta?: { progressToken?: unknown } } };
  const token = params?._meta?.progressToken;
  return method === 'tools/call' && (typeof token === 'string' || typeof token === 'number');
}

export function mcpRoute(deps: {
  policy: Policy;
  tools: ToolHandlers;
  runs: RunManager;
  version: string;
  waitMs?: () => number | undefined;
  /** the tools of the person's MCP servers: one endpoint serves them to MCP clients too */
  external?: ExternalTools;
  /** how often a call that asked for progress is told it still waits */
  progressMs?: number;
  /** a call whose token is revoked while it waits is stopped, as one whose client closed its connection */
  tokens?: Pick<TokenStore, 'onRevoke'>;
}): Handler {
  // The SDK builds a new Ajv (compiling its meta-schemas) for every Server it constructs: with a server per request
  // that was about 0.7 ms of CPU per call (a sixth of a /mcp fs.read, bench). One validator serves them all.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  // A client gives up on a call (its timeout, a Cancel pressed) with notifications/cancelled, sent on a POST of its
  // own, so to a server of its own here: the run of each call still being answered is found by the token that sent it
  // and the call's JSON-RPC id, and stopped — its card withdrawn (an Approve after it would run what nobody waits
  // for) or its program ended. Two clients sharing a token and an id at the same moment are not told apart. A client
  // that closes the call's connection (it quit, or closed without cancelling) is given up on the same way.
  const answering = new Map<string, string>();
  const callKey = (caller: string, id: RequestId) => `${caller}\n${JSON.stringify(id)}`;
  function createServer(caller: string, closed: AbortSignal): Server {
    const server = new Server({ name: 'chatbridge', version: deps.version }, { capabilities: { tools: {} }, jsonSchemaValidator });
    server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
      const { requestId, reason } = notification.params;
      const runId = requestId === undefined ? undefined : answering.get(callKey(caller, requestId));
      if (runId) deps.runs.stop(runId, `cancelled by the MCP client${reason ? `: ${oneLine(reason).slice(0, 200)}` : ''}`);
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: listAllTools(deps.external).map(({ name, description, inputSchema }) => ({
        name,
        description,
        inputSchema: { ...inputSchema, type: 'object' as const },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const name = request.params.name;
      const args = request.params.arguments ?? {};
      /** what the card waiting for the person shows, for the progress told meanwhile */
      let awaiting = '';
      const job: Job = {
        kind: 'mcp',
        site: MCP_SITE,
        conversationId: MCP_SITE,
        messageKey: '',
        async execute(ctx, _auditId, info) {
          info.tool = name;
          const outcome = await callTool(name, args, ctx, deps.tools, deps.external);
          return {
            resultText: outcome.ok ? outcome.text : (outcome.answer ?? `${outcome.code}: ${outcome.message}`),
            status: outcome.ok ? 'done' : 'error',
            outcome: outcome.ok ? 'ok' : outcome.code,
            value: outcome,
          };
        },
        pendingText: (approval) => {
          awaiting = `${oneLine(pendingWhat(approval)).slice(0, 200)}, pendingConfirmationId=${approval.id}`;
          // not the chat's 'wait for the result': no result comes on this call
          return `Pending confirmation in chatbridge (${oneLine(pendingWhat(approval))}). Do not report success. ${NOT_ON_THIS_CALL} pendingConfirmationId=${approval.id}`;
        },
      };
      const { run } = deps.runs.start(job);
      const key = callKey(caller, extra.requestId);
      answering.set(key, run.record.runId);
      const onClosed = () => deps.runs.stop(run.record.runId, 'the MCP client closed its connection before the answer');
      closed.addEventListener('abort', onClosed, { once: true });
      // an answer streamed with progress goes out after the token guard has let the request through: an unpair stops it here
      const stopWatching = deps.tokens
        ? onRevokeOf(deps.tokens, caller, () => deps.runs.stop(run.record.runId, 'the token the MCP client called with was revoked (unpaired) before the answer'))
        : () => undefined;
      // A client that asked for progress is told, every few seconds, what the call waits for: most give up on a call
      // after their own timeout (MCP Inspector 10 s, the SDK's client 60 s) unless progress comes, while a card waits
      // up to the site's approval wait (120 s) and a program runs up to its own timeout.
      const progressToken = request.params._meta?.progressToken;
      let beats = 0;
      const progress =
        progressToken === undefined
          ? undefined
          : setInterval(() => {
              const message =
                run.record.status === 'pending' ? `waiting for the person's approval in chatbridge: ${awaiting}` : 'running in chatbridge';
              extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++beats, message } }).catch(() => undefined);
            }, deps.progressMs ?? PROGRESS_MS);
      let record: RunRecord;
      try {
        record = await deps.runs.wait(run, deps.waitMs?.() ?? approvalWaitFor(deps.policy, MCP_SITE));
      } finally {
        clearInterval(progress);
        closed.removeEventListener('abort', onClosed);
        stopWatching();
        if (answering.get(key) === run.record.runId) answering.delete(key);
      }
      if (record.status === 'pending' || record.status === 'running') {
        const text = record.status === 'pending' ? record.resultText : `Still running in chatbridge (runId=${record.runId}); the result is not known yet. ${NOT_ON_THIS_CALL}`;
        const meta = {
          auditId: record.auditId,
          runId: record.runId,
          ...(record.pendingConfirmationId ? { pendingConfirmationId: record.pendingConfirmationId } : {}),
        };
        return { content: [{ type: 'text', text }], _meta: meta, structuredContent: meta };
      }
      const outcome = run.value as Outcome | undefined;
      const truncated = outcome?.ok === true && outcome.truncated === true;
      return {
        content: [{ type: 'text', text: record.resultText }],
        isError: record.status === 'error',
        _meta: { auditId: record.auditId, runId: record.runId, ...(truncated ? { truncated: true } : {}) },
        ...(outcome && !outcome.ok ? { structuredContent: { code: outcome.code, message: outcome.message, auditId: record.auditId } } : {}),
      };
    });
    return server;
  }

  return async (c) => {
    // Stateless, every answer goes back on its own POST: a GET's event stream could never carry anything. Opened and
    // closed at once, it read as a dropped connection to the SDK's client, which opened it again every second for as
    // long as it stayed connected; 405 is how the spec says the endpoint offers none, and the client then stops asking.
    // Every other method the transport does not take gets the same answer, so no 405 names GET as allowed.
    if (c.req.method !== 'POST' && c.req.method !== 'DELETE') {
      const error = { code: -32000, message: 'Method not allowed: this server offers no event stream; send requests with POST' };
      return c.json({ jsonrpc: '2.0', error, id: null }, 405, { Allow: 'POST, DELETE' });
    }
    const parsedBody = await readJsonBody(c);
    // after the transport's own checks of the headers, which it answers first (415, 406), made as it makes them: its
    // Content-Type is read for its media type (any case, any parameters), so `Application/JSON` is taken too
    const accept = c.req.header('accept') ?? '';
    const headersTaken = isJsonContentType(c.req.header('content-type')) && accept.includes('application/json') && accept.includes('text/event-stream');
    if (headersTaken && parsedBody === TOO_LARGE) {
      return c.json({ jsonrpc: '2.0', error: { code: -32000, message: requestBodyTooLargeMessage(DEFAULT_MAX_REQUEST_BODY_SIZE) }, id: null }, 413);
    }
    const batch = headersTaken ? batchRefusal(parsedBody) : undefined;
    if (batch) return c.json(batch, 400);
    const refused = headersTaken ? argumentsRefusal(parsedBody) : undefined;
    if (refused) return c.json(refused);
    const server = createServer(c.req.header('authorization') ?? '', c.req.raw.signal);
    // a call that asked for progress is answered with an event stream, which carries the progress before the answer
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !asksForProgress(parsedBody) });
    await server.connect(transport);
    let response: Response;
    try {
      response = await transport.handleRequest(c.req.raw, parsedBody === undefined || parsedBody === TOO_LARGE ? undefined : { parsedBody });
    } catch (error) {
      void server.close();
      throw error;
    }
    // JSON mode: a POST's answer is complete once handleRequest resolves, and its server and transport hold no timer,
    // stream or pending handler after it; they are dropped with the request. close() would only clear their maps and
    // build a "connection closed" error for nobody — ~0.1 ms of CPU per call (driver, 3 × 1000 /mcp reads each way).
    // A POST answered with an event stream is still being answered: closing it now would end the stream before the
    // call's answer; the transport ends it after the answer, and nothing is held then either. A DELETE is closed.
    if (c.req.method !== 'POST') void server.close();
    return response;
  };
}
