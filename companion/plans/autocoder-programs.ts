import { stripVTControlCharacters } from 'node:util';
import type { ProgramExecReport } from '../../shared/results';
import type { ScriptsAtStart } from '../approvals/scripts-run';
import type { ProgramResult, ToolContext } from '../types';
import type { ProgramStep, StopStep } from './autocoder-plan';
import { errorLine, stoppedLine } from './plan-errors';
import { workspaceRoot } from './plan-path';
import { programEnv } from './program-env';
import { redact } from '../policy/redact';
import { clipStream, streamBudget } from '../tools/run-program';

export function failedExec(error: string): ProgramExecReport {
  return { status: 'failure', stdout: '', stderr: error, returncode: null, runtime: 0 };
}

/** `file` as one word of a POSIX shell. */
function shellWord(file: string): string {
  return /^[\w@%+=:,./-]+$/.test(file) ? file : `'${file.replace(/'/g, `'\\''`)}'`;
}

/**
 * What to run to see the part of `text` (a file's, or a program's output written to `file`) after a cut at `cut`: the
 * lines from the one the cut falls in, as many as one program output stream shows whole (streamBudget), printed by a
 * command that works in the shell a plan's programs run in (relative to the workspace root, where they run); or, when
 * that one line is longer than a stream shows (a minified file), the characters from the cut. read_file shows a file's
 * start only, up to one result, so a program is how a plan reads on in a long file or a long output.
 */
export function readOn(text: string, cut: number, file: string, policy: Pick<ToolContext['policy'], 'limits'>): string {
  const budget = streamBudget(policy.limits.maxResultChars);
  const lineStart = text.lastIndexOf('\n', cut - 1) + 1;
  const lineEnd = text.indexOf('\n', cut);
  if ((lineEnd === -1 ? text.length : lineEnd + 1) - lineStart > budget) {
    const count = Math.min(budget, text.length - cut);
    const command =
      process.platform === 'win32'
        ? `powershell -NoProfile -Command "(Get-Content -Raw -LiteralPath '${file.replace(/'/g, "''")}').Substring(${cut}, ${count})"`
        : `tail -c +${Buffer.byteLength(text.slice(0, cut)) + 1} ${shellWord(file)} | head -c ${count}`;
    return `print characters ${cut + 1} to ${cut + count} of it with ${command}`;
  }
  let from = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < lineStart; at = text.indexOf('\n', at + 1)) from++;
  let to = from - 1;
  let used = 0;
  for (let start = lineStart; start < text.length; to++) {
    const end = text.indexOf('\n', start);
    const next = end === -1 ? text.length : end + 1;
    if (used + (next - start) > budget) break;
    used += next - start;
    start = next;
  }
  const command =
    process.platform === 'win32'
      ? `powershell -NoProfile -Command "Get-Content -LiteralPath '${file.replace(/'/g, "''")}' | Select-Object -Skip ${from - 1} -First ${to - from + 1}"`
      : `sed -n '${from},${to}p' ${shellWord(file)}`;
  return `print lines ${from} to ${to} of it with ${command}`;
}

/**
 * A program's result as the executor response reports it. Its output is kept (up to limits.maxOutputBytes) whole for
 * the programs list; the response, typed into the chat, shows each stream's start and end within what one result may
 * hold, as shell.exec's result does — redacted first, so a cut through a secret cannot leave a piece too short to match.
 * What the cut left out is said with the command that prints it (readOn): written to a file, the output can be read
 * only so (read_file shows a file's start only, which the response already shows).
 */
function toReport(result: ProgramResult, policy: ToolContext['policy']): ProgramExecReport {
  const budget = streamBudget(policy.limits.maxResultChars);
  // a terminal's colour and cursor codes out first, as in shell.exec's result (tools/run-program.ts)
  const shown = (raw: string) => {
    const text = redact(stripVTControlCharacters(raw), policy);
    if (text.length <= budget) return text;
    return clipStream(text, budget, `write the output to a file (out.txt) and ${readOn(text, Math.floor(budget / 2), 'out.txt', policy)}`).text;
  };
  return { status: result.status, stdout: shown(result.stdout), stderr: shown(result.stderr), returncode: result.returncode, runtime: result.runtime };
}

/** set_timeout in seconds (default: limits.defaultTimeoutMs), never above limits.maxTimeoutMs. */
export function programTimeoutMs(step: ProgramStep, limits: ToolContext['policy']['limits']): number {
  const asked = step.timeoutSeconds !== undefined ? Math.round(step.timeoutSeconds * 1000) : limits.defaultTimeoutMs;
  return Math.max(1, Math.min(asked, limits.maxTimeoutMs));
}

/**
 * Starts every program at once (seed 002: programs run in parallel), through the shell, in the workspace root,
 * owned by this conversation so check_program and the person's Stop can find them. Resolves when all have ended.
 * If the run is aborted (shutdown, the person cancels), its programs are stopped with it — and none is started
 * once it was: a Stop while the plan's file actions were applied started them all and killed them at once.
 */
export async function runPrograms(steps: ProgramStep[], ctx: ToolContext, scripts?: ScriptsAtStart): Promise<Record<string, ProgramExecReport>> {
  const root = workspaceRoot(ctx.policy);
  // each program's scripts as the card (or the plan's own change) showed them, checked as it starts
  const changed = await Promise.all(steps.map((step) => scripts?.changed({ shell: step.command, cwd: root })));
  const stopped = stoppedLine(ctx.signal);
  if (stopped !== undefined) return Object.fromEntries(steps.map((step) => [step.name, failedExec(stopped)]));
  const env = programEnv(ctx.policy);
  const started = steps.map((step, i) => {
    const script = changed[i];
    if (script !== undefined) {
      return {
        step,
        error: `CONFLICT: ${JSON.stringify(script)}, which program ${JSON.stringify(step.name)} runs, changed after its card was approved: the card (or the plan's own change to it) showed it otherwise, so the program was not started; send the plan again for a new card`,
      };
    }
    try {
      const handle = ctx.processes.start({
        name: step.name,
        shell: step.command,
        cwd: root,
        env,
        timeoutMs: programTimeoutMs(step, ctx.policy.limits),
        maxOutputBytes: ctx.policy.limits.maxOutputBytes,
        origin: ctx.origin,
      });
      return { step, handle };
    } catch (error) {
      return { step, error: errorLine(error) };
    }
  });
  const stopAll = () => {
    for (const entry of started) if (entry.handle) void ctx.processes.stop(entry.handle.info.id, 'run aborted').catch(() => {});
  };
  if (ctx.signal.aborted) stopAll();
  else ctx.signal.addEventListener('abort', stopAll, { once: true });
  try {
    const reports = await Promise.all(
      started.map(async (entry) => (entry.handle ? toReport(await entry.handle.done, ctx.policy) : failedExec(entry.error ?? 'INTERNAL: not started'))),
    );
    const execs: Record<string, ProgramExecReport> = {};
    started.forEach((entry, i) => {
      execs[entry.step.name] = reports[i]!;
    });
    return execs;
  } finally {
    ctx.signal.removeEventListener('abort', stopAll);
  }
}

