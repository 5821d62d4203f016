import { ToolError } from '../../shared/errors';
import { MAX_NESTING, valueNestingExceeds } from '../../shared/protocols/json';
import type { Outcome } from '../../shared/results/outcome';
import { filesystemActionOf, isToolName, validateToolArgs, type FilesystemArgs, type Risk } from '../../shared/tools';
import { capResult, hideOutsidePaths, redact } from '../policy/redact';
import { withCallScope } from '../tools/define-handler';
import type { Mode } from '../policy/schema';
import type { CommandSpec, ExternalTool, ExternalTools, ToolContext, ToolHandler } from '../types';

export type ToolHandlers = Partial<Record<string, ToolHandler>>;

/** Room past limits.maxResultChars for the note of a tool that cut its own output. */
const OWN_NOTE_ROOM = 500;

/**
 * How to read what a cap cut off, per tool and, for the PromptX manual's filesystem tool, per action (`args`, as
 * validated); said in the cut text itself. A listing or a search cut through its JSON is no file: read on with fs.read
 * sent the model to read something that is not there, and it could not see the rest.
 */
function moreHint(tool: string, args: unknown): string | ((shown: number) => string) {
  if (tool === 'filesystem') {
    const action = filesystemActionOf(args as FilesystemArgs);
    if (action === 'list' || action === 'list_with_sizes') return 'list a folder inside it (a longer path), or find the files you need with action "search" and a pattern';
    if (action === 'search') return 'search a narrower path or with a narrower pattern, or leave folders out with excludePatterns';
  }
  if (tool === 'fs.read' || tool === 'filesystem')
    return (shown) => `read on with fs.read range "${shown}:${shown * 2}" (characters, of what this call read) or lines "from-to"`;
  if (tool === 'fs.search') return 'narrow the search (path, glob, extensions) or lower contextLines';
  if (tool === 'fs.ls') return 'list a subdirectory or use fs.search with a glob';
  if (tool === 'process.run' || tool === 'shell.exec') return 'rerun with output redirected to a file and read it with fs.read range';
  return 'narrow the call to see the rest';
}

/**
 * One tool call, start to end (DESIGN §1): validate → plan (paths, risk) → preview → authorize → run → redact and
 * cap. Every failure becomes an error Outcome naming the value and the rule; nothing throws past here.
 */
export async function callTool(name: string, args: unknown, ctx: ToolContext, handlers: ToolHandlers, external?: ExternalTools): Promise<Outcome> {
  try {
    // what the block parsers refuse in the text (shared/protocols/json.ts), refused here for every way a call comes in:
    // checking or describing such a value recursed past the stack, an INTERNAL error for what is bad input
    if (valueNestingExceeds(args, MAX_NESTING)) {
      const message = `${name}: its arguments are nested deeper than ${MAX_NESTING} levels of arrays and objects; no tool takes that`;
      return inToolWords(name, undefined, { ok: false, code: 'INVALID_INPUT', message }, handlers, ctx);
    }
    // a name that is not a built-in may be a tool of the person's own MCP server (`<server>.<tool>`)
    const mounted = external !== undefined && !isToolName(name) ? await external.resolve(name, ctx.signal) : undefined;
    const valid = mounted ? mounted.validate(args) : validateToolArgs(name, args);
    if (!valid.ok) return inToolWords(name, args, { ok: false, code: valid.code, message: valid.message }, handlers, ctx);
    const handler: Pick<ToolHandler, 'plan' | 'preview' | 'run'> | ExternalTool | undefined = mounted ?? handlers[name];
    if (!handler) throw new ToolError('NOT_SUPPORTED', `tool ${name} is known but not available in this companion`);
    // plan, preview and run share one resolution of each path (see withCallScope for why that is safe)
    const callCtx = withCallScope(ctx);
    const planned: { risk: Risk; paths: string[]; command?: CommandSpec; mode?: Mode } = await handler.plan(valid.args, callCtx);
    const preview = await handler.preview(valid.args, callCtx);
    await callCtx.authorize({
      tool: name,
      args: valid.args,
      actions: [
        {
          risk: planned.risk,
          label: preview.title,
          paths: planned.paths,
          ...(planned.command ? { command: planned.command } : {}),
          ...(planned.mode ? { mode: planned.mode } : {}),
        },
      ],
      preview,
    });
    const output = await handler.run(valid.args, callCtx);
    // A tool that cut its own output (fs.read, fs.search, fs.diff) ends it, just past the limit, with a note naming
    // exactly what to ask next (the range or lines of the file); a second cut here would go through that note.
    const limit = ctx.policy.limits.maxResultChars + (output.truncated === true ? OWN_NOTE_ROOM : 0);
    const capped = capResult(redact(output.text, ctx.policy), limit, moreHint(name, valid.args));
    if (output.failure) {
      // the tool answered a failure in its own words: a failed call all the same, in every protocol's terms
      const failed = errorOutcome(new ToolError(output.failure.code, output.failure.message), ctx);
      return failed.ok ? failed : { ...failed, answer: capped.text, answerCode: output.failure.answerCode };
    }
    return { ok: true, text: capped.text, truncated: capped.truncated || output.truncated === true };
  } catch (error) {
    return inToolWords(name, args, errorOutcome(error, ctx), handlers, ctx);
  }
}

/**
 * A call whose envelope the catalogue cannot take (a PromptX runner call, shared/tools/promptx-tool.ts): INVALID_INPUT,
 * in the words of the tool it was for when that is known.
 */
export function refusedCall(call: { message: string; tool?: string }, ctx: Pick<ToolContext, 'policy'>, handlers: ToolHandlers): Outcome {
  const outcome: Outcome = { ok: false, code: 'INVALID_INPUT', message: call.message };
  return call.tool === undefined ? outcome : inToolWords(call.tool, undefined, outcome, handlers, ctx);
}

/**
 * A call that failed before its tool ran, answered in the tool's own words where the tool has them
 * (ToolHandler.answerFailure); any other failure as it is.
 */
export function inToolWords(name: string, args: unknown, outcome: Outcome, handlers: ToolHandlers, ctx: Pick<ToolContext, 'policy'>): Outcome {
  const handler = handlers[name];
  if (outcome.ok || handler?.answerFailure === undefined) return outcome;
  const { ok: _ok, answer: _answer, answerCode: _answerCode, ...failure } = outcome;
  const answer = handler.answerFailure(failure, args);
  return { ...outcome, answer: redact(answer.text, ctx.policy), answerCode: answer.code };
}

export function errorOutcome(error: unknown, ctx: Pick<ToolContext, 'policy'>): Outcome {
  // an errno carried in the message may name a path outside the roots (a symlink's target): never shown; and an
  // error is text a server or program chose (an MCP server's JSON-RPC error may hold a whole stack dump): cut like a
  // result, after redaction so no secret is split past recognition
  const shown = (message: string) =>
    capResult(redact(hideOutsidePaths(message, ctx.policy), ctx.policy), ctx.policy.limits.maxResultChars, 'the rest of the error was left out').text;
  if (error instanceof ToolError) {
    return { ok: false, code: error.code, message: shown(error.message), data: error.data };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, code: 'INTERNAL', message: shown(`internal error: ${message}`) };
}
