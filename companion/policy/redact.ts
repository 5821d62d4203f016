import path from 'node:path';
import { ToolError } from '../../shared/errors';
import { escapeRegExp } from '../../shared/regexp';
import type { ReplaceOptions } from '../../shared/replace';
import { rootOf } from './path-guard';
import type { Policy } from './schema';

/**
 * Secrets that must never reach a chat even when a file holds them. Each keeps enough around the secret for a
 * model to understand what was there (`password=[REDACTED]`), never the secret itself.
 *
 * Order matters (issue 9, finding 3): secrets are found in the whole text a tool read — the file, before any
 * range, line window, cut or encoding is applied — and the window a call asked for is then shown with every part
 * of a secret in it replaced. A window that starts or ends inside a secret shows the marker, never the piece.
 */
const SECRET_KEY =
  // a name is matched by its end, so `secret` alone let `SECRET_KEY = '…'` (Django's and Flask's settings), Rails'
  // `secret_key_base:` and `JWT_SECRET_KEY=` through whole: their own words are listed
  '(?:password|passwd|pwd|secret|secret[_-]?key(?:[_-]?base)?|secret[_-]?token|api[_-]?key|access[_-]?token|refresh[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?access[_-]?key|session[_-]?token|account[_-]?key)';

/**
 * Key names that only ever hold a credential (AWS shared credentials, .npmrc, .yarnrc.yml, kubeconfig), so their
 * value goes even unquoted and with spaces around the `=` or `:` — which for a general word like `password`
 * would also hide code (`password = request.form.password`).
 */
const CREDENTIAL_KEY = '(?:aws_secret_access_key|aws_session_token|aws_security_token|npmAuthToken|npmAuthIdent|_authToken|_auth|client-key-data)';

/**
 * Built-in patterns that match within one line (no part of them, lookbehind included, crosses a line break), so
 * a tool that shows a few lines of a large file may look for them on those lines only (findSecrets `within`).
 */
const LINE_LOCAL = new WeakSet<RegExp>();
/**
 * Built-in patterns with the literals one of which every match holds (or follows, inside its lookbehind): a text
 * holding none of them is not scanned for the pattern. `includes` finds a literal at memchr speed, where running a
 * pattern tries it at every position — the ~15 token patterns cost ~40 µs per 1 KB result this way (bench).
 */
const LITERALS = new WeakMap<RegExp, readonly string[]>();

function literals(pattern: RegExp, ...any: string[]): RegExp {
  LITERALS.set(pattern, any);
  return pattern;
}

function lineLocal(pattern: RegExp): RegExp {
  LINE_LOCAL.add(pattern);
  return pattern;
}

/**
 * Built-in patterns that open with a lookbehind, with an expression every text they match in must match too (the
 * literal inside the lookbehind). A pattern led by a lookbehind is tried at every position of the text: those nine
 * cost ~50 µs of the ~60 µs of scanning 1 KB, and a 1000-line listing ~1 ms (bench). A text without the literal
 * cannot hold a match, so it is not scanned for it — what is found is exactly what a full scan finds.
 */
const REQUIRED = new WeakMap<RegExp, RegExp>();

function needs(pattern: RegExp, required: RegExp): RegExp {
  REQUIRED.set(pattern, required);
  return pattern;
}

/**
 * Whether `text` may hold a match of `pattern`: false only when what every match needs is missing. `seen` keeps
 * one text's answers for an expression several patterns require (SECRET_KEY).
 */
function mayMatch(pattern: RegExp, text: string, seen: Map<RegExp, boolean>): boolean {
  const required = REQUIRED.get(pattern);
  if (required !== undefined) {
    let found = seen.get(required);
    if (found === undefined) seen.set(required, (found = required.test(text)));
    if (!found) return false;
  }
  const any = LITERALS.get(pattern);
  return any === undefined || any.some((literal) => text.includes(literal));
}

