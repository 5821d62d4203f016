import { stripVTControlCharacters } from 'node:util';
/**
 * What process.run and shell.exec share: the working directory (inside the roots, the workspace root by
 * default), the timeout (default limits.defaultTimeoutMs, never above limits.maxTimeoutMs), the environment and
 * the result text.
 *
 * Environment: only the names in policy.envAllow are copied from the companion's own environment (so its
 * secrets do not leak into programs; PATH without its relative entries, plans/program-env.ts), then the call's
 * `env` is added on top. Because an allow-listed command
 * with a different environment is a different command (NODE_OPTIONS, LD_PRELOAD, PATH…), the command shown to
 * the policy carries the call's variables as `NAME=value` in front (shell.exec's exported first when its line holds
 * more than one command, shellWithEnv): `npm test` with env is never the allow-listed `npm test`, and the approval
 * shows them.
 */
import { promises as fs } from 'node:fs';
import { quote } from 'shell-quote';
import { ToolError } from '../../shared/errors';
import { programEnv } from '../plans/program-env';
import { plainArgv } from '../policy/command-guard';
import { throwIfStopped } from '../stop-reason';
import { redact } from '../policy/redact';
import type { Policy } from '../policy/schema';
import type { ProgramResult, ProgramSpec, ToolContext, ToolOutput } from '../types';
import { resolvePath, resolvePathNow, workspaceRoot } from './define-handler';

export interface ExecArgs {
  cwd?: string | undefined;
  timeoutMs?: number | undefined;
  env?: Record<string, string> | undefined;
}

export async function resolveCwd(cwd: string | undefined, ctx: Pick<ToolContext, 'policy'>, resolve: typeof resolvePath = resolvePath): Promise<string> {
  const dir = cwd === undefined ? workspaceRoot(ctx.policy) : await resolve(cwd, ctx, { mustExist: true });
  const stat = await fs.stat(dir);
  if (!stat.isDirectory()) throw new ToolError('INVALID_INPUT', `cwd ${JSON.stringify(cwd)} is not a directory`, { cwd });
  return dir;
}

export function timeoutFor(args: ExecArgs, policy: Pick<Policy, 'limits'>): number {
  return Math.min(args.timeoutMs ?? policy.limits.defaultTimeoutMs, policy.limits.maxTimeoutMs);
}

export function environmentFor(args: ExecArgs, policy: Pick<Policy, 'envAllow'>, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env = programEnv(policy, base);
  for (const [name, value] of Object.entries(args.env ?? {})) env[checkedName(name)] = value;
  return env;
}

/** `NAME=value` words in front of the command, for the policy and the approval card. */
export function envPrefix(args: ExecArgs): string[] {
  return Object.entries(args.env ?? {}).map(([name, value]) => `${checkedName(name)}=${value}`);
}

function checkedName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new ToolError('INVALID_INPUT', `env name ${JSON.stringify(name)} is not a valid variable name (letters, digits, _)`, { name });
  }
  return name;
}

/**
 * The shell string with the call's variables, as the policy reads it and the card shows it: the string that would run.
 * The variables are the whole shell's, so they stand in front (`NAME='value' npm test`) only of a line that is one
 * plain command; in front of more, a shell sets them for the first command alone, after expanding its words — `PATH=…
 * true; tool` read as `tool` found on the usual PATH, and `GREETING=hi echo "$GREETING"` as printing nothing —, so
 * such a line is shown with them exported first (`export PATH=…; true; tool`).
 */
export function shellWithEnv(args: ExecArgs & { command: string }): string {
  const assignments = Object.entries(args.env ?? {}).map(([name, value]) => `${checkedName(name)}=${quote([value])}`);
  if (assignments.length === 0) return args.command;
  return plainArgv(args.command) !== null ? `${assignments.join(' ')} ${args.command}` : `export ${assignments.join(' ')}; ${args.command}`;
}

