import { describeValue, isPlainObject } from '../protocols/describe-value';
import type { ToolName } from './names';

/**
 * PromptX's own way of calling a tool (seed 004, "通过promptx_tool调用，指定action和相关参数"; issue 10 §4). In
 * PromptX a tool is a resource run through one runner tool:
 *
 *   promptx_tool {"tool_resource": "@tool://filesystem", "parameters": {"action": "read", "path": "…"}}
 *
 * (inputSchema: `tool_resource` matching `^@tool://.+` and `parameters` required, `rebuild` and `timeout`
 * optional; later PromptX versions name the runner `toolx` / `promptx_toolx` and add `mode`, whose default is
 * `execute`). Models primed with the filesystem manual write exactly that, in a `tools/call` or a flycode-call.
 * chatbridge has the one resource the manual describes, so such a call IS a call of the catalogue's `filesystem`
 * tool with `parameters` as its arguments — validated, decided, approved and answered exactly as that tool.
 *
 * Accepted variants, because models write them: the runner under any of its names; the resource as
 * `tool_resource`, `resource`, `tool` or `toolResource`, with or without the `@tool://` prefix; the parameters as
 * `parameters`, `params`, `arguments` or `args`, as an object or as a JSON string of one, or left at the top level
 * next to the resource. `rebuild` and `timeout` are the runner's own options and change nothing here.
 */

export const PROMPTX_RUNNERS = ['promptx_tool', 'promptx_toolx', 'toolx'] as const;

/** The resource the PromptX filesystem manual names, and the catalogue tool it is. */
export const PROMPTX_FILESYSTEM_RESOURCE = '@tool://filesystem';
const FILESYSTEM: ToolName = 'filesystem';

const RESOURCE_KEYS = ['tool_resource', 'resource', 'tool', 'toolResource'] as const;
const PARAMETER_KEYS = ['parameters', 'params', 'arguments', 'args'] as const;
const RUNNER_OPTIONS = ['mode', 'rebuild', 'timeout'] as const;

/**
 * A refusal names `tool` once the resource is known to be the filesystem one: the envelope around its parameters is
 * then wrong (parameters twice, not JSON, not an object, …), and the filesystem tool answers that in its own words.
 */
export type PromptxCall = { ok: true; tool: ToolName; args: Record<string, unknown> } | { ok: false; message: string; tool?: ToolName };

export function isPromptxRunner(name: unknown): name is (typeof PROMPTX_RUNNERS)[number] {
  return typeof name === 'string' && (PROMPTX_RUNNERS as readonly string[]).includes(name);
}

/** `@tool://filesystem`, `tool://filesystem` and `filesystem` (any case) name the filesystem resource. */
function isFilesystemResource(value: string): boolean {
  return /^(?:@?tool:\/\/)?filesystem$/i.test(value.trim());
}

/** The one value among `keys` that the call sets, or why there is not exactly one. */
function oneOf(args: Record<string, unknown>, keys: readonly string[]): { key: string; value: unknown } | { clash: string[] } | undefined {
  const set = keys.filter((key) => Object.hasOwn(args, key));
  if (set.length > 1) return { clash: set };
  const key = set[0];
  return key === undefined ? undefined : { key, value: args[key] };
}

/**
 * The catalogue tool and arguments a PromptX runner call stands for; `runner` is the name the call used. Every
 * refusal names the value and the rule, as the model has to correct the call from it alone.
 */
export function resolvePromptxCall(runner: string, args: unknown): PromptxCall {
  const shape = `${runner} takes {"tool_resource": "${PROMPTX_FILESYSTEM_RESOURCE}", "parameters": {"action": …, …}}`;
  if (!isPlainObject(args)) return { ok: false, message: `${shape}; got ${describeValue(args)}` };

  const resource = oneOf(args, RESOURCE_KEYS);
  if (resource === undefined) return { ok: false, message: `${shape}; "tool_resource" is missing` };
  if ('clash' in resource) {
    return { ok: false, message: `${runner} got the tool resource twice (${resource.clash.map((k) => `"${k}"`).join(', ')}); give "tool_resource" once` };
  }
  if (typeof resource.value !== 'string' || !isFilesystemResource(resource.value)) {
    return {
      ok: false,
      message:
        `${runner} tool_resource ${describeValue(resource.value)} is not available here: chatbridge runs only ` +
        `"${PROMPTX_FILESYSTEM_RESOURCE}" (the PromptX filesystem manual) through ${runner}`,
    };
  }

  const mode = args.mode;
  if (mode !== undefined && mode !== 'execute') {
    return {
      ok: false,
      tool: FILESYSTEM,
      message: `${runner} mode ${describeValue(mode)} is not supported here; only "execute" runs the tool (leave mode out, or write "execute")`,
    };
  }

  const given = oneOf(args, PARAMETER_KEYS);
  if (given !== undefined && 'clash' in given) {
    return { ok: false, tool: FILESYSTEM, message: `${runner} got the parameters twice (${given.clash.map((k) => `"${k}"`).join(', ')}); give "parameters" once` };
  }
  const known = new Set<string>([resource.key, ...RUNNER_OPTIONS, ...(given ? [given.key] : [])]);
  const rest = Object.keys(args).filter((key) => !known.has(key));
  if (given === undefined) {
    // The parameters written next to the resource: {"tool_resource": "@tool://filesystem", "action": "read", …}
    return { ok: true, tool: FILESYSTEM, args: Object.fromEntries(rest.map((key) => [key, args[key]])) };
  }
  if (rest.length > 0) {
    return {
      ok: false,
      tool: FILESYSTEM,
      message: `${runner} takes tool_resource, parameters, mode, rebuild and timeout; ${rest.map((k) => `"${k}"`).join(', ')} belong${rest.length === 1 ? 's' : ''} inside "${given.key}"`,
    };
  }
  let parameters = given.value;
  if (typeof parameters === 'string') {
    try {
      parameters = JSON.parse(parameters) as unknown;
    } catch {
      return { ok: false, tool: FILESYSTEM, message: `${runner} ${given.key} is a string that is not JSON: ${describeValue(given.value)}; write it as an object` };
    }
  }
  if (!isPlainObject(parameters)) {
    return { ok: false, tool: FILESYSTEM, message: `${runner} ${given.key} must be an object like {"action": "read", "path": "…"}, got ${describeValue(parameters)}` };
  }
  return { ok: true, tool: FILESYSTEM, args: parameters };
}

/**
 * The catalogue tool a call names and the arguments it gets: a PromptX runner call as `resolvePromptxCall`
 * says, any other name as written (the catalogue then judges both).
 */
export function toolCallOf(name: string, args: unknown): { ok: true; tool: string; args: unknown } | { ok: false; message: string; tool?: ToolName } {
  if (isFilesystemAlias(name)) return { ok: true, tool: FILESYSTEM, args };
  return isPromptxRunner(name) ? resolvePromptxCall(name, args) : { ok: true, tool: name, args };
}

/**
 * The manual's own name for the tool (seed 004: "工具名称 @tool://filesystem") used as the tool name of a call,
 * `{"name": "@tool://filesystem", "arguments": {"action": "read", …}}`: the catalogue's `filesystem` tool.
 */
export function isFilesystemAlias(name: unknown): name is string {
  return typeof name === 'string' && /^@?tool:\/\/filesystem$/i.test(name.trim());
}
