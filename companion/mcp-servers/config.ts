import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { describeValue, valueAt } from '../policy/load-config';
import { aboveMaxTimeout, modeSchema, type Mode } from '../policy/schema';
import { serverNameProblem } from './names';
import { looksLikeKey, shownUrl } from './shown-url';
import { fromHomeFolder } from '../home';
import { PROTOTYPE_KEY_RULE, prototypeKeyPaths } from '../hand-edited-file';

/**
 * `mcpServers` in the companion config (issue 11 §1), in the shape desktop clients use:
 *
 *   "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {…}, "cwd": "/…" }
 *   "remote": { "url": "https://…/mcp", "headers": { "Authorization": "Bearer …" } }
 *
 * plus chatbridge's own keys: `policy` (how its tools are decided), `timeoutMs` (per call), `startTimeoutMs` (its start)
 * and `disabled`.
 *
 * The config schema takes the whole object as it is (config-schema.ts), and every entry is checked here on its
 * own: a mistake in one server names the server, the key and the rule, that server is reported broken, and
 * the companion still starts with everything else.
 */
export const serverPolicySchema = z
  .object({
    default: modeSchema.optional().describe('the mode of every tool of this server without its own entry (default confirm)'),
    tools: z.record(z.string(), modeSchema).optional().describe('per tool (its name without the server prefix): auto, confirm or deny'),
    trustAnnotations: z
      .boolean()
      .optional()
      .describe("believe the server's readOnlyHint: such a tool is then decided as a read, like fs.read, unless default is deny (default false)"),
  })
  .strict();
export type ServerPolicy = z.infer<typeof serverPolicySchema>;

/** How long a server may take to start (initialize and its tool list) when its entry does not say: 30 s. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;
/**
 * The start timeout of a local proxy that signs in for a hosted server (mcp-remote): on its first start it opens a
 * browser and waits there while the person signs in, which takes longer than the default allows.
 */
export const SIGN_IN_START_TIMEOUT_MS = 300_000;
/** A start timeout below this fails a healthy server on a busy machine; above it, a broken one is told too late. */
const START_TIMEOUT_RANGE = { min: 1_000, max: 600_000 };

const common = {
  policy: serverPolicySchema.optional(),
  startTimeoutMs: z
    .number()
    .int()
    .min(START_TIMEOUT_RANGE.min)
    .max(START_TIMEOUT_RANGE.max)
    .optional()
    .describe('how long the server may take to start and list its tools, and a call waits for it meanwhile (default 30000, 1000–600000)'),
  timeoutMs: z.number().int().positive().optional().describe('how long one call may take (default limits.defaultTimeoutMs, at most limits.maxTimeoutMs)'),
  disabled: z.boolean().optional().describe('keep the entry but do not start the server'),
};

const stdioEntrySchema = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1).describe('the program to start'),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional().describe("added to the minimal environment (the policy's envAllow)"),
    cwd: z.string().min(1).optional().describe('an absolute directory (or ~/…) to start it in'),
    ...common,
  })
  .strict();

const httpEntrySchema = z
  .object({
    type: z.enum(['http', 'streamable-http', 'sse']).optional().describe('sse: the older HTTP+SSE transport only'),
    url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
    headers: z.record(z.string(), z.string()).optional(),
    ...common,
  })
  .strict();

interface SpecBase {
  name: string;
  policy: ServerPolicy;
  timeoutMs?: number;
  /** DEFAULT_START_TIMEOUT_MS when the entry does not say */
  startTimeoutMs?: number;
  disabled: boolean;
}

export type McpServerSpec =
  | (SpecBase & { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string })
  | (SpecBase & { transport: 'http' | 'sse'; url: string; headers: Record<string, string> });

export interface BrokenServer {
  name: string;
  /** one line per problem: `mcpServers.git.args: value "x" — must be an array` */
  problems: string[];
}

export interface ParsedServers {
  servers: McpServerSpec[];
  broken: BrokenServer[];
}

/**
 * Checks every entry on its own; never throws. `maxTimeoutMs` is the config's limits.maxTimeoutMs: a server's
 * timeoutMs above it is refused (every call is cut to it, so the time written would never hold).
 */
