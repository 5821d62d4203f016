import { z } from 'zod';
import { mcpServersConfigSchema } from '../mcp-servers/config-schema';

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

export const limitsSchema = z
  .object({
    maxFileBytes: z.number().int().positive().default(10 * 1024 * 1024).describe('largest file read or written'),
    maxResultChars: z.number().int().positive().default(20_000).describe('characters of one result a model reads'),
    maxMatches: z.number().int().positive().default(500).describe('most search hits'),
    defaultTimeoutMs: z.number().int().positive().default(60_000),
    maxTimeoutMs: z.number().int().positive().default(600_000),
    maxOutputBytes: z.number().int().positive().default(1024 * 1024).describe('per stream of one program'),
    maxListEntries: z.number().int().positive().default(2_000),
  })
  .strict();

export const siteOverrideSchema = z
  .object({
    modes: modesSchema.partial().optional(),
    allowCommands: z.array(z.string()).optional(),
    approvalWaitMs: z.number().int().nonnegative().optional(),
  })
  .strict();

/**
 * What no tool may read or change, whatever the config says: a `deny` in the config adds to this list, never
 * replaces it (a config copied from an older example must not drop the newer globs). Version-control internals and the usual places secrets are kept: .env files and keys, and — since
 * issue 9, finding 6 — the credential files of cloud CLIs, package managers, container and cluster tools, git
 * credential stores and GPG, wherever a root puts them (a root that is a home directory holds them all). Files
 * that share a name but are ordinary project settings (gradle.properties, settings.xml, .yarnrc.yml, auth.json
 * next to composer.json) stay readable; their secrets are redacted instead (policy/redact.ts).
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
];

export const configSchema = z
  .object({
    roots: z.array(z.string().min(1)).default([]).describe('workspace roots; the first is the workspace root'),
    deny: z
      .array(z.string())
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
    sites: z.record(z.string(), siteOverrideSchema).default({}),
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
