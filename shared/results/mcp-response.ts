import { jsonRpcCode, type ErrorCode } from '../errors';
import { fenced } from './fence';
import { codedMessage, pendingConfirmationText, type Outcome, type ResultMeta } from './outcome';

export type JsonRpcId = string | number | null;

export interface McpResultMeta {
  auditId: string;
  truncated?: true;
  pendingConfirmationId?: string;
  repaired?: true;
}

export interface McpSuccessResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: { content: Array<{ type: 'text'; text: string }>; isError?: true; meta: McpResultMeta };
}

export interface McpErrorResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string; data: { code: ErrorCode; auditId: string; [key: string]: unknown } };
}

export type McpResponse = McpSuccessResponse | McpErrorResponse;

/**
 * The JSON-RPC response for a `tools/call` (DESIGN §3.1). The text goes in `content[0].text` as the model
 * should read it; facts about the call go in `meta` (success) or `data` (error), never into the text.
 */
export function mcpResponseFor(id: JsonRpcId, outcome: Outcome, meta: ResultMeta): McpResponse {
  if (outcome.ok) {
    const resultMeta: McpResultMeta = { auditId: meta.auditId };
    if (outcome.truncated === true || meta.truncated === true) resultMeta.truncated = true;
    if (meta.pendingConfirmationId !== undefined) resultMeta.pendingConfirmationId = meta.pendingConfirmationId;
    if (meta.repaired === true) resultMeta.repaired = true;
    return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: outcome.text }], meta: resultMeta } };
  }
  if (outcome.answer !== undefined) {
    // a failure the tool answers in its own words (Outcome.answer): a tool result that is an error, as MCP has it
    const resultMeta: McpResultMeta = { auditId: meta.auditId };
    if (meta.repaired === true) resultMeta.repaired = true;
    return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: outcome.answer }], isError: true, meta: resultMeta } };
  }
  // The code and the audit id are ours: details from the tool may add to them, never replace them.
  const { code: _code, auditId: _auditId, ...details } = outcome.data ?? {};
  const data: McpErrorResponse['error']['data'] = { code: outcome.code, ...details, auditId: meta.auditId };
  if (meta.repaired === true) data.repaired = true;
  return {
    jsonrpc: '2.0',
    id,
    error: { code: jsonRpcCode(outcome.code), message: codedMessage(outcome.code, outcome.message), data },
  };
}

/** The text of a pending answer (seed 000 §8.1); `what` names the call, e.g. `fs.write /root/a.md`. */
export const mcpPendingText = pendingConfirmationText;

/** The pending answer: a result, not a success — its text and `meta.pendingConfirmationId` say to wait. */
export function mcpPendingResponse(
  id: JsonRpcId,
  what: string,
  meta: ResultMeta & { pendingConfirmationId: string },
): McpSuccessResponse {
  return mcpResponseFor(id, { ok: true, text: mcpPendingText(what) }, meta) as McpSuccessResponse;
}

/**
 * The ```` ```mcp-response ```` block with the JSON on one line. JSON.stringify already escapes line breaks;
 * U+2028/U+2029 are escaped too so no renderer can split the line.
 */
export function formatMcpResponse(response: object): string {
  const json = JSON.stringify(response).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return fenced('mcp-response', json);
}
