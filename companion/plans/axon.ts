import path from 'node:path';
import type { AxonPayload } from '../../shared/protocols/types';
import { formatAxonResult, type AxonActReport } from '../../shared/results';
import { assertWithinActionLimit } from '../policy/action-limit';
import { diffDeadline, replaceDeadline } from '../tools/define-handler';
import type { FileOp, PlannedAction, ToolContext } from '../types';
import { AXON_ACTS, actName, checkAct, pathParamOf } from './axon-acts';
import { asPlanError, errorLine } from './plan-errors';
import { capPreview, unifiedDiff } from './preview-diff';
import { createPlannedFiles } from './workspace-reader';

/**
 * Runs an Axon plan (seed 003, DESIGN §3.4): every statement of one reply, in order, as ONE plan.
 *
 * All or nothing. The whole plan is first checked in memory against the files as the plan would leave them (a
 * replace after a write_file of the same file sees the written text), paths included. If any act fails the reply
 * says `aborted at act N — nothing changed` and nothing is written. Otherwise the plan is authorized once and
 * every file change goes into ONE journal entry, which restores everything if a write fails midway.
 * Answers the ```` ```axon-result ```` block; never throws.
 */
export async function runAxonPlan(statements: AxonPayload[], ctx: ToolContext, meta: { auditId: string }): Promise<string> {
  const acts = statements.flatMap((statement) => (Array.isArray(statement?.acts) ? statement.acts : []));
  const resultMeta = { auditId: meta.auditId };
  if (acts.length === 0) {
    return formatAxonResult({
      acts: [],
      applied: false,
      reason: `INVALID_INPUT: the plan has no act; start each statement with an \`act\` block naming one of ${Object.keys(AXON_ACTS).join(', ')}`,
      meta: resultMeta,
    });
  }

  try {
    // a plan of tens of thousands of acts held the companion's thread while each was checked: refused first
    assertWithinActionLimit('the Axon plan', acts.length, 'acts', ctx.policy);
  } catch (error) {
    return formatAxonResult({ acts: [], applied: false, reason: errorLine(error), meta: resultMeta });
  }

  const reports: AxonActReport[] = [];
  try {
    const planned = createPlannedFiles(ctx.policy, 'write_file');
    const actions: PlannedAction[] = [];
    const outcomes: Array<{ changes: boolean; message: string }> = [];
    const replacing = replaceDeadline();
    for (const [i, act] of acts.entries()) {
      const index = i + 1;
      const name = typeof act?.act === 'string' ? actName(act.act) : String(act?.act);
      const args = Array.isArray(act?.args) ? act.args.map(String) : [];
      try {
        const outcome = await checkAct(name, args, planned, ctx.policy, replacing);
        // each act is decided on its own class: a check reads, write_file and replace write
        actions.push({ risk: outcome.changes ? 'write' : 'read', label: `${name}${outcome.path !== undefined ? ` ${outcome.path}` : ''}`, paths: outcome.touched });
        outcomes.push(outcome);
        reports.push({ index, act: name, ...(outcome.path !== undefined ? { path: outcome.path } : {}), ok: true, message: outcome.message });
      } catch (error) {
        const { code, message } = asPlanError(error);
        const shownPath = pathParamOf(name, args);
        reports.push({ index, act: name, ...(shownPath !== undefined ? { path: shownPath } : {}), ok: false, code, message });
        for (const [j, later] of acts.slice(i + 1).entries()) {
          const laterName = typeof later?.act === 'string' ? actName(later.act) : String(later?.act);
          const laterPath = pathParamOf(laterName, Array.isArray(later?.args) ? later.args.map(String) : []);
          reports.push({
            index: index + 1 + j,
            act: laterName,
            ...(laterPath !== undefined ? { path: laterPath } : {}),
            ok: false,
            message: `not checked: the plan stopped at act ${index}`,
          });
        }
        // the act's own line carries the error; the plan line only says where it stopped
        return notApplied(reports, outcomes, resultMeta, { abortedAt: index });
      }
    }

    const root = ctx.policy.roots[0] ?? '';
    const changes = planned.changes();
    const deadline = diffDeadline();
    const paths = [...new Set(actions.flatMap((action) => action.paths))];
    try {
      await ctx.authorize({
        tool: 'axon',
        args: { acts },
        actions,
        preview: {
          title: `Axon plan: ${acts.length} act${acts.length === 1 ? '' : 's'}, ${changes.length} file${changes.length === 1 ? '' : 's'} changed`,
          heading: { kind: 'axon', acts: acts.length, files: changes.length },
          paths,
          ...(changes.length > 0
            ? { diff: capPreview(changes.map((c) => unifiedDiff(path.relative(root, c.absolute), c.before, c.after, deadline)).join('\n')) }
            : {}),
        },
      });
    } catch (error) {
      return notApplied(reports, outcomes, resultMeta, { reason: errorLine(error) });
    }

    if (changes.length > 0) {
      // as the plan was checked and shown: a file written meanwhile makes it a CONFLICT in the journal's turn
      const ops: FileOp[] = changes.map((c) => ({ op: 'write', path: c.absolute, content: c.after ?? '', basedOn: c.before }));
      try {
        await ctx.journal.apply(`axon plan (${acts.length} acts)`, ops, ctx.origin);
      } catch (error) {
        return notApplied(reports, outcomes, resultMeta, { reason: errorLine(error) });
      }
    }
    return formatAxonResult({ acts: reports, applied: true, meta: resultMeta });
  } catch (error) {
    // an unexpected failure before anything was written: still an answer, still nothing changed
    return formatAxonResult({ acts: reports, applied: false, reason: errorLine(error), meta: resultMeta });
  }
}

/** Acts that passed their check but were not applied say what they would have done. */
function notApplied(
  reports: AxonActReport[],
  outcomes: Array<{ changes: boolean }>,
  meta: { auditId: string },
  why: { abortedAt?: number; reason?: string },
): string {
  const acts = reports.map((report, i) =>
    report.ok && outcomes[i]?.changes ? { ...report, message: `checked, not applied: would be ${report.message}` } : report,
  );
  return formatAxonResult({
    acts,
    applied: false,
    ...(why.abortedAt !== undefined ? { abortedAt: why.abortedAt } : {}),
    ...(why.reason !== undefined ? { reason: why.reason } : {}),
    meta,
  });
}
