import { insertIntoEditor } from '../inject/insert';
import type { Site } from '../sites/define-site';
import { t } from '../ui/i18n';

/**
 * The popup's "Insert into chat" (prompt library, DESIGN §6.4): the popup sends the prompt text to the active tab's
 * content script, which puts it into the site's chat box with the same editor insertion results use. It never
 * submits: the person reads the prompt and sends it. Pure of browser APIs so it is tested against site DOM.
 */

export const INSERT_PROMPT_MESSAGE = 'chatbridge-insert-prompt';

/** A prompt is tens of kilobytes at most; anything far larger is not one of ours. */
export const MAX_PROMPT_CHARS = 200_000;

export interface InsertPromptMessage {
  type: typeof INSERT_PROMPT_MESSAGE;
  text: string;
}

export type InsertPromptReply = { ok: true; method: string } | { ok: false; error: string };

export function isInsertPromptMessage(value: unknown): value is InsertPromptMessage {
  return !!value && typeof value === 'object' && (value as { type?: unknown }).type === INSERT_PROMPT_MESSAGE;
}

export async function insertPromptIntoPage(message: InsertPromptMessage, site: Site, doc: Document): Promise<InsertPromptReply> {
  const { text } = message;
  if (typeof text !== 'string' || text.trim() === '') return { ok: false, error: t('prompts.empty') };
  if (text.length > MAX_PROMPT_CHARS) return { ok: false, error: t('prompts.tooLong', [text.length, MAX_PROMPT_CHARS]) };
  const editor = site.editor(doc);
  if (!editor) return { ok: false, error: t('prompts.noChatBox', [site.name]) };
  const inserted = await insertIntoEditor(editor, text, { pasteMaxChars: site.pasteMaxChars });
  return inserted.ok ? { ok: true, method: inserted.method } : { ok: false, error: inserted.reason };
}
