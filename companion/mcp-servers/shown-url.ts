import { BUILTIN_REDACTIONS, containsSecret } from '../policy/redact';

const BUILTIN_SECRETS = { redact: [...BUILTIN_REDACTIONS] };

/**
 * An MCP server's URL as chatbridge shows it — `chatbridge mcp list`, `add` and `import`, the server's health, its
 * log and the errors a call answers with. Hosted servers often take their key in the URL itself: in the query
 * (`?api_key=…`, `?key=…`) or as a part of the path (`https://mcp.example.com/s/<token>/mcp`, a UUID per account).
 * Both are left out: the query as `?…`, a path part that looks like a key as `…`, the user and password as before.
 * What stays (scheme, host, the words of the path) is enough to tell servers apart.
 */
export function shownUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // not a URL (the config's value is then refused): its key-like runs are still hidden
    return url.replace(/[^\s/?#&=:@]+/g, (part) => (looksLikeKey(part) ? '…' : part)).replace(/\?.*/s, '?…');
  }
  const path = parsed.pathname
    .split('/')
    .map((part) => (looksLikeKey(part) ? '…' : part))
    .join('/');
  return `${parsed.protocol}//${parsed.host}${path}${parsed.search ? '?…' : ''}${parsed.hash ? '#…' : ''}`;
}

/**
 * The parts of a server's URL that shownUrl leaves out, as they appear in text (raw and decoded): an error of the
 * server's transport may quote the URL it reached, or a redirect's target built from it, which never is shown as such.
 */
export function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const parts = [
    ...parsed.pathname.split('/').filter(looksLikeKey),
    ...[...parsed.searchParams.values()].filter((value) => value.length >= 4),
    parsed.search.slice(1),
    // a token is often given as the user name (https://<token>@host/…), and fetch refuses such a URL quoting it whole
    parsed.username,
    parsed.password,
    parsed.hash.slice(1),
  ].filter((part) => part.length >= 4);
  const decoded = parts.map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  // the longest first, so a query string goes whole before one of its values
  return [...new Set([...parts, ...decoded])].sort((a, b) => b.length - a.length);
}

/** Text about a server with its URL's secret parts (urlSecrets) taken out. */
export function withoutUrlSecrets(text: string, secrets: readonly string[]): string {
  let shown = text;
  for (const secret of secrets) shown = shown.split(secret).join('…');
  return shown;
}

/**
 * A path part that is a key rather than a word: 16 characters or more mixing letters and digits (a token, a UUID,
 * base64), 32 or more that are not lowercase words joined by - _ or ., or a shape of a known key (sk-…, ghp_…).
 */
export function looksLikeKey(part: string): boolean {
  if (part.length >= 32 && !/^[a-z]+(?:[-_.][a-z]+)*$/.test(part)) return true;
  if (part.length >= 16 && /\d/.test(part) && /[A-Za-z]/.test(part)) return true;
  return containsSecret(part, BUILTIN_SECRETS);
}
