import { z } from 'zod';
import { FILESYSTEM_ACTIONS } from './tools/filesystem-actions';
import { BLOCK_KINDS } from './protocols/types';

/**
 * The companion's HTTP and ws messages (DESIGN §5). Both sides import these schemas: the companion validates
 * what arrives, the extension validates what comes back.
 */

export { DEFAULT_PORT } from './default-port';

// ---------------------------------------------------------------- common

export const apiErrorSchema = z.object({
  error: z.object({
    code: z.string().describe('an ErrorCode from shared/errors.ts, or UNAUTHORIZED'),
    message: z.string(),
    data: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ApiError = z.infer<typeof apiErrorSchema>;

export const callContextSchema = z
  .object({
    site: z.string().min(1).max(200).describe('site id, e.g. chatgpt or deepseek'),
    url: z.string().max(4000).default(''),
    conversationId: z.string().min(1).max(400),
    messageKey: z.string().max(400).default(''),
  })
  .strict();
export type CallContext = z.infer<typeof callContextSchema>;

// ---------------------------------------------------------------- status and pairing

/** How the person's MCP servers are doing, in counts only: this answer needs no token (issue 11 §2). */
export const mcpSummarySchema = z.object({
  servers: z.number(),
  ready: z.number(),
  starting: z.number(),
  failing: z.number().describe('retrying after a crash, given up, or with a config mistake'),
  tools: z.number(),
});

export const statusResponseSchema = z.object({
  name: z.literal('chatbridge'),
  version: z.string(),
  paired: z.boolean(),
  mcp: mcpSummarySchema.optional(),
});
export type StatusResponse = z.infer<typeof statusResponseSchema>;

export const pairRequestSchema = z.object({ code: z.string().min(1).max(32) }).strict();
export const pairResponseSchema = z.object({ token: z.string() });

/**
 * `POST /v1/unpair`: the paired token the request carries is forgotten, on HTTP and on the ws connections it opened.
 * A token given at start is not revoked (`revoked: false`, the note says why).
 */
export const unpairResponseSchema = z.object({ revoked: z.boolean(), note: z.string().optional() });

/** A new pairing code, asked for by the CLI with a token it already holds. */
export const pairCodeResponseSchema = z.object({ code: z.string(), expiresAt: z.string() });

// ---------------------------------------------------------------- runs

export const runRequestSchema = z
  .object({
    kind: z.enum(BLOCK_KINDS),
    text: z.string().describe('the raw block exactly as found in the message markdown'),
    context: callContextSchema,
    /** How long this answer may wait for the run (tests and impatient callers); capped by the site's approval wait. */
    waitMs: z.number().int().nonnegative().max(3_600_000).optional(),
    /** run this block again even though it already ran (the person asked for a re-run) */
    rerun: z.boolean().optional(),
  })
  .strict();
export type RunRequest = z.infer<typeof runRequestSchema>;

/**
 * `done`/`error`: final. `pending`: waiting for the person's approval — resultText is the protocol's pending form.
 * `running`: authorized and still executing past the wait (a long program); the final result comes over ws and
 * `GET /v1/runs/:id`.
 */
export const runStatusSchema = z.enum(['done', 'pending', 'running', 'error']);
export type RunStatus = z.infer<typeof runStatusSchema>;

export const runResponseSchema = z.object({
  runId: z.string(),
  status: runStatusSchema,
  resultText: z.string(),
  auditId: z.string(),
  pendingConfirmationId: z.string().optional(),
  /**
   * the tool it runs, once the companion knows it (as the run's audit record names it when it ends): a page shows it
   * while the run waits or runs, where no audit record names it yet. Absent for a plan, named by its kind.
   */
  tool: z.string().optional(),
  /** this exact block was posted before; this is the earlier run, nothing ran twice */
  reused: z.boolean().optional(),
  /**
   * With `reused`: whether the earlier request came with the token this one does (the same paired browser, whose first
   * answer was lost to a reload or a stopped service worker: it delivers the result) or another's (another browser or
   * profile paired with the companion started the run and delivers it). Absent on a run no token is known to have started.
   */
  startedByYou: z.boolean().optional(),
});
export type RunResponse = z.infer<typeof runResponseSchema>;

// ---------------------------------------------------------------- approvals

export const riskSchema = z.enum(['read', 'write', 'delete', 'exec']);

/**
 * What a card's title says, as its kind and facts, for the extension to word in the person's language; `title` is
 * its English form, kept for older clients and for the answers to models. Facts are shown as the title shows them
 * (hidden characters as ⟨U+XXXX⟩). A kind this extension does not know is dropped, and the card shows `title`.
 */
export const previewHeadingSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('write'), mode: z.enum(['create', 'overwrite', 'append']), path: z.string() }),
  z.object({ kind: z.literal('write-batch'), files: z.number().int().nonnegative() }),
  z.object({ kind: z.literal('run'), program: z.string(), timeoutMs: z.number().int().nonnegative() }),
  z.object({ kind: z.literal('shell'), timeoutMs: z.number().int().nonnegative() }),
  z.object({ kind: z.literal('mkdir'), path: z.string(), parents: z.boolean() }),
  z.object({ kind: z.literal('read'), path: z.string() }),
  z.object({ kind: z.literal('list'), path: z.string() }),
  z.object({ kind: z.literal('axon'), acts: z.number().int().nonnegative(), files: z.number().int().nonnegative() }),
  z.object({
    kind: z.literal('autocoder'),
    step: z.string().optional(),
    changes: z.number().int().nonnegative(),
    reads: z.number().int().nonnegative(),
    programs: z.number().int().nonnegative(),
  }),
  z.object({ kind: z.literal('mcp'), server: z.string(), tool: z.string() }),
  /** `entries`: a directory's, none protected */
  z.object({ kind: z.literal('delete'), path: z.string(), what: z.enum(['file', 'missing', 'directory']), entries: z.number().int().nonnegative().optional() }),
  z.object({ kind: z.literal('move'), from: z.string(), to: z.string(), overwrite: z.boolean(), entries: z.number().int().nonnegative().optional() }),
  z.object({ kind: z.literal('chmod'), mode: z.string(), path: z.string(), current: z.string(), entries: z.number().int().nonnegative().optional() }),
  /** without `right`, `left` is compared with content the call gives */
  z.object({ kind: z.literal('compare'), left: z.string(), right: z.string().optional() }),
  /** `query` as the title quotes it (JSON) */
  z.object({ kind: z.literal('search'), path: z.string(), query: z.string() }),
  /** the PromptX `filesystem` tool: its action on its paths (relative to the workspace root); `fails`: why an edit will */
  z.object({ kind: z.literal('filesystem'), action: z.enum(FILESYSTEM_ACTIONS), paths: z.array(z.string()), fails: z.string().optional() }),
  /**
   * A removal, a move or a mode change of a directory that will be refused (`path`: what it removes, moves or
   * changes), and why: it holds `protected`, matching the deny glob `glob` (none: the companion's own places); it holds
   * more than `limit` entries to check; or `reason`, the companion's words (a directory that cannot be read).
   */
  z.object({
    kind: z.literal('refused'),
    change: z.enum(['remove', 'move', 'chmod']),
    path: z.string(),
    to: z.string().optional(),
    overwrite: z.boolean().optional(),
    mode: z.string().optional(),
    current: z.string().optional(),
    protected: z.string().optional(),
    glob: z.string().optional(),
    limit: z.number().int().positive().optional(),
    reason: z.string().optional(),
  }),
]);
export type PreviewHeading = z.infer<typeof previewHeadingSchema>;

