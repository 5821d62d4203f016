import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPairing, PAIRING_MAX_TRIES, PAIRING_TTL_MS } from '../../../companion/auth/pairing';
import { createTokenStore } from '../../../companion/auth/token-store';
import { ToolError } from '../../../shared/errors';

const dir = mkdtempSync(join(tmpdir(), 'cb-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('pairing codes', () => {
  it('codes are 8 unambiguous characters and one-time', () => {
    const pairing = createPairing();
    const { code } = pairing.newCode();
    expect(code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    expect(pairing.exchange(code.toLowerCase())).toEqual({ ok: true });
    expect(pairing.exchange(code)).toMatchObject({ ok: false, reason: 'no-code' });
  });

  it('pairing brute force: 5 wrong tries void the code, even the right one after that', () => {
    const pairing = createPairing();
    const { code } = pairing.newCode();
    const wrong = code === 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA';
    for (let i = 1; i < PAIRING_MAX_TRIES; i++) expect(pairing.exchange(wrong)).toEqual({ ok: false, reason: 'wrong', triesLeft: PAIRING_MAX_TRIES - i });
    expect(pairing.exchange(wrong)).toMatchObject({ ok: false, reason: 'exhausted' });
    expect(pairing.exchange(code)).toMatchObject({ ok: false, reason: 'no-code' });
  });

  it('a code expires after 10 minutes', () => {
    let now = 0;
    const pairing = createPairing({ clock: () => now });
    const { code } = pairing.newCode();
    now = PAIRING_TTL_MS + 1;
    expect(pairing.exchange(code)).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('prefixes and overlong guesses do not match', () => {
    const pairing = createPairing();
    const { code } = pairing.newCode();
    expect(pairing.exchange(code.slice(0, 7)).ok).toBe(false);
    expect(pairing.exchange(code + 'X').ok).toBe(false);
    expect(pairing.exchange(code).ok).toBe(true);
  });
});

describe('token store', () => {
  it('stores only hashes and verifies across a reload', () => {
    const file = join(dir, 'tokens.json');
    const store = createTokenStore({ file });
    expect(store.paired()).toBe(false);
    const token = store.issue('extension');
    expect(readFileSync(file, 'utf8')).not.toContain(token);
    const reloaded = createTokenStore({ file });
    expect(reloaded.paired()).toBe(true);
    expect(reloaded.verify(token)).toBe(true);
    expect(reloaded.verify(token + 'x')).toBe(false);
    expect(reloaded.verify('')).toBe(false);
    expect(reloaded.verify(undefined)).toBe(false);
  });

  it('a revoke that cannot write tokens.json revokes nothing and says so: the token is not refused here while the file keeps it for the next start', () => {
    const file = join(dir, 'tokens3.json');
    const store = createTokenStore({ file });
    const token = store.issue('extension');
    const told: Buffer[] = [];
    store.onRevoke((hash) => told.push(hash));
    // the file cannot be replaced (as on a full disk): a folder stands where it is renamed to
    const kept = readFileSync(file, 'utf8');
    rmSync(file);
    mkdirSync(join(file, 'in-the-way'), { recursive: true });
    let refusal: unknown;
    try {
      store.revoke(token);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ToolError);
    expect((refusal as ToolError).message).toMatch(/^the token was not revoked and still works: .*tokens3\.json/);
    expect(store.verify(token)).toBe(true);
    expect(told).toEqual([]);
    // once the file can be written, the same revoke goes through, for this process and the next
    rmSync(file, { recursive: true });
    writeFileSync(file, kept);
    expect(store.revoke(token)).toBe('revoked');
    expect(store.verify(token)).toBe(false);
    expect(told).toHaveLength(1);
    expect(createTokenStore({ file }).verify(token)).toBe(false);
  });

  it('ephemeral tokens are accepted but never written', () => {
    const file = join(dir, 'tokens2.json');
    const store = createTokenStore({ file });
    store.addEphemeral('preset-token-0123456789');
    expect(store.verify('preset-token-0123456789')).toBe(true);
    expect(store.paired()).toBe(false);
    expect(createTokenStore({ file }).verify('preset-token-0123456789')).toBe(false);
  });
});
