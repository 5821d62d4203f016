import path from 'node:path';
import { ToolError } from '../../shared/errors';
import { AXON_ARITY, type AxonAct } from '../../shared/protocols';
import { applyReplacement } from '../../shared/replace';
import { refuseMarkerOverSecret, replaceOptionsFor } from '../policy/redact';
import type { Policy } from '../policy/schema';
import { realpathLoose } from '../policy/path-guard';
import { replaceWithin } from '../tools/define-handler';
import { resolvePlanPath } from './plan-path';
import type { PlannedFiles } from './workspace-reader';
import { fromHomeFolder } from '../home';

/**
 * The Axon acts (seed 003, DESIGN §3.4), each checked against the files as the plan would leave them. Nothing
 * here writes: an act either records its change in `planned` or throws a ToolError that aborts the whole plan.
 */

/** The acts and their positional parameters: the parser's table, so both sides name them alike. */
export const AXON_ACTS = AXON_ARITY;

export type AxonActName = AxonAct;

const SUPPORTED = Object.entries(AXON_ACTS)
  .map(([name, params]) => `${name}(${params.join(', ')})`)
  .join(', ');

export interface ActOutcome {
  /** the path the act is about, as written, for the reply */
  path?: string;
  /** what happened, in the words of an applied plan ("created, 3 lines") */
  message: string;
  /** the act changes a file (its message then needs "would be" when the plan is not applied) */
  changes: boolean;
  /** absolute paths the act read or changed, for the approval */
  touched: string[];
}

type ActPolicy = Pick<Policy, 'roots' | 'deny' | 'limits' | 'redact'>;

function isActName(name: string): name is AxonActName {
  return Object.prototype.hasOwnProperty.call(AXON_ACTS, name);
}

/** The act's name as written in its block, without the block's line break and surrounding blanks. */
export function actName(raw: string): string {
  return raw.trim();
}

function checkArity(name: AxonActName, args: readonly string[]): void {
  const params = AXON_ACTS[name];
  if (args.length === params.length) return;
  const got = args.length === 0 ? 'none' : String(args.length);
  const extra =
    args.length > params.length ? '; close a statement with an `end` block before writing other code blocks' : '';
  throw new ToolError(
    'INVALID_INPUT',
    `${name} takes ${params.length} parameter block${params.length === 1 ? '' : 's'} (${params.join(', ')}) but got ${got}${extra}. Supported acts: ${SUPPORTED}`,
  );
}

/** Exactly one trailing line break comes off old and new text: the fence puts it there, the file may not have it. */
export function stripOneNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}

