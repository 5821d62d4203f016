/**
 * Talking to a real companion child process over real HTTP (see bench/companion-process.ts for starting it):
 * temp workspaces, posting blocks, reading runs, deciding approvals, the journal and the audit. Shared by the load,
 * fault and attack tests.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalView, RunResponse } from '../../../shared/api';
import { expect } from 'vitest';
import { mcpRequestBlock, type CompanionProcess } from '../../../bench/companion-process';
export { mcpRequestBlock, mcpResultText, parseMcpResponse, startCompanionProcess } from '../../../bench/companion-process';
export type { CompanionProcess } from '../../../bench/companion-process';

/** Every risk class runs without approval: the load and fault tests are about execution, not approvals. */
export const ALL_AUTO = { modes: { read: 'auto', write: 'auto', delete: 'auto', exec: 'auto' } } as const;

export interface Workspace {
  base: string;
  root: string;
  home: string;
}

export function makeWorkspace(prefix: string): Workspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const root = join(base, 'root');
  const home = join(base, 'home');
  mkdirSync(root);
  return { base, root, home };
}

export function context(conversationId: string, messageKey: string) {
  return { site: 'chatgpt', url: `https://chatgpt.com/c/${conversationId}`, conversationId, messageKey };
}

/** One request to the companion with its token: the HTTP status and the JSON it answered. */
export async function call<T = unknown>(companion: CompanionProcess, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const response = await fetch(`http://127.0.0.1:${companion.port}${path}`, {
    method,
    headers: { authorization: `Bearer ${companion.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: (await response.json()) as T };
}

export async function postBlock(
  companion: CompanionProcess,
  kind: string,
  text: string,
  ctx: ReturnType<typeof context>,
): Promise<RunResponse> {
  const { status, json } = await call(companion, 'POST', '/v1/run', { kind, text, context: ctx });
  if (status !== 200) throw new Error(`POST /v1/run answered HTTP ${status}: ${JSON.stringify(json)}`);
  return json as RunResponse;
}

export async function getRun(companion: CompanionProcess, runId: string): Promise<RunResponse> {
  const { status, json } = await call(companion, 'GET', `/v1/runs/${encodeURIComponent(runId)}`);
  if (status !== 200) throw new Error(`GET /v1/runs/${runId} answered HTTP ${status}: ${JSON.stringify(json)}`);
  return json as RunResponse;
}

/** Posts a block that must wait for the person (answered `pending` after 300 ms), and the approval its card shows. */
export async function postPending(
  companion: CompanionProcess,
  kind: string,
  text: string,
  ctx: ReturnType<typeof context>,
): Promise<{ run: RunResponse; approval: ApprovalView }> {
  const posted = await call(companion, 'POST', '/v1/run', { kind, text, context: ctx, waitMs: 300 });
  const run = posted.json as RunResponse;
  if (run.status !== 'pending') throw new Error(`expected a run waiting for approval, got ${JSON.stringify(run)}`);
  const { approvals } = (await call(companion, 'GET', '/v1/approvals')).json as { approvals: ApprovalView[] };
  const approval = approvals.find((a) => a.id === run.pendingConfirmationId);
  if (!approval) throw new Error(`no approval ${run.pendingConfirmationId}`);
  return { run, approval };
}

/**
 * An fs.write the policy decides as exec (a file that runs code): its card asks as exec, its label matching `why`,
 * and the person denies it. The caller checks that nothing was written.
 */
export async function writeDeniedAsExec(companion: CompanionProcess, args: Record<string, unknown>, ctx: ReturnType<typeof context>, why?: RegExp): Promise<void> {
  const { run, approval } = await postPending(companion, 'mcp-request', mcpRequestBlock(ctx.messageKey, 'fs.write', args), ctx);
  expect(approval.risk).toBe('exec');
  if (why) expect(approval.preview.actions?.[0]?.label).toMatch(why);
  await decideApproval(companion, approval, 'deny', run.runId);
}

/** Decides an approval as the person would (quoting its args hash), and waits for its run to end. */
export async function decideApproval(
  companion: CompanionProcess,
  approval: ApprovalView,
  decision: 'approve' | 'approve-conversation' | 'deny',
  runId: string,
): Promise<RunResponse> {
  const answer = await call(companion, 'POST', `/v1/approvals/${approval.id}`, { decision, argsHash: approval.argsHash });
  if (answer.status !== 200) throw new Error(`POST /v1/approvals/${approval.id} answered HTTP ${answer.status}: ${JSON.stringify(answer.json)}`);
  let final = await getRun(companion, runId);
  for (let i = 0; i < 100 && final.status !== 'done' && final.status !== 'error'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    final = await getRun(companion, runId);
  }
  return final;
}

export interface JournalEntryView {
  id: string;
  label: string;
  paths: string[];
  state: 'applied' | 'undone' | 'rolled-back';
  origin?: { runId: string };
}

/** What "Approve for this conversation" granted (GET /v1/grants), and taking one back (POST /v1/grants/forget). */
export async function grants(companion: CompanionProcess): Promise<Array<{ site: string; conversationId: string; tool: string; risk: string }>> {
  return ((await call(companion, 'GET', '/v1/grants')).json as { grants: Array<{ site: string; conversationId: string; tool: string; risk: string }> }).grants;
}

export async function forgetGrant(companion: CompanionProcess, grant: { site: string; conversationId: string; tool: string; risk: string }): Promise<number> {
  return (await call(companion, 'POST', '/v1/grants/forget', grant)).status;
}

export async function journalEntries(companion: CompanionProcess): Promise<JournalEntryView[]> {
  const { json } = await call(companion, 'GET', '/v1/journal?limit=1000');
  return (json as { entries: JournalEntryView[] }).entries;
}

export async function undo(companion: CompanionProcess, id: string): Promise<{ status: number; json: unknown }> {
  return call(companion, 'POST', `/v1/journal/${encodeURIComponent(id)}/undo`, {});
}

export async function auditRecords(companion: CompanionProcess): Promise<Array<{ auditId: string; runId: string; tool: string; outcome: string }>> {
  const { json } = await call(companion, 'GET', '/v1/audit?limit=10000');
  return (json as { records: Array<{ auditId: string; runId: string; tool: string; outcome: string }> }).records;
}

/** Every file under dir (relative path → content), skipping nothing: a leftover temp file shows up too. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    out[full.slice(dir.length + 1)] = readFileSync(full, 'utf8');
  }
  return out;
}

/** Polls until check() is true; throws naming what it waited for. Bounded. */
export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
}

/**
 * For attacks that try to hold the companion's thread: `/v1/status` still answers `afterMs` into the call (checked
 * here), and the call's answer comes — or null when it did not come within `withinMs`.
 */
export async function answeredWhileResponsive<T>(
  companion: CompanionProcess,
  answer: Promise<T>,
  { afterMs = 300, withinMs = 15_000 }: { afterMs?: number; withinMs?: number } = {},
): Promise<T | null> {
  await new Promise((r) => setTimeout(r, afterMs));
  const status = await fetch(`http://127.0.0.1:${companion.port}/v1/status`, { signal: AbortSignal.timeout(3_000) })
    .then((r) => r.status)
    .catch((e: Error) => e.name);
  expect(status, 'the companion answers /v1/status while the call runs').toBe(200);
  return Promise.race([answer, new Promise<null>((r) => setTimeout(() => r(null), withinMs))]);
}

/** Waits until the companion reports each of these MCP servers ready (`GET /v1/mcp-servers`). */
export async function serversReady(companion: CompanionProcess, names: readonly string[], timeoutMs = 30_000): Promise<void> {
  await waitUntil(`${names.join(', ')} ready`, async () => {
    const { servers } = (await call(companion, 'GET', '/v1/mcp-servers')).json as { servers: Array<{ name: string; state: string }> };
    return names.every((name) => servers.some((s) => s.name === name && s.state === 'ready'));
  }, timeoutMs, 50);
}

/** Processes whose command line contains marker (Linux /proc), so a test can prove a tree is gone. */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1];
      if (cmdline.includes(marker) && state !== 'Z') pids.push(Number(name));
    } catch {
      // it ended while we looked
    }
  }
  return pids;
}