/** How many of each character a person cannot see a preview held, for the extension to word its warning. */
export const hiddenCharactersSchema = z.array(z.object({ codePoint: z.number().int().min(0).max(0x10ffff), count: z.number().int().positive() }));

export const previewSchema = z.object({
  /** set when the preview held characters a person cannot see (shown as ⟨U+XXXX⟩ in it): which, and that they run */
  warning: z.string().optional(),
  /** the same characters counted, by code point (`warning` is its English form) */
  hidden: hiddenCharactersSchema.optional().catch(undefined),
  title: z.string(),
  heading: previewHeadingSchema.optional().catch(undefined),
  paths: z.array(z.string()),
  diff: z.string().optional(),
  command: z.string().optional(),
  cwd: z.string().optional(),
  runs: z.array(z.string()).optional().describe('the files the command runs as code, pinned as they were when the card was made'),
  unpinned: z
    .array(z.string())
    .optional()
    .catch(undefined)
    .describe('what the command runs that cannot be pinned, as written: a script known only when it runs ($SCRIPT), PowerShell inline code'),
  actions: z
    .array(z.object({ risk: riskSchema, label: z.string(), decision: z.enum(['auto', 'confirm']) }))
    .optional()
    .describe("a composite call's actions, each with its class and what the policy said of it alone"),
});

export const approvalStateSchema = z.enum(['pending', 'approved', 'approved-conversation', 'denied', 'expired']);

export const approvalSchema = z.object({
  id: z.string(),
  runId: z.string(),
  site: z.string(),
  conversationId: z.string(),
  tool: z.string(),
  risk: riskSchema,
  argsHash: z.string().describe('sha256 of the canonical JSON of the arguments; a decision must quote it'),
  preview: previewSchema,
  createdAt: z.string(),
  expiresAt: z.string(),
  state: approvalStateSchema,
});
export type ApprovalView = z.infer<typeof approvalSchema>;

export const approvalDecisionSchema = z.enum(['approve', 'approve-conversation', 'deny']);
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

