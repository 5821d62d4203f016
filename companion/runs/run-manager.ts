import { hash } from 'node:crypto';
import type { ApprovalView, RunResponse, RunStatus, WsEvent } from '../../shared/api';
import type { ApprovalStore } from '../approvals/store';
import type { AuditLog } from '../audit/audit-log';
import type { Policy } from '../policy/schema';
import type { CallOrigin, Journal, ProcessManager, ToolContext } from '../types';
import { createAuthorize, type AuthorizationInfo } from './authorizer';
import { callExecuting } from '../fsx/io-mode';
import { randomId } from '../random-id';
import type { RunRecord, RunStore } from './run-store';
import { createRunStop, type RunStop } from './run-stop';

/**
 * Runs: one execution of one block (or one /mcp tools/call) with its own ToolContext, approval hooks, audit
 * record and result. The HTTP answer waits for a run up to the approval wait; a run still waiting for the person
 * then answers `pending` and finishes later (`GET /v1/runs/:id`, a ws `run` event).
 */
export interface JobResult {
  resultText: string;
  status: Extract<RunStatus, 'done' | 'error'>;
  /** for the audit: `ok`, or the error code */
  outcome: string;
  /** anything the caller wants back from the job (the /mcp route keeps the Outcome) */
  value?: unknown;
}

export interface Job {
  kind: string;
  site: string;
  conversationId: string;
  messageKey: string;
  /** idempotency key; a job with a key already seen is not executed again */
  key?: string;
  execute(ctx: ToolContext, auditId: string, info: AuthorizationInfo): Promise<JobResult>;
  /** the protocol's answer while this run waits for the person */
  pendingText(approval: ApprovalView, auditId: string): string;
}

export interface LiveRun {
  record: RunRecord;
  final: Promise<RunRecord>;
  value?: unknown;
}

export interface RunManagerDeps {
  policy: Policy;
  journal: Journal;
  processes: ProcessManager;
  approvals: ApprovalStore;
  audit: AuditLog;
  store: RunStore;
  publish: (event: WsEvent) => void;
  clock?: () => number;
}

export interface RunManager {
  /** starts the job, or finds the run that already answered this key */
  /** `by`: the digest of the token whose request starts it (tokenDigest), kept on the run to answer a repost with */
  start(job: Job, options?: { rerun?: boolean; by?: string }): { run: LiveRun; reused: boolean };
  /**
   * Waits until the run is final, or `waitMs` has passed and the run waits for approval (→ pending). A run that is
   * executing past the wait is awaited up to `holdMs`, then answered as `running`.
   */
  wait(run: LiveRun, waitMs: number, holdMs?: number): Promise<RunRecord>;
  get(runId: string): RunRecord | undefined;
  live(runId: string): LiveRun | undefined;
  /**
   * Aborts one run's signal (Stop in the chip): a call to the person's MCP server is cancelled with the protocol's
   * cancellation. False when the run is not running here (finished, or unknown).
   */
  stop(runId: string, reason?: string): boolean;
  /** The same, for the run of a block (its idempotency key): the chip can stop a run whose answer it still waits for. */
  stopByKey(key: string, reason?: string): string | undefined;
  /** aborts every running job (shutdown) and waits for them to settle */
  stopAll(): Promise<void>;
}

export function blockKey(parts: { kind: string; site: string; conversationId: string; messageKey: string; text: string }): string {
  const textHash = hash('sha256', parts.text, 'hex');
  return hash('sha256', JSON.stringify([parts.kind, parts.site, parts.conversationId, parts.messageKey, textHash]), 'hex');
}

/**
 * What a run keeps of the token whose request started it: enough to tell that token from another paired browser's, not
 * enough to use (a salted digest, not the sha256 the token store keeps, so the run log holds nothing that store checks).
 */
export function tokenDigest(token: string): string {
  return hash('sha256', `chatbridge run starter\0${token}`, 'base64url').slice(0, 22);
}

/** `askedBy`: the digest of the token asking, for a reused run (its answer says whether that token started it). */
export function responseOf(record: RunRecord, reused?: boolean, askedBy?: string): RunResponse {
  return {
    runId: record.runId,
    status: record.status,
    resultText: record.resultText,
    auditId: record.auditId,
    ...(record.pendingConfirmationId ? { pendingConfirmationId: record.pendingConfirmationId } : {}),
    ...(record.tool !== undefined ? { tool: record.tool } : {}),
    ...(reused ? { reused: true } : {}),
    ...(reused && record.startedBy !== undefined && askedBy !== undefined ? { startedByYou: record.startedBy === askedBy } : {}),
  };
}

const DEFAULT_HOLD_MS = 15 * 60_000;

