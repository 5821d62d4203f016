import type { RunRequest } from '../../shared/api';
import type { ErrorCode } from '../../shared/errors';
import { findBlocks, validateFlycodeCall, validateMcpRequest } from '../../shared/protocols';
import type { AutocoderPlan, AxonPayload, Block, BlockKind, FlycodeCallPayload, McpRequestPayload } from '../../shared/protocols/types';
import type { ApprovalView } from '../../shared/api';
import {
  AUTOCODER_CLOSE,
  AUTOCODER_OPEN,
  formatAutocoderBlock,
  formatAutocoderResponse,
  formatAxonResult,
  formatFlycodeResult,
  formatMcpResponse,
  mcpPendingResponse,
  mcpResponseFor,
} from '../../shared/results';
import { pendingConfirmationText, type Outcome, type ResultMeta } from '../../shared/results/outcome';
import { redact } from '../policy/redact';
import type { Policy } from '../policy/schema';
import type { ExternalTools, ToolContext } from '../types';
import type { Job, JobResult } from './run-manager';
import { blockKey } from './run-manager';
import { toolCallOf } from '../../shared/tools/promptx-tool';
import { callTool, errorOutcome, refusedCall, type ToolHandlers } from './tool-call';
import { listAllTools } from './tool-list';
import { refusedOnlyForToolName } from '../../shared/protocols/tool-name-only';
import { functionCallsRun } from './function-calls-job';

/** The plan executors (companion/plans); injected so the pipeline can be built and tested on its own. */
export interface PlanRunners {
  runAutocoderPlan(plan: AutocoderPlan, ctx: ToolContext, meta: { auditId: string }): Promise<string | null>;
  runAxonPlan(payloads: AxonPayload[], ctx: ToolContext, meta: { auditId: string }): Promise<string>;
}

export interface BlockJobDeps {
  policy: Policy;
  tools: ToolHandlers;
  plans: PlanRunners;
  version: string;
  /** the tools of the person's MCP servers (companion/mcp-servers/) */
  external?: ExternalTools;
}

/** What a pending answer names: the preview's title (`fs.write /root/a.md`), else the tool. */
export function pendingWhat(approval: ApprovalView): string {
  return approval.preview.title.trim() || approval.tool;
}

/** The MCP protocol version the companion speaks in mcp-request blocks. */
export const MCP_PROTOCOL_VERSION = '2025-06-18';

/**
 * The job for `POST /v1/run` (DESIGN §1, issue 3 §2): the companion parses the raw text again itself — never
 * trusting what the extension parsed — and answers in the block's own protocol, errors included.
 */
