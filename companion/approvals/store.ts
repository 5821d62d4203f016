import { randomBytes } from 'node:crypto';
import type { ApprovalDecision, ApprovalView, GrantView, PreviewHeading } from '../../shared/api';
import { grantsConversationWide } from '../../shared/conversation-key';
import { ToolError } from '../../shared/errors';
import type { Risk } from '../../shared/tools/define-tool';
import { DEFAULT_MAX_PENDING_APPROVALS } from '../policy/schema';
import type { Preview } from '../types';
import { argsHash } from './args-hash';
import { countBlankRuns, hiddenWarning, revealHidden } from '../../shared/reveal-hidden';

/**
 * Pending approvals (DESIGN §5.4). Each is single-use, expires, and is bound to the hash of the arguments it
 * shows: a decision must quote that hash, so an approval cannot be spent on other arguments, and a second
 * decision (a replay) is refused.
 *
 * "Approve for this conversation" grants later calls of the SAME tool with the SAME risk class in the same
 * conversation on the same site, for as long as this companion runs — never other tools, never a wider risk,
 * never after a restart, and never in a chat with no conversation id yet (grantsConversationWide: all such
 * chats of a site share that key, so a grant there would reach the next new or temporary chat). A composite call
 * grants each class its card asked for, and a later one is covered only when every class it needs was granted. A
 * write decided as exec because the file runs code later (policy/runs-code.ts) is granted as such a write
 * (`write-runs-code`), shown as exec: it lets later writes of that kind through, never a program — an auto_coder plan
 * writing .vscode/tasks.json approved for the conversation let every later plan of it run any command with no card —
 * while a granted exec (a program the card showed) covers such writes too.
 * Deny globs and `deny` modes still apply to granted calls. The person sees what was granted and can take any of
 * it back (`grants`, `forgetGrant`): the next such call asks again.
 */
export type ApprovalOutcome = 'approve' | 'approve-conversation' | 'deny' | 'expired';

/** What a grant is filed under: a risk class, or a write decided as exec because the file it writes runs code. */
export type GrantClass = Risk | 'write-runs-code';

/** the class a grant of this kind shows as: the class its card showed */
function shownRisk(grant: GrantClass): Risk {
  return grant === 'write-runs-code' ? 'exec' : grant;
}

export interface NewApproval {
  runId: string;
  site: string;
  conversationId: string;
  tool: string;
  /** the highest class of the call's actions, shown on the card */
  risk: Risk;
  /** the classes "approve for this conversation" grants: those of the actions that needed the person (default: risk) */
  grants?: GrantClass[];
  args: unknown;
  preview: Preview;
}

export interface ApprovalStore {
  create(input: NewApproval): { approval: ApprovalView; outcome: Promise<ApprovalOutcome> };
  /** Throws ToolError NOT_FOUND (unknown id), CONFLICT (already decided / expired / withdrawn), MISMATCH (other arguments). */
  decide(id: string, decision: ApprovalDecision, argsHash: string): ApprovalView;
  get(id: string): ApprovalView | undefined;
  /**
   * Ends a pending approval nobody may decide any more — its run was stopped — as expired; a decision after it is
   * refused naming `why`. Nothing when it is no longer pending.
   */
  withdraw(id: string, why: string): void;
  pending(): ApprovalView[];
  hasGrant(site: string, conversationId: string, tool: string, grant: GrantClass): boolean;
  /** what "approve for this conversation" granted, oldest first */
  grants(): GrantView[];
  /** takes a grant back (an exec one with the writes that run code granted beside it); throws ToolError NOT_FOUND naming it when there is no such grant */
  forgetGrant(grant: GrantView): void;
  /** expires everything still pending (shutdown) */
  close(): void;
}

export interface ApprovalStoreOptions {
  ttlMs: number;
  /** limits.maxPendingApprovals: a card past it is refused, not made (each holds its preview until decided) */
  maxPending?: number;
  clock?: () => number;
  onChange?: (change: 'created' | 'decided', approval: ApprovalView) => void;
}

const KEEP_DECIDED = 500;
/** a preview is for a person's eyes and travels over ws; a 10 MB diff helps nobody */
export const MAX_PREVIEW_CHARS = 200_000;

/**
 * What the card shows: every hidden character made visible (reveal-hidden.ts) — in a title, a path, a working
 * directory or an action's label line breaks too, since each is shown as one line (the paths one per line) — and
 * the diff cut to a readable size. A command keeps its line breaks (a script is several lines); a run of blank
 * lines in it is counted on one line.
 */
