import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { globSet } from '../../../companion/policy/glob-set';
import { DEFAULT_DENY } from '../../../companion/policy/schema';

// The joined expression must name the same glob as trying picomatch's matchers one by one, for every path.
const GLOBS = [...DEFAULT_DENY, 'secrets/**', '*.log', 'build', '**/tmp?/*.txt', '{a,b}/**/c', '**/.env'];
const PIECES = ['.git', '.env', '.env.local', 'id_rsa', 'id_rsa.pub', 'a.pem', 'x.key', '.ssh', 'config', 'src', 'a', 'b', 'c', 'secrets',
  'build', 'x.log', 'tmp1', 'f.txt', '.aws', 'credentials', '.npmrc', '.kube', '..', '.', '**', 'node_modules', 'README.md', '.config', 'gcloud',
  'google-chrome', 'microsoft-edge-beta', '.mozilla', '.cache', 'snap', 'chromium', '.var', 'app', 'Library', 'Application Support', 'Google',
  'Microsoft Edge Dev', 'AppData', 'Local', 'Roaming', 'Mozilla', 'Slack', '.local', 'share', 'keyrings', 'x.kdbx', 'op', 'hub', 'rclone', 'rclone.conf'];

const compiled = new Map<string, picomatch.Matcher[]>();
function oneByOne(globs: readonly string[], input: string, options: picomatch.PicomatchOptions): number {
  const key = JSON.stringify([globs, options]);
  let matchers = compiled.get(key);
  if (!matchers) compiled.set(key, (matchers = globs.map((g) => picomatch(g, options))));
  return matchers.findIndex((match) => match(input));
}

describe('globSet', () => {
  for (const options of [{ dot: true }, { dot: true, windows: false }, { dot: true, nocase: true }]) {
    it(`names the same first glob as the matchers one by one (${JSON.stringify(options)})`, () => {
      const set = globSet(GLOBS, options);
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...PIECES), { minLength: 0, maxLength: 5 }), fc.boolean(), (parts, slash) => {
          const input = parts.join('/') + (slash ? '/' : '');
          expect(set.firstMatch(input)).toBe(oneByOne(GLOBS, input, options));
        }),
        { seed: 13, numRuns: 3000 },
      );
    });
  }

  // every glob here names text its paths must hold, so the literal prefilter is on (the brace glob above turns it off)
  const WITH_NEEDLES = GLOBS.filter((glob) => !glob.includes('{'));
  for (const options of [{ dot: true }, { dot: true, nocase: true }]) {
    it(`names the same first glob with the needle prefilter on (${JSON.stringify(options)})`, () => {
      const set = globSet(WITH_NEEDLES, options);
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...PIECES, 'A.PEM', '.Env', 'TMP2', 'x.LOG'), { minLength: 0, maxLength: 5 }), fc.boolean(), (parts, slash) => {
          const input = parts.join('/') + (slash ? '/' : '');
          expect(set.firstMatch(input)).toBe(oneByOne(WITH_NEEDLES, input, options));
        }),
        { seed: 13, numRuns: 3000 },
      );
    });
  }

  it('the default deny list keeps the prefilter on: a name holding none of its literals is answered without the joined expression', () => {
    for (const options of [{ dot: true }, { dot: true, nocase: true }]) {
      const set = globSet(DEFAULT_DENY, options);
      expect(set.partMayMatch('file-0001.txt')).toBe(false);
      expect(set.partMayMatch('src/components')).toBe(false);
      expect(set.partMayMatch('.config/google-chrome')).toBe(true);
    }
  });

  it("a listed name any glob may match is never answered no by the prefilter, in either Unicode form or with a look-alike", () => {
    // names joined from parts a listing meets: plain ASCII, a deny glob's needle, the Kelvin sign (NFC: K), é composed
    // and decomposed, CJK; partMayMatch must say yes wherever a glob matches the name (deny-under.ts asks it first)
    const PARTS = ['file', '-0001', '.txt', '.kube', '.\u212Aube', 'config', '.env', 'priv\u00e9', 'prive\u0301', '\u6587\u4ef6', 'id_rsa', '.'];
    const sets = [globSet([...DEFAULT_DENY, '**/priv\u00e9/**', 'prive\u0301*'], { dot: true, nocase: true }), globSet([...DEFAULT_DENY, '**/priv\u00e9/**'], { dot: true })];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PARTS), { minLength: 1, maxLength: 4 }), (parts) => {
        const name = parts.join('');
        for (const set of sets) {
          for (const input of [name, `x/${name}`, `${name}/y`]) if (set.firstMatch(input) !== -1) expect(set.partMayMatch(input)).toBe(true);
        }
      }),
      { seed: 29, numRuns: 2000 },
    );
  });

  it('names the same first glob for made-up globs, special characters included', () => {
    const TOKENS = ['**', '*', '?', 'a', 'b', 'ab', '.env', 'x.y', 'tmp', '|', '$', '^', '"ab"', '+', '@', '!', '-', ',', '.', '..'];
    const glob = fc.array(fc.array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }).map((segments) =>
      segments.map((tokens) => tokens.join('')).join('/'),
    );
    const INPUT = ['a', 'b', 'ab', 'abab', '.env', 'x.y', 'xzy', 'tmp', 'tmpa', 'a|b', '$', '^', '"ab"', 'a+', '@', '!', '-', ',', '.', 'x'];
    fc.assert(
      fc.property(fc.array(glob, { minLength: 1, maxLength: 3 }), fc.array(fc.constantFrom(...INPUT), { minLength: 1, maxLength: 3 }), (globs, parts) => {
        const input = parts.join('/');
        expect(globSet(globs, { dot: true }).firstMatch(input)).toBe(oneByOne(globs, input, { dot: true }));
      }),
      { seed: 13, numRuns: 3000 },
    );
  });

  it('matches a glob given as the literal path, as picomatch does', () => {
    expect(globSet(['**'], { dot: true }).firstMatch('**')).toBe(0);
    expect(globSet(['a/[b'], { dot: true }).firstMatch('a/[b')).toBe(oneByOne(['a/[b'], 'a/[b', { dot: true }));
  });

  it('answers -1 for the empty path and for no globs', () => {
    expect(globSet(GLOBS, { dot: true }).firstMatch('')).toBe(-1);
    expect(globSet([], { dot: true }).firstMatch('a')).toBe(-1);
  });
});
