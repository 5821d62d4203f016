import { z } from 'zod';
import type { Site } from '../sites/define-site';
import { buildReport, doctorReportSchema, outlineOf, type DoctorPageState } from './report';

/**
 * The popup's doctor request as it reaches the tab: the background relays `{type:'doctor', tabId}` to the tab's
 * content script as this message, and the content script answers with the report (and the outline, when "Copy a
 * report" asks for it). Checked with zod on the way back: the answer crosses from a page's process.
 */

export const DOCTOR_MESSAGE = 'chatbridge-doctor';

export interface DoctorMessage {
  type: typeof DOCTOR_MESSAGE;
  outline: boolean;
}

/** An outline is a few hundred kilobytes at most (OUTLINE_MAX_ELEMENTS lines). */
const MAX_OUTLINE_CHARS = 600_000;

export const doctorAnswerSchema = z.object({
  report: doctorReportSchema,
  outline: z.string().max(MAX_OUTLINE_CHARS).optional(),
});
export type DoctorAnswer = z.infer<typeof doctorAnswerSchema>;

export function isDoctorMessage(value: unknown): value is DoctorMessage {
  return !!value && typeof value === 'object' && (value as { type?: unknown }).type === DOCTOR_MESSAGE;
}

export function answerDoctor(message: DoctorMessage, site: Site, doc: Document, state: DoctorPageState | null, host: string): DoctorAnswer {
  const report = buildReport(site, doc, state, host);
  if (message.outline !== true) return { report };
  return { report, outline: outlineOf(doc.body ?? doc.documentElement).slice(0, MAX_OUTLINE_CHARS) };
}
