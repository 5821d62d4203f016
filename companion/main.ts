import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeVersionProblem } from './node-version';

// The Node.js version first, before any other module is loaded: on an older one, loading them is what fails.
const tooOld = nodeVersionProblem(process.versions.node);
if (tooOld !== undefined) {
  console.error(tooOld);
  process.exit(1);
}
const { runCli } = await import('./cli');

// The only module with side effects at import: argv in, exit code out.
// Output is best effort: a terminal that was closed (EIO) or a pipe whose reader left (EPIPE) must not end the
// companion — above all not in the middle of the shutdown that closing the terminal (SIGHUP) starts.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
const code = await runCli(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  env: process.env,
  cwd: typedIn(),
});
// -1: the companion is serving; signals end it
if (code >= 0) process.exitCode = code;

/**
 * The folder the command was typed in. An npm script (`npm start`, `npm run chatbridge -- …`) runs in the package
 * folder, and npm gives the folder it was typed in as INIT_CWD: roots, `--config FILE` and `mcp add --cwd DIR` are
 * read from there, as from any other command.
 */
function typedIn(): string {
  const here = process.cwd();
  const initCwd = process.env.INIT_CWD;
  if (process.env.npm_lifecycle_event === undefined || !initCwd) return here;
  try {
    return realpathSync(here) === realpathSync(fileURLToPath(new URL('..', import.meta.url))) ? initCwd : here;
  } catch {
    return here;
  }
}
