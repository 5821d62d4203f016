import type { FlycodeCallPayload } from './types';
import { TOOL_NAMES, isToolName } from '../tools/names';
import { isFilesystemAlias, isPromptxRunner, resolvePromptxCall } from '../tools/promptx-tool';
import { defineProtocol } from './define-protocol';
import { NO_LABELS, argumentsUnder, codeBlockWith, findJsonFenceBlocks, outlineJsonFenceBlocks, toolNameUnder, type UnlabelledCall } from './json-fence';
import { describeValue, isPlainObject } from './describe-value';

/**
 * ```` ```flycode-call ```` (seed 001, DESIGN §3.2): `{"id":"call-001","tool":"fs.read","args":{…}}`.
 * `id` is a non-empty string, `tool` one of TOOL_NAMES, `args` an object (missing `args` is taken as `{}`;
 * the tool's own schema then says which arguments it needs; arguments under another key, `"arguments"` or
 * `"parameters"`, are refused saying where they go). Non-JSON such as `/fs.read /tmp/a.txt --head 200`
 * is refused. The payload is kept when the JSON parsed, even with an error, so the reply can echo the id.
 * `tool` may also be PromptX's runner (`promptx_tool` with `tool_resource: "@tool://filesystem"`, seed 004): the
 * call is then the `filesystem` tool's (tools/promptx-tool.ts).
 */

export type FlycodeCallCheck =
  | { ok: true; call: FlycodeCallPayload }
  | { ok: false; code: 'PARSE_ERROR' | 'INVALID_REQUEST' | 'METHOD_NOT_FOUND' | 'INVALID_INPUT'; message: string };

/** Checks a parsed flycode-call (a Block's `payload`; `undefined` means the block was not JSON). */
export function validateFlycodeCall(value: unknown): FlycodeCallCheck {
  if (value === undefined) {
    return {
      ok: false,
      code: 'PARSE_ERROR',
      message: 'flycode-call is not JSON; write {"id":"call-001","tool":"fs.read","args":{…}}',
    };
  }
  if (!isPlainObject(value)) {
    return {
      ok: false,
      code: 'INVALID_REQUEST',
      message: `flycode-call must be one JSON object {id, tool, args}, got ${describeValue(value)}`,
    };
  }
  const { id, tool, args } = value;
  if (typeof id !== 'string' || id.trim() === '') {
    const written = id !== undefined && typeof id !== 'string';
    return {
      ok: false,
      code: 'INVALID_REQUEST',
      message: `id ${written ? 'must be' : 'is required and must be'} a non-empty string such as "call-001"; got ${describeValue(id)}`,
    };
  }
  // before the tool's name is looked at: a call to one of the person's MCP servers is refused here too
  // (tool-name-only.ts), or it would run with no arguments
  const elsewhere =
    args === undefined && !isPromptxRunner(tool) ? argumentsUnder(value, ['arguments', 'params', 'parameters', 'input']) : undefined;
  if (elsewhere !== undefined) {
    return {
      ok: false,
      code: 'INVALID_INPUT',
      message: `the call's arguments go under "args" (seed 001: {"id", "tool", "args"}); it puts them under "${elsewhere}"`,
    };
  }
  if (tool === undefined) {
    const nameElsewhere = toolNameUnder(value, ['name', 'tool_name', 'toolName', 'function']);
    return nameElsewhere !== undefined
      ? {
          ok: false,
          code: 'INVALID_INPUT',
          message: `the tool's name goes under "tool" (seed 001: {"id", "tool", "args"}); it puts it under "${nameElsewhere}"`,
        }
      : {
          ok: false,
          code: 'INVALID_REQUEST',
          message: `the call names no tool: write {"id":"call-001","tool":"fs.read","args":{…}}; allowed: ${TOOL_NAMES.join(', ')}`,
        };
  }
  if (!isToolName(tool) && !isPromptxRunner(tool) && !isFilesystemAlias(tool)) {
    return {
      ok: false,
      code: 'METHOD_NOT_FOUND',
      message: `tool ${describeValue(tool)} is not available; allowed: ${TOOL_NAMES.join(', ')}`,
    };
  }
  if (args !== undefined && !isPlainObject(args)) {
    return { ok: false, code: 'INVALID_INPUT', message: `args of ${tool} must be an object, got ${describeValue(args)}` };
  }
  if (isPromptxRunner(tool)) {
    // PromptX's runner call (seed 004): the filesystem tool under another envelope, see tools/promptx-tool.ts
    const call = resolvePromptxCall(tool, args ?? {});
    // a wrong envelope around the filesystem's parameters is answered by that tool, in the manual's JSON
    if (!call.ok && call.tool === undefined) return { ok: false, code: 'INVALID_INPUT', message: call.message };
  }
  return { ok: true, call: { id, tool, args: args ?? {} } };
}

/**
 * A call in a ```` ```json ```` block (or one with no label): the seed's call without the seed's label, as likely the
 * format's example, so it never runs; its chip says why and what to write. Only a call of a tool of the list, with a
 * string id: a ```json block holding some other `{"id", "tool", "args"}` is someone else's JSON.
 */
const JSON_LABELS = [...NO_LABELS, 'json', 'jsonc', 'json5'];

function isFlycodeCall(value: unknown): boolean {
  if (!isPlainObject(value) || typeof value.id !== 'string') return false;
  return isToolName(value.tool) || isPromptxRunner(value.tool) || isFilesystemAlias(value.tool);
}

const UNLABELLED: UnlabelledCall = {
  labels: new Set(JSON_LABELS),
  markers: ['"tool"', '"id"'],
  isCall: isFlycodeCall,
  error: (label) =>
    `a flycode-call in ${codeBlockWith(label)} ` +
    `does not run, as it may be an example of the format: seed 001 runs a call in a block labelled flycode-call; ` +
    `write it in a \`\`\`flycode-call block`,
  inert: 'unlabelled-flycode-call',
  offeredWhenHidden: isFlycodeCall,
};

export const flycodeCall = defineProtocol({
  kind: 'flycode-call',
  // the label may stand alone on the first line of a block with none, and a call may be written in a ```json block
  // and written on one line as inline code, ```flycode-call {…}``` (json-fence.ts oneLineCalls)
  hints: { labels: ['flycode-call'], markers: ['flycode-call {', 'flycode-call{'], weak: { labels: JSON_LABELS, anyOf: ['"tool"', 'flycode-call'] } },
  outline: (markdown, fences) => outlineJsonFenceBlocks(markdown, fences, 'flycode-call', UNLABELLED),
  find: (markdown, fences) =>
    findJsonFenceBlocks(
      markdown,
      fences,
      'flycode-call',
      (value) => {
        const check = validateFlycodeCall(value);
        return check.ok ? { ok: true } : { ok: false, message: check.message };
      },
      'seed 001',
      UNLABELLED,
    ),
});
