import { z } from 'zod';
import { t, tn } from '../ui/i18n';
import {
  approvalSchema,
  auditRecordSchema,
  grantSchema,
  journalEntrySchema,
  mcpServerHealthSchema,
  pairResponseSchema,
  programInfoSchema,
  runResponseSchema,
  statusResponseSchema,
  toolInfoSchema,
  unpairResponseSchema,
  type Approval,
  type ApprovalDecision,
  type AuditItem,
  type GrantItem,
  type JournalItem,
  type McpServerItem,
  type ProgramItem,
  type RunRequest,
  type RunResponse,
  type StatusResponse,
  type ToolListing,
} from './api-types';

/**
 * A failed call to the companion, with the HTTP status (0: not reachable), the companion's error code and data.
 * The two the extension finds by itself (NOT_PAIRED, UNREACHABLE) are worded for the person, in their language.
 */
export class CompanionError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'CompanionError';
  }
}

/**
 * Why a pairing at `url` failed, in the person's language and with what to do next: the companion's refusals
 * (`POST /v1/pair` answers FORBIDDEN with the reason and the tries left, INVALID_INPUT for what is no code at all)
 * and nothing answering there. Anything else keeps its own message.
 */
export function pairingRefusal(error: unknown, url: string): string {
  if (!(error instanceof CompanionError)) return error instanceof Error ? error.message : String(error);
  if (error.code === 'UNREACHABLE') return t('pairing.unreachable', [url]);
  // the field left empty, or far longer than a code: the companion's schema refuses it before any try is counted
  if (error.code === 'INVALID_INPUT') return t('pairing.notACode');
  const data = (error.data ?? {}) as { reason?: unknown; triesLeft?: unknown };
  if (error.code === 'FORBIDDEN') {
    if (data.reason === 'wrong' && typeof data.triesLeft === 'number') return tn('pairing.wrong', data.triesLeft);
    if (data.reason === 'expired') return t('pairing.expired');
    if (data.reason === 'exhausted') return t('pairing.exhausted');
    if (data.reason === 'no-code') return t('pairing.noCode');
  }
  return error.message;
}

/**
 * A refusal of the companion's as the person reads it (a chip's note, the popup's and the side panel's error line):
 * the codes the extension can word itself are said in the person's language, for what was asked (`request`), with
 * the companion's own message after it where that names the facts (a path, a size). Any other code is named with
 * the companion's message. NOT_PAIRED and UNREACHABLE are worded where they are found.
 */
export function companionRefusal(error: unknown, request?: string): string {
  if (!(error instanceof CompanionError)) return error instanceof Error ? error.message : String(error);
  const { code, message } = error;
  // the token is kept when the companion could not forget it: it would still work there
  if (request === 'unpair') return t('refusal.unpair', [code === 'UNREACHABLE' ? message : companionRefusal(error)]);
  if (code === 'NOT_PAIRED' || code === 'UNREACHABLE') return message;
  if (code === 'UNAUTHORIZED') return t('conn.tokenRefused');
  if (request === 'decide' && (code === 'CONFLICT' || code === 'NOT_FOUND')) return t('refusal.approvalGone');
  if (request === 'decide' && code === 'MISMATCH') return t('refusal.approvalChanged');
  if (request === 'undo') {
    const data = (error.data ?? {}) as { reason?: unknown; path?: unknown; state?: unknown };
    // the two an Undo meets most, said whole in the person's language; the companion's words stay for the rest
    if (code === 'CONFLICT' && data.reason === 'changed-since' && typeof data.path === 'string') return t('refusal.undoChangedSince', [data.path]);
    if (code === 'CONFLICT' && data.reason === 'not-applied' && data.state === 'undone') return t('refusal.undoneAlready');
    if (code === 'CONFLICT' || code === 'FORBIDDEN' || code === 'NOT_FOUND') return t('refusal.undo', [message]);
  }
  if (request === 'stop-program' && code === 'NOT_FOUND') return t('refusal.programEnded');
  if (code === 'LIMIT_EXCEEDED') return t('refusal.tooLarge', [message]);
  if (code === 'INTERNAL') return t('refusal.internal');
  if (code === 'BAD_RESPONSE') return t('refusal.badResponse', [message]);
  return t('refusal.other', [code, message]);
}

export interface CompanionClientOptions {
  baseUrl: () => Promise<string>;
  token: () => Promise<string>;
  fetch?: typeof fetch;
}

