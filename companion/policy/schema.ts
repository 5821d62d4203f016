import { z } from 'zod';
import { mcpServersConfigSchema } from '../mcp-servers/config-schema';
import { SITE_IDS } from '../../shared/site-ids';

/**
 * The person's policy (DESIGN §5.3). Every field has an embedded default, so chatbridge runs with no config
 * file; a config file overrides fields and is validated here (errors name the key, the value and the rule).
 */
export const modeSchema = z.enum(['auto', 'confirm', 'deny']);
export type Mode = z.infer<typeof modeSchema>;

export const modesSchema = z
  .object({
    read: modeSchema.default('auto'),
    write: modeSchema.default('confirm'),
    delete: modeSchema.default('confirm'),
    exec: modeSchema.default('confirm'),
  })
  .strict();

/** The default timeout when the config names none: a minute, or `maxTimeoutMs` when that is set lower. */
const DEFAULT_TIMEOUT_MS = 60_000;

/** The rule a timeout written above limits.maxTimeoutMs breaks (limits.defaultTimeoutMs, an MCP server's timeoutMs). */
export const aboveMaxTimeout = (maxTimeoutMs: number): string =>
  `must be ≤ limits.maxTimeoutMs (${maxTimeoutMs}), the longest any call may take: raise maxTimeoutMs too`;

/** limits.maxPendingApprovals' default, also for an approval store made without a policy */
export const DEFAULT_MAX_PENDING_APPROVALS = 100;

export const limitsSchema = z
  .object({
    maxFileBytes: z.number().int().positive().default(10 * 1024 * 1024).describe('largest file read or written'),
    maxResultChars: z.number().int().positive().default(20_000).describe('characters of one result a model reads'),
    maxMatches: z.number().int().positive().default(500).describe('most search hits'),
    defaultTimeoutMs: z.number().int().positive().optional(),
    maxTimeoutMs: z.number().int().positive().default(600_000),
    maxOutputBytes: z.number().int().positive().default(1024 * 1024).describe('per stream of one program'),
    maxListEntries: z.number().int().positive().default(2_000),
    maxActions: z.number().int().positive().default(1_000).describe('files of one batch, actions of one plan'),
    maxPendingApprovals: z.number().int().positive().default(DEFAULT_MAX_PENDING_APPROVALS).describe('approvals waiting at once'),
  })
  .strict()
  // every timeout is cut to maxTimeoutMs (tools/run-program.ts, plans, MCP calls): a default written above it was taken
  // and never held, with nothing said; the built-in default follows a maxTimeoutMs set below it
  .superRefine((limits, ctx) => {
    if (limits.defaultTimeoutMs !== undefined && limits.defaultTimeoutMs > limits.maxTimeoutMs) {
      ctx.addIssue({
        code: 'custom',
        path: ['defaultTimeoutMs'],
        message: aboveMaxTimeout(limits.maxTimeoutMs),
      });
    }
  })
  .transform((limits) => ({ ...limits, defaultTimeoutMs: limits.defaultTimeoutMs ?? Math.min(DEFAULT_TIMEOUT_MS, limits.maxTimeoutMs) }));

export const siteOverrideSchema = z
  .object({
    modes: modesSchema.partial().optional(),
    allowCommands: z.array(z.string()).optional(),
    approvalWaitMs: z.number().int().nonnegative().optional(),
  })
  .strict();

/**
 * What no tool may read or change, whatever the config says: a `deny` in the config adds to this list, never
 * replaces it (a config copied from an older example must not drop the newer globs). Version-control internals and
 * the usual places secrets are kept, wherever a root puts them (a root that is a home directory holds them all):
 * .env files and keys; since issue 9, finding 6, the credential files of cloud CLIs, package managers, container
 * and cluster tools, git credential stores and GPG; and the browser profiles, system keychains, password managers
 * and signed-in desktop apps that hold the person's sessions and passwords. Files that share a name but are
 * ordinary project settings (gradle.properties, settings.xml, .yarnrc.yml, auth.json next to composer.json) stay
 * readable; their secrets are redacted instead (policy/redact.ts). No glob uses braces or classes: each names a
 * literal the deny check's prefilter looks for (policy/glob-set.ts), and one without would turn it off.
 */
