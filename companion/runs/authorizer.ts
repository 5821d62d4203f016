import type { ApprovalView } from '../../shared/api';
import { ToolError } from '../../shared/errors';
import { pinScripts, unpinnedNow } from '../approvals/scripts-run';
import { changedSince, shownStates } from '../approvals/shown-state';
import type { ApprovalStore, GrantClass } from '../approvals/store';
import { decideActions, highestRisk, strictest } from '../policy/decide';
import type { Policy } from '../policy/schema';
import type { AuthorizationRequest, Authorized, CallOrigin, Preview } from '../types';
import { stopReason, throwIfStopped } from '../stop-reason';
import type { RunStop } from './run-stop';

/** What the audit record says about the authorization of one run. */
export interface AuthorizationInfo {
  tool?: string;
  paths: string[];
  commands: string[];
  decision: string;
}

export interface AuthorizerHooks {
  onPending(approval: ApprovalView): void;
  onResumed(): void;
}

/**
 * A NUL byte ends a C string, so a program cannot be started with one in its name, an argument or a variable:
 * refused as bad input before any card, instead of a card for a program that then fails to start.
 */
function refuseNul(request: AuthorizationRequest): void {
  for (const { command } of request.actions) {
    const words = command?.argv ?? (command?.shell !== undefined ? [command.shell] : []);
    const index = words.findIndex((word) => word.includes('\0'));
    if (index < 0) continue;
    const shown = JSON.stringify(words.join(' '));
    const which = command?.argv !== undefined ? `word ${index + 1} of the command` : 'the command line';
    throw new ToolError(
      'INVALID_INPUT',
      `${request.tool}: ${which} ${shown} holds a NUL byte (\\u0000), which no program name, argument or environment variable can hold`,
      { command: words.join(' ') },
    );
  }
}

/**
 * `ctx.authorize` for one run: the policy decides each action of the call (pure), and where any says confirm,
 * the person does — once, on one card that lists every action — unless they already approved this tool for
 * each risk class that needs it in this conversation. Throws ToolError POLICY_BLOCKED or DENIED, and CANCELLED
 * when the run is stopped (`stop`) while its card waits: the card is withdrawn, so an Approve given afterwards
 * (in the side panel, the popup, another tab) is refused instead of running what the person stopped.
 */
export function createAuthorize(
  deps: { policy: Policy; approvals: ApprovalStore; stop?: Pick<RunStop, 'aborted' | 'reason' | 'signal'> },
  origin: CallOrigin,
  info: AuthorizationInfo,
  hooks: AuthorizerHooks,
): (request: AuthorizationRequest) => Promise<Authorized | void> {
  return async (request) => {
    info.tool = request.tool;
    info.paths = [...new Set(request.actions.flatMap((action) => action.paths))];
    info.commands = request.actions.flatMap(({ command: c }) => (c ? [(c.shell ?? (c.argv ?? []).join(' ')) + ` (cwd ${c.cwd})`] : []));
    refuseNul(request);
    // a Stop that came while the call was read and planned: nothing of it starts, and no card is shown
    throwIfStopped(deps.stop, request.tool);
    const decisions = decideActions(request, deps.policy, origin.site);
    const decision = strictest(decisions);
    if (typeof decision === 'object') {
      info.decision = 'policy-deny';
      throw new ToolError('POLICY_BLOCKED', `${request.tool} refused by policy: ${decision.deny}`);
    }
    if (decision === 'auto') {
      info.decision = 'auto';
      return;
    }
    // what a grant for this card holds: a write that runs code is granted as that, not as every exec (store.ts)
    const toConfirm = [
      ...new Set(
        decisions.flatMap((d, i): GrantClass[] =>
          d.decision !== 'confirm' ? [] : [d.action.risk === 'exec' && request.actions[i]?.risk === 'write' ? 'write-runs-code' : d.action.risk],
        ),
      ),
    ];
    if (toConfirm.every((grant) => deps.approvals.hasGrant(origin.site, origin.conversationId, request.tool, grant))) {
      info.decision = 'conversation-grant';
      return;
    }
    const { diffLater, ...shown } = request.preview;
    if (diffLater && shown.diff === undefined) shown.diff = await diffLater();
    // the command line a card shows runs these scripts as they are now (scripts-run.ts); the card names them
    const commands = request.actions.flatMap((action) => (action.command ? [action.command] : []));
    const scriptsAsShown = await pinScripts(commands, deps.policy.roots);
    const runs = [...scriptsAsShown].flatMap(([file, state]) => (state !== 'missing' ? [file] : []));
    if (runs.length > 0) shown.runs = runs;
    // and says what it cannot pin (`bash $SCRIPT`), so the person looks at that themselves
    const unpinned = [...new Set((await Promise.all(commands.map((command) => unpinnedNow(command, deps.policy.roots)))).flat())];
    if (unpinned.length > 0) shown.unpinned = unpinned;
    // a card lists the actions when there are several, or when one is decided as another class than its own
    const preview: Preview =
      request.actions.length > 1 || decisions.some((d, i) => d.action !== request.actions[i])
        ? { ...shown, actions: decisions.map((d) => ({ risk: d.action.risk, label: d.action.label, decision: d.decision as 'auto' | 'confirm' })) }
        : shown;
    // the card's diff is made from these files as they are now: an approval is for them as shown
    const asShown = await shownStates(
      request.actions.filter((action) => action.risk === 'write' || action.risk === 'delete').flatMap((action) => action.paths),
      { subtrees: true },
    );
    const { approval, outcome } = deps.approvals.create({
      runId: origin.runId,
      site: origin.site,
      conversationId: origin.conversationId,
      tool: request.tool,
      risk: highestRisk(decisions.map((d) => d.action)),
      grants: toConfirm,
      args: request.args,
      preview,
    });
    hooks.onPending(approval);
    const signal = deps.stop?.signal;
    const stopped = () => deps.approvals.withdraw(approval.id, `its run was stopped while the card waited (${stopReason(signal)})`);
    signal?.addEventListener('abort', stopped, { once: true });
    if (signal?.aborted) stopped();
    const result = await outcome;
    signal?.removeEventListener('abort', stopped);
    hooks.onResumed();
    info.decision = result;
    if (signal?.aborted) {
      info.decision = 'stopped';
      throw new ToolError('CANCELLED', `${request.tool} was stopped while approval ${approval.id} waited (${stopReason(signal)}); nothing was done`);
    }
    if (result === 'approve' || result === 'approve-conversation') {
      const changed = await changedSince(asShown);
      const script = changed === undefined ? await changedSince(scriptsAsShown) : undefined;
      if (script !== undefined) {
        throw new ToolError(
          'CONFLICT',
          `${JSON.stringify(script)}, which the approved command runs, changed while approval ${approval.id} waited: the card showed the command with the file as it was, so what would run now is not what was approved; nothing was run — send the call again for a new card`,
          { path: script, approval: approval.id },
        );
      }
      if (changed === undefined) {
        throwIfStopped(deps.stop, request.tool);
        return { scripts: scriptsAsShown };
      }
      throw new ToolError(
        'CONFLICT',
        `${JSON.stringify(changed)} changed while approval ${approval.id} waited: the card showed it as it was, so what was approved is not what would be done now; nothing was done — send the call again for a new card`,
        { path: changed, approval: approval.id },
      );
    }
    if (result === 'deny') throw new ToolError('DENIED', `the person denied ${request.tool} (approval ${approval.id})`);
    throw new ToolError('DENIED', `approval ${approval.id} for ${request.tool} expired at ${approval.expiresAt} without a decision`);
  };
}
