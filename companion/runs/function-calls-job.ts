import type { ApprovalView } from '../../shared/api';
import type { Block, FunctionCall, FunctionCallsPayload } from '../../shared/protocols/types';
import { formatFunctionResults, type FunctionResultInput } from '../../shared/results';
import { isPlainObject } from '../../shared/protocols/describe-value';
import { LIBRARY_REPAIR_BUDGET, notAsWritten, parseJsonLenient, type RepairBudget } from '../../shared/protocols/json';
import type { Outcome, ResultMeta } from '../../shared/results/outcome';
import { isToolName } from '../../shared/tools';
import { toolCallOf } from '../../shared/tools/promptx-tool';
import { mayChangeFiles } from '../policy/decide';
import type { ExternalTools, ToolContext } from '../types';
import type { AuthorizationInfo } from './authorizer';
import type { JobResult } from './run-manager';
import { stopReason } from '../stop-reason';
import { callTool, refusedCall, type ToolHandlers } from './tool-call';
import { listAllTools, type ToolListing } from './tool-list';
import { splitExternalName } from '../mcp-servers/names';
import { typingSchema } from '../mcp-servers/arguments';

/**
 * Runs the calls of one `<function_calls>` block (shared/protocols/function-calls.ts) in order, each through the
 * same pipeline as any call (policy, approval, audit, caps), and answers one `<function_result>` per call; a command
 * after a call that changes files is not allow-listed. Once the run is stopped, the calls left are not run; each is
 * answered CANCELLED.
 */
export interface FunctionCallsRun {
  execute(ctx: ToolContext, auditId: string, info: AuthorizationInfo): Promise<JobResult>;
  pendingText(approval: ApprovalView, auditId: string): string;
}

export function functionCallsRun(
  blocks: Block[],
  deps: { tools: ToolHandlers; external?: ExternalTools | undefined },
  problemOf: () => Outcome | null,
): FunctionCallsRun {
  const block = blocks.length === 1 ? blocks[0] : undefined;
  const payload = block?.payload as FunctionCallsPayload | undefined;
  const answered: FunctionResultInput[] = [];
  let current: FunctionCall | undefined;

  return {
    pendingText(approval, auditId) {
      const waiting: FunctionResultInput = {
        callId: current?.callId,
        name: current?.name ?? approval.tool,
        outcome: { ok: true, text: approval.preview.title.trim() || approval.tool },
        meta: { auditId, pendingConfirmationId: approval.id },
      };
      return formatFunctionResults([...answered, waiting]);
    },
    async execute(ctx, auditId, info) {
      const problem = problemOf();
      if (problem || !payload) {
        const outcome = problem ?? { ok: false, code: 'INVALID_INPUT', message: 'the block could not be read' };
        info.tool = 'function_calls';
        return finish([{ name: 'function_calls', outcome, meta: { auditId } }], outcome);
      }
      let failed: Outcome | undefined;
      const tools = listAllTools(deps.external);
      const servers = deps.external?.serverNames() ?? [];
      // One block is one composite call: once a call of it may change files (a write, a removal, a tool of the
      // person's MCP server), a later command is not run on the allow-list alone (the call before it may have
      // rewritten its script, as a write in an auto_coder plan may).
      let changed = false;
      const blockCtx: ToolContext = {
        ...ctx,
        async authorize(request) {
          await ctx.authorize(changed ? { ...request, afterChanges: true } : request);
          if (request.actions.some(mayChangeFiles)) changed = true;
        },
      };
      // what the repair library may get for the block's list and object parameters in all, as for a message's JSON
      const budget: RepairBudget = { left: LIBRARY_REPAIR_BUDGET };
      for (const call of payload.calls) {
        current = call;
        let outcome: Outcome;
        if (call.error !== undefined) {
          // the parser could not read this call as written: it is answered so, and the others still run
          info.tool = call.name === '' ? 'function_calls' : call.name;
          outcome = { ok: false, code: 'INVALID_INPUT', message: `${call.error}; this call did not run` };
        } else {
          const name = toolNameFor(call.name, tools, servers);
          const listing = tools.find((tool) => tool.name === name);
          const args = payload.form === 'xml' ? readXmlArguments(call.arguments, listing?.inputSchema, budget) : call.arguments;
          const resolved = toolCallOf(name, args);
          info.tool = resolved.ok ? resolved.tool : name;
          outcome = ctx.signal.aborted
            ? { ok: false, code: 'CANCELLED', message: `not run: the block was stopped before this call (${stopReason(ctx.signal)})` }
            : resolved.ok
              ? await callTool(resolved.tool, resolved.args, blockCtx, deps.tools, deps.external)
              : refusedCall(resolved, ctx, deps.tools);
        }
        const meta: ResultMeta = { auditId, ...(outcome.ok && outcome.truncated ? { truncated: true } : {}) };
        answered.push({ callId: call.callId, name: call.name, outcome, meta });
        if (!outcome.ok) failed ??= outcome;
      }
      current = undefined;
      return finish(answered, failed ?? { ok: true, text: '' });
    },
  };
}

