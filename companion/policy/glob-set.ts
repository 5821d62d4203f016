import picomatch from 'picomatch';
import { escapeRegExp } from '../../shared/regexp';

/**
 * A list of globs matched as one: `firstMatch(input)` is the index of the first glob that matches, -1 for none —
 * the same answer as trying each picomatch matcher in turn. Every call of the companion checks its paths against
 * the ~50 deny globs, and `fs.ls` checks every entry it lists: one matcher per glob cost ~50 function calls and
 * regex runs per path (about 6 ms of a 1000-entry listing, bench). Here the globs' own regular expressions are
 * joined into one alternation, so a path that matches none — nearly every path — costs one regex run; only a match
 * tries the globs one by one to name which.
 */
export interface GlobSet {
  firstMatch(input: string): number;
  /**
   * False when `part` holds none of the texts every match needs (see requiredText): such a text never spans a
   * `/`, so a path made only of such parts joined at `/` matches no glob, and no part needs joining to know it.
   * True when it holds one, or when some glob names no such text.
   */
  partMayMatch(part: string): boolean;
}

export type GlobSetOptions = Pick<picomatch.PicomatchOptions, 'dot' | 'nocase' | 'windows'>;

const cache = new WeakMap<readonly string[], Map<string, GlobSet>>();
/** the last list and options asked for, answered without building the cache key (a listing asks once per entry) */
let last: { globs: readonly string[]; options: GlobSetOptions; set: GlobSet } | undefined;

export function globSet(globs: readonly string[], options: GlobSetOptions): GlobSet {
  if (last && last.globs === globs && last.options === options) return last.set;
  const key = JSON.stringify(options);
  let byOptions = cache.get(globs);
  if (!byOptions) {
    byOptions = new Map();
    cache.set(globs, byOptions);
  }
  let set = byOptions.get(key);
  if (!set) {
    set = compile(globs, options);
    byOptions.set(key, set);
  }
  last = { globs, options, set };
  return set;
}

/**
 * Unicode writes é as one character (NFC: what a config typed in an editor holds) or as an e and a combining accent
 * (NFD: the names macOS tools create, kept by a copy or a sync to Linux), and macOS's file systems take either for the
 * same name. A deny glob `**\/privé/**` in one form matched nothing of a folder named in the other, so its files
 * were read, listed and searched; globs and paths are both matched in NFC. Only a name with a character past ASCII
 * is normalized, which ASCII (nearly every path) needs no work for.
 */
const BEYOND_ASCII = /[^\u0000-\u007f]/;
export const composed = (text: string): string => (BEYOND_ASCII.test(text) ? text.normalize('NFC') : text);

function compile(given: readonly string[], options: GlobSetOptions): GlobSet {
  const globs = given.map(composed);
  const set = compileComposed(globs, options);
  // A listed name is asked first (deny-under.ts), a thousand per listing: one look for a needle or a character past
  // ASCII, where two (whether to compose it, then the needles) cost a listing of 1000 names ~0.1 ms more (profile).
  const first = set.prefilter && new RegExp(`${set.prefilter.source}|[^\\u0000-\\u007f]`, set.prefilter.flags);
  return {
    firstMatch: (input) => set.firstMatch(composed(input)),
    partMayMatch: (part) => (first === undefined || first.test(part)) && set.partMayMatch(composed(part)),
  };
}

function compileComposed(globs: readonly string[], options: GlobSetOptions): GlobSet & { prefilter?: RegExp } {
  const matchers = globs.map((glob) => picomatch(glob, options));
  const slow = (input: string) => matchers.findIndex((match) => match(input));
  // picomatch also compares the input with the glob's own text and, for Windows paths, changes backslashes first:
  // the joined expression covers neither, so Windows keeps the one-by-one matchers and literals are checked here
  const always = () => true;
  if (process.platform === 'win32' || options.windows === true) return { firstMatch: slow, partMayMatch: always };
  let any: RegExp;
  try {
    const sources = globs.map((glob) => picomatch.makeRe(glob, options).source);
    any = new RegExp(sources.map((source) => `(?:${source})`).join('|'), options.nocase ? 'i' : '');
  } catch {
    return { firstMatch: slow, partMayMatch: always };
  }
  const literals = new Set(globs);
  const needles = globs.map(requiredText);
  // one literal-only alternation: no backtracking, a few tens of ns per path, against ~1.3 µs for the joined
  // expression (micro-benchmark of the default deny list on 1000 listed names); any glob without a needle turns it off
  const prefilter = needles.every((needle) => needle !== undefined)
    ? new RegExp(needles.map((needle) => escapeRegExp(needle)).join('|'), options.nocase ? 'i' : '')
    : undefined;
  return {
    ...(prefilter ? { prefilter } : {}),
    // a glob's own text holds its needle, so an input equal to a glob never fails the prefilter
    partMayMatch: prefilter ? (part) => prefilter.test(part) : always,
    firstMatch(input) {
      if (input === '') return -1;
      if (prefilter && !prefilter.test(input) && !literals.has(input)) return -1;
      if (!any.test(input) && !literals.has(input)) return -1;
      return slow(input);
    },
  };
}

/**
 * Text every path the glob matches contains, or undefined when none can be named for sure: the longest run of
 * plain characters in one of its segments (a segment's text never spans a `/`, and `dir/**` matches `dir` itself).
 * Globs with anything that can stand for other text — braces, classes, extglobs, alternation, escapes, quotes, a
 * leading `!` — name none. A path without any glob's needle matches no glob, so it skips the joined expression.
 */
function requiredText(glob: string): string | undefined {
  if (/[\\{}()[\]"'`|^$]/.test(glob) || glob.startsWith('!')) return undefined;
  let best = '';
  for (const segment of glob.split('/')) {
    for (const run of segment.split(/[*?+@!]/)) if (run.length > best.length) best = run;
  }
  return best.length >= 2 ? best : undefined;
}
