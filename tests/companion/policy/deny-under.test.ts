import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { denyUnder } from '../../../companion/policy/deny-under';
import { deniedBy, RESERVED_REASON } from '../../../companion/policy/path-guard';
import { DEFAULT_DENY } from '../../../companion/policy/schema';

// A listing asks denyUnder(start) about each entry by its start-relative path; the answer must be deniedBy's for
// the entry's absolute path, whatever the roots, reserved directories and start (nested roots included).
const DENY = [...DEFAULT_DENY, 'secrets/**', '*.log', 'build', 'w/x/**'];
const PIECES = ['w', 'x', 'y', '.git', '.env', 'id_rsa', 'a.pem', '.ssh', 'secrets', 'build', 'f.log', 'src', 'data', 'node_modules', 'cb', 'CB'];
const segments = (max: number) => fc.array(fc.constantFrom(...PIECES), { minLength: 0, maxLength: max });
const absolute = (parts: string[]) => `/${parts.join('/')}`;

describe('denyUnder', () => {
  it('answers as deniedBy on the joined path, for any roots, reserved directories, start and entry', () => {
    fc.assert(
      fc.property(
        fc.array(segments(3), { minLength: 1, maxLength: 3 }),
        fc.array(segments(4), { minLength: 0, maxLength: 2 }),
        segments(4),
        fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 4 }),
        (roots, reserved, start, entry) => {
          const policy = { roots: roots.map(absolute), reserved: reserved.map(absolute), deny: DENY };
          const from = absolute(start);
          const relative = entry.join('/');
          expect(denyUnder(from, policy)(relative)).toBe(deniedBy(`${from === '/' ? '' : from}/${relative}`, policy));
        },
      ),
      { seed: 13, numRuns: 5000 },
    );
  });

  it('names the glob, the reserved directory and nothing outside the roots', () => {
    const policy = { roots: ['/ws'], reserved: ['/ws/cb'], deny: DENY };
    expect(denyUnder('/ws', policy)('.env')).toBe('**/.env');
    expect(denyUnder('/ws/src', policy)('a/.env')).toBe('**/.env');
    expect(denyUnder('/ws', policy)('f.log')).toBe('*.log');
    expect(denyUnder('/ws/src', policy)('f.log')).toBeUndefined();
    expect(denyUnder('/ws', policy)('cb')).toBe(RESERVED_REASON);
    expect(denyUnder('/ws/cb', policy)('anything')).toBe(RESERVED_REASON);
    expect(denyUnder('/elsewhere', policy)('.env')).toBeUndefined();
    expect(denyUnder('/ws', policy)('src/main.ts')).toBeUndefined();
  });

  it('names the reserved directory written in another case, as a deny glob is matched in any case', () => {
    // on a case-insensitive file system (macOS, Windows, a FAT drive, an ext4 folder with casefold) /ws/CB is /ws/cb,
    // and a name missing on the way is not resolved to the case it has on disk
    const policy = { roots: ['/ws'], reserved: ['/ws/cb'], deny: DENY };
    expect(deniedBy('/ws/CB/tokens.json', policy)).toBe(RESERVED_REASON);
    expect(deniedBy('/ws/.ENV', policy)).toBe('**/.env');
    expect(denyUnder('/ws', policy)('Cb')).toBe(RESERVED_REASON);
    expect(denyUnder('/WS', { ...policy, roots: ['/WS'] })('cb')).toBe(RESERVED_REASON);
    expect(deniedBy('/ws/cbx', policy)).toBeUndefined();
  });
});