export function parseMcpServers(raw: Record<string, unknown>, maxTimeoutMs?: number): ParsedServers {
  const servers: McpServerSpec[] = [];
  const broken: BrokenServer[] = [];
  for (const [name, entry] of Object.entries(raw)) {
    const result = parseMcpServer(name, entry, maxTimeoutMs);
    if (result.ok) servers.push(result.spec);
    else broken.push({ name, problems: result.problems });
  }
  return { servers, broken };
}

export function parseMcpServer(name: string, entry: unknown, maxTimeoutMs?: number): { ok: true; spec: McpServerSpec } | { ok: false; problems: string[] } {
  const at = `mcpServers.${name}`;
  const nameProblem = serverNameProblem(name);
  if (nameProblem) return { ok: false, problems: [`${at}: ${nameProblem}`] };
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    return { ok: false, problems: [`${at}: value ${describeValue(entry)} — must be an object with "command" (a program) or "url" (a server over HTTP)`] };
  }
  const prototypeKeys = prototypeKeyPaths(entry, at);
  if (prototypeKeys.length > 0) return { ok: false, problems: prototypeKeys.map((path) => `${path}: key "__proto__" — ${PROTOTYPE_KEY_RULE}`) };
  const record = entry as Record<string, unknown>;
  const isHttp = 'url' in record || record.type === 'http' || record.type === 'streamable-http' || record.type === 'sse';
  if (isHttp && 'command' in record) {
    return { ok: false, problems: [`${at}: has both "command" and "url" — a server is either a program to start (command) or a URL, not both`] };
  }
  if (!isHttp && !('command' in record)) {
    return { ok: false, problems: [`${at}: has neither "command" nor "url" — say which program to start, or the server's URL`] };
  }
  const parsed = (isHttp ? httpEntrySchema : stdioEntrySchema).safeParse(record);
  if (!parsed.success) return { ok: false, problems: parsed.error.issues.map((issue) => describeIssue(at, issue, record)) };
  const data = parsed.data;
  // ${env:…}, ${input:…}, ${VAR}: desktop clients fill these in; here the server would get the text as written
  const values = { ...('env' in data ? { env: data.env } : {}), ...('headers' in data ? { headers: data.headers } : {}) };
  const variables = Object.entries(values).flatMap(([key, record]) =>
    Object.entries(record ?? {}).flatMap(([name, value]) => {
      const variable = /\$\{[^}\s]*\}/.exec(value)?.[0];
      return variable === undefined ? [] : [`${at}.${key}.${name}: holds ${JSON.stringify(variable.slice(0, 60))}, a variable chatbridge does not fill in — write the value itself`];
    }),
  );
  if (variables.length > 0) return { ok: false, problems: variables };
  const headerProblems = Object.entries('headers' in data ? (data.headers ?? {}) : {}).flatMap(([header, value]) => {
    const problem = headerProblem(header, value);
    return problem === undefined ? [] : [`${at}.headers${problem}`];
  });
  if (headerProblems.length > 0) return { ok: false, problems: headerProblems };
  if (data.timeoutMs !== undefined && maxTimeoutMs !== undefined && data.timeoutMs > maxTimeoutMs) {
    return { ok: false, problems: [`${at}.timeoutMs: value ${data.timeoutMs} — ${aboveMaxTimeout(maxTimeoutMs)}`] };
  }
  const base: SpecBase = {
    name,
    policy: data.policy ?? {},
    ...(data.timeoutMs !== undefined ? { timeoutMs: data.timeoutMs } : {}),
    ...(data.startTimeoutMs !== undefined ? { startTimeoutMs: data.startTimeoutMs } : {}),
    disabled: data.disabled === true,
  };
  if ('url' in data) {
    return { ok: true, spec: { ...base, transport: data.type === 'sse' ? 'sse' : 'http', url: data.url, headers: data.headers ?? {} } };
  }
  let cwd: string | undefined;
  if (data.cwd !== undefined) {
    const expanded = fromHomeFolder(data.cwd);
    if (!isAbsolute(expanded)) return { ok: false, problems: [`${at}.cwd: value ${describeValue(data.cwd)} — must be an absolute directory (or ~/…)`] };
    cwd = expanded;
  }
  return {
    ok: true,
    spec: { ...base, transport: 'stdio', command: data.command, args: data.args ?? [], env: data.env ?? {}, ...(cwd !== undefined ? { cwd } : {}) },
  };
}

