import { describe, expect, it } from 'vitest';
import { normalizeCompanionUrl } from '../../extension/companion/url';
import { defaultSiteSettings, sanitizeSiteSettings } from '../../extension/site-settings';

describe('site settings', () => {
  it('defaults: on for the first-class sites, auto-run and auto-submit off everywhere', () => {
    expect(defaultSiteSettings('chatgpt')).toEqual({
      enabled: true,
      autoRun: false,
      autoSubmit: false,
      approvalWaitMs: 120_000,
      feedbackIntervalMs: 10_000,
      draftPolicy: 'wait',
    });
    expect(defaultSiteSettings('deepseek').enabled).toBe(true);
    expect(defaultSiteSettings('chat.example.org').enabled).toBe(false);
  });

  it('falls back to the default for a stored value of the wrong type or out of bounds', () => {
    const d = defaultSiteSettings('chatgpt');
    const fixed = sanitizeSiteSettings(
      { enabled: 'yes', autoRun: true, autoSubmit: null, approvalWaitMs: -1, feedbackIntervalMs: Number.NaN, draftPolicy: 'overwrite' },
      d,
    );
    expect(fixed).toEqual({ ...d, autoRun: true });
    expect(sanitizeSiteSettings({ ...d, approvalWaitMs: 30_000, draftPolicy: 'append' }, d)).toMatchObject({ approvalWaitMs: 30_000, draftPolicy: 'append' });
  });
});

describe('companion URL', () => {
  it('accepts loopback http only, normalized to scheme://host:port', () => {
    expect(normalizeCompanionUrl(' http://127.0.0.1:17890/ ')).toBe('http://127.0.0.1:17890');
    expect(normalizeCompanionUrl('http://localhost:4000/v1')).toBe('http://localhost:4000');
    expect(normalizeCompanionUrl('http://[::1]:5000')).toBe('http://[::1]:5000');
  });
  for (const bad of ['https://127.0.0.1:17890', 'http://evil.example:17890', 'http://127.0.0.1.evil.example', 'ws://127.0.0.1', 'not a url']) {
    it(`refuses ${bad} (the token must never leave the machine)`, () => {
      expect(() => normalizeCompanionUrl(bad)).toThrow(`“${bad}” is not an address of the companion: it is http://127.0.0.1:PORT`);
    });
  }
});
