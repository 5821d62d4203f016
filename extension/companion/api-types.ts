/**
 * The companion's API as the extension sees it: the zod schemas of shared/api.ts, re-exported in one place so the
 * extension has a single import point for them.
 */
import { z } from 'zod';
import {
  DEFAULT_PORT,
  approvalSchema,
  auditRecordSchema,
  grantSchema,
  journalEntrySchema,
  mcpServerHealthSchema,
  programInfoSchema,
  toolInfoSchema,
  wsServerMessageSchema,
  type WsServerMessage,
} from '../../shared/api';

export {
  DEFAULT_PORT,
  approvalSchema,
  auditRecordSchema,
  grantSchema,
  journalEntrySchema,
  mcpServerHealthSchema,
  programInfoSchema,
  pairResponseSchema,
  runRequestSchema,
  runResponseSchema,
  statusResponseSchema,
  toolInfoSchema,
  unpairResponseSchema,
} from '../../shared/api';
export type {
  ApprovalDecision,
  ApprovalView,
  CallContext,
  RunRequest,
  RunResponse,
  StatusResponse,
  WsEvent,
  WsServerMessage,
} from '../../shared/api';

export type JournalItem = z.infer<typeof journalEntrySchema>;
export type ProgramItem = z.infer<typeof programInfoSchema>;
export type Approval = z.infer<typeof approvalSchema>;
export type ToolListing = z.infer<typeof toolInfoSchema>;
export type AuditItem = z.infer<typeof auditRecordSchema>;
export type McpServerItem = z.infer<typeof mcpServerHealthSchema>;
export type GrantItem = z.infer<typeof grantSchema>;

// Extension pages and content scripts forbid eval (CSP); zod must not even try its compiled fast path.
z.config({ jitless: true });

export const DEFAULT_COMPANION_URL = `http://127.0.0.1:${DEFAULT_PORT}`;

/** Reads one ws frame; anything that does not match the schema is dropped rather than trusted. */
export function parseCompanionMessage(data: unknown): WsServerMessage | null {
  if (typeof data !== 'string') return null;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  const parsed = wsServerMessageSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
