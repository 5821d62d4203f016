import type { AutocoderPlan } from '../../shared/protocols/types';
import { formatAutocoderResponse, type AutocoderResponse, type FileActionReport, type ProgramExecReport } from '../../shared/results';
import { scriptsAtStart, type ScriptsAtStart } from '../approvals/scripts-run';
import { assertWithinActionLimit } from '../policy/action-limit';
import { replaceDeadline } from '../tools/define-handler';
import type { AuthorizationRequest, PlannedAction, ToolContext } from '../types';
import { prepareFileSteps, previewFileSteps, riskOfFileStep, runFileStep, type PreparedStep } from './autocoder-files';
import { readAutocoderPlan, type PlanMetadata, type ProgramStep, type ReadPlan } from './autocoder-plan';
import { failedExec, runPrograms, stopPrograms } from './autocoder-programs';
import { errorLine, stoppedLine } from './plan-errors';
import { workspaceRoot } from './plan-path';

/**
 * Runs an auto_coder plan (seed 002, DESIGN §3.3) and answers the executor response text, exactly what goes back
 * into the chat — or `null` for `finish`, which is shown as finished and answers nothing.
 *
 * `operate`: paths are resolved and every file action and every program is decided on its own class (a plan is
 * as strict as its strictest part, and a plan that changes files never runs a command on the allow-list alone);
 * a path the guard refuses in any file action refuses the whole plan before anything happens; where any part needs
 * the person, the whole plan is shown once (the unified diffs, the commands); then the file operations run in order,
 * each succeeding or failing on its own and each change going through the journal, and then the programs run in
 * parallel in the workspace root.
 * `check_program`: stops this conversation's running programs by name. Anything malformed is answered, never
 * thrown: the model reads what was wrong.
 */
export async function runAutocoderPlan(plan: AutocoderPlan, ctx: ToolContext, _meta: { auditId: string }): Promise<string | null> {
  let read: ReadPlan | undefined;
  try {
    read = readAutocoderPlan(plan);
    switch (read.type) {
      case 'finish':
        return null;
      case 'invalid':
        return formatAutocoderResponse(invalidResponse(read));
      case 'check_program':
        return formatAutocoderResponse(await checkPrograms(read, ctx));
      case 'operate':
        return formatAutocoderResponse(await operate(read, plan, ctx));
    }
  } catch (error) {
    // a bug or an unexpected I/O failure still gets an answer the model can read
    const line = errorLine(error);
    const metadata = read?.metadata ?? { step_id: '', reason: '' };
    return formatAutocoderResponse({
      metadata: { ...metadata, summary: `The plan could not be run: ${line}` },
      file_actions: [{ status: 'failure', action: 'plan', path: '', error: line }],
      program_execs: {},
    });
  }
}

function invalidResponse(read: Extract<ReadPlan, { type: 'invalid' }>): AutocoderResponse {
  const refused = `not run: the plan was refused (${read.problems[0]})`;
  const file_actions: FileActionReport[] = read.files.map((file) => ({
    status: 'failure',
    action: file.action || 'unknown',
    path: file.path,
    error: `INVALID_INPUT: ${file.problem ?? refused}`,
  }));
  if (file_actions.length === 0 || read.files.every((file) => !file.problem)) {
    file_actions.unshift({ status: 'failure', action: 'plan', path: '', error: `INVALID_INPUT: ${read.problems.join('; ')}` });
  }
  const program_execs: Record<string, ProgramExecReport> = {};
  for (const program of read.programs) program_execs[program.name] = failedExec(`INVALID_INPUT: ${program.problem ?? refused}`);
  return {
    metadata: {
      ...read.metadata,
      summary: `Plan refused, nothing was changed or run. ${read.problems.length === 1 ? 'Problem' : 'Problems'}: ${read.problems.join('; ')}`,
    },
    file_actions,
    program_execs,
  };
}

async function checkPrograms(read: Extract<ReadPlan, { type: 'check_program' }>, ctx: ToolContext): Promise<AutocoderResponse> {
  const { execs, terminated, ended, notFound, refused } = await stopPrograms(read.stops, ctx);
  const parts: string[] = [];
  if (terminated.length) parts.push(`terminated: ${terminated.join(', ')}`);
  if (ended.length) parts.push(`had already ended: ${ended.join(', ')}`);
  if (notFound.length) parts.push(`not running in this conversation: ${notFound.join(', ')}`);
  if (refused.length) parts.push(`not stopped (terminal is not true): ${refused.join(', ')}`);
  return {
    metadata: { ...read.metadata, summary: parts.length ? `${parts.join('; ')}.` : 'Nothing to stop.' },
    file_actions: [],
    program_execs: execs,
  };
}