function finish(results: FunctionResultInput[], outcome: Outcome): JobResult {
  return { resultText: formatFunctionResults(results), status: outcome.ok ? 'done' : 'error', outcome: outcome.ok ? 'ok' : outcome.code };
}

/**
 * The tool a call names. Prompts written for the MCP proxies list a server's tools by their own names (`echo`),
 * where chatbridge names them `<server>.<tool>`: a name that is neither a built-in nor listed as it stands, but is
 * the tool name of exactly one listed `<server>.<tool>`, stands for that tool. Anything else is passed on as
 * written, and the registry answers NOT_FOUND naming the real tools. A name that starts with one of `servers` (those
 * configured, up or not) and a dot is that server's as written: a tool's own name may hold dots, and another server
 * whose tool is named `github.create_issue` took the call, with the arguments written for GitHub, while the person's
 * github server was switched off, given up or still starting.
 */
export function toolNameFor(name: string, tools: readonly ToolListing[], servers: readonly string[] = []): string {
  if (isToolName(name) || tools.some((tool) => tool.name === name)) return name;
  const named = splitExternalName(name)?.server;
  if (named !== undefined && servers.includes(named)) return name;
  const matches = tools.filter((tool) => tool.server !== undefined && tool.name === `${tool.server}.${name}`);
  return matches.length === 1 ? (matches[0] as ToolListing).name : name;
}

/** JSON Schema `type`s a property allows, from `type` and from the members of `anyOf`/`oneOf`. */
function allowedTypes(schema: unknown): Set<string> {
  const types = new Set<string>();
  if (!isPlainObject(schema)) return types;
  const type = schema.type;
  if (typeof type === 'string') types.add(type);
  if (Array.isArray(type)) for (const t of type) if (typeof t === 'string') types.add(t);
  if (Array.isArray(schema.enum)) for (const v of schema.enum) types.add(v === null ? 'null' : typeof v);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = schema[key];
    if (Array.isArray(members)) for (const member of members) for (const t of allowedTypes(member)) types.add(t);
  }
  return types;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * An XML parameter's text as the argument the tool's schema asks for: JSON (a number, a boolean, a list, an object)
 * when the text parses as a JSON value of a type the property allows, else the text itself — which is what a
 * string property gets, and what the argument check then names when the property wanted something else. So is JSON
 * whose value is not what it writes (shared/protocols/json.ts notAsWritten): an integer past 2^53 would reach the tool
 * rounded, `1e400` as null. A list or an object for a property that takes no string is read as the JSON calls in the
 * other formats are (shared/protocols/json.ts): in single or curly quotes, with a trailing comma, a full-width comma.
 */
export function readXmlArgument(text: string, schema: unknown, budget?: RepairBudget): unknown {
  const allowed = allowedTypes(schema);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.trim());
  } catch {
    return repairedXmlArgument(text, allowed, budget);
  }
  if (notAsWritten(text.trim(), parsed) !== undefined) return text;
  const type = jsonType(parsed);
  if (type === 'string') return allowed.has('string') || allowed.size === 0 ? text : parsed;
  if (allowed.has(type) || (type === 'integer' && allowed.has('number'))) return parsed;
  if (allowed.has('string')) return text;
  return parsed;
}

/** Non-strict JSON for a list or object property (one that takes no string); the text itself when it is not one. */
function repairedXmlArgument(text: string, allowed: Set<string>, budget?: RepairBudget): unknown {
  const trimmed = text.trim();
  const wantsContainer = (trimmed.startsWith('[') && allowed.has('array')) || (trimmed.startsWith('{') && allowed.has('object'));
  if (!wantsContainer || allowed.has('string')) return text;
  const repaired = parseJsonLenient(trimmed, budget);
  return repaired.ok && allowed.has(jsonType(repaired.value)) ? repaired.value : text;
}

export function readXmlArguments(
  args: Record<string, unknown>,
  inputSchema: Record<string, unknown> | undefined,
  budget?: RepairBudget,
): Record<string, unknown> {
  const properties = isPlainObject(inputSchema?.properties) ? inputSchema.properties : {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    out[key] = typeof value === 'string' ? readXmlArgument(value, inputSchema ? typingSchema(inputSchema, properties[key]) : undefined, budget) : value;
  }
  return out;
}