function shownPreview(preview: Preview): Preview {
  const found = new Map<number, number>();
  const line = (text: string) => revealHidden(text, { found, oneLine: true });
  const shown: Preview = {
    ...preview,
    title: line(preview.title),
    // the title's facts as the title shows them; its hidden characters are counted there once
    ...(preview.heading ? { heading: revealHeading(preview.heading) } : {}),
    paths: preview.paths.map(line),
    ...(preview.command !== undefined ? { command: countBlankRuns(revealHidden(preview.command, { found })) } : {}),
    ...(preview.cwd !== undefined ? { cwd: line(preview.cwd) } : {}),
    ...(preview.runs !== undefined ? { runs: preview.runs.map(line) } : {}),
    ...(preview.unpinned !== undefined ? { unpinned: preview.unpinned.map(line) } : {}),
    ...(preview.actions ? { actions: preview.actions.map((action) => ({ ...action, label: line(action.label) })) } : {}),
  };
  if (preview.diff !== undefined) {
    const diff = revealHidden(preview.diff, { found });
    const omitted = diff.length - MAX_PREVIEW_CHARS;
    shown.diff = omitted > 0 ? `${diff.slice(0, MAX_PREVIEW_CHARS)}\n… (${omitted} more characters of diff not shown)` : diff;
  }
  const warning = hiddenWarning(found);
  const hidden = [...found].sort((a, b) => a[0] - b[0]).map(([codePoint, count]) => ({ codePoint, count }));
  return warning ? { warning, hidden, ...shown } : shown;
}

function revealHeading(heading: PreviewHeading): PreviewHeading {
  const shown = (value: unknown): unknown =>
    typeof value === 'string' ? revealHidden(value, { oneLine: true }) : Array.isArray(value) ? value.map(shown) : value;
  const entries = Object.entries(heading).map(([key, value]) => [key, key !== 'kind' ? shown(value) : value]);
  return Object.fromEntries(entries) as PreviewHeading;
}