/**
 * An env or header name that holds a credential (GITHUB_PERSONAL_ACCESS_TOKEN, BRAVE_API_KEY, Authorization, Cookie,
 * and the short forms MYSQL_PASS and AZURE_DEVOPS_PAT, as whole words: not BYPASS or PATH).
 */
const CREDENTIAL_NAME = /key|token|secret|passw|passphrase|pwd|auth(?!or(?!i[sz]))|credential|cookie|session|private|(?:^|[^a-z])(?:pass|pat)(?![a-z])/i;
/** Shorter values (a flag, a port, "true") would hide ordinary words in every answer; a credential is longer. */
const CREDENTIAL_MIN_CHARS = 8;

const isCredentialName = (name: string): boolean => CREDENTIAL_NAME.test(name) && name !== 'PWD' && name !== 'OLDPWD';

/**
 * A credential's name whose last word says the value is where or what kind of credential, not the credential
 * itself (`TOKEN_FILE`, `--session-dir`, `--auth-mode readonly`, `AUTH_TYPE`): hiding such a value hid a path or an
 * ordinary word ("readonly", "password") in every answer, code read with fs.read included.
 */
const SETTING_WORD = /(?:^|[-_.\s])(?:file|path|dir|directory|folder|type|mode|method|provider|scheme|flow|timeout|ttl|url|uri|endpoint|host|port)$/i;
const isSettingName = (name: string): boolean => SETTING_WORD.test(name.replace(/([a-z])([A-Z])/g, '$1_$2'));

/** A URL as given on a command line or as an HTTP server's address (`scheme://…`). */
const URL_START = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/**
 * The credentials the person wrote into one server's entry: the values of env variables and headers whose names
 * say they hold one (of an `Authorization`-style header also the part after its scheme, `Bearer …`, which is what a
 * server quotes back: "token … is not valid"), the value of a command-line option named so (`--api-key K`,
 * `--token=K`) and of an argument that sets one (`-e NOTES_TOKEN=K` for docker, `--header "Authorization: Bearer K"`
 * for a bridge to a remote server), and the key in a URL (the server's own, or one on its command line or in its
 * env): its user and password, a query value named for a key or shaped like one, a path part shaped like one.
 */
export function specCredentials(spec: McpServerSpec): string[] {
  const found = new Set<string>();
  const add = (value: string | undefined) => {
    const trimmed = value?.trim();
    if (trimmed !== undefined && trimmed.length >= CREDENTIAL_MIN_CHARS) found.add(trimmed);
  };
  const addNamed = (name: string, value: string | undefined) => {
    if (value === undefined || !isCredentialName(name) || isSettingName(name)) return;
    add(value);
    add(/^[A-Za-z][\w-]*\s+(\S+)$/.exec(value.trim())?.[1]);
  };
  const addUrl = (text: string) => {
    if (!URL_START.test(text)) return;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return;
    }
    const parts = [
      url.username,
      url.password,
      ...url.pathname.split('/').filter(looksLikeKey),
      ...[...url.searchParams].filter(([name, value]) => (isCredentialName(name) && !isSettingName(name)) || looksLikeKey(value)).map(([, value]) => value),
    ];
    for (const part of parts) {
      add(part);
      try {
        add(decodeURIComponent(part));
      } catch {
        // not percent-encoded text: taken as it is
      }
    }
  };
  for (const [name, value] of Object.entries(spec.transport === 'stdio' ? spec.env : spec.headers)) {
    addNamed(name, value);
    // DATABASE_URL=postgresql://app:…@db: a URL's key whatever the variable is called
    addUrl(value.trim());
  }
  if (spec.transport !== 'stdio') addUrl(spec.url);
  if (spec.transport === 'stdio') {
    spec.args.forEach((arg, index) => {
      addUrl(arg);
      const option = /^--?([A-Za-z][\w-]*)(?:=(.*))?$/s.exec(arg);
      if (option) {
        const next = spec.args[index + 1];
        addNamed(option[1] as string, option[2] ?? (next !== undefined && !next.startsWith('-') ? next : undefined));
        return;
      }
      // NAME=value (docker's -e, env's own form) or Name: value (a header given to a bridge)
      const setting = /^([A-Za-z_][\w.-]*)(?:=|:[ \t]*)(.*)$/s.exec(arg);
      if (setting && !URL_START.test(arg)) addNamed(setting[1] as string, setting[2]);
    });
  }
  return [...found];
}