async function operate(
  read: Extract<ReadPlan, { type: 'operate' }>,
  plan: AutocoderPlan,
  ctx: ToolContext,
): Promise<AutocoderResponse> {
  const root = workspaceRoot(ctx.policy);
  // a plan of tens of thousands of actions held the companion's thread while each path was resolved: refused first
  assertWithinActionLimit('the auto_coder plan', read.files.length + read.programs.length, 'file actions and programs', ctx.policy);
  const prepared = await prepareFileSteps(read.files, ctx.policy);
  const refused = prepared.findIndex((p) => p.error !== undefined);
  if (refused >= 0) {
    // a path the guard refuses (outside the roots, a deny glob, "~") refuses the whole plan before any card: the
    // plan is as strict as its strictest part, and the steps around it were written to go with it
    const { step, error } = prepared[refused]!;
    const [code, ...message] = error!.split(': ');
    const line = `${code}: file action ${refused + 1} (${step.action} ${JSON.stringify(step.path)}) was refused, so no part of the plan ran: ${message.join(': ')}`;
    return deniedResponse(read.metadata, prepared, read.programs, line);
  }
  const runnable = prepared.filter((p) => p.target !== undefined);
  let scripts: ScriptsAtStart | undefined;
  if (runnable.length > 0 || read.programs.length > 0) {
    try {
      const authorized = await ctx.authorize(await authorizationFor(read, plan, prepared, root, ctx));
      if (authorized) scripts = scriptsAtStart(authorized.scripts, ctx.policy.roots);
    } catch (error) {
      return deniedResponse(read.metadata, prepared, read.programs, errorLine(error));
    }
  }
  // the programs' scripts are checked again as they start (scripts-run.ts), against what the plan's own actions wrote
  const journal: ToolContext['journal'] = scripts === undefined ? ctx.journal : { ...ctx.journal, apply: appliedTo(ctx.journal, scripts) };
  const fileCtx = { ...ctx, journal };
  const file_actions: FileActionReport[] = [];
  const replacing = replaceDeadline();
  for (const next of prepared) {
    // after a Stop, what is left is not done; what was done stays done (each action is its own change to undo)
    const stopped = stoppedLine(ctx.signal);
    const { action, path } = next.step;
    file_actions.push(stopped === undefined ? await runFileStep(next, fileCtx, replacing) : { status: 'failure', action, path, error: stopped });
  }
  const program_execs = read.programs.length > 0 ? await runPrograms(read.programs, ctx, scripts) : {};
  return { metadata: { ...read.metadata, summary: summarize(file_actions, program_execs) }, file_actions, program_execs };
}

/** The journal's apply, telling `scripts` what each change of the plan's own wrote once it is applied. */
function appliedTo(journal: ToolContext['journal'], scripts: ScriptsAtStart): ToolContext['journal']['apply'] {
  return async (label, ops, origin) => {
    const entry = await journal.apply(label, ops, origin);
    await scripts.applied(ops);
    return entry;
  };
}

async function authorizationFor(
  read: Extract<ReadPlan, { type: 'operate' }>,
  plan: AutocoderPlan,
  prepared: PreparedStep[],
  root: string,
  ctx: ToolContext,
): Promise<AuthorizationRequest> {
  const runnable = prepared.filter((p) => p.target !== undefined);
  const paths = [...new Set(runnable.map((p) => p.target!.absolute))];
  const changes = runnable.filter((p) => riskOfFileStep(p.step) !== 'read').length;
  const diff = changes > 0 ? await previewFileSteps(prepared, ctx.policy) : '';
  const command = read.programs.map((p) => `${p.name}: ${p.command}`).join('\n');
  const counts = [
    changes ? `${changes} file change${changes === 1 ? '' : 's'}` : '',
    runnable.length - changes ? `${runnable.length - changes} read${runnable.length - changes === 1 ? '' : 's'}` : '',
    read.programs.length ? `${read.programs.length} program${read.programs.length === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  const actions: PlannedAction[] = [
    ...runnable.map(({ step, target }) => ({ risk: riskOfFileStep(step), label: `${step.action} ${step.path}`, paths: [target!.absolute] })),
    ...read.programs.map((p) => ({ risk: 'exec' as const, label: `run ${p.name}: ${p.command}`, paths: [], command: { shell: p.command, cwd: root } })),
  ];
  return {
    tool: 'autocoder',
    args: plan,
    actions,
    preview: {
      title: `auto_coder plan${read.metadata.step_id ? ` ${read.metadata.step_id}` : ''}: ${counts.join(', ')}`,
      heading: {
        kind: 'autocoder',
        ...(read.metadata.step_id ? { step: read.metadata.step_id } : {}),
        changes,
        reads: runnable.length - changes,
        programs: read.programs.length,
      },
      paths,
      ...(diff ? { diff } : {}),
      ...(command ? { command, cwd: root } : {}),
    },
  };
}

function deniedResponse(metadata: PlanMetadata, prepared: PreparedStep[], programs: ProgramStep[], line: string): AutocoderResponse {
  const file_actions: FileActionReport[] = prepared.map(({ step, error }) => ({
    status: 'failure',
    action: step.action,
    path: step.path,
    error: error ?? line,
  }));
  const program_execs: Record<string, ProgramExecReport> = {};
  for (const program of programs) program_execs[program.name] = failedExec(line);
  return { metadata: { ...metadata, summary: `Nothing was changed or run: ${line}` }, file_actions, program_execs };
}

function summarize(actions: FileActionReport[], execs: Record<string, ProgramExecReport>): string {
  const parts: string[] = [];
  if (actions.length > 0) {
    const failed = actions.filter((a) => a.status === 'failure');
    parts.push(
      failed.length === 0
        ? `${actions.length} file action${actions.length === 1 ? '' : 's'} succeeded`
        : `${actions.length - failed.length} of ${actions.length} file actions succeeded; failed: ${failed.map((a) => `${a.action} ${a.path}`).join(', ')}`,
    );
  }
  const programs = Object.entries(execs);
  if (programs.length > 0) {
    parts.push(
      `programs: ${programs
        .map(([name, exec]) => `${name} ${exec.status}${exec.returncode !== null && exec.status !== 'completed' ? ` (exit ${exec.returncode})` : ''}`)
        .join(', ')}`,
    );
  }
  return parts.length ? `${parts.join('; ')}.` : 'The plan had nothing to do.';
}