export const DEFAULT_DENY: readonly string[] = [
  '**/.git/**',
  '**/.env',
  '**/.env.*',
  // keys and keystores
  '**/*.pem',
  '**/*.key',
  '**/id_rsa*',
  '**/id_ed25519*',
  '**/id_ecdsa*',
  '**/id_dsa*',
  '**/.ssh/**',
  '**/*.p12',
  '**/*.pfx',
  '**/*.jks',
  '**/*.keystore',
  '**/*.ppk',
  '**/.gnupg/**',
  // cloud CLIs: AWS (credentials, config, SSO and CLI caches), Google Cloud, Azure
  '**/.aws/**',
  '**/.config/gcloud/**',
  '**/.azure/**',
  // package managers
  '**/.npmrc',
  '**/.pypirc',
  '**/.cargo/credentials',
  '**/.cargo/credentials.toml',
  '**/.gem/credentials',
  '**/.composer/auth.json',
  '**/.config/composer/auth.json',
  '**/.m2/settings.xml',
  '**/.m2/settings-security.xml',
  '**/.gradle/gradle.properties',
  // containers, clusters, infrastructure
  '**/.docker/config.json',
  '**/.kube/**',
  '**/.terraform.d/credentials.tfrc.json',
  '**/.vault-token',
  // git and other login stores
  '**/.git-credentials',
  '**/.config/git/credentials',
  '**/.config/gh/hosts.yml',
  '**/.netrc',
  '**/_netrc',
  '**/.pgpass',
  // browser profiles (Linux, macOS, Windows): cookies, saved passwords, every site's session and every extension's
  // storage — chatbridge's own pairing token included. Chromium-family browsers on Linux without a keyring encrypt
  // cookies and passwords with a fixed key, and Firefox keeps cookies in plain SQLite: reading these is signing in
  // as the person. Their caches hold the pages they showed.
  '**/.config/google-chrome/**',
  '**/.config/google-chrome-beta/**',
  '**/.config/google-chrome-unstable/**',
  '**/.config/chromium/**',
  '**/.config/BraveSoftware/**',
  '**/.config/microsoft-edge/**',
  '**/.config/microsoft-edge-beta/**',
  '**/.config/microsoft-edge-dev/**',
  '**/.config/vivaldi/**',
  '**/.config/vivaldi-snapshot/**',
  '**/.config/opera/**',
  '**/.config/opera-beta/**',
  '**/.mozilla/**',
  '**/.cache/google-chrome/**',
  '**/.cache/google-chrome-beta/**',
  '**/.cache/chromium/**',
  '**/.cache/BraveSoftware/**',
  '**/.cache/microsoft-edge/**',
  '**/.cache/mozilla/**',
  '**/snap/chromium/**',
  '**/snap/firefox/**',
  '**/.var/app/**',
  '**/Library/Application Support/Google/**',
  '**/Library/Application Support/Chromium/**',
  '**/Library/Application Support/BraveSoftware/**',
  '**/Library/Application Support/Microsoft Edge/**',
  '**/Library/Application Support/Microsoft Edge Beta/**',
  '**/Library/Application Support/Microsoft Edge Dev/**',
  '**/Library/Application Support/Firefox/**',
  '**/Library/Application Support/Arc/**',
  '**/Library/Application Support/Vivaldi/**',
  '**/Library/Application Support/com.operasoftware.Opera/**',
  '**/Library/Safari/**',
  '**/Library/Containers/com.apple.Safari/**',
  '**/Library/Cookies/**',
  '**/AppData/Local/Google/**',
  '**/AppData/Local/Chromium/**',
  '**/AppData/Local/BraveSoftware/**',
  '**/AppData/Local/Microsoft/Edge/**',
  '**/AppData/Local/Microsoft/Edge Beta/**',
  '**/AppData/Local/Microsoft/Edge Dev/**',
  '**/AppData/Local/Vivaldi/**',
  '**/AppData/Roaming/Opera Software/**',
  '**/AppData/Local/Mozilla/**',
  '**/AppData/Roaming/Mozilla/**',
  // the system's and password managers' secret stores
  '**/Library/Keychains/**',
  '**/.local/share/keyrings/**',
  '**/.local/share/kwalletd/**',
  '**/AppData/Local/Microsoft/Credentials/**',
  '**/AppData/Roaming/Microsoft/Credentials/**',
  '**/AppData/Roaming/Microsoft/Protect/**',
  '**/.password-store/**',
  '**/*.kdbx',
  '**/.config/Bitwarden/**',
  '**/.config/Bitwarden CLI/**',
  '**/Library/Application Support/Bitwarden/**',
  '**/Library/Application Support/Bitwarden CLI/**',
  '**/AppData/Roaming/Bitwarden/**',
  '**/AppData/Roaming/Bitwarden CLI/**',
  '**/.config/op/**',
  // desktop apps signed in to the person's accounts (their session tokens sit in the app's own storage) and
  // developer tools' login files
  '**/.config/Slack/**',
  '**/Library/Application Support/Slack/**',
  '**/AppData/Roaming/Slack/**',
  '**/.config/discord/**',
  '**/Library/Application Support/discord/**',
  '**/AppData/Roaming/discord/**',
  '**/.config/Signal/**',
  '**/Library/Application Support/Signal/**',
  '**/AppData/Roaming/Signal/**',
  '**/.local/share/TelegramDesktop/**',
  '**/Library/Application Support/Telegram Desktop/**',
  '**/AppData/Roaming/Telegram Desktop/**',
  '**/.config/Claude/**',
  '**/Library/Application Support/Claude/**',
  '**/AppData/Roaming/Claude/**',
  '**/.config/github-copilot/**',
  '**/.config/hub',
  '**/.config/rclone/rclone.conf',
  // editors' state databases (VS Code, Cursor, VSCodium, Windsurf): sign-in tokens, kept as text where there is
  // no keyring
  '**/User/globalStorage/state.vscdb',
  '**/User/globalStorage/state.vscdb.backup',
  // more CLIs' login files: hosting and cloud (DigitalOcean, Fly, Netlify, Vercel, Firebase, Cloudflare, Supabase,
  // Railway, Hetzner, Oracle Cloud), ML (Hugging Face, Kaggle), ngrok, Stripe, Podman, databases and object stores,
  // Terraform's CLI config, and age keys for sops
  '**/.config/doctl/**',
  '**/Library/Application Support/doctl/**',
  '**/.fly/config.yml',
  '**/.netlify/config.json',
  '**/.config/netlify/config.json',
  '**/Library/Preferences/netlify/config.json',
  '**/com.vercel.cli/**',
  '**/configstore/firebase-tools.json',
  '**/.wrangler/config/**',
  '**/.cloudflared/**',
  '**/.supabase/access-token',
  '**/.railway/config.json',
  '**/.config/hcloud/**',
  '**/.oci/**',
  '**/huggingface/token',
  '**/huggingface/stored_tokens',
  '**/.huggingface/token',
  '**/kaggle.json',
  '**/ngrok/ngrok.yml',
  '**/.ngrok2/ngrok.yml',
  '**/.config/stripe/config.toml',
  '**/containers/auth.json',
  '**/.my.cnf',
  '**/.mylogin.cnf',
  '**/.s3cfg',
  '**/.boto',
  '**/.terraformrc',
  '**/sops/age/keys.txt',
];