/**
 * A value that is a word as words are written (postgres, password, Changeme, ADMIN), letters only and shorter than a
 * generated key: a default or example password, which is also an ordinary word of every answer.
 */
const PLAIN_WORD = /^(?:[a-z]{1,15}|[A-Z][a-z]{1,14}|[A-Z]{1,15})$/;

export const isPlainWord = (value: string): boolean => PLAIN_WORD.test(value);

/**
 * The default and example passwords (and user names) of the usual images, documents and tutorials that are also words
 * of ordinary answers, of the 8 letters and more a credential has here (CREDENTIAL_MIN_CHARS): known to everyone, so
 * showing one tells nothing, and hiding one garbled every answer.
 */
const DEFAULT_WORDS = new Set([
  'postgres', 'postgresql', 'password', 'changeme', 'changeit', 'localhost', 'database', 'username', 'rabbitmq', 'keycloak',
  'minioadmin', 'administrator', 'superuser', 'readonly', 'anonymous', 'development', 'production',
]);

/**
 * Every server's credentials (specCredentials): redacted from every answer as the companion's own token is, so a
 * key of any shape is found where the built-in patterns know only the usual ones. A default password that is a plain
 * word is not among them: POSTGRES_PASSWORD=postgres hid "postgres" in every file read, command run and result
 * ("image: [REDACTED]:16"), and DB_PASSWORD=password every "password" in code, which a model then wrote back. Where it
 * stands as a credential (password=…, "password": "…", a URL's user:password@) the built-in patterns still hide it;
 * chatbridge mcp list, add and import do not show it either. A plain word that is no default (--password
 * sunflowerfield) is the person's secret like any other: `ps` lists the server's command line, and a compose file's
 * unquoted `ADMIN_PASSWORD: Marigolds` is taken by no built-in pattern.
 */
export function configuredCredentials(raw: Record<string, unknown>): string[] {
  const { servers, broken } = parseMcpServers(raw);
  const specs = [...servers, ...broken.flatMap(({ name }) => asWritten(name, raw[name]))];
  return [...new Set(specs.flatMap(specCredentials))].filter((value) => !(isPlainWord(value) && DEFAULT_WORDS.has(value.toLowerCase())));
}

/**
 * A broken entry read as far as it can be (a misspelt key, a timeout out of range, a variable left in one value):
 * the server does not start, but the keys written in it are the person's all the same, and one of them in a file
 * read or a command's output was shown in the chat. Both shapes are taken, whatever the entry claims to be.
 */
function asWritten(name: string, entry: unknown): McpServerSpec[] {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return [];
  const record = entry as Record<string, unknown>;
  const strings = (value: unknown): Record<string, string> =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).filter((pair): pair is [string, string] => typeof pair[1] === 'string'))
      : {};
  const base: SpecBase = { name, policy: {}, disabled: true };
  const args = Array.isArray(record.args) ? record.args.filter((arg): arg is string => typeof arg === 'string') : [];
  return [
    { ...base, transport: 'stdio', command: '', args: typeof record.command === 'string' ? [record.command, ...args] : args, env: strings(record.env) },
    { ...base, transport: 'http', url: typeof record.url === 'string' ? record.url : '', headers: strings(record.headers) },
  ];
}

/**
 * Headers of the MCP transport itself: a value written in the config (copied from a request of another client)
 * took their place in every message, so the server answered 'No valid session ID provided' to each start.
 */