/** Keeps head and tail of a stream within `budget` characters. */
export function clipStream(
  text: string,
  budget: number,
  howToSeeAll = 'write the output to a file and read it with fs.read',
): { text: string; cut: boolean } {
  if (text.length <= budget) return { text, cut: false };
  const half = Math.floor(budget / 2);
  // never between the two halves of a character UTF-16 holds as two (an emoji, a rare CJK character): a half alone
  // is no character, and reaches the chat as U+FFFD
  const headEnd = isHighSurrogate(text.charCodeAt(half - 1)) ? half - 1 : half;
  const tailStart = isLowSurrogate(text.charCodeAt(text.length - half)) ? text.length - half + 1 : text.length - half;
  const omitted = tailStart - headEnd;
  return { text: `${text.slice(0, headEnd)}\n[… ${omitted} characters omitted; ${howToSeeAll} …]\n${text.slice(tailStart)}`, cut: true };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Characters of one output stream a result shows (head and tail), from limits.maxResultChars. */
export function streamBudget(maxChars: number): number {
  return Math.max(200, Math.floor(maxChars / 2) - 200);
}

export function formatProgramResult(result: ProgramResult, timeoutMs: number, maxChars: number, policy: Pick<Policy, 'redact'>): ToolOutput {
  const budget = streamBudget(maxChars);
  // redacted before the middle is cut out, so a cut through a secret cannot leave a piece too short to match; and
  // after a terminal's colour and cursor codes are taken out (`FORCE_COLOR=1 npm test`): typed into a chat they are
  // raw escape characters, and a secret they split (`PASS\x1b[0mWORD=…`) is whole only without them
  const stdout = clipStream(redact(stripVTControlCharacters(result.stdout), policy), budget);
  const stderr = clipStream(redact(stripVTControlCharacters(result.stderr), policy), budget);
  const status =
    result.status === 'timeout'
      ? `timed out after ${timeoutMs} ms; the process tree was killed`
      : result.status === 'terminated'
        ? 'stopped before it finished; the process tree was killed'
        : `${result.status} in ${result.runtime} s`;
  const text = [
    `exit code: ${result.returncode ?? 'none'} (${status})`,
    `stdout:${stdout.text ? `\n${stdout.text.replace(/\n$/, '')}` : ' (empty)'}`,
    `stderr:${stderr.text ? `\n${stderr.text.replace(/\n$/, '')}` : ' (empty)'}`,
  ].join('\n');
  return {
    text,
    truncated: stdout.cut || stderr.cut || result.truncated,
    data: { status: result.status, returncode: result.returncode, runtime: result.runtime },
  };
}

export async function runProgram(
  name: string,
  command: Pick<ProgramSpec, 'argv' | 'shell'>,
  args: ExecArgs,
  ctx: ToolContext,
): Promise<ToolOutput> {
  // the child's cwd follows the path as it is now, so it is resolved now (not carried from plan)
  const cwd = await resolveCwd(args.cwd, ctx, resolvePathNow);
  // and it is the folder the card showed (the call's one resolution): a link pointed elsewhere in the roots while the
  // card waited would run the approved command in a folder the person never saw, on whatever a model put there
  const shown = await resolveCwd(args.cwd, ctx);
  if (cwd !== shown) {
    throw new ToolError(
      'CONFLICT',
      `the working directory ${JSON.stringify(args.cwd)} led to ${JSON.stringify(shown)} when the card was shown and leads to ${JSON.stringify(cwd)} now; nothing was run — send the call again for a new card`,
      { cwd: args.cwd },
    );
  }
  const timeoutMs = timeoutFor(args, ctx.policy);
  // the Stop listener below is added once the program runs; a Stop before that is kept here
  throwIfStopped(ctx.signal, name);
  const handle = ctx.processes.start({
    name,
    ...command,
    cwd,
    env: environmentFor(args, ctx.policy),
    timeoutMs,
    maxOutputBytes: ctx.policy.limits.maxOutputBytes,
    origin: ctx.origin,
  });
  const onAbort = () => void ctx.processes.stop(handle.info.id, 'the call was cancelled');
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const result = await handle.done;
    return formatProgramResult(result, timeoutMs, ctx.policy.limits.maxResultChars, ctx.policy);
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
}