/**
 * A deny glob is matched on the path relative to its root (policy/path-guard.ts deniedBy), so one written as a
 * whole path ("/home/you/project/secret/**", "~/notes/**") or ending in "/" ("secret/") matches no path at all:
 * the config was taken and the folder it named stayed open to every tool, with nothing said. Such a glob is refused.
 */
function denyGlobRule(glob: string, ctx: z.RefinementCtx): void {
  const relativeForm = 'write it relative to its root ("secret/**") or at any depth ("**/secret/**")';
  if (glob.trim() === '') ctx.addIssue({ code: 'custom', message: 'an empty deny glob matches nothing' });
  else if (/^(?:\/|~(?:$|[/\\])|[A-Za-z]:[/\\])/.test(glob))
    ctx.addIssue({ code: 'custom', message: `a deny glob matches the path relative to its root, so a whole path matches nothing: ${relativeForm}` });
  else if (glob.endsWith('/'))
    ctx.addIssue({ code: 'custom', message: `a deny glob ending in "/" matches nothing: ${JSON.stringify(`${glob.replace(/\/+$/, '')}/**`)} names the folder and what it holds` });
}

export const configSchema = z
  .object({
    roots: z.array(z.string().min(1)).default([]).describe('workspace roots; the first is the workspace root'),
    deny: z
      .array(z.string().superRefine(denyGlobRule))
      .default([])
      .transform((extra) => [...new Set([...DEFAULT_DENY, ...extra])])
      .describe('globs no tool may read or change, in addition to the built-in DEFAULT_DENY'),
    modes: modesSchema.default({ read: 'auto', write: 'confirm', delete: 'confirm', exec: 'confirm' }),
    allowCommands: z
      .array(z.string())
      .default([])
      .describe('commands that run without approval, as argv written as one string: "npm test", "git status"'),
    envAllow: z.array(z.string()).default(['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'USER', 'SHELL']),
    limits: limitsSchema.default(limitsSchema.parse({})),
    redact: z
      .array(z.string())
      .default([])
      .describe('extra regular expressions whose matches are replaced by [REDACTED] in results'),
    approvalWaitMs: z.number().int().nonnegative().default(120_000),
    approvalTtlMs: z.number().int().positive().default(30 * 60_000),
    sites: z
      .record(
        // a misspelt site would be an override nothing ever asks for: `"deepsek": {"modes": {"exec": "deny"}}` left
        // DeepSeek's programs under the global mode with nothing said
        z.string().refine((id) => (SITE_IDS as readonly string[]).includes(id), {
          message: `must be a site id: ${SITE_IDS.map((id) => JSON.stringify(id)).join(', ')}`,
        }),
        siteOverrideSchema,
      )
      .default({})
      .describe('per-site overrides, keyed by site id'),
    journal: z
      .object({
        maxAgeDays: z.number().positive().default(14),
        maxBytes: z.number().int().positive().default(512 * 1024 * 1024),
      })
      .strict()
      .default({ maxAgeDays: 14, maxBytes: 512 * 1024 * 1024 }),
    mcpServers: mcpServersConfigSchema,
  })
  .strict();

export type Config = z.infer<typeof configSchema>;

/** The policy the companion runs with: the config after roots were realpath'd and regexes compiled. */
export interface Policy extends Omit<Config, 'redact'> {
  /** realpath'd, absolute, de-duplicated; roots[0] is the workspace root (plans and relative paths). */
  roots: string[];
  redact: RegExp[];
  /**
   * What the companion keeps for itself (its data directory: tokens, journal, approvals, audit, logs), realpath'd.
   * Denied to every tool whatever the config says; set by protectDataDir, never read from a config file.
   */
  reserved: string[];
}