/** The companion's HTTP API; every answer is checked against the shared schema before it is used. */
export function createCompanionClient(options: CompanionClientOptions) {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  async function call<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
    auth = true,
    baseUrl?: string,
  ): Promise<z.infer<S>> {
    const base = baseUrl ?? (await options.baseUrl());
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (auth) {
      const token = await options.token();
      if (!token) throw new CompanionError(401, 'NOT_PAIRED', t('conn.notPaired'));
      headers.authorization = `Bearer ${token}`;
    }
    let response: Response;
    try {
      response = await doFetch(`${base}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new CompanionError(0, 'UNREACHABLE', t('conn.unreachable', [base]));
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new CompanionError(response.status, 'BAD_RESPONSE', `companion answered ${method} ${path} with non-JSON text`);
    }
    if (!response.ok) {
      const error = (json as { error?: { code?: unknown; message?: unknown; data?: unknown } }).error;
      throw new CompanionError(
        response.status,
        typeof error?.code === 'string' ? error.code : `HTTP_${response.status}`,
        typeof error?.message === 'string' ? error.message : `${method} ${path} failed with HTTP ${response.status}`,
        error?.data,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new CompanionError(response.status, 'BAD_RESPONSE', `companion answer to ${method} ${path} does not match its schema: ${parsed.error.message}`);
    }
    return parsed.data;
  }

  const enc = encodeURIComponent;

  return {
    status: (): Promise<StatusResponse> => call('GET', '/v1/status', statusResponseSchema, undefined, false),
    /** pairs with the companion at `baseUrl` (default: the stored one), so a new address is kept only once it paired */
    pair: async (code: string, baseUrl?: string): Promise<string> =>
      (await call('POST', '/v1/pair', pairResponseSchema, { code: code.trim() }, false, baseUrl)).token,
    /** has the companion forget the token this client holds (it refuses it on HTTP and ws from then on) */
    unpair: (): Promise<unknown> => call('POST', '/v1/unpair', unpairResponseSchema, {}),
    run: (request: RunRequest): Promise<RunResponse> => call('POST', '/v1/run', runResponseSchema, request),
    getRun: (runId: string): Promise<RunResponse> => call('GET', `/v1/runs/${enc(runId)}`, runResponseSchema),
    approvals: (): Promise<Approval[]> => call('GET', '/v1/approvals', listOf(approvalSchema, 'approvals')),
    decide: (id: string, decision: ApprovalDecision, argsHash: string): Promise<unknown> =>
      call('POST', `/v1/approvals/${enc(id)}`, z.unknown(), { decision, argsHash }),
    grants: (): Promise<GrantItem[]> => call('GET', '/v1/grants', listOf(grantSchema, 'grants')),
    forgetGrant: (grant: GrantItem): Promise<unknown> => call('POST', '/v1/grants/forget', z.unknown(), grant),
    journal: (): Promise<JournalItem[]> => call('GET', '/v1/journal', listOf(journalEntrySchema, 'entries')),
    undo: (id: string): Promise<unknown> => call('POST', `/v1/journal/${enc(id)}/undo`, z.unknown(), {}),
    programs: (): Promise<ProgramItem[]> => call('GET', '/v1/programs', listOf(programInfoSchema, 'programs')),
    stopProgram: (id: string): Promise<unknown> => call('POST', `/v1/programs/${enc(id)}/stop`, z.unknown(), {}),
    stopRun: (id: string): Promise<unknown> => call('POST', `/v1/runs/${enc(id)}/stop`, z.unknown(), {}),
    stopBlockRun: (request: RunRequest): Promise<unknown> => call('POST', '/v1/runs/stop', z.unknown(), request),
    tools: (): Promise<ToolListing[]> => call('GET', '/v1/tools', listOf(toolInfoSchema, 'tools')),
    mcpServers: (): Promise<McpServerItem[]> => call('GET', '/v1/mcp-servers', listOf(mcpServerHealthSchema, 'servers')),
    audit: (limit: number): Promise<AuditItem[]> => call('GET', `/v1/audit?limit=${limit}`, listOf(auditRecordSchema, 'records')),
  };
}

/** A list answer, bare or wrapped in an object under `field` (both shapes are accepted, items are validated). */
function listOf<S extends z.ZodType>(item: S, field: string): z.ZodType<Array<z.infer<S>>> {
  return z.union([
    z.array(item),
    z.object({ [field]: z.array(item) }).transform((v) => v[field] as Array<z.infer<S>>),
  ]) as unknown as z.ZodType<Array<z.infer<S>>>;
}

export type CompanionClient = ReturnType<typeof createCompanionClient>;
