/**
 * The seams between the companion's parts. Tools, plans, the journal and the process manager are built
 * separately and wired together in app.ts; these interfaces are what each side may rely on.
 */
import type { PreviewHeading } from '../shared/api';
import type { ErrorCode } from '../shared/errors';
import type { Risk, ToolContract } from '../shared/tools/define-tool';
import type { ShownStates } from './approvals/shown-state';
import type { Mode, Policy } from './policy/schema';
import type { z } from 'zod';

/** Who asked: carried into approvals, audit records, journal entries and program ownership. */
export interface CallOrigin {
  runId: string;
  site: string;
  conversationId: string;
  messageKey?: string;
}

// ---------------------------------------------------------------- journal (companion/journal/)

/** One change to the file system; paths are absolute and already checked against the roots. */
export type FileOp =
  | {
      op: 'write';
      path: string;
      content: Uint8Array | string;
      mode?: 'overwrite' | 'append';
      expectedSha256?: string;
      /**
       * The text the content was made from (a replacement, a plan's view of the file), null when the file was not
       * there: in the journal's turn the file must still hold it, or the write is a CONFLICT — a write that had the
       * turn before it would otherwise be undone by it with no word.
       */
      basedOn?: string | null;
    }
  | { op: 'rm'; path: string; recursive?: boolean }
  | { op: 'mv'; from: string; to: string; overwrite?: boolean }
  | { op: 'mkdir'; path: string; parents?: boolean }
  | { op: 'chmod'; path: string; mode: number };

export interface JournalEntry {
  id: string;
  time: string;
  label: string;
  origin?: CallOrigin;
  paths: string[];
  state: 'applied' | 'undone' | 'rolled-back';
}

export interface ApplyOptions {
  /**
   * Runs in the journal's turn, right before the ops, and refuses them by throwing. Changes take turns, so a check
   * made before asking for the turn can be outdated by the change that held it (another call's write into a folder
   * about to be moved); what the ops depend on is checked here.
   */
  check?: () => Promise<void>;
}

export interface Journal {
  /**
   * Applies the ops all-or-nothing: before-images and the intent are written ahead, then the ops run;
   * any failure restores every path and rethrows (a ToolError). A crash in between is repaired by recover().
   */
  apply(label: string, ops: FileOp[], origin?: CallOrigin, options?: ApplyOptions): Promise<JournalEntry>;
  /** Restores the before-images if the files still hold what the entry wrote; else ToolError CONFLICT. */
  undo(id: string): Promise<JournalEntry>;
  list(limit?: number): Promise<JournalEntry[]>;
  /** At start: rolls back any entry whose apply never finished. Returns the ids it repaired. */
  recover(): Promise<string[]>;
  /** Drops entries and trash past the retention limits. */
  prune(): Promise<void>;
}

// ---------------------------------------------------------------- processes (companion/processes/)

export type ProgramStatus = 'running' | 'completed' | 'failure' | 'timeout' | 'terminated';

export interface ProgramSpec {
  name: string;
  /** argv without a shell (process.run) … */
  argv?: string[];
  /** … or one shell string (shell.exec, auto_coder programs). Exactly one of argv/shell. */
  shell?: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  origin: CallOrigin;
}

export interface ProgramResult {
  status: Exclude<ProgramStatus, 'running'>;
  returncode: number | null;
  stdout: string;
  stderr: string;
  /** seconds */
  runtime: number;
  /** output went over maxOutputBytes and was cut to head + tail with a marker */
  truncated: boolean;
}

export interface ProgramInfo {
  id: string;
  name: string;
  command: string;
  cwd: string;
  origin: CallOrigin;
  status: ProgramStatus;
  startedAt: string;
}

export interface ProgramOutputEvent {
  programId: string;
  name: string;
  stream: 'stdout' | 'stderr';
  chunk: string;
  /** byte offset of this chunk in its stream, so a client can tell nothing was lost */
  offset: number;
}

