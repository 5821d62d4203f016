import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ToolError } from '../../shared/errors';
import { READ_NO_FOLLOW } from '../fsx/fd';
import { applyReplacement } from '../../shared/replace';
import type { DirTree, FileActionReport, ReplaceReport } from '../../shared/results';
import type { Risk } from '../../shared/tools/define-tool';
import { deniedBy } from '../policy/path-guard';
import { mapSecrets, replaceOptionsFor } from '../policy/redact';
import type { Policy } from '../policy/schema';
import { assertSubtreeMayChange } from '../policy/subtree-guard';
import { diffDeadline, refuseMarkerOverSecretOnDisk, replaceDeadline, replaceWithin } from '../tools/define-handler';
import type { FileOp, ToolContext } from '../types';
import type { FileStep } from './autocoder-plan';
import { readOn } from './autocoder-programs';
import { errorLine } from './plan-errors';
import { resolvePlanPath, type PlanPath } from './plan-path';
import { capPreview, unifiedDiff } from './preview-diff';
import { createPlannedFiles, entryKind, readTextFile } from './workspace-reader';

/** A step with its path resolved through the guard, or the reason it cannot run. */
export interface PreparedStep {
  step: FileStep;
  target?: PlanPath;
  error?: string;
}

const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

export function riskOfFileStep(step: FileStep): Risk {
  switch (step.action) {
    case 'read_file':
    case 'list_tree':
      return 'read';
    case 'delete_file':
    case 'delete_directory':
      return 'delete';
    default:
      return 'write';
  }
}

/**
 * Resolves every step's path first, so a forbidden path is known before the plan is shown for approval, and a
 * create_file that would put [REDACTED] over a secret too.
 */
export async function prepareFileSteps(steps: FileStep[], policy: Policy): Promise<PreparedStep[]> {
  const prepared: PreparedStep[] = [];
  for (const step of steps) {
    const changes = riskOfFileStep(step) !== 'read';
    try {
      const target = await resolvePlanPath(step.path, policy, { forWrite: changes, allowRoot: step.action === 'list_tree' });
      if (step.action === 'delete_directory') await assertSubtreeMayChange({ kind: 'remove', path: target.absolute }, policy);
      if (step.action === 'create_file') await refuseMarkerOverSecretOnDisk(target.absolute, step.content, policy);
      prepared.push({ step, target });
    } catch (error) {
      prepared.push({ step, error: errorLine(error) });
    }
  }
  return prepared;
}

/**
 * What the person approves: the unified diff of every file the plan changes, computed against the files as the
 * plan's earlier steps would leave them, plus a line for each directory change and each step expected to fail.
 */
export async function previewFileSteps(prepared: PreparedStep[], policy: Policy): Promise<string> {
  const planned = createPlannedFiles(policy, 'create_file');
  const notes: string[] = [];
  const replacing = replaceDeadline();
  // the card shows what will be done: a block whose old text reaches into a secret fails there too (runFileStep)
  const options = replaceOptionsFor(policy);
  for (const { step, target, error } of prepared) {
    if (!target) {
      notes.push(`# ${step.action} ${step.path}: will fail (${error})`);
      continue;
    }
    try {
      switch (step.action) {
        case 'create_file':
          await planned.write(target.absolute, target.relative, step.content);
          break;
        case 'replace_file': {
          const before = await planned.read(target.absolute, target.relative);
          if (before === null) throw new ToolError('NOT_FOUND', `${target.relative} does not exist`);
          let content = before;
          for (const block of step.blocks) {
            const current = content;
            const result = replaceWithin(replacing, () => applyReplacement(current, block.oldContent, block.newContent, options));
            if (!result.ok) throw new ToolError(result.code, `block ${JSON.stringify(block.identifier)}: ${result.message}`);
            content = result.content;
          }
          await planned.write(target.absolute, target.relative, content);
          break;
        }
        case 'delete_file':
          await planned.remove(target.absolute, target.relative);
          break;
        case 'create_directory':
          notes.push(`# create directory ${target.relative}`);
          break;
        case 'delete_directory':
          planned.removeTree(target.absolute);
          notes.push(`# delete directory ${target.relative} and everything in it`);
          break;
        default:
          break;
      }
    } catch (failure) {
      notes.push(`# ${step.action} ${step.path}: will fail (${errorLine(failure)})`);
    }
  }
  const root = policy.roots[0] ?? '';
  const deadline = diffDeadline();
  const diffs = planned.changes().map(({ absolute, before, after }) => unifiedDiff(path.relative(root, absolute), before, after, deadline));
  return capPreview([...notes, ...diffs].join('\n'));
}

