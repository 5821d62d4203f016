import { codedMessage, oneLine, pendingConfirmationText, type Outcome, type ResultMeta } from './outcome';

/**
 * The answer to a `<function_calls>` block (shared/protocols/function-calls.ts): one `<function_result>` element per
 * call, in order, as the extensions that use that call format type it back — so prompts written for them read it:
 *
 *   <function_result call_id="1" name="everything.echo" audit_id="7f3c…">
 *   Echo: hello
 *   </function_result>
 *
 * Attributes, in this order: `call_id` (as the call wrote it; left out when it had none), `name` (the tool as
 * written), `status="error"` with the text `CODE: what and why` for a failure (or the tool's own answer, Outcome.answer), `status="pending"` with the
 * pending text while the call waits for the person's approval (it has not run), `truncated="true"` when the
 * output was cut, `audit_id`. Attribute values escape `&`, `"`, `<`, `>` and are kept on one line. The text
 * goes between the tags as is; a `</function_result>` inside it is written `<\/function_result>` so the
 * element cannot end early. It is typed into the chat as plain text, not in a code block, like those extensions do.
 */
export interface FunctionResultInput {
  callId?: string | undefined;
  name: string;
  outcome: Outcome;
  meta: ResultMeta;
}

const CLOSE = '</function_result>';

function attribute(name: string, value: string): string {
  const escaped = oneLine(value).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return ` ${name}="${escaped}"`;
}

export function formatFunctionResult({ callId, name, outcome, meta }: FunctionResultInput): string {
  let attributes = (callId === undefined ? '' : attribute('call_id', callId)) + attribute('name', name);
  let text: string;
  if (meta.pendingConfirmationId !== undefined) {
    const what = outcome.ok ? outcome.text : outcome.message;
    text = what.startsWith('Pending confirmation') ? what : pendingConfirmationText(what);
    attributes += attribute('status', 'pending') + attribute('pending_confirmation_id', meta.pendingConfirmationId);
  } else if (!outcome.ok) {
    text = outcome.answer ?? codedMessage(outcome.code, outcome.message);
    attributes += attribute('status', 'error');
  } else {
    text = outcome.text;
    if (outcome.truncated === true || meta.truncated === true) attributes += attribute('truncated', 'true');
  }
  attributes += attribute('audit_id', meta.auditId);
  return `<function_result${attributes}>\n${text.replaceAll(CLOSE, '<\\/function_result>')}\n${CLOSE}`;
}

/** The answers to the calls of one block, one element each, separated by a blank line. */
export function formatFunctionResults(results: readonly FunctionResultInput[]): string {
  return results.map(formatFunctionResult).join('\n\n');
}