export const approvalDecisionRequestSchema = z
  .object({
    decision: approvalDecisionSchema,
    /** the argsHash of the approval the person saw; a decision for other arguments is refused */
    argsHash: z.string().regex(/^[0-9a-f]{64}$/, 'argsHash must be 64 lowercase hex characters'),
  })
  .strict();

/** What "Approve for this conversation" lets run without a card, until the companion stops or the person forgets it. */
export const grantSchema = z.object({ site: z.string(), conversationId: z.string(), tool: z.string(), risk: riskSchema });
export type GrantView = z.infer<typeof grantSchema>;
export const forgetGrantRequestSchema = grantSchema.strict();

// ---------------------------------------------------------------- journal, audit, programs, tools

export const journalEntrySchema = z.object({
  id: z.string(),
  time: z.string(),
  label: z.string(),
  origin: z
    .object({ runId: z.string(), site: z.string(), conversationId: z.string(), messageKey: z.string().optional() })
    .optional(),
  paths: z.array(z.string()),
  state: z.enum(['applied', 'undone', 'rolled-back']),
});

export const auditRecordSchema = z.object({
  time: z.string(),
  auditId: z.string(),
  runId: z.string(),
  site: z.string(),
  conversationId: z.string(),
  kind: z.string(),
  tool: z.string(),
  paths: z.array(z.string()),
  commands: z.array(z.string()),
  decision: z.string().describe('auto | approve | approve-conversation | conversation-grant | deny | expired | policy-deny | none'),
  outcome: z.string().describe('ok, pending or an ErrorCode'),
  durationMs: z.number(),
});
export type AuditRecord = z.infer<typeof auditRecordSchema>;

export const programInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  command: z.string(),
  cwd: z.string(),
  origin: z.object({ runId: z.string(), site: z.string(), conversationId: z.string(), messageKey: z.string().optional() }),
  status: z.enum(['running', 'completed', 'failure', 'timeout', 'terminated']),
  startedAt: z.string(),
});

export const toolInfoSchema = z.object({
  name: z.string(),
  description: z.string(),
  risk: z.string().describe('read | write | delete | exec, or "depends" when the arguments decide'),
  inputSchema: z.record(z.string(), z.unknown()),
  server: z.string().optional().describe("the person's MCP server a `<server>.<tool>` comes from; absent for chatbridge's own tools"),
});

/**
 * Why one of the person's MCP servers is not running, as facts the extension words in the person's language
 * (`lastError` says the same in English, for the CLI and older extensions). `other` has only the English `detail`.
 */
export const MCP_SERVER_PROBLEMS = [
  'program-not-found',
  'interpreter-missing',
  'program-not-runnable',
  'not-executable',
  'cwd-missing',
  'exited',
  'start-timeout',
  'list-timeout',
  'auth-refused',
  /** the connection was closed, nothing saying why (an HTTP server's stream ended) */
  'connection-closed',
  /** it sent a message larger than `maxBytes`: the connection was reset */
  'message-too-large',
  /** a program that stopped reading what chatbridge sent it: the connection was reset */
  'not-reading',
  /** an HTTP server whose call's stream broke and that did not answer a ping (`cause`) */
  'not-answering',
  /** sending a call of its tool `tool` failed below the protocol (`cause`): it reconnects */
  'call-failed',
  /** it said its tools changed, and reading the new list failed (`cause`): the list read before stays */
  'list-refresh-failed',
  'config',
  'other',
] as const;
export const mcpServerProblemSchema = z.object({
  code: z.enum(MCP_SERVER_PROBLEMS),
  /** it failed while starting (false: it was up and went away) */
  starting: z.boolean(),
  /** the program the entry names ("command"), as written */
  program: z.string().optional(),
  /** the PATH a program named without a folder was looked for on; absent when it was given with its folder */
  path: z.string().optional(),
  /** the file the program was found at (interpreter-missing, program-not-runnable) */
  file: z.string().optional(),
  interpreter: z.string().optional(),
  cwd: z.string().optional(),
  exitCode: z.number().optional(),
  signal: z.string().optional(),
  /** the last line the server wrote on stderr, cut short */
  stderr: z.string().optional(),
  timeoutMs: z.number().optional(),
  httpStatus: z.number().optional(),
  /** the header names the entry gives (auth-refused); none: it gives no credentials */
  headers: z.array(z.string()).optional(),
  /** how the server signs people in, when its 401 says (auth-refused): OAuth in a browser, which chatbridge does not do */
  signIn: z.enum(['oauth']).optional(),
  /** the largest message chatbridge takes from a server, in bytes (message-too-large) */
  maxBytes: z.number().optional(),
  /** the server's own name of the tool whose call failed (call-failed) */
  tool: z.string().optional(),
  /**
   * The error met, in the words of the system or library that gave it ("fetch failed (connect ECONNREFUSED …)"), which
   * no locale can word: shown quoted, as a server's stderr line is.
   */
  cause: z.string().optional(),
  /** it was given up after this many failures in a row (the next call to one of its tools tries it again) */
  failures: z.number().optional(),
  /** what went wrong in English, for `other` and `config` */
  detail: z.string().optional(),
});
export type McpServerProblem = z.infer<typeof mcpServerProblemSchema>;