/**
 * Runs one step for real; each step succeeds or fails on its own (seed 002), every change through the journal.
 * `replacing`: when the plan's replacements must be done (tools/define-handler.ts replaceWithin), shared by its steps.
 */
export async function runFileStep(prepared: PreparedStep, ctx: ToolContext, replacing: number): Promise<FileActionReport> {
  const { step, target } = prepared;
  const report: FileActionReport = { status: 'success', action: step.action, path: step.path };
  if (!target) {
    const replaces = step.action === 'replace_file' ? notReplaced(step.blocks, prepared.error) : undefined;
    return { ...report, status: 'failure', error: prepared.error ?? 'INTERNAL: path was not resolved', ...(replaces ? { replaces } : {}) };
  }
  const label = `autocoder ${step.action} ${target.relative}`;
  const apply = (ops: FileOp[]) => ctx.journal.apply(label, ops, ctx.origin);
  try {
    switch (step.action) {
      case 'create_file': {
        if ((await entryKind(target.absolute)) === 'directory') {
          throw new ToolError('INVALID_INPUT', `${step.path} is a directory; create_file needs a file path`);
        }
        await apply([{ op: 'write', path: target.absolute, content: step.content }]);
        return report;
      }
      case 'replace_file':
        return await replaceInFile(step.blocks, target, ctx, report, replacing);
      case 'delete_file': {
        const kind = await entryKind(target.absolute);
        if (kind === 'absent') throw new ToolError('NOT_FOUND', `${step.path} does not exist`);
        if (kind === 'directory') throw new ToolError('INVALID_INPUT', `${step.path} is a directory; use delete_directory`);
        await apply([{ op: 'rm', path: target.absolute }]);
        return report;
      }
      case 'delete_directory': {
        const kind = await entryKind(target.absolute);
        if (kind === 'absent') throw new ToolError('NOT_FOUND', `${step.path} does not exist`);
        if (kind !== 'directory') throw new ToolError('INVALID_INPUT', `${step.path} is a file, not a directory; use delete_file`);
        await assertSubtreeMayChange({ kind: 'remove', path: target.absolute }, ctx.policy, { signal: ctx.signal }); // again: the approval waited
        await apply([{ op: 'rm', path: target.absolute, recursive: true }]);
        return report;
      }
      case 'create_directory': {
        const kind = await entryKind(target.absolute);
        if (kind === 'directory') return report;
        if (kind !== 'absent') throw new ToolError('CONFLICT', `${step.path} already exists and is not a directory`);
        await apply([{ op: 'mkdir', path: target.absolute, parents: true }]);
        return report;
      }
      case 'read_file': {
        const content = await readTextFile(target.absolute, step.path, ctx.policy, 'create_file');
        if (content === null) throw new ToolError('NOT_FOUND', `${step.path} does not exist`);
        if (content.includes('\u0000')) {
          throw new ToolError('INVALID_INPUT', `${step.path} is a binary file; read_file returns text only`);
        }
        return { ...report, content: capContent(content, step.path, ctx.policy) };
      }
      case 'list_tree': {
        const kind = await entryKind(target.absolute);
        if (kind === 'absent') throw new ToolError('NOT_FOUND', `${step.path} does not exist`);
        if (kind !== 'directory') throw new ToolError('INVALID_INPUT', `${step.path} is a file; list_tree lists a directory`);
        return { ...report, dir_tree: await listTree(target.absolute, ctx.policy) };
      }
    }
  } catch (error) {
    return { ...report, status: 'failure', error: errorLine(error) };
  }
}

function notReplaced(blocks: Array<{ identifier: string }>, error?: string): ReplaceReport[] {
  return blocks.map((block) => ({ id: block.identifier, replaced: false, matches: 0, verified: false, ...(error ? { error } : {}) }));
}

