import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { ToolError } from '../../shared/errors';
import { asToolError } from '../fsx/errno';
import { writeFileAtomic } from '../home';

/**
 * Bearer tokens, stored only as sha256 hashes (a leaked tokens.json does not let anyone in). Checked by hashing
 * the presented token and comparing hashes with timingSafeEqual, so neither the length nor the content of a
 * stored token leaks through timing.
 */
export interface TokenStore {
  /** `presented`: hashToken(token), when the caller made it already (the HTTP guard, which also watches it) */
  verify(token: string | undefined | null, presented?: Buffer): boolean;
  /** a fresh random token, stored (hashed) for later starts */
  issue(label: string): string;
  paired(): boolean;
  /** accepted for this process only (`--token` / CHATBRIDGE_TOKEN / the CLI token), never written */
  addEphemeral(token: string): void;
  /** whether `token` is one given at start (addEphemeral), the person's own rather than a paired extension's */
  given(token: string | undefined): boolean;
  /**
   * Forgets a paired token (the extension's unpair): refused from then on, also by the ws connections it opened
   * (`onRevoke`). A token given at start is not a paired one and lasts as long as the process: `given`. Throws a
   * ToolError naming the file when tokens.json cannot be written, and then nothing is revoked.
   */
  revoke(token: string): 'revoked' | 'given' | 'unknown';
  /** told the hash of every token revoked; returns the unsubscribe */
  onRevoke(listener: (hash: Buffer) => void): () => void;
}

const fileSchema = z.object({
  tokens: z.array(z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), label: z.string(), createdAt: z.string() })),
});

export function hashToken(token: string): Buffer<ArrayBuffer> {
  return hash('sha256', token, 'buffer') as Buffer<ArrayBuffer>;
}

export interface TokenStoreOptions {
  file?: string;
  clock?: () => number;
  /**
   * A token's plain text, when the store learns it: issued, or presented and valid (at every check). Only hashes are
   * kept, so this is how the companion can keep a paired extension's token out of every answer (policy/redact.ts).
   */
  onKnown?: (token: string) => void;
}

export function createTokenStore(options: TokenStoreOptions = {}): TokenStore {
  const clock = options.clock ?? Date.now;
  const stored: z.infer<typeof fileSchema>['tokens'] = [];
  if (options.file && existsSync(options.file)) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(options.file, 'utf8'));
    } catch {
      // torn, hand-edited or unreadable: the same as a file of the wrong shape
    }
    const parsed = fileSchema.safeParse(json);
    // a damaged file means nobody is paired, never that anybody is
    if (parsed.success) stored.push(...parsed.data.tokens);
  }
  const persistent: Buffer<ArrayBuffer>[] = stored.map((t) => Buffer.from(t.sha256, 'hex'));
  const ephemeral: Buffer<ArrayBuffer>[] = [];
  const revokeListeners = new Set<(hash: Buffer) => void>();
  const save = (tokens: typeof stored) => {
    if (options.file) writeFileAtomic(options.file, JSON.stringify({ tokens }, null, 2));
  };
  const given = (token: string | undefined): boolean => {
    if (typeof token !== 'string' || token.length === 0 || token.length > 4096) return false;
    const presented = hashToken(token);
    return ephemeral.some((hash) => timingSafeEqual(presented, hash));
  };
  return {
    verify(token, hashed) {
      if (typeof token !== 'string' || token.length === 0 || token.length > 4096) return false;
      const presented = hashed ?? hashToken(token);
      let ok = false;
      // compare against every hash, no early exit
      for (const hash of [...persistent, ...ephemeral]) ok = timingSafeEqual(presented, hash) || ok;
      if (ok) options.onKnown?.(token);
      return ok;
    },
    issue(label) {
      const token = randomBytes(32).toString('base64url');
      const hash = hashToken(token);
      const entry = { sha256: hash.toString('hex'), label, createdAt: new Date(clock()).toISOString() };
      // written before it counts: a token the file could not keep is never handed out
      save([...stored, entry]);
      persistent.push(hash);
      stored.push(entry);
      options.onKnown?.(token);
      return token;
    },
    given,
    revoke(token) {
      // one given at start as well would still be taken: it is not forgotten by this
      if (given(token)) return 'given';
      const presented = hashToken(token);
      const index = persistent.findIndex((hash) => timingSafeEqual(presented, hash));
      if (index === -1) return 'unknown';
      const hex = presented.toString('hex');
      // Written before anything changes here: a restart right after must not bring the token back. A file that cannot
      // be written (the data dir's disk full) revokes nothing — refused here but kept in the file, the token worked
      // again after a restart, its sockets stayed open, and the extension's second try, refused, took it for revoked.
      try {
        save(stored.filter((t) => t.sha256 !== hex));
      } catch (error) {
        const cause = asToolError(error, options.file);
        throw new ToolError(cause.code, `the token was not revoked and still works: ${cause.message}`, cause.data);
      }
      persistent.splice(index, 1);
      stored.splice(0, stored.length, ...stored.filter((t) => t.sha256 !== hex));
      for (const listener of revokeListeners) listener(presented);
      return 'revoked';
    },
    onRevoke(listener) {
      revokeListeners.add(listener);
      return () => revokeListeners.delete(listener);
    },
    paired() {
      return persistent.length > 0;
    },
    addEphemeral(token) {
      ephemeral.push(hashToken(token));
    },
  };
}
