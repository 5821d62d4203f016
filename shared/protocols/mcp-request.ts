import type { McpRequestPayload } from './types';
import { TOOL_NAMES, isToolName } from '../tools/names';
import { isFilesystemAlias, isPromptxRunner, resolvePromptxCall } from '../tools/promptx-tool';
import { defineProtocol } from './define-protocol';
import { NO_LABELS, argumentsUnder, codeBlockWith, findJsonFenceBlocks, outlineJsonFenceBlocks, toolNameUnder, type UnlabelledCall } from './json-fence';
import { describeValue, isPlainObject } from './describe-value';

/**
 * ```` ```mcp-request ```` (seed 000, DESIGN §3.1): a fence labelled `mcp-request` holding one JSON-RPC 2.0
 * object. The label is the first word of the info string, compared case-insensitively.
 *
 * The companion maps `validateMcpRequest`'s codes to JSON-RPC errors: PARSE_ERROR -32700 (a complete block
 * without payload), INVALID_REQUEST -32600, METHOD_NOT_FOUND -32601, INVALID_INPUT -32602.
 */

export const MCP_METHODS = ['initialize', 'tools/list', 'tools/call', 'ping'] as const;
const ALLOWED_METHODS = `${MCP_METHODS.join(', ')}, notifications/*`;

export type McpRequestCheck =
  | { ok: true; request: McpRequestPayload }
  | { ok: false; code: 'PARSE_ERROR' | 'INVALID_REQUEST' | 'METHOD_NOT_FOUND' | 'INVALID_INPUT'; message: string };

/**
 * Checks a parsed mcp-request (a Block's `payload`; `undefined` means the block was not JSON). On success
 * `request` is the request with `params.arguments` defaulted to `{}` for tools/call (arguments written under
 * `params.args` or `params.parameters` instead are refused, saying where they go). A tools/call of PromptX's
 * runner (`promptx_tool` with `tool_resource: "@tool://filesystem"`, seed 004) is a call of the `filesystem` tool
 * (tools/promptx-tool.ts); its resource is checked here, its envelope and the tool's arguments by the companion,
 * which answers those in the manual's JSON.
 */
