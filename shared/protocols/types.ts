/** The five kinds of tool block chatbridge understands (DESIGN §3). */
export const BLOCK_KINDS = ['mcp-request', 'flycode-call', 'autocoder', 'axon', 'function-calls'] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];

/**
 * One tool block found in a message's markdown. `start`/`end` are offsets into that markdown and
 * `raw === markdown.slice(start, end)`; `findBlocks(raw)` finds the same block again, which is how the
 * companion re-parses what the extension sends it.
 */
export interface Block {
  kind: BlockKind;
  /** The closing marker has arrived; incomplete blocks are shown as "writing…" and never run. */
  complete: boolean;
  raw: string;
  start: number;
  end: number;
  /** The parsed block when it is complete and its envelope could be read (see the kind's payload type). */
  payload?: unknown;
  /** The JSON was not strict and was repaired before parsing. */
  repaired?: boolean;
  /** Why a complete block cannot be run as it stands (names the value and the rule). */
  error?: string;
  /** Protocol rules the reply broke that do not stop it from running (e.g. text before the block). */
  warnings?: string[];
  /**
   * Found in paragraph text, not inside a code block (auto_coder plans may be): the page may have changed its
   * text on the way (indentation, escapes), so such a block is never auto-run; a Run click still works.
   */
  unfenced?: boolean;
  /**
   * A call in a code block whose page hid the label it was written with (json-fence.ts HIDDEN_LABEL): it may be the
   * format's example as well as a call, so it never auto-runs; a Run click runs it.
   */
  labelHidden?: boolean;
  /**
   * An `<invoke>` written without the `<function_calls>` around it (function-calls.ts): the call is plain, but not in
   * the format's form, so it never auto-runs; a Run click runs it.
   */
  unwrapped?: boolean;
  /**
   * An Axon plan written wholly inside a block quote, every line `> …` (quoted.ts): what the model meant when the reply
   * holds no other block, but a quote is as well how a plan is mentioned, so it never auto-runs; a Run click runs it.
   */
  quoted?: boolean;
  /**
   * The protocol says this block never runs, and why (`later-plan`: a second auto_coder plan in one reply — seed 002
   * runs only the first). Its raw text alone may parse as a runnable block, so the extension must never send it;
   * its chip shows the reason in the person's language (`reason.<InertReason>` in the extension's locales) and offers
   * no Run. `error` says the same to the model, in the protocol's words.
   */
  inert?: InertReason;
  /**
   * This block stands for the blocks of its kind past the per-reply bound (define-protocol.ts): how many were not
   * read. Its `error` says so and why; it has no payload and never runs.
   */
  notRead?: number;
}

/**
 * Why the protocol says a block never runs (Block.inert). `unlabelled-call`: a call written in a code block without its
 * protocol's label (a JSON-RPC request in a ```` ```json ```` block), as likely an example as a call;
 * `unlabelled-flycode-call`: the same for a flycode-call.
 */
export type InertReason = 'later-plan' | 'unlabelled-call' | 'unlabelled-flycode-call';

/** mcp-request payload: the parsed JSON-RPC object as written (validated envelope when `error` is unset). */
export interface McpRequestPayload {
  jsonrpc: '2.0';
  id?: string | number;
  method: string;
  params?: Record<string, unknown>;
}

/** flycode-call payload. */
export interface FlycodeCallPayload {
  id: string;
  tool: string;
  args: Record<string, unknown>;
}

/** auto_coder plan (seed 002), as parsed; fields beyond these are kept. */
export interface AutocoderPlan {
  type: string;
  metadata?: Record<string, unknown>;
  file_operations?: Array<Record<string, unknown>>;
  program_operations?: Array<Record<string, unknown>>;
  [key: string]: unknown;
}

/** Axon payload: one statement per block (an `act` block and its positional parameter blocks). */
export interface AxonPayload {
  acts: Array<{ act: string; args: string[] }>;
}

/** One call of a `<function_calls>` block: the tool's name and its arguments as written. */
export interface FunctionCall {
  name: string;
  /** `call_id` as written (the answer repeats it); absent when the call has none */
  callId?: string;
  /**
   * XML form: every value is the parameter's text (the companion reads it against the tool's schema);
   * JSON-lines form: the values as parsed.
   */
  arguments: Record<string, unknown>;
  /**
   * Why this call cannot run as written (an `<invoke>` with no name, a parameter given twice or not closed), naming the
   * value and the rule: it is answered with that error under its own `call_id`, and the block's other calls still run.
   */
  error?: string;
}

/** function-calls payload: the calls of one block, in order. */
export interface FunctionCallsPayload {
  form: 'xml' | 'jsonl';
  calls: FunctionCall[];
}