export function createRunManager(deps: RunManagerDeps): RunManager {
  const clock = deps.clock ?? Date.now;
  const live = new Map<string, LiveRun & { changed: Set<() => void>; stop: RunStop }>();
  const now = () => new Date(clock()).toISOString();

  function update(run: LiveRun & { changed: Set<() => void> }, patch: Partial<RunRecord>): void {
    const before = run.record;
    run.record = { ...run.record, ...patch, updatedAt: now() };
    // the log only needs status changes (and the final text), not every intermediate update
    if (before.status !== run.record.status || run.record.status === 'done' || run.record.status === 'error') deps.store.put(run.record);
    deps.publish({ type: 'run', run: responseOf(run.record) });
    for (const listener of [...run.changed]) listener();
  }

  function start(job: Job, options: { rerun?: boolean; by?: string } = {}): { run: LiveRun; reused: boolean } {
    if (job.key) {
      const existing = options.rerun ? undefined : deps.store.byKey(job.key);
      if (existing) {
        const running = live.get(existing.runId);
        return { run: running ?? { record: existing, final: Promise.resolve(existing) }, reused: true };
      }
      if (options.rerun) deps.store.forgetKey(job.key);
    }
    const runId = `run-${randomId(9, 'base64url')}`;
    const auditId = deps.audit.newId();
    const startedAt = clock();
    const record: RunRecord = {
      runId,
      ...(job.key ? { key: job.key } : {}),
      kind: job.kind,
      site: job.site,
      conversationId: job.conversationId,
      messageKey: job.messageKey,
      ...(options.by !== undefined ? { startedBy: options.by } : {}),
      status: 'running',
      resultText: '',
      auditId,
      createdAt: now(),
      updatedAt: now(),
    };
    const stop = createRunStop();
    let resolveFinal!: (record: RunRecord) => void;
    const final = new Promise<RunRecord>((resolve) => (resolveFinal = resolve));
    const run = { record, final, changed: new Set<() => void>(), stop } as LiveRun & { changed: Set<() => void>; stop: RunStop };
    live.set(runId, run);
    // The running state is written to the run log only once the run is about to do more than read: after a crash
    // it is what answers a block posted again with "its result is unknown" instead of running it twice. A run that
    // only reads may run again — so it is held in memory (a repost meanwhile still finds it) and written once,
    // when it ends, which spares every read a write(2) (bench/README.md).
    deps.store.track(record);
    let logged = false;
    const logRunning = () => {
      if (logged) return;
      logged = true;
      deps.store.put(run.record);
    };

    const origin: CallOrigin = { runId, site: job.site, conversationId: job.conversationId, messageKey: job.messageKey };
    const info: AuthorizationInfo = { paths: [], commands: [], decision: 'none' };
    const authorize = createAuthorize({ policy: deps.policy, approvals: deps.approvals, stop }, origin, info, {
      onPending: (approval) => {
        callExecuting(-1);
        update(run, { status: 'pending', pendingConfirmationId: approval.id, resultText: job.pendingText(approval, auditId) });
      },
      onResumed: () => {
        callExecuting(1);
        update(run, { status: 'running', resultText: '', pendingConfirmationId: undefined });
      },
    });
    const ctx: ToolContext = {
      policy: deps.policy,
      journal: deps.journal,
      processes: deps.processes,
      origin,
      get signal() {
        return stop.signal;
      },
      authorize(request) {
        if (request.actions.some((action) => action.risk !== 'read')) logRunning();
        // the job named its tool before asking: said from now on (the run's answers, its ws events), not only once it ends
        if (info.tool !== undefined && run.record.tool !== info.tool) run.record = { ...run.record, tool: info.tool };
        return authorize(request);
      },
    };

    void (async () => {
      let result: JobResult;
      callExecuting(1);
      // one turn of the event loop first: other requests already waiting in their sockets start meanwhile, so
      // the count says whether this call is alone (its file-system calls then run on the main thread) or not
      await new Promise<void>((resolve) => setImmediate(resolve));
      try {
        result = await job.execute(ctx, auditId, info);
      } catch (error) {
        // jobs turn their errors into protocol text; reaching here is a bug, still answered, never a crash
        result = { resultText: `chatbridge internal error: ${error instanceof Error ? error.message : String(error)}`, status: 'error', outcome: 'INTERNAL' };
      } finally {
        callExecuting(-1);
      }
      run.value = result.value;
      await deps.audit.record({
        time: new Date(startedAt).toISOString(),
        auditId,
        runId,
        site: job.site,
        conversationId: job.conversationId,
        kind: job.kind,
        tool: info.tool ?? job.kind,
        paths: info.paths,
        commands: info.commands,
        decision: info.decision,
        outcome: result.outcome,
        durationMs: clock() - startedAt,
      });
      update(run, { status: result.status, resultText: result.resultText });
      live.delete(runId);
      resolveFinal(run.record);
    })();
    return { run, reused: false };
  }

  function wait(run: LiveRun, waitMs: number, holdMs = DEFAULT_HOLD_MS): Promise<RunRecord> {
    const tracked = live.get(run.record.runId);
    if (!tracked) return Promise.resolve(deps.store.get(run.record.runId) ?? run.record);
    return new Promise((resolve) => {
      let waited = false;
      let settled = false;
      let holdTimer: NodeJS.Timeout | undefined;
      const finish = () => {
        settled = true;
        clearTimeout(waitTimer);
        clearTimeout(holdTimer);
        tracked.changed.delete(check);
        resolve(tracked.record);
      };
      const check = () => {
        const status = tracked.record.status;
        if (status === 'done' || status === 'error') finish();
        else if (status === 'pending' && waited) finish();
      };
      // The hold is timed from the end of the wait, set only when a run outlasts it: a timer made and cleared for
      // every call cost a read a few µs more (a lone timer's list is made and dropped each time).
      const waitTimer = setTimeout(() => {
        waited = true;
        check();
        if (!settled) holdTimer = setTimeout(finish, Math.max(holdMs - waitMs, 0));
      }, waitMs);
      tracked.changed.add(check);
      void tracked.final.then(finish);
      check();
    });
  }

  return {
    start,
    wait,
    get: (runId) => live.get(runId)?.record ?? deps.store.get(runId),
    live: (runId) => live.get(runId),
    stop(runId, reason = 'stopped by the person') {
      const run = live.get(runId);
      if (!run) return false;
      run.stop.abort(new Error(reason));
      return true;
    },
    stopByKey(key, reason = 'stopped by the person') {
      const run = [...live.values()].find((r) => r.record.key === key);
      if (!run) return undefined;
      run.stop.abort(new Error(reason));
      return run.record.runId;
    },
    async stopAll() {
      const running = [...live.values()];
      for (const run of running) run.stop.abort(new Error('chatbridge is shutting down'));
      await Promise.all(running.map((run) => run.final));
    },
  };
}