/**
 * What any pattern of a list may need, looked for in one pass: a text holding none of the literals and matching none
 * of the required expressions cannot hold a match of any pattern (mayMatch says no to each), and most texts a tool
 * returns hold none — a source file, a listing. Looked for one by one, the ~30 literals and the required expressions
 * cost ~17 µs per 1 KB text, twice per fs.read; the two expressions made of them a few. A list with a pattern that
 * names neither (the person's own patterns) has no gate. Made once per list, and again when it grew (redactFromNowOn).
 */
const GATES = new WeakMap<readonly RegExp[], { size: number; gate: ((text: string) => boolean) | null }>();

function gateOf(list: readonly RegExp[]): ((text: string) => boolean) | null {
  const known = GATES.get(list);
  if (known !== undefined && known.size === list.length) return known.gate;
  const exact: string[] = [];
  const anyCase: string[] = [];
  let gated = true;
  for (const pattern of list) {
    const required = REQUIRED.get(pattern);
    const any = LITERALS.get(pattern);
    // a required expression is looked for again as its source: only the case flag is carried over
    if (required !== undefined && /^[gi]*$/.test(required.flags)) (required.ignoreCase ? anyCase : exact).push(`(?:${required.source})`);
    else if (required === undefined && any !== undefined) exact.push(...any.map(escapeRegExp));
    else gated = false;
  }
  let gate: ((text: string) => boolean) | null = null;
  if (gated) {
    const first = exact.length > 0 ? new RegExp(exact.join('|')) : null;
    const second = anyCase.length > 0 ? new RegExp(anyCase.join('|'), 'i') : null;
    gate = (text) => (first?.test(text) ?? false) || (second?.test(text) ?? false);
  }
  GATES.set(list, { size: list.length, gate });
  return gate;
}

/** Whether no pattern of `list` can match in `text` (gateOf); a text with NULs is looked at without them too, so never. */
function surelyClean(text: string, list: readonly RegExp[]): boolean {
  const gate = gateOf(list);
  return gate !== null && !gate(text) && !text.includes('\0');
}

/** Built-in patterns that span lines (not line-local), with the literal every match holds. */
const SPANNING_LITERAL = new WeakMap<RegExp, string>();

function spanning(pattern: RegExp, literal: string): RegExp {
  SPANNING_LITERAL.set(pattern, literal);
  return literals(pattern, literal);
}

/** Required by the two key-name patterns; looked for once per text (mayMatch's `seen`). */
const HAS_SECRET_KEY = new RegExp(SECRET_KEY, 'i');

