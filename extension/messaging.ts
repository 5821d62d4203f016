import { browser } from 'wxt/browser';
import type {
  Approval,
  ApprovalDecision,
  AuditItem,
  GrantItem,
  JournalItem,
  McpServerItem,
  ProgramItem,
  RunRequest,
  RunResponse,
  StatusResponse,
  ToolListing,
  WsEvent,
} from './companion/api-types';
import type { DoctorProblem } from './companion/badge';
import type { DoctorAnswer } from './doctor/answer';
import type { ConnectionState } from './companion/socket';

/**
 * Typed messages between the content scripts / popup / options page and the background service worker.
 * Requests go through runtime.sendMessage and always answer `{ok:true, value}` or `{ok:false, error}`;
 * pushes (companion events, connection changes) go to content scripts over a `chatbridge-page` port.
 */

export interface ConnectionInfo {
  state: ConnectionState;
  detail?: string;
  companionUrl: string;
  companion?: StatusResponse;
}

export interface RequestMap {
  connection: { request: Record<string, never>; response: ConnectionInfo };
  pair: { request: { code: string; companionUrl?: string }; response: ConnectionInfo };
  unpair: { request: Record<string, never>; response: ConnectionInfo };
  /**
   * `again`: the block posted again by a page that went away before the companion first answered it (a reload), or whose
   * background stopped before giving that answer; the
   * answer is `reused` only when another browser or profile started the run, not this one's first request
   */
  run: { request: { run: RunRequest; again?: boolean }; response: RunResponse };
  'get-run': { request: { runId: string }; response: RunResponse };
  approvals: { request: Record<string, never>; response: Approval[] };
  decide: { request: { id: string; decision: ApprovalDecision; argsHash: string }; response: unknown };
  /** what "Approve for this conversation" granted (GET /v1/grants); extension pages only */
  grants: { request: Record<string, never>; response: GrantItem[] };
  /** takes one grant back (POST /v1/grants/forget): the next such call asks again */
  'forget-grant': { request: { grant: GrantItem }; response: unknown };
  journal: { request: Record<string, never>; response: JournalItem[] };
  undo: { request: { id: string }; response: unknown };
  programs: { request: Record<string, never>; response: ProgramItem[] };
  'stop-program': { request: { id: string }; response: unknown };
  /** Stop in the chip: the run by id, or — while POST /v1/run has not answered yet — by the block it runs */
  'stop-run': { request: { runId: string } | { run: RunRequest }; response: unknown };
  'recent-runs': { request: Record<string, never>; response: RecentRun[] };
  /** the companion's live tool list (GET /v1/tools), for the popup's prompt library */
  tools: { request: Record<string, never>; response: ToolListing[] };
  /** the person's MCP servers (GET /v1/mcp-servers): for the prompt library's per-server switches */
  'mcp-servers': { request: Record<string, never>; response: McpServerItem[] };
  /** the newest audit records, newest first (GET /v1/audit) */
  audit: { request: { limit: number }; response: AuditItem[] };
  /** content script → background: the site doctor's problem on this tab, or null once it is gone (the badge shows it) */
  'doctor-problem': { request: { problem: DoctorProblem | null }; response: null };
  /**
   * popup → background → that tab's content script: the site doctor's report (and the page's sanitized outline when
   * `outline`); null when chatbridge does not run in the tab
   */
  doctor: { request: { tabId: number; outline?: boolean }; response: DoctorAnswer | null };
}

export interface RecentRun {
  runId: string;
  status: RunResponse['status'];
  kind: RunRequest['kind'];
  /** the tool it runs, as the companion names it once it knows (absent for a plan, and from a companion before it said) */
  tool?: string;
  site: string;
  conversationId: string;
  at: number;
  /** the block's text, cut */
  preview: string;
  /** the chat page the block was on */
  url: string;
  /** the result text, cut; empty until the run has one */
  result: string;
  /** how many characters of the result were cut off (absent when it is whole) */
  resultCut?: number;
  /** when the run ended (absent while pending or running) */
  endedAt?: number;
}

export type RequestType = keyof RequestMap;
export type Request<T extends RequestType = RequestType> = { type: T } & RequestMap[T]['request'];
/**
 * A refusal carries the companion's error code when there is one (`NOT_FOUND`, `UNREACHABLE`, …): a page tells a run the
 * companion no longer has from a companion it cannot reach for now by it, never by the words.
 */
export type Reply<T extends RequestType> = { ok: true; value: RequestMap[T]['response'] } | { ok: false; error: string; code?: string };

/** A request the background refused, with the companion's error code when the refusal was the companion's. */
export class BackgroundRefusal extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'BackgroundRefusal';
  }
}

export const REQUEST_TYPES: readonly RequestType[] = [
  'connection', 'pair', 'unpair', 'run', 'get-run', 'approvals', 'decide', 'grants', 'forget-grant', 'journal', 'undo', 'programs', 'stop-program', 'stop-run', 'recent-runs', 'tools',
  'mcp-servers', 'audit', 'doctor-problem', 'doctor',
];

export function isRequest(value: unknown): value is Request {
  return (
    !!value &&
    typeof value === 'object' &&
    REQUEST_TYPES.includes((value as { type?: unknown }).type as RequestType)
  );
}

/** Calls the background; rejects with the background's error message. */
export async function ask<T extends RequestType>(type: T, request: RequestMap[T]['request']): Promise<RequestMap[T]['response']> {
  const reply = (await browser.runtime.sendMessage({ type, ...request })) as Reply<T> | undefined;
  if (!reply) throw new Error(`background did not answer "${type}"`);
  if (!reply.ok) throw new BackgroundRefusal(reply.error, typeof reply.code === 'string' ? reply.code : undefined);
  return reply.value;
}

export const PAGE_PORT = 'chatbridge-page';

export type PagePush = { type: 'event'; event: WsEvent } | { type: 'connection'; connection: ConnectionInfo };

/** Popup → the active tab's content script (not the background): put a prompt into the chat box. */
export { INSERT_PROMPT_MESSAGE, isInsertPromptMessage, type InsertPromptMessage, type InsertPromptReply } from './content/insert-prompt';
