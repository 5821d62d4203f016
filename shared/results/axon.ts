import { fenceFor } from './fence';
import { oneLine, type ResultMeta } from './outcome';

/*
 * The ```` ```axon-result ```` block (DESIGN §3.4). One line per act, then the plan line, then the audit id:
 *
 *   ```axon-result
 *   1 check_files_exist: ok (2 files present)
 *   2 write_file docs/example.md: ok (written, 3 lines)
 *   3 replace src/main.py: MISMATCH: old text not found; closest: line 4 "def hello():"
 *   plan: aborted at act 3 — nothing changed
 *   auditId: 7f3c…
 *   ```
 *
 * An act line is `<index> <act>[ <path>]: <outcome>`. A succeeded act's outcome is `ok`, followed by its
 * message in parentheses when there is one; a failed act's outcome is its message, which starts with its error
 * code (given as `code`, or already written into the message). A path that is empty, holds `": "`, begins with
 * `"` or has space at either end is written as a JSON string (an act name likewise if it holds a space, `:` or
 * `"`), so the first `": "` after the act always ends the path. The plan line is
 * `plan: applied`, or `plan: aborted at act N — nothing changed` (without `at act N` when no act is to blame),
 * with the reason after a colon when one is given. While the plan waits for the person's approval (meta
 * pendingConfirmationId) it is neither: `plan: pending` with the reason, then `pendingConfirmationId: …` before the
 * audit id line. All values are kept on one line.
 */

export interface AxonActReport {
  /** 1-based position of the act in the plan */
  index: number;
  act: string;
  path?: string;
  ok: boolean;
  message: string;
  /** error code of a failed act, printed before the message unless the message starts with it */
  code?: string;
}

export interface AxonResultInput {
  acts: AxonActReport[];
  applied: boolean;
  abortedAt?: number;
  reason?: string;
  meta: ResultMeta;
}

/** A path as written, unless it could be misread: then as a JSON string. */
function pathToken(path: string): string {
  const line = oneLine(path);
  const misreadable = line === '' || line.includes(': ') || line.startsWith('"') || line.trim() !== line;
  return misreadable ? JSON.stringify(line) : line;
}

/** An act name as written, unless it holds a space or a `:` (never true for a supported act). */
function actToken(act: string): string {
  const line = oneLine(act);
  return line === '' || /[\s:"]/.test(line) ? JSON.stringify(line) : line;
}

function actLine(report: AxonActReport): string {
  const subject = `${report.index} ${actToken(report.act)}${report.path === undefined ? '' : ` ${pathToken(report.path)}`}`;
  const message = oneLine(report.message).trim();
  if (report.ok) return `${subject}: ok${message === '' ? '' : ` (${message})`}`;
  const coded =
    report.code === undefined || message.startsWith(report.code) ? message : `${report.code}: ${message}`;
  return `${subject}: ${coded === '' ? 'failed' : coded}`;
}

function planLine({ applied, abortedAt, reason, meta }: AxonResultInput): string {
  const why = reason === undefined || oneLine(reason).trim() === '' ? '' : `: ${oneLine(reason).trim()}`;
  if (applied) return `plan: applied${why}`;
  // waiting for the person: not aborted (a model told its plan was aborted sends it again)
  if (meta.pendingConfirmationId !== undefined) return `plan: pending${why}`;
  return `plan: aborted${abortedAt === undefined ? '' : ` at act ${abortedAt}`} — nothing changed${why}`;
}

export function formatAxonResult(input: AxonResultInput): string {
  const pending = input.applied || input.meta.pendingConfirmationId === undefined ? [] : [`pendingConfirmationId: ${oneLine(input.meta.pendingConfirmationId)}`];
  const body = [...input.acts.map(actLine), planLine(input), ...pending, `auditId: ${oneLine(input.meta.auditId)}`].join('\n');
  const fence = fenceFor(body);
  return `${fence}axon-result\n${body}\n${fence}`;
}
