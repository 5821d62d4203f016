import path from 'node:path';
import type { Policy } from '../policy/schema';

/**
 * The environment a plan's programs get: only the keys the policy allows (PATH, HOME, LANG, … by default), taken
 * from the companion's own environment. Tokens and keys the companion was started with stay out of reach of a
 * command a chat wrote.
 *
 * PATH keeps only its absolute folders. An entry that is not one (`.`, an empty entry — a stray `:` at either end —
 * or `node_modules/.bin`) is a folder of whatever working directory the program is started in, which a model chose
 * and may have written a program into: with `.` on PATH, an allow-listed `git status --short` run in a folder
 * holding a file `git` ran that file with no card. (runs-code.ts names only the absolute ones for the same reason.)
 */
export function programEnv(policy: Pick<Policy, 'envAllow'>, source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of policy.envAllow) {
    const value = source[key];
    if (value !== undefined) env[key] = key.toUpperCase() === 'PATH' ? absoluteEntries(value) : value;
  }
  return env;
}

function absoluteEntries(value: string): string {
  return value
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir))
    .join(path.delimiter);
}