export function blockJob(request: RunRequest, deps: BlockJobDeps): Job {
  const { kind, text, context } = request;
  const found = findBlocks(text, kind).filter((b) => b.complete);
  // The text is one block's raw; the block that spans all of it is the one to answer. That matters for the block
  // standing for those past the per-reply bound (shared/protocols/define-protocol.ts): it spans the blocks it
  // reports on, which are found inside it too. Axon statements come joined into one plan and are all of it.
  const whole = kind === 'axon' ? undefined : found.find((b) => b.start === 0 && b.end === text.length);
  const blocks = whole ? [whole] : found;
  const base = {
    kind,
    site: context.site,
    conversationId: context.conversationId,
    messageKey: context.messageKey,
    key: blockKey({ kind, site: context.site, conversationId: context.conversationId, messageKey: context.messageKey, text }),
  };
  const meta = (auditId: string, extra: Partial<ResultMeta> = {}): ResultMeta => ({ auditId, ...extra });
  // a tool name the parser refused may be one of the person's MCP servers' (shared/protocols/tool-name-only.ts)
  const answersName = (name: string): boolean => deps.external?.answers(name) === true;

  switch (kind) {
    case 'mcp-request': {
      const block = blocks.length === 1 ? blocks[0] : undefined;
      const payload = block?.payload as McpRequestPayload | undefined;
      const id = payload && (typeof payload.id === 'string' || typeof payload.id === 'number') ? payload.id : null;
      const respond = (outcome: Outcome, m: ResultMeta) => formatMcpResponse(mcpResponseFor(id, outcome, m));
      return {
        ...base,
        pendingText: (approval, auditId) =>
          formatMcpResponse(mcpPendingResponse(id, pendingWhat(approval), { auditId, pendingConfirmationId: approval.id })),
        async execute(ctx, auditId, info) {
          const problem = refusedOnlyForToolName(kind, block, answersName) ? null : blockProblem(kind, blocks, block);
          if (problem) return finalText(respond(problem, meta(auditId)), problem);
          const request = payload as McpRequestPayload;
          const repaired = block?.repaired ? { repaired: true } : {};
          const result = (value: unknown): JobResult => {
            info.tool = request.method;
            return {
              resultText: formatMcpResponse({ jsonrpc: '2.0', id, result: { ...(value as object), meta: meta(auditId, repaired) } }),
              status: 'done',
              outcome: 'ok',
            };
          };
          if (id === null || request.method.startsWith('notifications/')) {
            // JSON-RPC notifications get no reply (DESIGN §3.1)
            info.tool = request.method;
            return { resultText: '', status: 'done', outcome: 'ok' };
          }
          switch (request.method) {
            case 'initialize':
              return result({
                protocolVersion: MCP_PROTOCOL_VERSION,
                serverInfo: { name: 'chatbridge', version: deps.version },
                capabilities: { tools: {} },
              });
            case 'tools/list':
              return result({ tools: listAllTools(deps.external).map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) });
            case 'ping':
              return result({});
            case 'tools/call': {
              const params = request.params ?? {};
              const call = toolCallOf(String(params.name), params.arguments ?? {});
              info.tool = call.ok ? call.tool : String(params.name);
              const outcome = call.ok ? await callTool(call.tool, call.args, ctx, deps.tools, deps.external) : refusedCall(call, ctx, deps.tools);
              return finalText(respond(outcome, meta(auditId, { ...repaired, ...(outcome.ok && outcome.truncated ? { truncated: true } : {}) })), outcome);
            }
            default: {
              const outcome: Outcome = { ok: false, code: 'METHOD_NOT_FOUND', message: `method ${JSON.stringify(request.method)} is not supported; use initialize, tools/list, tools/call or ping` };
              return finalText(respond(outcome, meta(auditId)), outcome);
            }
          }
        },
      };
    }
    case 'flycode-call': {
      const block = blocks.length === 1 ? blocks[0] : undefined;
      const payload = (block?.payload ?? {}) as Partial<FlycodeCallPayload>;
      // a number for the id is refused (seed 001: a string), but echoed: the seed tells the model to disregard an answer
      // with [id] (none), so it would never read why its call failed
      const written: unknown = payload.id;
      const id = typeof written === 'string' && written.length > 0 ? written : typeof written === 'number' && Number.isFinite(written) ? String(written) : null;
      const tool = typeof payload.tool === 'string' ? payload.tool : null;
      const respond = (outcome: Outcome, m: ResultMeta) => formatFlycodeResult({ id, tool, outcome, meta: m });
      return {
        ...base,
        pendingText: (approval, auditId) =>
          respond({ ok: true, text: pendingConfirmationText(pendingWhat(approval)) }, meta(auditId, { pendingConfirmationId: approval.id })),
        async execute(ctx, auditId, info) {
          const problem = refusedOnlyForToolName(kind, block, answersName) ? null : blockProblem(kind, blocks, block);
          if (problem) return finalText(respond(problem, meta(auditId)), problem);
          const call = toolCallOf(tool as string, payload.args ?? {});
          info.tool = call.ok ? call.tool : (tool ?? undefined);
          const outcome = call.ok ? await callTool(call.tool, call.args, ctx, deps.tools, deps.external) : refusedCall(call, ctx, deps.tools);
          const repaired = block?.repaired ? { repaired: true } : {};
          return finalText(respond(outcome, meta(auditId, { ...repaired, ...(outcome.ok && outcome.truncated ? { truncated: true } : {}) })), outcome);
        },
      };
    }
    case 'autocoder': {
      // DESIGN §3.3: the first candidate that parses as a plan is the plan; the others are ignored
      const block = blocks.find((b) => b.payload !== undefined && b.error === undefined);
      const plan = block?.payload as AutocoderPlan | undefined;
      const stepId = typeof plan?.metadata?.step_id === 'string' ? plan.metadata.step_id : '';
      const reason = typeof plan?.metadata?.reason === 'string' ? plan.metadata.reason : '';
      const respond = (summary: string) =>
        formatAutocoderResponse({ metadata: { step_id: stepId, reason, summary }, file_actions: [], program_execs: {} });
      return {
        ...base,
        pendingText: (approval) =>
          respond(`${pendingConfirmationText(pendingWhat(approval))} pendingConfirmationId=${approval.id}; nothing has run yet.`),
        async execute(ctx, auditId, info) {
          info.tool = 'autocoder';
          if (!plan) {
            const failed = blocks.find((b) => b.error !== undefined);
            const message = failed?.error ?? noBlockMessage(kind);
            const code: ErrorCode = failed?.notRead !== undefined ? 'LIMIT_EXCEEDED' : 'INVALID_INPUT';
            return finalText(respond(`${code}: ${message}`), { ok: false, code, message });
          }
          try {
            const text = await deps.plans.runAutocoderPlan(plan, ctx, { auditId });
            // `finish` plans answer nothing (DESIGN §3.3)
            return { resultText: text === null ? '' : redactExecutorResponse(text, deps.policy), status: 'done', outcome: 'ok' };
          } catch (error) {
            const outcome = errorOutcome(error, ctx);
            return finalText(respond(outcome.ok ? '' : `${outcome.code}: ${outcome.message}`), outcome);
          }
        },
      };
    }
    case 'axon': {
      // statements the parser flagged (unknown act, missing parameter) keep their payload: the plan runner checks
      // every act before anything is written and answers one line per act, which teaches a model more
      const failed = blocks.find((b) => b.payload === undefined);
      const respond = (m: ResultMeta, reason: string) => formatAxonResult({ acts: [], applied: false, reason, meta: m });
      return {
        ...base,
        pendingText: (approval, auditId) =>
          respond(meta(auditId, { pendingConfirmationId: approval.id }), `${pendingConfirmationText(pendingWhat(approval))} Nothing changed yet.`),
        async execute(ctx, auditId, info) {
          info.tool = 'axon';
          const problem: Outcome | null =
            blocks.length === 0
              ? { ok: false, code: 'INVALID_INPUT', message: noBlockMessage(kind) }
              : failed
                ? { ok: false, code: 'INVALID_INPUT', message: failed.error ?? 'the statement could not be read' }
                : null;
          if (problem && !problem.ok) return finalText(respond(meta(auditId), `${problem.code}: ${problem.message} — nothing changed`), problem);
          try {
            const text = await deps.plans.runAxonPlan(blocks.map((b) => b.payload as AxonPayload), ctx, { auditId });
            return { resultText: redact(text, deps.policy), status: 'done', outcome: 'ok' };
          } catch (error) {
            const outcome = errorOutcome(error, ctx);
            return finalText(respond(meta(auditId), outcome.ok ? '' : `${outcome.code}: ${outcome.message} — nothing changed`), outcome);
          }
        },
      };
    }
    case 'function-calls': {
      // one block, its calls in order; tool names are resolved by the companion, not the parser
      const block = blocks.length === 1 ? blocks[0] : undefined;
      const run = functionCallsRun(blocks, deps, () => blockProblem(kind, blocks, block));
      return { ...base, pendingText: run.pendingText, execute: run.execute };
    }
  }
}