async function replaceInFile(
  blocks: Extract<FileStep, { action: 'replace_file' }>['blocks'],
  target: PlanPath,
  ctx: ToolContext,
  report: FileActionReport,
  replacing: number,
): Promise<FileActionReport> {
  let before: string | null;
  try {
    before = await readTextFile(target.absolute, target.relative, ctx.policy, 'create_file');
  } catch (error) {
    const line = errorLine(error);
    return { ...report, status: 'failure', error: line, replaces: notReplaced(blocks, line) };
  }
  if (before === null) {
    const error = `NOT_FOUND: ${target.relative} does not exist; create it with create_file`;
    return { ...report, status: 'failure', error, replaces: notReplaced(blocks, error) };
  }
  let content = before;
  const outcomes: Array<{ matches: number; error?: string }> = [];
  // a mismatch quotes the file's closest lines back to the model with its secrets hidden, and old text that reaches
  // into a secret matches nothing
  const options = replaceOptionsFor(ctx.policy);
  // Every block is tried (on the text with the earlier good blocks applied), so one reply names every mismatch.
  for (const block of blocks) {
    if (block.oldContent === block.newContent) {
      outcomes.push({ matches: 0, error: 'INVALID_INPUT: old_content and new_content are identical, so there is nothing to change' });
      continue;
    }
    const current = content;
    const result = replaceWithin(replacing, () => applyReplacement(current, block.oldContent, block.newContent, options));
    if (result.ok) {
      content = result.content;
      outcomes.push({ matches: 1 });
    } else {
      outcomes.push({ matches: result.matches, error: `${result.code}: ${describeMismatch(result)}` });
    }
  }
  const failed = blocks.filter((_, i) => outcomes[i]!.error !== undefined).map((block) => block.identifier);
  if (failed.length > 0) {
    return {
      ...report,
      status: 'failure',
      error: `${firstCode(outcomes)}: ${failed.length} of ${blocks.length} modify_content blocks did not apply (${failed.map((id) => JSON.stringify(id)).join(', ')}); the file was not changed`,
      replaces: blocks.map((block, i) => ({
        id: block.identifier,
        replaced: false,
        matches: outcomes[i]!.matches,
        verified: false,
        ...(outcomes[i]!.error ? { error: outcomes[i]!.error } : {}),
      })),
    };
  }
  try {
    await ctx.journal.apply(`autocoder replace_file ${target.relative}`, [{ op: 'write', path: target.absolute, content, basedOn: before }], ctx.origin);
  } catch (error) {
    const line = errorLine(error);
    return { ...report, status: 'failure', error: line, replaces: notReplaced(blocks, line) };
  }
  // read back as the guard reads: a symlink or FIFO swapped in since the write is not followed or waited on
  const onDisk = await fs.readFile(target.absolute, { encoding: 'utf8', flag: READ_NO_FOLLOW }).catch(() => null);
  const verified = onDisk === content;
  return {
    ...report,
    ...(verified ? {} : { status: 'failure' as const, error: 'CONFLICT: the file changed on disk right after it was written; read it again' }),
    replaces: blocks.map((block) => ({ id: block.identifier, replaced: true, matches: 1, verified })),
  };
}

function firstCode(outcomes: Array<{ error?: string }>): string {
  const first = outcomes.find((o) => o.error !== undefined)?.error ?? 'MISMATCH';
  return first.slice(0, first.indexOf(':')) || 'MISMATCH';
}

function describeMismatch(result: { message: string; lines?: number[]; closest?: Array<{ line: number; text: string }> }): string {
  // shared/replace already names the count, lines and closest text in its message; keep it one line for the reply
  return result.message.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * The file's start, up to what one result may hold, cut in the file with its secrets found in the whole of it: a token
 * cut at the limit (`ghp_` and a few characters) is too short for the last redaction pass over the reply to know it,
 * so its piece reached the chat.
 */
function capContent(content: string, file: string, policy: Pick<Policy, 'limits' | 'redact'>): string {
  const limit = policy.limits.maxResultChars;
  if (content.length <= limit) return content;
  // read_file has no range: what follows is read with a program, a part that fits its output at a time
  const next = `read_file shows no more of it; to see the rest, run a program to ${readOn(content, limit, file, policy)}`;
  return `${mapSecrets(content, policy).window(0, limit)}\n[… truncated: the file has ${content.length} characters and only the first ${limit} are shown; ${next} …]`;
}

/**
 * `{name, files[], dirs{}}` for a directory. Skips .git and node_modules and whatever the deny globs cover,
 * never follows a symlinked directory (it is listed as a file), and stops at limits.maxListEntries entries,
 * saying so in the last `files` entry of the directory where it stopped.
 */
export async function listTree(absolute: string, policy: Pick<Policy, 'roots' | 'deny' | 'limits'>): Promise<DirTree> {
  const limit = policy.limits.maxListEntries;
  let count = 0;
  let stopped = false;
  async function walk(dir: string): Promise<DirTree> {
    const tree: DirTree = { name: path.basename(dir), files: [], dirs: {} };
    const entries = (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (stopped) break;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && SKIPPED_DIRS.has(entry.name)) continue;
      if (deniedBy(full, policy) !== undefined) continue;
      if (count >= limit) {
        stopped = true;
        tree.files.push(`[… listing stopped at ${limit} entries (limits.maxListEntries); list a subdirectory to see more …]`);
        break;
      }
      count++;
      if (entry.isDirectory()) tree.dirs[entry.name] = await walk(full);
      else tree.files.push(entry.name);
    }
    return tree;
  }
  return walk(absolute);
}