export interface ProgramHandle {
  info: ProgramInfo;
  done: Promise<ProgramResult>;
}

export interface ProcessManager {
  start(spec: ProgramSpec): ProgramHandle;
  get(id: string): ProgramHandle | undefined;
  list(): ProgramInfo[];
  /** Kills the whole process tree; the program ends as `terminated`. */
  stop(id: string, reason?: string): Promise<void>;
  stopAll(): Promise<void>;
  onOutput(listener: (event: ProgramOutputEvent) => void): () => void;
  onExit(listener: (info: ProgramInfo, result: ProgramResult) => void): () => void;
}

// ---------------------------------------------------------------- tools (companion/tools/)

/** A command a call runs: argv without a shell, or one shell string; always with its working directory. */
export interface CommandSpec {
  argv?: string[];
  shell?: string;
  cwd: string;
}

/**
 * One thing a call does, decided on its own risk class (DESIGN §5.3). A plain tool call is one action; a
 * composite call (an auto_coder or Axon plan, fs.writeBatch) lists every file change and every command, so no
 * part of it can ride on the decision of another.
 */
export interface PlannedAction {
  risk: Risk;
  /** what the approval card lists: `delete_file src/old.ts`, `run "npm test"` */
  label: string;
  paths: string[];
  command?: CommandSpec;
  /**
   * A mode the person set for this action itself rather than for its class: a tool of their own MCP server, in
   * that server's `policy` (companion/mcp-servers/tool-policy.ts). The site's override of the class can only make
   * it stricter; the global `modes` do not apply to it.
   */
  mode?: Mode;
}

/** What needs the person's policy (and maybe their approval) before it may run. */
export interface AuthorizationRequest {
  /** `fs.write`, `autocoder`, `axon`, … as shown to the person */
  tool: string;
  /** the arguments the approval is bound to (hashed); a changed argument needs a new approval */
  args: unknown;
  /** every action of the call; the call's decision is the strictest of theirs */
  actions: PlannedAction[];
  preview: Preview;
  /**
   * An earlier call of the same block changed files (a `<function_calls>` block's write before its command): as in
   * a plan, what an allow-listed command runs may have been rewritten, so the allow-list does not apply.
   */
  afterChanges?: boolean;
}

export interface ToolContext {
  policy: Policy;
  journal: Journal;
  processes: ProcessManager;
  origin: CallOrigin;
  signal: AbortSignal;
  /**
   * Applies the policy (auto / confirm / deny, allow-listed commands, per-site overrides) and, where it says
   * confirm, waits for the person's decision. Resolves when the call may run; throws ToolError
   * POLICY_BLOCKED (policy says deny) or DENIED (the person said no / the approval expired).
   * Tool calls are authorized by the run pipeline before handler.run; plans call it once for the whole plan,
   * listing every action. Where a card was shown, resolves with the scripts it pinned (approvals/scripts-run.ts):
   * a plan checks them again as each of its programs starts, after its file actions.
   */
  authorize(request: AuthorizationRequest): Promise<Authorized | void>;
}

/** What an approval by a card pinned: the files its commands run as code, as the card showed them. */
export interface Authorized {
  scripts: ShownStates;
}

/** What a tool returns; errors are thrown as ToolError. `text` is what a model reads (before redaction/caps). */
export interface ToolOutput {
  text: string;
  data?: unknown;
  truncated?: boolean;
  journalId?: string;
  /**
   * Set when `text` is the tool's own answer to a failure met while it ran (the PromptX `filesystem` tool's manual
   * JSON): the call failed with `code`, and the answer names `answerCode` (see Outcome.answer).
   */
  failure?: { code: ErrorCode; message: string; answerCode: string };
}

