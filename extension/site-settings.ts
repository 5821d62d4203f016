/** Per-site settings as plain values: their defaults and the bounds a stored value must keep (no storage here). */

export type DraftPolicy = 'wait' | 'append';

export interface SiteSettings {
  enabled: boolean;
  autoRun: boolean;
  autoSubmit: boolean;
  approvalWaitMs: number;
  feedbackIntervalMs: number;
  draftPolicy: DraftPolicy;
}

/** Sites that are on without asking (the manifest's static sites, sites/index.ts). Everything else is enabled from the popup. */
export const ENABLED_BY_DEFAULT = ['chatgpt', 'deepseek', 'claude', 'gemini'];

export function defaultSiteSettings(siteKey: string): SiteSettings {
  return {
    enabled: ENABLED_BY_DEFAULT.includes(siteKey),
    autoRun: false,
    autoSubmit: false,
    approvalWaitMs: 120_000,
    feedbackIntervalMs: 10_000,
    draftPolicy: 'wait',
  };
}

/** Bounds a stored number may take; a tampered or corrupt value falls back to the default instead of breaking runs. */
export const LIMITS = {
  approvalWaitMs: [5_000, 3_600_000],
  feedbackIntervalMs: [2_000, 600_000],
} as const;

export function sanitizeSiteSettings(raw: Record<keyof SiteSettings, unknown>, defaults: SiteSettings): SiteSettings {
  const bool = (v: unknown, d: boolean): boolean => (typeof v === 'boolean' ? v : d);
  const num = (v: unknown, d: number, [min, max]: readonly [number, number]): number =>
    typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : d;
  return {
    enabled: bool(raw.enabled, defaults.enabled),
    autoRun: bool(raw.autoRun, defaults.autoRun),
    autoSubmit: bool(raw.autoSubmit, defaults.autoSubmit),
    approvalWaitMs: num(raw.approvalWaitMs, defaults.approvalWaitMs, LIMITS.approvalWaitMs),
    feedbackIntervalMs: num(raw.feedbackIntervalMs, defaults.feedbackIntervalMs, LIMITS.feedbackIntervalMs),
    draftPolicy: raw.draftPolicy === 'append' || raw.draftPolicy === 'wait' ? raw.draftPolicy : defaults.draftPolicy,
  };
}

