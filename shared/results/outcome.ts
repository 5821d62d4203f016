import type { ErrorCode } from '../errors';

/** What a call came to, before it is written in a protocol's words. */
export type Outcome =
  | { ok: true; text: string; truncated?: boolean }
  | {
      ok: false;
      code: ErrorCode;
      message: string;
      data?: Record<string, unknown>;
      /**
       * The failure in the tool's own words, where its contract promises them for every failure (the PromptX
       * `filesystem` tool: the manual's `{"success":false,"error":{…}}`): a reply shows it where a result's text
       * goes, and still says the call failed.
       */
      answer?: string;
      /**
       * The code `answer` names (the manual's FILE_NOT_FOUND where `code` is NOT_FOUND): a reply that names a code
       * beside the answer (flycode's `[error]` line) names this one, so the two never disagree.
       */
      answerCode?: string;
    };

/** Facts about the call that every reply carries. */
export interface ResultMeta {
  /** Points at the call's audit record. */
  auditId: string;
  /** The output was cut; the text says how to read the rest. */
  truncated?: boolean;
  /** Set while the call waits for the person's approval: the reply is a pending answer, not a result. */
  pendingConfirmationId?: string;
  /** The block's JSON was not strict and was repaired before it ran. */
  repaired?: boolean;
}

/**
 * The pending answer (seed 000 §8.1): says plainly that nothing has happened yet, so a model does not report
 * success. `what` names the call, e.g. `fs.write /root/a.md`.
 */
export function pendingConfirmationText(what: string): string {
  return `Pending confirmation in chatbridge (${oneLine(what)}). Do not report success; wait for the result.`;
}

/** Collapses line breaks, for values that must stay on one line of a reply. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}

/** `CODE: what and why`, without doubling a code the message already starts with. */
export function codedMessage(code: string, message: string): string {
  return message.startsWith(`${code}:`) ? message : `${code}: ${message}`;
}