/** What the person sees before approving: a unified diff for writes, the command and cwd for exec. */
export interface Preview {
  /** set by the approval store when the preview held characters a person cannot see (shared/reveal-hidden.ts) */
  warning?: string;
  /** the same characters counted, by code point, set with `warning` */
  hidden?: Array<{ codePoint: number; count: number }>;
  title: string;
  /** what the title says, as its kind and facts, for the extension to word in the person's language */
  heading?: PreviewHeading;
  paths: string[];
  diff?: string;
  /**
   * The diff, made only if an approval card is to show it (the authorizer asks, then drops this): a change the
   * policy lets through without asking never reads the old file or diffs it (~0.1 ms of a 1 KB overwrite).
   */
  diffLater?: () => Promise<string>;
  command?: string;
  cwd?: string;
  /** the files the command runs as code (the program by path, an interpreter's script), pinned as the card shows them */
  runs?: string[];
  /** what the command runs that cannot be pinned, as written: a script known only when it runs (`$SCRIPT`), PowerShell's `-Command` */
  unpinned?: string[];
  /** a composite call's actions, each with its class and what the policy said of it alone */
  actions?: Array<{ risk: Risk; label: string; decision: 'auto' | 'confirm' }>;
}

// ---------------------------------------------------------------- the person's MCP servers (companion/mcp-servers/)

/** A tool of the person's own MCP server, `<server>.<tool>`, in the catalogue beside the built-ins. */
export interface ExternalToolListing {
  name: string;
  description: string;
  /** `exec`, or `read` for a read-only tool of a server whose annotations are trusted */
  risk: Risk;
  inputSchema: Record<string, unknown>;
  server: string;
}

/**
 * One external tool, ready for the same pipeline as a built-in (runs/tool-call.ts): validate → plan → preview →
 * authorize → run. Its arguments are checked against the server's JSON Schema, not a zod contract.
 */
export interface ExternalTool {
  name: string;
  validate(args: unknown): { ok: true; args: Record<string, unknown> } | { ok: false; code: 'INVALID_INPUT'; message: string };
  plan(args: Record<string, unknown>, ctx: ToolContext): Promise<{ risk: Risk; paths: string[]; mode?: Mode }>;
  preview(args: Record<string, unknown>, ctx: ToolContext): Promise<Preview>;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}

/** The external tools of every configured server: one registry for every entry point (blocks, /mcp, tools/list). */
export interface ExternalTools {
  /**
   * The tool a name stands for when it is not a built-in. Waits for a server that is still starting. Throws
   * ToolError NOT_FOUND (no such tool — the message lists the built-ins and the external tools) or UNAVAILABLE
   * (its server is down). Undefined when no server is configured at all, so the built-in answer stands.
   */
  resolve(name: string, signal: AbortSignal): Promise<ExternalTool | undefined>;
  /**
   * Whether the registry answers for `name`: any name that is not a built-in, once at least one server is
   * configured (its answer may be NOT_FOUND, listing the external tools too).
   */
  answers(name: string): boolean;
  listings(): ExternalToolListing[];
  /** the names of the configured servers, up or not: a name of one's, a dot and a tool, names that server's tool */
  serverNames(): string[];
}

export interface ToolHandler<S extends z.ZodType = z.ZodType> {
  contract: ToolContract<S>;
  /**
   * Paths (absolute, resolved inside the roots) and commands the call touches, for policy decisions.
   * Throws ToolError FORBIDDEN / INVALID_INPUT for paths outside the roots before anything runs.
   */
  plan(args: z.infer<S>, ctx: ToolContext): Promise<{ risk: Risk; paths: string[]; command?: CommandSpec }>;
  preview(args: z.infer<S>, ctx: ToolContext): Promise<Preview>;
  run(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
  /**
   * For a tool whose contract promises its own reply for every failure (the PromptX `filesystem` tool): that
   * reply for a call refused before run() — arguments its schema refused, a path plan() refused, a policy or a
   * person that said no. `args` is the call's arguments as written. The text goes through the same redaction as
   * any result.
   */
  answerFailure?(failure: { code: ErrorCode; message: string; data?: Record<string, unknown> }, args: unknown): { code: string; text: string };
}