function countLines(content: string): number {
  if (content === '') return 0;
  const breaks = content.split('\n').length - 1;
  return content.endsWith('\n') ? breaks : breaks + 1;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `replacing`: when the plan's replacements must be done (tools/define-handler.ts replaceWithin), shared by its acts. */
export async function checkAct(rawName: string, args: readonly string[], planned: PlannedFiles, policy: ActPolicy, replacing: number): Promise<ActOutcome> {
  const name = actName(rawName);
  if (!isActName(name)) {
    throw new ToolError('INVALID_INPUT', `unknown act ${JSON.stringify(name)}. Supported acts: ${SUPPORTED}`);
  }
  checkArity(name, args);
  switch (name) {
    case 'check_files_exist':
      return checkFilesExist(args[0]!, planned, policy);
    case 'check_cwd_match':
      return checkCwdMatch(args[0]!, policy);
    case 'write_file':
      return writeFile(args[0]!, args[1]!, planned, policy);
    case 'replace':
      return replace(args[0]!, args[1]!, args[2]!, planned, policy, replacing);
  }
}

async function checkFilesExist(list: string, planned: PlannedFiles, policy: ActPolicy): Promise<ActOutcome> {
  const wanted = list
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (wanted.length === 0) {
    throw new ToolError('INVALID_INPUT', 'check_files_exist got an empty file_list; give one path relative to the workspace root per line');
  }
  const missing: string[] = [];
  const touched: string[] = [];
  for (const relative of wanted) {
    const target = await resolvePlanPath(relative, policy);
    touched.push(target.absolute);
    if (!(await planned.exists(target.absolute))) missing.push(relative);
  }
  if (missing.length > 0) {
    throw new ToolError(
      'NOT_FOUND',
      `${missing.length} of ${wanted.length} ${wanted.length === 1 ? 'path is' : 'paths are'} missing from the workspace: ${missing.join(', ')}`,
      { missing },
    );
  }
  return { message: `all ${plural(wanted.length, 'path')} exist`, changes: false, touched };
}

function normalizeForCompare(candidate: string): string {
  const trimmed = candidate.length > 1 ? candidate.replace(/[\\/]+$/, '') : candidate;
  return process.platform === 'win32' ? trimmed.toLowerCase() : trimmed;
}

async function checkCwdMatch(raw: string, policy: ActPolicy): Promise<ActOutcome> {
  const root = policy.roots[0];
  if (root === undefined) throw new ToolError('POLICY_BLOCKED', 'no workspace root is configured');
  const written = raw.trim();
  if (written === '') throw new ToolError('INVALID_INPUT', 'check_cwd_match got an empty expected_path; give the absolute path of the workspace');
  let expected = fromHomeFolder(written);
  if (!path.isAbsolute(expected)) {
    throw new ToolError('INVALID_INPUT', `check_cwd_match needs an absolute path, got ${JSON.stringify(written)}`);
  }
  expected = path.resolve(expected);
  // the root is realpath'd, so compare against the expected path's real location too (e.g. /tmp → /private/tmp);
  // resolved without looking into a network or FUSE mount away from the roots (path-guard realpathLoose)
  const real = await realpathLoose(expected, policy.roots).catch(() => expected);
  const matches = [expected, real].some((candidate) => normalizeForCompare(candidate) === normalizeForCompare(root));
  if (!matches) {
    throw new ToolError('MISMATCH', `the workspace root is ${root}, not ${written}`, { expected: written, actual: root });
  }
  return { message: `workspace root is ${root}`, changes: false, touched: [] };
}

async function writeFile(rawPath: string, content: string, planned: PlannedFiles, policy: ActPolicy): Promise<ActOutcome> {
  const target = await resolvePlanPath(rawPath, policy, { forWrite: true });
  const size = Buffer.byteLength(content, 'utf8');
  if (size > policy.limits.maxFileBytes) {
    throw new ToolError('LIMIT_EXCEEDED', `content for ${target.relative} is ${size} bytes, over the limit of ${policy.limits.maxFileBytes} bytes (limits.maxFileBytes)`);
  }
  const before = await planned.read(target.absolute, target.relative, true);
  // against the file as the acts before it leave it, so the whole plan is refused before its card
  if (before !== null) refuseMarkerOverSecret(target.relative, Buffer.from(before, 'utf8'), content, policy);
  await planned.write(target.absolute, target.relative, content);
  return {
    path: target.relative,
    message: `${before === null ? 'created' : 'overwritten'}, ${plural(countLines(content), 'line')}`,
    changes: true,
    touched: [target.absolute],
  };
}

async function replace(rawPath: string, oldRaw: string, newRaw: string, planned: PlannedFiles, policy: ActPolicy, replacing: number): Promise<ActOutcome> {
  const target = await resolvePlanPath(rawPath, policy, { forWrite: true });
  const before = await planned.read(target.absolute, target.relative);
  if (before === null) {
    throw new ToolError('NOT_FOUND', `${target.relative} does not exist; create it with write_file`, { path: target.relative });
  }
  // a mismatch quotes the file's closest lines back to the model with its secrets hidden, and old text that reaches
  // into a secret matches nothing
  const result = replaceWithin(replacing, () => applyReplacement(before, stripOneNewline(oldRaw), stripOneNewline(newRaw), replaceOptionsFor(policy)));
  if (!result.ok) throw new ToolError(result.code, result.message, { path: target.relative });
  await planned.write(target.absolute, target.relative, result.content);
  const how = result.strategy === 'exact' ? '' : ` (${result.strategy === 'crlf' ? 'line endings normalized' : 'indentation-insensitive match'})`;
  return { path: target.relative, message: `replaced at line ${result.line}${how}`, changes: true, touched: [target.absolute] };
}

/** Best effort for the reply of an act that failed before its path was resolved. */
export function pathParamOf(rawName: string, args: readonly string[]): string | undefined {
  const name = actName(rawName);
  if ((name === 'write_file' || name === 'replace') && typeof args[0] === 'string') return args[0].trim() || undefined;
  return undefined;
}