// Runs of blanks inside a look-behind, and the look-aheads of `sk-`, are bounded (64, 256): unbounded, each position
// of a long run scanned the whole run again, so a few hundred kilobytes of spaces holding "Bearer" (or `sk-sk-…`)
// took minutes to redact, on the companion's own thread (tests/companion/policy/redaction-redos.test.ts).
export const BUILTIN_REDACTIONS: readonly RegExp[] = [
  // PEM private keys (PKCS#1/#8, EC, OpenSSH, encrypted) and PGP private key blocks; an unterminated block goes
  // to the end, and `\n` escapes inside JSON (service-account files) are spanned too
  spanning(/-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g, 'PRIVATE KEY'),
  // OpenAI (sk-…, sk-proj-…), Anthropic (sk-ant-…): real keys mix digits and capitals; this spares CSS classes and
  // slugs that merely start with `sk-`
  lineLocal(literals(/\bsk-(?:proj-|ant-|live_|test_|svcacct-|admin-)?(?=[A-Za-z0-9_-]{0,256}\d)(?=[A-Za-z0-9_-]{0,256}[A-Z])[A-Za-z0-9_-]{20,}/g, 'sk-')),
  // GitHub: classic tokens ghp_/gho_/ghu_/ghs_/ghr_ and fine-grained github_pat_
  lineLocal(literals(/\bgh[pousr]_[A-Za-z0-9]{30,}/g, 'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_')),
  lineLocal(literals(/\bgithub_pat_[A-Za-z0-9_]{30,}/g, 'github_pat_')),
  // GitLab: personal, deploy, runner, trigger, feed, … tokens
  lineLocal(literals(/\bgl(?:pat|dt|rt|ptt|ft|cbt|oas|imt|soat|ffct|agent)-[A-Za-z0-9_-]{20,}/g, 'gl')),
  // AWS access key ids (long-term AKIA, temporary ASIA)
  lineLocal(literals(/\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, 'AKIA', 'ASIA', 'ABIA', 'ACCA')),
  // Slack tokens, app tokens and incoming-webhook paths
  lineLocal(literals(/\bxox[abposre]-[A-Za-z0-9-]{10,}/g, 'xox')),
  lineLocal(literals(/\bxapp-\d-[A-Za-z0-9-]{10,}/g, 'xapp-')),
  lineLocal(needs(/(?<=hooks\.slack\.com\/services\/)[A-Za-z0-9/]{20,}/g, /hooks\.slack\.com\/services\//)),
  // Stripe secret and restricted keys (pk_ publishable keys are public)
  lineLocal(literals(/\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}/g, 'k_live_', 'k_test_')),
  // Google API keys
  lineLocal(literals(/\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, 'AIza')),
  // npm, PyPI, Hugging Face, SendGrid
  lineLocal(literals(/\bnpm_[A-Za-z0-9]{36}\b/g, 'npm_')),
  lineLocal(literals(/\bpypi-AgE[A-Za-z0-9_-]{50,}/g, 'pypi-AgE')),
  lineLocal(literals(/\bhf_[A-Za-z]{34}\b/g, 'hf_')),
  lineLocal(literals(/\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, 'SG.')),
  // JSON Web Tokens: header and payload are base64url JSON objects, so both start with `eyJ` (`{"`); that keeps
  // ordinary dotted base64 (source maps, integrity hashes) out
  lineLocal(literals(/\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, 'eyJ')),
  // `Authorization: Bearer …` and `Basic …`: a placeholder like `<token>` or `${token}` is not a token
  lineLocal(needs(/(?<=\bBearer[ \t]{1,64})[A-Za-z0-9._~+/-]{20,}=*/g, /Bearer/)),
  lineLocal(needs(/(?<=\bAuthorization:[ \t]{0,64}Basic[ \t]{1,64})[A-Za-z0-9+/]{8,}=*/gi, /authorization:/i)),
  // the password in a URL (`postgres://app:hunter2@db`, `https://user:token@github.com`)
  lineLocal(needs(/(?<=\b[a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]+:)[^\s/?#@]+(?=@)/gi, /:\/\//)),
  // .netrc: `machine host login me password secret`, on one line or several
  spanning(/(?<=\b(?:machine[ \t]{1,64}\S+|default)(?:\s{1,64}(?:login|account|port)[ \t]{1,64}\S+)*\s{1,64}password[ \t]{1,64})\S+/g, 'password'),
  // Maven settings.xml and the like
  lineLocal(needs(/(?<=<(?:password|passphrase)>)[^<\n]+(?=<\/(?:password|passphrase)>)/gi, /<pass(?:word|phrase)>/i)),
  // KEY=value as in .env files, INI and URLs (`DB_PASSWORD=hunter2`, `?api_key=…`, `Uid=sa;Pwd=…`): the value goes —
  // but not the shell's working directory (`PWD=/home/me/app`, `OLDPWD=/…` in a program's `env` or `set`), a path
  lineLocal(needs(new RegExp(`(?<=${SECRET_KEY}=)(?!(?<=(?:^|[^A-Za-z0-9_])(?:old)?pwd=)/)[^\\s"'&,;]+`, 'gi'), HAS_SECRET_KEY)),
  // a quoted value after the key (`"password": "…"`, `secret = '…'`): only what is inside the quotes goes, so
  // JSON and code stay well-formed. Unquoted `password: string` or `password = req.body.password` is code, kept.
  lineLocal(needs(new RegExp(`(?<=${SECRET_KEY}["']?[ \\t]{0,64}[:=][ \\t]{0,64}["'])[^"'\\n]+(?=["'])`, 'gi'), HAS_SECRET_KEY)),
  // `aws_secret_access_key = …`, `npmAuthToken: …`, `client-key-data: …`: credential-only names, any form
  lineLocal(needs(new RegExp(`(?<=(?:^|[\\s:{,"'])${CREDENTIAL_KEY}["']?[ \\t]{0,64}[:=][ \\t]{0,64}["']?)[^\\s"',;#]{8,}`, 'gi'), new RegExp(CREDENTIAL_KEY, 'i'))),
];

export const REDACTED = '[REDACTED]';

/**
 * The policy with the companion's own secrets redacted wherever they show: the CLI token, which it keeps in plain
 * text in its data directory for `chatbridge status` and the like, and a token given with --token or
 * CHATBRIDGE_TOKEN. No tool reads the data directory, but a program the person let run may print the file, or link
 * it under an ordinary name that fs.read then reads; whatever path the bytes take, each answer and each encoded read
 * is checked for them (bytesHoldSecret) like for any other secret. Matched as the literal they are.
 */
export function withOwnSecrets<P extends Pick<Policy, 'redact'>>(policy: P, secrets: ReadonlyArray<string | undefined>): P {
  // a policy that already has its own list (the CLI made it, then the app is given it) keeps it: one list for all
  const own = OWN_SECRETS.has(policy.redact);
  const redact = own ? policy.redact : [...policy.redact];
  if (!own) OWN_SECRETS.set(redact, new Set());
  for (const secret of secrets) if (secret !== undefined) redactFromNowOn(redact, secret);
  return own ? policy : { ...policy, redact };
}

/** The own secrets already in each redaction list withOwnSecrets made: each is added once. */
const OWN_SECRETS = new WeakMap<RegExp[], Set<string>>();

/**
 * One more own secret, from now on, in the redaction list every holder of this policy shares: a paired extension's
 * token, which the companion stores only as a hash and so learns in plain text only when it issues it or the
 * extension presents it (auth/token-store.ts, `onKnown`). A list withOwnSecrets did not make is left as it is.
 */
export function redactFromNowOn(redact: RegExp[], secret: string): void {
  const known = OWN_SECRETS.get(redact);
  if (!known || secret === '' || known.has(secret)) return;
  known.add(secret);
  const pattern = literals(new RegExp(escapeRegExp(secret), 'g'), secret);
  redact.push(secret.includes('\n') ? pattern : lineLocal(pattern));
}

/** Where a secret is in a text: [start, end) in characters. */
export interface SecretSpan {
  start: number;
  end: number;
}

const globalCopies = new WeakMap<RegExp, RegExp>();

/** A user pattern may lack the g flag; every match must be found. */
function everyMatchOf(pattern: RegExp): RegExp {
  if (pattern.global) return pattern;
  let copy = globalCopies.get(pattern);
  if (!copy) {
    copy = new RegExp(pattern.source, `${pattern.flags}g`);
    globalCopies.set(pattern, copy);
  }
  return copy;
}

/** The regions widened to whole lines, sorted and merged. */
function wholeLines(text: string, regions: readonly SecretSpan[]): SecretSpan[] {
  const widened = regions
    .map(({ start, end }) => {
      const lineEnd = text.indexOf('\n', Math.max(start, end - 1));
      return { start: text.lastIndexOf('\n', start - 1) + 1, end: lineEnd < 0 ? text.length : lineEnd };
    })
    .sort((a, b) => a.start - b.start);
  const merged: SecretSpan[] = [];
  for (const region of widened) {
    const last = merged[merged.length - 1];
    if (last && region.start <= last.end + 1) last.end = Math.max(last.end, region.end);
    else merged.push(region);
  }
  return merged;
}

/**
 * Every secret in `text`, sorted, overlapping and touching matches merged. Empty matches are not secrets.
 *
 * `within`: the caller shows only these parts of the text (fs.read's window, fs.search's lines). Patterns that
 * match within a line are then looked for on those lines alone; patterns that span lines and the person's own
 * patterns are still looked for in the whole text, so what is found inside `within` is exactly what a scan of the
 * whole text finds there — at a fraction of the cost for a large file.
 */
export function findSecrets(text: string, policy: Pick<Policy, 'redact'>, within?: readonly SecretSpan[]): SecretSpan[] {
  if (surelyClean(text, policy.redact)) return [];
  const found: SecretSpan[] = [];
  const collect = (pattern: RegExp, part: string, offset: number) => {
    // matchAll works on a copy of the regex, so the shared patterns' lastIndex never leaks between calls
    for (const match of part.matchAll(everyMatchOf(pattern))) {
      if (match[0].length > 0) found.push({ start: offset + match.index, end: offset + match.index + match[0].length });
    }
  };
  const regions = within && wholeLines(text, within);
  const seen = new Map<RegExp, boolean>();
  for (const pattern of policy.redact) {
    if (!mayMatch(pattern, text, seen)) continue;
    if (regions && LINE_LOCAL.has(pattern)) {
      for (const region of regions) collect(pattern, text.slice(region.start, region.end), region.start);
    } else {
      collect(pattern, text, 0);
    }
  }
  const nulFree = withoutNuls(text);
  if (nulFree !== undefined) {
    const seenNulFree = new Map<RegExp, boolean>();
    for (const pattern of policy.redact) {
      if (!mayMatch(pattern, nulFree.text, seenNulFree)) continue;
      for (const match of nulFree.text.matchAll(everyMatchOf(pattern))) {
        if (match[0].length > 0) found.push({ start: nulFree.at[match.index]!, end: nulFree.at[match.index + match[0].length - 1]! + 1 });
      }
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretSpan[] = [];
  for (const span of found) {
    const last = merged[merged.length - 1];
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/**
 * The text without its NUL characters, and where each character left is in the text; undefined when it holds none.
 * UTF-16 decoded as UTF-8 — a program printing a UTF-16LE .env (`iconv -t UTF-16LE`, PowerShell's default), an MCP
 * server's text part — has a NUL next to every ASCII letter: no pattern matches across them, and a chat drops them
 * as it shows the text, so `DB_PASSWORD=…` reached it readable. Secrets are looked for in this text too, and each
 * one found covers the text from its first character to its last.
 */
function withoutNuls(text: string): { text: string; at: Uint32Array } | undefined {
  if (!text.includes('\0')) return undefined;
  const at = new Uint32Array(text.length);
  let kept = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== 0) at[kept++] = i;
  return { text: text.replaceAll('\0', ''), at: at.subarray(0, kept) };
}

/** Whether `text` holds anything a redaction pattern matches (NULs left out too, see withoutNuls); stops at the first. */
export function containsSecret(text: string, policy: Pick<Policy, 'redact'>): boolean {
  if (surelyClean(text, policy.redact)) return false;
  for (const each of text.includes('\0') ? [text, text.replaceAll('\0', '')] : [text]) {
    const seen = new Map<RegExp, boolean>();
    for (const pattern of policy.redact) {
      if (!mayMatch(pattern, each, seen)) continue;
      for (const match of each.matchAll(everyMatchOf(pattern))) if (match[0].length > 0) return true;
    }
  }
  return false;
}

/**
 * Whether the bytes of a file hold a secret in any form the patterns can see: as UTF-8 (which keeps every ASCII
 * run of a binary file too), and, when there are NUL bytes, as UTF-16 in either byte order — the form a model
 * would decode from base64 or hex to read what the patterns missed.
 */
export function bytesHoldSecret(bytes: Uint8Array, policy: Pick<Policy, 'redact'>): boolean {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (containsSecret(buffer.toString('utf8'), policy)) return true;
  if (!buffer.includes(0)) return false;
  return containsSecret(buffer.toString('utf16le'), policy) || containsSecret(buffer.subarray(1).toString('utf16le'), policy);
}

/**
 * base64 and hex hide text from the redaction patterns, and any range of them decodes back to what the patterns
 * would have caught, so a file that holds a secret is not encoded at all (issue 9, finding 3). `path` is the
 * file as the call named it.
 */
export function refuseEncodedSecrets(bytes: Uint8Array, policy: Pick<Policy, 'redact'>, path: string, encoding: string): void {
  if (!bytesHoldSecret(bytes, policy)) return;
  throw new ToolError(
    'POLICY_BLOCKED',
    `${JSON.stringify(path)} holds text that looks like a secret (it matches a redaction pattern), and encoding "${encoding}" would show it unredacted, so it is not read that way; read it as text with encoding "utf-8" (the default), where each secret shows as [REDACTED] — a binary file that holds a secret is not shown`,
    { path, encoding },
  );
}

/** How many times `text` is in `bytes`. */
function countOf(bytes: Buffer, text: string): number {
  let count = 0;
  for (let at = bytes.indexOf(text); at !== -1; at = bytes.indexOf(text, at + text.length)) count++;
  return count;
}

/**
 * A file that holds a secret was read as [REDACTED] in its place, and written back whole (fs.write, create_file,
 * write_file) it would hold the marker there instead: the person's password gone with nothing said. Asked of the
 * file's secrets being there at all, never of what they are, so the answer confirms no guess at one; a file that
 * holds the marker as text already (a page about redaction) is refused only content with more of it. Checked before
 * the card (tools/define-handler.ts refuseMarkerOverSecretOnDisk) and again when the write is applied (journal/ops.ts).
 */
export function refuseMarkerOverSecret(target: string, existing: Uint8Array, content: Uint8Array | string, policy: Partial<Pick<Policy, 'redact'>>): void {
  const added = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  if (policy.redact === undefined || !added.includes(REDACTED)) return;
  const before = Buffer.from(existing.buffer, existing.byteOffset, existing.byteLength);
  if (countOf(added, REDACTED) <= countOf(before, REDACTED) || !bytesHoldSecret(before, { redact: policy.redact })) return;
  throw new ToolError(
    'INVALID_INPUT',
    `${JSON.stringify(target)} holds a secret, shown to you as ${REDACTED}, and the content to write over it holds ${REDACTED} too: ${REDACTED} stands for ` +
      `text hidden from you, not for what the file holds there, so writing it would put the marker in the secret's place; nothing was written — ` +
      'change the file with a replacement of only the lines you change (replace, replace_file, edit), which leaves the hidden part as it is',
    { path: target },
  );
}

/** A secret's piece as shown: one marker per line it covers, so line counts and line numbers still hold. */
function maskPiece(piece: string): string {
  return piece
    .split('\n')
    .map((segment) => (segment === '' || segment === '\r' ? segment : segment.endsWith('\r') ? `${REDACTED}\r` : REDACTED))
    .join('\n');
}

/**
 * A text with its secrets found once, in the whole of it, for tools that show parts of it (fs.read ranges and
 * lines, search hits and context, diffs). Offsets are the text's own: a window is asked for in the file's
 * characters and shown redacted.
 */
export interface SecretMap {
  readonly text: string;
  readonly secrets: readonly SecretSpan[];
  /** [start, end) of the text, every part of a secret in it shown as REDACTED (one marker per line it covers). */
  window(start: number, end: number): string;
  /** Whether [start, end) reaches into a secret; an empty range counts when it sits inside one. */
  touches(start: number, end: number): boolean;
  /** The whole text as shown, line for line the same as the text. */
  shown(): string;
}

/**
 * The literals of the built-in patterns that span lines, when every pattern of the policy is built in; a line
 * holding none of them, in a file that holds none of them above it, has its secrets found on the line alone.
 * Undefined when the person has patterns of their own: those may span lines, so the whole text is looked at.
 */
export function spanningLiterals(policy: Pick<Policy, 'redact'>): string[] | undefined {
  const literals: string[] = [];
  for (const pattern of policy.redact) {
    if (LINE_LOCAL.has(pattern)) continue;
    const literal = SPANNING_LITERAL.get(pattern);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  return literals;
}

/**
 * Whether the secrets on a few lines of this file can only be found by looking at all of it: the person has
 * patterns of their own (which may span lines), or the bytes hold the literal of a built-in pattern that spans
 * lines (a private key block). Otherwise each line can be looked at alone, without decoding the rest.
 */
export function needsWholeText(bytes: Uint8Array, policy: Pick<Policy, 'redact'>): boolean {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return policy.redact.some((pattern) => {
    if (LINE_LOCAL.has(pattern)) return false;
    const literal = SPANNING_LITERAL.get(pattern);
    return literal === undefined || buffer.includes(literal);
  });
}

/** `within` as for findSecrets: window() and touches() are then exact inside those parts only. */
export function mapSecrets(text: string, policy: Pick<Policy, 'redact'>, within?: readonly SecretSpan[]): SecretMap {
  const secrets = findSecrets(text, policy, within);
  /** index of the first secret that ends after `offset` */
  const firstEndingAfter = (offset: number): number => {
    let low = 0;
    let high = secrets.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (secrets[middle]!.end <= offset) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  let whole: string | undefined;
  const window = (start: number, end: number): string => {
    if (secrets.length === 0 || start >= end) return text.slice(start, end);
    let out = '';
    let at = start;
    for (let i = firstEndingAfter(start); i < secrets.length && secrets[i]!.start < end; i++) {
      const from = Math.max(secrets[i]!.start, start);
      const to = Math.min(secrets[i]!.end, end);
      out += text.slice(at, from) + maskPiece(text.slice(from, to));
      at = to;
    }
    return out + text.slice(at, end);
  };
  return {
    text,
    secrets,
    window,
    touches(start, end) {
      const next = secrets[firstEndingAfter(start)];
      return next !== undefined && (next.start < end || (start === end && next.start <= start));
    },
    shown: () => (whole ??= window(0, text.length)),
  };
}

/**
 * What a replacement is told of a file's secrets (shared/replace ReplaceOptions), for code that replaces in texts it
 * is handed one after another: line [start, end) as a model may see it (the closest lines a MISMATCH quotes), and
 * where the secrets are — a match that reaches into one is not taken (it would confirm a guess at it), and a
 * replacement after which one would be shown is refused —, and the marker a MISMATCH names when the old text quotes
 * it. Each text's secrets are found once.
 */
export function replaceOptionsFor(policy: Pick<Policy, 'redact'>): Required<ReplaceOptions> {
  let last: SecretMap | undefined;
  const mapOf = (text: string): SecretMap => (last?.text === text ? last : (last = mapSecrets(text, policy)));
  return {
    showLine: (text, start, end) => mapOf(text).window(start, end),
    hiddenSpans: (text) => mapOf(text).secrets,
    hiddenMarker: REDACTED,
  };
}

/**
 * Redacts a text that is not a file's (a program's output, an error message, a plan's reply): each secret becomes
 * one marker. Also run over every result as a last pass, after the tools showed their windows redacted.
 */
export function redact(text: string, policy: Pick<Policy, 'redact'>): string {
  let out = '';
  let at = 0;
  for (const secret of findSecrets(text, policy)) {
    out += text.slice(at, secret.start) + REDACTED;
    at = secret.end;
  }
  return at === 0 ? text : out + text.slice(at);
}

/**
 * A message the companion did not word itself — an errno from the OS names the path it failed on, in single
 * quotes (`ENAMETOOLONG: name too long, lstat '/…'`) — can name where a symlink led, outside the roots. Such a
 * path is replaced; paths inside the roots and the ones a call asked for (quoted as JSON) stay (issue 9, finding 7).
 */
export function hideOutsidePaths(message: string, policy: Pick<Policy, 'roots'>): string {
  return message.replace(/'((?:\/|[A-Za-z]:\\)[^']*)'/g, (quoted, named: string) =>
    rootOf(path.resolve(named), policy.roots) ? quoted : "'(a path outside the workspace)'",
  );
}

export interface CappedText {
  text: string;
  truncated: boolean;
}

/**
 * Cuts `text` to `limit` characters and says so in the text itself, with how to read the rest (`hint`, e.g.
 * "read the rest with fs.read range/lines"), so a model never mistakes a cut result for the whole.
 */
export function capResult(text: string, limit: number, hint: string | ((shown: number) => string)): CappedText {
  if (text.length <= limit) return { text, truncated: false };
  let cut = text.slice(0, limit);
  // never split a surrogate pair
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  const shownLines = cut.split('\n').length;
  const marker = `\n…[truncated: showed ${cut.length} of ${text.length} characters (about ${shownLines} lines); ${typeof hint === 'function' ? hint(cut.length) : hint}]`;
  return { text: cut + marker, truncated: true };
}
