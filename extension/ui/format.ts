/** Small text helpers the extension pages share. */
import { t } from './i18n';

export function clockTime(at: number | string): string {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString();
}

/** How long something took, in the person's language: `994 ms`, `1.5 s`, `2 min 5 s`, `2 min`. */
export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return '';
  // the unit is chosen after rounding: 999.6 ms is "1.0 s" and 59.96 s "1 min", never "1000 ms" or "60.0 s"
  if (Math.round(ms) < 1000) return t('duration.ms', [Math.round(ms)]);
  if (Math.round(ms / 100) < 600) return t('duration.seconds', [(ms / 1000).toFixed(1)]);
  const seconds = Math.round(ms / 1000);
  const [minutes, rest] = [Math.floor(seconds / 60), seconds % 60];
  return rest === 0 ? t('duration.minutesWhole', [minutes]) : t('duration.minutes', [minutes, rest]);
}

/**
 * A time limit (a timeout) in the person's language: `30 s`, `1 min`, `1 min 30 s`, `1.5 s`, `500 ms` — a whole number
 * of seconds without the `.0` a measured time has.
 */
export function timeLimit(ms: number | undefined): string {
  if (ms !== undefined && ms >= 1000 && ms < 60_000 && ms % 1000 === 0) return t('duration.seconds', [ms / 1000]);
  return duration(ms);
}

/** An address a link may point at: http(s) only (a page could have put anything into a run's context). */
export function safeLink(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** A long id shown by its start. */
export function shortId(id: string, keep = 10): string {
  return id.length > keep + 1 ? `${id.slice(0, keep)}…` : id;
}
