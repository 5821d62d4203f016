import { runCli } from './cli';

// The only module with side effects at import: argv in, exit code out.
// Output is best effort: a terminal that was closed (EIO) or a pipe whose reader left (EPIPE) must not end the
// companion — above all not in the middle of the shutdown that closing the terminal (SIGHUP) starts.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
const code = await runCli(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  env: process.env,
  cwd: process.cwd(),
});
// -1: the companion is serving; signals end it
if (code >= 0) process.exitCode = code;