/** One of the person's MCP servers (`GET /v1/mcp-servers`, the `mcp-server` ws event). */
export const mcpServerHealthSchema = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http', 'sse', 'invalid']),
  state: z.enum(['starting', 'ready', 'retrying', 'error', 'disabled', 'closed']),
  tools: z.number(),
  lastError: z.string().optional(),
  /**
   * A problem this build cannot read (a code added by a newer companion, the extension not yet reloaded) is dropped, not
   * the whole list: the server is then explained by its English `lastError`, as by a companion from before problems.
   */
  problem: mcpServerProblemSchema.optional().catch(undefined),
  restarts: z.number(),
  log: z.string().optional().describe("the server's log file (stdio servers)"),
  notes: z.array(z.string()).describe('tools not offered and why; input schemas that could not be compiled'),
});
export type McpServerHealth = z.infer<typeof mcpServerHealthSchema>;

// ---------------------------------------------------------------- ws

/** Sent by the client. The first message must be `auth` unless the `bearer.<token>` subprotocol was used. */
export const wsClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auth'), token: z.string() }),
  z.object({ type: z.literal('ping'), t: z.number().optional() }),
  z.object({ type: z.literal('pong'), t: z.number().optional() }),
]);
export type WsClientMessage = z.infer<typeof wsClientMessageSchema>;

export const runEventSchema = z.object({ type: z.literal('run'), run: runResponseSchema });
export const approvalEventSchema = z.object({
  type: z.literal('approval'),
  change: z.enum(['created', 'decided']),
  approval: approvalSchema,
});
export const programOutputEventSchema = z.object({
  type: z.literal('program-output'),
  programId: z.string(),
  name: z.string(),
  stream: z.enum(['stdout', 'stderr']),
  chunk: z.string(),
  offset: z.number().describe('byte offset of this chunk in its stream; a gap means something was lost'),
});
export const programExitEventSchema = z.object({
  type: z.literal('program-exit'),
  program: programInfoSchema,
  result: z.object({
    status: z.enum(['completed', 'failure', 'timeout', 'terminated']),
    returncode: z.number().nullable(),
    runtime: z.number(),
    truncated: z.boolean(),
  }),
});
/**
 * Sent to one client only: it read too slowly, so this much of a program's live output was not sent to it (issue 9,
 * finding 8). One event per gap, before the output that follows it and before the program's exit. The program's
 * result (the run, `check_program`) still holds its capped output.
 */
export const outputDroppedEventSchema = z.object({
  type: z.literal('output-dropped'),
  programId: z.string(),
  name: z.string(),
  stream: z.enum(['stdout', 'stderr']),
  offset: z.number().describe('byte offset in the stream where the dropped output starts'),
  dropped: z.number().describe('bytes not sent; the next program-output of this stream starts at offset + dropped'),
});
export const journalEventSchema = z.object({ type: z.literal('journal'), entry: journalEntrySchema });
/** A tool of the person's MCP server reported progress on a running call (for the chip). */
export const toolProgressEventSchema = z.object({
  type: z.literal('tool-progress'),
  runId: z.string(),
  tool: z.string(),
  progress: z.number(),
  total: z.number().optional(),
  message: z.string().optional(),
});
export const mcpServerEventSchema = z.object({ type: z.literal('mcp-server'), server: mcpServerHealthSchema });

/** Pushed by the companion once the connection is authenticated. */
export const wsEventSchema = z.discriminatedUnion('type', [
  runEventSchema,
  approvalEventSchema,
  programOutputEventSchema,
  programExitEventSchema,
  outputDroppedEventSchema,
  journalEventSchema,
  toolProgressEventSchema,
  mcpServerEventSchema,
]);
export type WsEvent = z.infer<typeof wsEventSchema>;

/** Everything the companion sends on the socket: events plus the connection's own replies. */
export const wsServerMessageSchema = z.union([
  wsEventSchema,
  z.object({ type: z.literal('auth-ok'), version: z.string() }),
  z.object({ type: z.literal('pong'), t: z.number().optional() }),
  z.object({ type: z.literal('ping'), t: z.number().optional() }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);
export type WsServerMessage = z.infer<typeof wsServerMessageSchema>;

/** ws close codes the companion uses (4000–4999 are free for applications). */
export const WS_CLOSE = { unauthorized: 4401, authTimeout: 4408, badMessage: 4400 } as const;
