import type { z } from 'zod';
import type { ToolContract } from './define-tool';
import { describeIssues, showValue } from './describe-issues';
import { filesystem } from './filesystem';
import { fsChmod } from './fs-chmod';
import { fsDiff } from './fs-diff';
import { fsLs } from './fs-ls';
import { fsMkdir } from './fs-mkdir';
import { fsMv } from './fs-mv';
import { fsRead } from './fs-read';
import { fsRm } from './fs-rm';
import { fsSearch } from './fs-search';
import { fsWrite } from './fs-write';
import { fsWriteBatch } from './fs-write-batch';
import { TOOL_NAMES, type ToolName } from './names';
import { processRun } from './process-run';
import { shellExec } from './shell-exec';
import { suggestToolName } from './suggest';

export { defineTool, riskOf, type Risk, type ToolContract } from './define-tool';
export { TOOL_NAMES, isToolName, type ToolName } from './names';
export { parseLineSpan, parseReadRange, type ReadSlice } from './fs-read';
export { filesystemActionOf, FILESYSTEM_ACTIONS, FILESYSTEM_METHOD_ALIASES, type FilesystemAction, type FilesystemArgs } from './filesystem';
export { PROMPTX_FILESYSTEM_RESOURCE, PROMPTX_RUNNERS, isPromptxRunner, resolvePromptxCall, toolCallOf, type PromptxCall } from './promptx-tool';
export { fsLs, fsMkdir, fsRead, fsSearch, fsWrite, fsWriteBatch, fsRm, fsMv, fsChmod, fsDiff, processRun, shellExec, filesystem };

/** Any contract in the catalogue, whatever its schema (a risk function's argument type differs per tool). */
export type AnyToolContract = ToolContract<any>;

/** The catalogue: one entry per tool, keyed by its name. Adding a tool adds one file and one line here. */
export const TOOL_CONTRACTS = {
  'fs.ls': fsLs,
  'fs.mkdir': fsMkdir,
  'fs.read': fsRead,
  'fs.search': fsSearch,
  'fs.write': fsWrite,
  'fs.writeBatch': fsWriteBatch,
  'fs.rm': fsRm,
  'fs.mv': fsMv,
  'fs.chmod': fsChmod,
  'fs.diff': fsDiff,
  'process.run': processRun,
  'shell.exec': shellExec,
  filesystem,
} as const satisfies Record<ToolName, AnyToolContract>;

export type ToolArgs<N extends ToolName> = z.infer<(typeof TOOL_CONTRACTS)[N]['input']>;

export type ToolArgsValidation =
  | { ok: true; contract: AnyToolContract; args: Record<string, unknown> }
  | { ok: false; code: 'INVALID_INPUT' | 'NOT_FOUND'; message: string };

/**
 * Checks a call's tool name and arguments against the catalogue. Messages are one line, written for the model
 * that made the call. Paths are not judged here: the companion resolves them against the roots.
 */
export function validateToolArgs(name: string, args: unknown): ToolArgsValidation {
  if (!Object.hasOwn(TOOL_CONTRACTS, name)) {
    const suggestion = suggestToolName(String(name), TOOL_NAMES);
    return {
      ok: false,
      code: 'NOT_FOUND',
      message:
        `unknown tool ${showValue(name).replace(/ \(a string\)$/, '')}; the tools are ${TOOL_NAMES.join(', ')}` +
        (suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`),
    };
  }
  const contract: AnyToolContract = TOOL_CONTRACTS[name as ToolName];
  // A call that leaves the arguments out is a call with none: the message then names what is required.
  const given = args === undefined ? {} : args;
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    return {
      ok: false,
      code: 'INVALID_INPUT',
      message: `${name} arguments must be an object like {"name": value}, got ${showValue(given)}`,
    };
  }
  const result = contract.input.safeParse(given);
  if (!result.success) {
    return { ok: false, code: 'INVALID_INPUT', message: describeIssues(name, contract.input, given, result.error.issues) };
  }
  return { ok: true, contract, args: result.data as Record<string, unknown> };
}
