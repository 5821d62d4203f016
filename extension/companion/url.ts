import { t } from '../ui/i18n';

/**
 * Only loopback URLs are accepted: the companion listens on 127.0.0.1 and the token must never leave the machine.
 * Anything else is refused in the person's language, naming what they typed and what the address looks like.
 */
export function normalizeCompanionUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new Error(t('pairing.badUrl', [input]));
  }
  if (url.protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
    throw new Error(t('pairing.badUrl', [input]));
  }
  return `${url.protocol}//${url.host}`;
}
