import { processRun } from '../../shared/tools/process-run';
import { defineHandler } from './define-handler';
import { envPrefix, resolveCwd, runProgram, timeoutFor } from './run-program';

/** argv exactly as given, no shell: `;`, `&&` or `$()` in an argument are just characters. */
export const processRunHandler = defineHandler({
  contract: processRun,
  async plan(args, ctx) {
    const cwd = await resolveCwd(args.cwd, ctx);
    return { risk: 'exec', paths: [cwd], command: { argv: [...envPrefix(args), args.command, ...(args.args ?? [])], cwd } };
  },
  async preview(args, ctx) {
    const cwd = await resolveCwd(args.cwd, ctx);
    const argv = [...envPrefix(args), args.command, ...(args.args ?? [])];
    const timeoutMs = timeoutFor(args, ctx.policy);
    return {
      title: `Run ${args.command} (timeout ${timeoutMs} ms)`,
      heading: { kind: 'run', program: args.command, timeoutMs },
      paths: [cwd],
      command: argv.map((word) => JSON.stringify(word)).join(' '),
      cwd,
    };
  },
  async run(args, ctx) {
    return runProgram('process.run', { argv: [args.command, ...(args.args ?? [])] }, args, ctx);
  },
});
