/**
 * The oldest Node.js the companion runs on: package.json's `engines` (tests hold the two together). An older one
 * failed somewhere inside a dependency's loading, with an error that named neither Node nor the version needed.
 */
export const NEEDED_NODE = '20.19';

/** What to tell the person when `running` (process.versions.node, `20.18.1`) is older than NEEDED_NODE; else nothing. */
export function nodeVersionProblem(running: string, execPath = process.execPath): string | undefined {
  const have = running.split('.').map(Number);
  const need = NEEDED_NODE.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (Number.isNaN(a) || a > b) return undefined;
    if (a < b) {
      return `chatbridge needs Node.js ${NEEDED_NODE} or newer, and this is Node.js ${running} (${execPath}): install a newer Node.js, then run the command again`;
    }
  }
  return undefined;
}