/**
 * check_program with terminal: true stops the programs of that name that this same conversation (same site)
 * started and are still running, and answers each one's final result (status `terminated`). A program of another
 * conversation is never touched, and is reported exactly like one that does not exist.
 */
export async function stopPrograms(
  steps: StopStep[],
  ctx: ToolContext,
): Promise<{ execs: Record<string, ProgramExecReport>; terminated: string[]; ended: string[]; notFound: string[]; refused: string[] }> {
  const execs: Record<string, ProgramExecReport> = {};
  const terminated: string[] = [];
  const ended: string[] = [];
  const notFound: string[] = [];
  const refused: string[] = [];
  await Promise.all(
    steps.map(async (step) => {
      if (!step.terminal) {
        refused.push(step.name);
        execs[step.name] = failedExec(
          `INVALID_INPUT: check_program only stops programs; set "terminal": true for ${JSON.stringify(step.name)} to stop it`,
        );
        return;
      }
      const mine = ctx.processes
        .list()
        .filter(
          (info) =>
            info.name === step.name &&
            info.status === 'running' &&
            info.origin.conversationId === ctx.origin.conversationId &&
            info.origin.site === ctx.origin.site,
        );
      if (mine.length === 0) {
        notFound.push(step.name);
        execs[step.name] = failedExec(`NOT_FOUND: no running program named ${JSON.stringify(step.name)} was started by this conversation`);
        return;
      }
      const results = await Promise.all(
        mine.map(async (info) => {
          await ctx.processes.stop(info.id, `check_program from ${ctx.origin.runId}`).catch(() => {});
          const handle = ctx.processes.get(info.id);
          return handle ? await handle.done : undefined;
        }),
      );
      const last = results.filter((r): r is ProgramResult => r !== undefined).at(-1);
      // a program that finished on its own just before the stop keeps its real status
      if (last && last.status !== 'terminated') ended.push(step.name);
      else terminated.push(step.name);
      execs[step.name] = last ? toReport(last, ctx.policy) : { ...failedExec(''), status: 'terminated' };
    }),
  );
  // keep the reply in the order the plan listed the programs
  const ordered: Record<string, ProgramExecReport> = {};
  for (const step of steps) if (execs[step.name]) ordered[step.name] = execs[step.name]!;
  return { execs: ordered, terminated, ended, notFound, refused };
}