/**
 * The last redaction pass over an executor response, on its JSON's strings: run over the JSON text, a pattern that
 * takes a value up to a quote (`password=abc"def`) takes the backslash escaping that quote too, and the quote then
 * ends the string — the response is no longer JSON. A text that is not one JSON block is redacted as text.
 */
export function redactExecutorResponse(text: string, policy: Policy): string {
  if (!text.startsWith(AUTOCODER_OPEN) || !text.endsWith(AUTOCODER_CLOSE)) return redact(text, policy);
  let value: unknown;
  try {
    value = JSON.parse(text.slice(AUTOCODER_OPEN.length, text.length - AUTOCODER_CLOSE.length));
  } catch {
    return redact(text, policy);
  }
  const redactStrings = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v, policy);
    if (Array.isArray(v)) return v.map(redactStrings);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([key, inner]) => [redact(key, policy), redactStrings(inner)]));
    }
    return v;
  };
  const redacted = redactStrings(value);
  return redacted !== null && typeof redacted === 'object' ? formatAutocoderBlock(redacted) : redact(text, policy);
}

function finalText(resultText: string, outcome: Outcome): JobResult {
  return { resultText, status: outcome.ok ? 'done' : 'error', outcome: outcome.ok ? 'ok' : outcome.code };
}

function noBlockMessage(kind: BlockKind): string {
  return `the text holds no complete ${kind} block; send exactly one complete block as found in the message`;
}

/** Why a single-block kind cannot run: no block, several blocks, or a block the parser refused. */
function blockProblem(kind: BlockKind, blocks: Block[], block: Block | undefined): Outcome | null {
  if (blocks.length === 0) return { ok: false, code: 'INVALID_INPUT', message: noBlockMessage(kind) };
  if (blocks.length > 1 || !block) {
    return { ok: false, code: 'INVALID_INPUT', message: `the text holds ${blocks.length} complete ${kind} blocks; one run takes exactly one` };
  }
  if (block.error === undefined && block.payload !== undefined) return null;
  const message = block.error ?? 'the block could not be read';
  let code: ErrorCode = 'INVALID_INPUT';
  if (block.notRead !== undefined) {
    code = 'LIMIT_EXCEEDED';
  } else if (kind === 'mcp-request') {
    const checked = block.payload === undefined ? null : validateMcpRequest(block.payload);
    code = checked === null ? 'PARSE_ERROR' : checked.ok ? 'INVALID_REQUEST' : checked.code;
  } else if (kind === 'flycode-call') {
    const checked = block.payload === undefined ? null : validateFlycodeCall(block.payload);
    code = checked === null ? 'PARSE_ERROR' : checked.ok ? 'INVALID_INPUT' : (checked.code as ErrorCode);
  }
  return { ok: false, code, message };
}