const TRANSPORT_HEADERS: readonly string[] = ['mcp-session-id', 'mcp-protocol-version', 'last-event-id'];

/** RFC 9110's token: what an HTTP header's name may hold. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Why fetch would refuse a header, said before the server is started: it threw 'Cannot convert argument to a
 * ByteString because the character at index 7 has a value of 8220', naming neither the header nor what to do, on
 * every try. The value is never quoted (it is a credential), only the character that cannot be sent.
 */
function headerProblem(name: string, value: string): string | undefined {
  if (!HEADER_NAME.test(name)) {
    return `: ${JSON.stringify(name.slice(0, 60))} is not an HTTP header name: letters, digits and !#$%&'*+-.^_\`|~ only, no spaces or colons`;
  }
  if (TRANSPORT_HEADERS.includes(name.toLowerCase())) {
    return `.${name}: chatbridge sets this header itself (the session and protocol version the server gives it), and a fixed value in its place makes the server refuse every message; remove it`;
  }
  const characters = [...value];
  // fetch drops the spaces and line breaks around a value (a pasted token's newline), not those inside it
  const first = characters.findIndex((ch) => !/[\t\n\r ]/.test(ch));
  const last = characters.findLastIndex((ch) => !/[\t\n\r ]/.test(ch));
  const at = characters.findIndex((ch, i) => (ch.codePointAt(0) as number) > 0xff || (i > first && i < last && /[\r\n\0]/.test(ch)) || ch === '\0');
  if (at === -1) return undefined;
  const code = (characters[at] as string).codePointAt(0) as number;
  return `.${name}: character ${at + 1} of its value (not shown: headers hold credentials) is U+${code.toString(16).toUpperCase().padStart(4, '0')}, which an HTTP header cannot carry: only Latin-1 characters and no line breaks (a quote or dash pasted from a document?)`;
}

/** The mode the server's policy sets for one of its tools, if it sets one (see tool-policy.ts for the rest). */
export function configuredMode(policy: ServerPolicy, tool: string): Mode | undefined {
  return policy.tools && Object.hasOwn(policy.tools, tool) ? policy.tools[tool] : undefined;
}

/** What a value is, never what it holds (it may hold tokens). */
export function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** Keys whose values are credentials (an Authorization header, an API key in env): a problem never quotes them. */
const CREDENTIAL_KEYS: readonly PropertyKey[] = ['headers', 'env'];

function describeIssue(at: string, issue: z.core.$ZodIssue, raw: unknown): string {
  const path = `${at}${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;
  const given = valueAt(raw, issue.path);
  // a URL refused is still shown as every URL of a server is: it may hold a key (shown-url.ts)
  const value = describeValue(issue.path.length === 1 && issue.path[0] === 'url' && typeof given === 'string' ? shownUrl(given) : given);
  if (CREDENTIAL_KEYS.includes(issue.path[0] ?? '') && issue.code !== 'unrecognized_keys') {
    const rule = issue.code === 'invalid_type' ? `must be ${issue.expected === 'record' ? 'an object of strings' : issue.expected}` : issue.message;
    return `${path}: ${kindOf(given)} (not shown: headers and env hold credentials) — ${rule}`;
  }
  switch (issue.code) {
    case 'unrecognized_keys':
      return `${path}: unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} — a server takes command, args, env, cwd (a program) or url, headers (HTTP), and policy, timeoutMs, startTimeoutMs, disabled`;
    case 'invalid_value':
      return `${path}: value ${value} — must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_type':
      return `${path}: value ${value} — must be ${issue.expected === 'record' ? 'an object of strings' : issue.expected}`;
    case 'too_small':
      return `${path}: value ${value} — ${issue.origin === 'number' ? `must be ${issue.inclusive === false ? '>' : '≥'} ${String(issue.minimum)}` : 'must not be empty'}`;
    case 'too_big':
      return `${path}: value ${value} — must be ${issue.inclusive === false ? '<' : '≤'} ${String(issue.maximum)}`;
    default:
      return `${path}: value ${value} — ${issue.message}`;
  }
}

