import picomatch from 'picomatch';
import { ToolError } from '../../shared/errors';

/** `**` segments a glob from a call may hold; see modelGlob. */
export const MAX_GLOBSTARS = 2;
/** Runs of `*` one path segment of a glob from a call may hold. */
export const MAX_SEGMENT_WILDCARDS = 2;
/** `{…}` groups a glob from a call may hold. */
export const MAX_GLOB_BRACES = 1;

/**
 * A matcher for a glob a call sent (fs.search and fs.ls `glob`, the PromptX tool's search patterns), matched on the
 * companion's own thread. picomatch compiles a glob into a backtracking regex whose cost grows with the path's
 * length to the power of the wildcards it tries: `*a*a*a*a*b` against one 200-character file name, or
 * `**` three times against a deep path, blocked every request of the companion for seconds to minutes, and repeated
 * brace groups (`{a,aa}{a,aa}…`) grow exponentially. So a glob from a call may hold at most MAX_GLOBSTARS `**`
 * segments, MAX_SEGMENT_WILDCARDS runs of `*` in any one segment and MAX_GLOB_BRACES `{…}` group, and no
 * parentheses (extglobs, regex groups): `**` twice and two `*` in a segment cost at most ~30 ms on a path of 4000
 * characters, and that is enough for `**` + `/test/` + `**` + `/*.ts`, `src/**`, `*.{ts,tsx}`, `*.test.*`. Anything
 * more is INVALID_INPUT naming the rule.
 */
export function modelGlob(glob: string, field: string, options: picomatch.PicomatchOptions): picomatch.Matcher {
  const segments = glob.split('/');
  const globstars = segments.filter((segment) => segment === '**').length;
  const busiest = Math.max(0, ...segments.filter((segment) => segment !== '**').map((segment) => segment.match(/\*+/g)?.length ?? 0));
  const braces = glob.match(/\{/g)?.length ?? 0;
  const problem =
    globstars > MAX_GLOBSTARS
      ? `holds ${globstars} ** segments, more than ${MAX_GLOBSTARS}`
      : busiest > MAX_SEGMENT_WILDCARDS
        ? `holds ${busiest} runs of * in one path segment, more than ${MAX_SEGMENT_WILDCARDS}`
        : braces > MAX_GLOB_BRACES
          ? `holds ${braces} {…} groups, more than ${MAX_GLOB_BRACES}`
          : /[()]/.test(glob)
            ? 'holds a parenthesis (extglobs and groups are not taken)'
            : undefined;
  if (problem !== undefined) {
    throw new ToolError(
      'INVALID_INPUT',
      `${field} ${JSON.stringify(glob)} ${problem}: such a glob can take minutes to match one long path; narrow the start path instead (e.g. path ".../src" with "**/*.ts")`,
      { [field]: glob },
    );
  }
  return picomatch(glob, options);
}
