import { fenceFor } from './fence';
import { codedMessage, oneLine, pendingConfirmationText, type Outcome, type ResultMeta } from './outcome';

/**
 * The ```` ```flycode-result ```` block (DESIGN §3.2, seed 001 §5). Field lines, in this order:
 *
 * - success: `[id] call-001`, `[tool] fs.read`, `[ok] true`, `[truncated] false`, `[auditId] …`, `[data]`, then
 *   the text;
 * - failure: `[id]`, `[tool]`, `[ok] false`, `[error] CODE: message`, `[auditId]`, then `[data]` and the tool's own
 *   answer when it has one (Outcome.answer) — CODE is then the one that answer names (the PromptX manual's
 *   FILE_NOT_FOUND, not NOT_FOUND), so the line and the JSON after it say the same; without one, a message of
 *   several lines (a traceback) follows `[data]` whole, its line breaks kept, and the `[error]` line shows its start;
 * - pending: `[id]`, `[tool]`, `[ok] false`, `[error] WRITE_CONFIRMATION_REQUIRED: Pending confirmation in
 *   chatbridge (…). Do not report success; wait for the result.`, `[pendingConfirmationId] …`, `[auditId]`;
 * - no id: `[id] (none)` and `[ok] false` whatever happened — the seed teaches the model to treat `(none)` as
 *   invalid, and such a result cannot be matched to a call. A missing tool name prints `(none)` too.
 *
 * `[repaired] true` follows `[auditId]` when the call's JSON was repaired. Field values are kept on one line.
 * The data text follows `[data]` as is, then one line break and the fence, so the text is recovered exactly
 * (a text that ends in a line break shows one blank line before the fence).
 */
export interface FlycodeResultInput {
  id: string | null;
  tool: string | null;
  outcome: Outcome;
  meta: ResultMeta;
}

/** What a pending flycode call reports as its error code (seed 000 §14.4); not a failure of the call. */
export const WRITE_CONFIRMATION_REQUIRED = 'WRITE_CONFIRMATION_REQUIRED';

/** How much of a failure's message the [error] line shows when the whole message follows [data]. */
const ERROR_LINE_CHARS = 500;

function fieldValue(value: string | null): string {
  const text = value === null ? '' : oneLine(value).trim();
  return text === '' ? '(none)' : text;
}

export function formatFlycodeResult({ id, tool, outcome, meta }: FlycodeResultInput): string {
  const lines = [`[id] ${fieldValue(id)}`, `[tool] ${fieldValue(tool)}`];
  const tail = [`[auditId] ${fieldValue(meta.auditId)}`];
  if (meta.repaired === true) tail.push('[repaired] true');
  let data: string | undefined;
  const hasId = id !== null && id.trim() !== '';

  if (meta.pendingConfirmationId !== undefined) {
    const what = outcome.ok ? outcome.text : outcome.message;
    const text = what.startsWith('Pending confirmation') ? what : pendingConfirmationText(what);
    lines.push('[ok] false', `[error] ${WRITE_CONFIRMATION_REQUIRED}: ${oneLine(text)}`);
    lines.push(`[pendingConfirmationId] ${fieldValue(meta.pendingConfirmationId)}`);
  } else if (!hasId) {
    const message = outcome.ok
      ? 'the call has no "id", so this result cannot be matched to it; call again with an id like "call-001"'
      : outcome.message;
    lines.push('[ok] false', `[error] ${oneLine(codedMessage(outcome.ok ? 'INVALID_INPUT' : (outcome.answerCode ?? outcome.code), message))}`);
  } else if (!outcome.ok) {
    // a message of several lines (an MCP tool's traceback, a program's complaint) is also given whole as the data
    // when the tool has no answer of its own: the [error] line keeps it on one line, which loses its lines; that line
    // is then its start only, so a long message is not in the result twice (it is cut to one result's length)
    data = outcome.answer ?? (/[\r\n]/.test(outcome.message.trim()) ? outcome.message : undefined);
    const error = oneLine(codedMessage(outcome.answerCode ?? outcome.code, outcome.message));
    const shown = outcome.answer === undefined && data !== undefined && error.length > ERROR_LINE_CHARS ? `${error.slice(0, ERROR_LINE_CHARS - 1)}…` : error;
    lines.push('[ok] false', `[error] ${shown}`);
  } else {
    lines.push('[ok] true', `[truncated] ${outcome.truncated === true || meta.truncated === true}`);
    data = outcome.text;
  }

  const body = [...lines, ...tail].join('\n') + (data === undefined ? '' : `\n[data]\n${data}`);
  const fence = fenceFor(body);
  return `${fence}flycode-result\n${body}\n${fence}`;
}
