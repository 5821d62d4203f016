/**
 * The error codes every protocol speaks (DESIGN §3.1). One table, so a code means the same thing in an
 * mcp-response, a flycode-result, an auto_coder response and an axon-result.
 */
export const ERROR_CODES = {
  INVALID_INPUT: -32602,
  NOT_FOUND: -32004,
  FORBIDDEN: -32003,
  POLICY_BLOCKED: -32003,
  DENIED: -32003,
  CONFLICT: -32009,
  MISMATCH: -32009,
  AMBIGUOUS: -32009,
  LIMIT_EXCEEDED: -32008,
  NOT_SUPPORTED: -32005,
  TIMEOUT: -32010,
  /** a tool of the person's own MCP server ran and reported failure (`isError: true`); the message is its own */
  TOOL_ERROR: -32011,
  /**
   * the person's MCP server that owns the tool is not running: starting, crashed (also mid-call), or gave up; or the
   * network or FUSE file system a path is on has not answered (companion/fsx/mount-gate.ts)
   */
  UNAVAILABLE: -32012,
  /** the person stopped the call (Stop in the chip); an MCP server was sent the protocol's cancellation */
  CANCELLED: -32013,
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INTERNAL: -32603,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export function jsonRpcCode(code: ErrorCode): number {
  return ERROR_CODES[code];
}

/**
 * Thrown by parsers, validators and tools; turned into the protocol's error form at one boundary.
 * The message names the offending value and the broken rule, e.g. `fs.mv takes fromPath/toPath, not src/dest`.
 */
export class ToolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ToolError';
  }
}