export function validateMcpRequest(value: unknown): McpRequestCheck {
  if (value === undefined) {
    return { ok: false, code: 'PARSE_ERROR', message: 'mcp-request is not JSON; it must hold one JSON-RPC 2.0 object' };
  }
  if (Array.isArray(value)) {
    return {
      ok: false,
      code: 'INVALID_REQUEST',
      message: 'mcp-request holds a JSON array; batches are not supported, write one JSON-RPC 2.0 object',
    };
  }
  if (!isPlainObject(value)) {
    return {
      ok: false,
      code: 'INVALID_REQUEST',
      message: `mcp-request must be one JSON-RPC 2.0 object, got ${describeValue(value)}`,
    };
  }
  if (value.jsonrpc !== '2.0') {
    return { ok: false, code: 'INVALID_REQUEST', message: `jsonrpc must be "2.0", got ${describeValue(value.jsonrpc)}` };
  }
  const { id, method, params } = value;
  if (id !== undefined && typeof id !== 'string' && typeof id !== 'number') {
    return { ok: false, code: 'INVALID_REQUEST', message: `id must be a string or a number, got ${describeValue(id)}` };
  }
  if (typeof method !== 'string') {
    return {
      ok: false,
      code: 'INVALID_REQUEST',
      message: `method must be a string (one of ${ALLOWED_METHODS}), got ${describeValue(method)}`,
    };
  }
  if (!(MCP_METHODS as readonly string[]).includes(method) && !method.startsWith('notifications/')) {
    return {
      ok: false,
      code: 'METHOD_NOT_FOUND',
      message: `method ${describeValue(method)} is not supported; allowed: ${ALLOWED_METHODS}`,
    };
  }
  if (params !== undefined && !isPlainObject(params)) {
    return { ok: false, code: 'INVALID_REQUEST', message: `params must be an object, got ${describeValue(params)}` };
  }
  const request: McpRequestPayload = { jsonrpc: '2.0', method };
  if (id !== undefined) request.id = id;
  if (params !== undefined) request.params = { ...params };
  if (method === 'tools/call') {
    const name = params?.name;
    const nameElsewhere = name === undefined ? toolNameUnder(params ?? {}, ['tool', 'tool_name', 'toolName']) : undefined;
    if (nameElsewhere !== undefined) {
      return {
        ok: false,
        code: 'INVALID_INPUT',
        message: `the tool's name goes under params.name (seed 000); the call puts it under params.${nameElsewhere}`,
      };
    }
    if (typeof name !== 'string') {
      return {
        ok: false,
        code: 'INVALID_INPUT',
        message: `tools/call needs params.name, a tool name string; got ${describeValue(name)}`,
      };
    }
    // before the name is looked at: a call to one of the person's MCP servers is refused here too (tool-name-only.ts),
    // or it would run with no arguments
    const misplaced = params?.arguments === undefined && !isPromptxRunner(name);
    const elsewhere = misplaced ? argumentsUnder(params ?? {}, ['args', 'parameters', 'input']) : undefined;
    if (elsewhere !== undefined) {
      return {
        ok: false,
        code: 'INVALID_INPUT',
        message: `the arguments of ${name} go under params.arguments (seed 000); the call puts them under params.${elsewhere}`,
      };
    }
    if (!isToolName(name) && !isPromptxRunner(name) && !isFilesystemAlias(name)) {
      return {
        ok: false,
        code: 'INVALID_INPUT',
        message: `tool ${describeValue(name)} is not available; allowed: ${TOOL_NAMES.join(', ')}`,
      };
    }
    const args = params?.arguments;
    if (args !== undefined && !isPlainObject(args)) {
      return {
        ok: false,
        code: 'INVALID_INPUT',
        message: `params.arguments of ${name} must be an object, got ${describeValue(args)}`,
      };
    }
    if (isPromptxRunner(name)) {
      // PromptX's runner call (seed 004): the filesystem tool under another envelope, see tools/promptx-tool.ts
      const call = resolvePromptxCall(name, args ?? {});
      // a wrong envelope around the filesystem's parameters is answered by that tool, in the manual's JSON
      if (!call.ok && call.tool === undefined) return { ok: false, code: 'INVALID_INPUT', message: call.message };
    }
    request.params = { ...params, name, arguments: args ?? {} };
  }
  return { ok: true, request };
}

/**
 * A JSON-RPC request in a ```` ```json ```` block (or one with no label): the seed's call without the seed's label. A
 * reply explaining the format shows one the same way, so it never runs; its chip says why and what to write.
 */
const JSON_LABELS = [...NO_LABELS, 'json', 'jsonc', 'json5'];

const UNLABELLED: UnlabelledCall = {
  labels: new Set(JSON_LABELS),
  markers: ['jsonrpc', 'method'],
  isCall: (value) => isPlainObject(value) && value.jsonrpc !== undefined && typeof value.method === 'string',
  error: (label) =>
    `a JSON-RPC request in ${codeBlockWith(label)} does not run, as it may be an example ` +
    `of the format: seed 000 runs a request in a block labelled mcp-request; write it in a \`\`\`mcp-request block`,
  inert: 'unlabelled-call',
  // the calls the seed's instructions ask for; initialize, ping and notifications are the format's own examples
  offeredWhenHidden: (value) => isPlainObject(value) && (value.method === 'tools/call' || value.method === 'tools/list'),
};

export const mcpRequest = defineProtocol({
  kind: 'mcp-request',
  // the label may stand alone on the first line of a block with none, and a request may be written in a ```json block
  // and written on one line as inline code, ```mcp-request {…}``` (json-fence.ts oneLineCalls)
  hints: { labels: ['mcp-request'], markers: ['mcp-request {', 'mcp-request{'], weak: { labels: JSON_LABELS, anyOf: ['jsonrpc', 'mcp-request'] } },
  outline: (markdown, fences) => outlineJsonFenceBlocks(markdown, fences, 'mcp-request', UNLABELLED),
  find: (markdown, fences) =>
    findJsonFenceBlocks(
      markdown,
      fences,
      'mcp-request',
      (value) => {
        const check = validateMcpRequest(value);
        return check.ok ? { ok: true } : { ok: false, message: check.message };
      },
      'seed 000',
      UNLABELLED,
    ),
});
