import { shellExec } from '../../shared/tools/shell-exec';
import { defineHandler } from './define-handler';
import { resolveCwd, runProgram, shellWithEnv, timeoutFor } from './run-program';

export const shellExecHandler = defineHandler({
  contract: shellExec,
  async plan(args, ctx) {
    const cwd = await resolveCwd(args.cwd, ctx);
    return { risk: 'exec', paths: [cwd], command: { shell: shellWithEnv(args), cwd } };
  },
  async preview(args, ctx) {
    const cwd = await resolveCwd(args.cwd, ctx);
    const timeoutMs = timeoutFor(args, ctx.policy);
    return {
      title: `Run in a shell (timeout ${timeoutMs} ms)`,
      heading: { kind: 'shell', timeoutMs },
      paths: [cwd],
      command: shellWithEnv(args),
      cwd,
    };
  },
  async run(args, ctx) {
    return runProgram('shell.exec', { shell: args.command }, args, ctx);
  },
});