export function createApprovalStore(options: ApprovalStoreOptions): ApprovalStore {
  const clock = options.clock ?? Date.now;
  const records = new Map<string, { view: ApprovalView; grants: GrantClass[]; settle: (outcome: ApprovalOutcome) => void; timer: NodeJS.Timeout }>();
  const grants = new Set<string>();
  /** why an approval was withdrawn, for the refusal of a decision that comes after */
  const withdrawn = new Map<string, string>();
  const grantKey = (site: string, conversationId: string, tool: string, grant: GrantClass) => JSON.stringify([site, conversationId, tool, grant]);

  function finish(id: string, state: ApprovalView['state'], outcome: ApprovalOutcome): ApprovalView {
    const record = records.get(id);
    if (!record) throw new ToolError('NOT_FOUND', `no approval ${id}`);
    clearTimeout(record.timer);
    record.view = { ...record.view, state };
    record.settle(outcome);
    options.onChange?.('decided', record.view);
    prune();
    return record.view;
  }

  function prune(): void {
    const decided = [...records.values()].filter((r) => r.view.state !== 'pending');
    for (const record of decided.slice(0, Math.max(0, decided.length - KEEP_DECIDED))) {
      records.delete(record.view.id);
      withdrawn.delete(record.view.id);
    }
  }

  return {
    create(input) {
      // each pending card holds its preview (up to MAX_PREVIEW_CHARS) until it is decided or expires, and GET
      // /v1/approvals lists them all: a flood of calls that ask grew the companion by gigabytes and that list past
      // what one string holds, so the side panel could decide none of them
      const maxPending = options.maxPending ?? DEFAULT_MAX_PENDING_APPROVALS;
      let waiting = 0;
      for (const record of records.values()) if (record.view.state === 'pending') waiting += 1;
      if (waiting >= maxPending) {
        throw new ToolError(
          'LIMIT_EXCEEDED',
          `${input.tool} needs the person's approval, but ${waiting} approvals already wait for a decision, the limit (limits.maxPendingApprovals is ${maxPending}); nothing was done — decide the waiting ones in the chatbridge side panel, then send the call again`,
          { pending: waiting, limit: maxPending },
        );
      }
      // unguessable: the id alone never authorizes anything (the token and the args hash are needed too)
      const id = `confirm-${randomBytes(16).toString('hex')}`;
      const now = clock();
      const view: ApprovalView = {
        id,
        runId: input.runId,
        site: input.site,
        conversationId: input.conversationId,
        tool: input.tool,
        risk: input.risk,
        argsHash: argsHash(input.args),
        preview: shownPreview(input.preview),
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + options.ttlMs).toISOString(),
        state: 'pending',
      };
      let settle!: (outcome: ApprovalOutcome) => void;
      const outcome = new Promise<ApprovalOutcome>((resolve) => (settle = resolve));
      const timer = setTimeout(() => {
        if (records.get(id)?.view.state === 'pending') finish(id, 'expired', 'expired');
      }, options.ttlMs);
      timer.unref?.();
      records.set(id, { view, grants: input.grants ?? [input.risk], settle, timer });
      options.onChange?.('created', view);
      return { approval: view, outcome };
    },
    decide(id, decision, hash) {
      const record = records.get(id);
      if (!record) throw new ToolError('NOT_FOUND', `no approval ${JSON.stringify(id)}; it may have been decided long ago or never existed`);
      if (record.view.state !== 'pending') {
        const why = withdrawn.get(id);
        if (why !== undefined) throw new ToolError('CONFLICT', `approval ${id} can no longer be decided: ${why}; nothing was done`);
        throw new ToolError('CONFLICT', `approval ${id} was already ${record.view.state}; an approval is single-use`);
      }
      if (clock() >= Date.parse(record.view.expiresAt)) {
        finish(id, 'expired', 'expired');
        throw new ToolError('CONFLICT', `approval ${id} expired at ${record.view.expiresAt}`);
      }
      if (hash !== record.view.argsHash) {
        throw new ToolError('MISMATCH', `approval ${id} is for arguments with hash ${record.view.argsHash}, not ${hash}; the call changed — it needs a new approval`);
      }
      if (decision === 'approve-conversation' && !grantsConversationWide(record.view.conversationId)) {
        throw new ToolError(
          'INVALID_INPUT',
          `approval ${id} cannot be given for the whole conversation: this chat has no conversation id yet (a new or temporary chat), and every such chat on ${record.view.site} is keyed ${JSON.stringify(record.view.conversationId)} alike; approve this call once`,
          { conversationId: record.view.conversationId },
        );
      }
      if (decision === 'approve-conversation') {
        for (const risk of record.grants) grants.add(grantKey(record.view.site, record.view.conversationId, record.view.tool, risk));
        return finish(id, 'approved-conversation', 'approve-conversation');
      }
      return decision === 'approve' ? finish(id, 'approved', 'approve') : finish(id, 'denied', 'deny');
    },
    get(id) {
      return records.get(id)?.view;
    },
    withdraw(id, why) {
      if (records.get(id)?.view.state !== 'pending') return;
      withdrawn.set(id, why);
      finish(id, 'expired', 'expired');
    },
    pending() {
      return [...records.values()].filter((r) => r.view.state === 'pending').map((r) => r.view);
    },
    hasGrant(site, conversationId, tool, grant) {
      if (grants.has(grantKey(site, conversationId, tool, grant))) return true;
      return grant === 'write-runs-code' && grants.has(grantKey(site, conversationId, tool, 'exec'));
    },
    grants() {
      const shown = new Map<string, GrantView>();
      for (const key of grants) {
        const [site, conversationId, tool, grant] = JSON.parse(key) as [string, string, string, GrantClass];
        const view = { site, conversationId, tool, risk: shownRisk(grant) };
        shown.set(grantKey(site, conversationId, tool, view.risk), view);
      }
      return [...shown.values()];
    },
    forgetGrant({ site, conversationId, tool, risk }) {
      const forgot = grants.delete(grantKey(site, conversationId, tool, risk));
      const forgotWrites = risk === 'exec' && grants.delete(grantKey(site, conversationId, tool, 'write-runs-code'));
      if (!forgot && !forgotWrites) {
        throw new ToolError(
          'NOT_FOUND',
          `nothing was approved for conversation ${JSON.stringify(conversationId)} on ${JSON.stringify(site)} for ${JSON.stringify(tool)} (${risk}): no such grant, or it was forgotten already`,
        );
      }
    },
    close() {
      for (const record of [...records.values()]) if (record.view.state === 'pending') finish(record.view.id, 'expired', 'expired');
    },
  };
}
