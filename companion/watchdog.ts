import vm from 'node:vm';

/**
 * Runs `task` on this thread, interrupted after `ms`: undefined when it was. For the regular expressions this
 * companion runs for someone else — a model's `fs.search` pattern (the JS search), a pattern in a tool's schema of
 * the person's MCP server — which V8's backtracking engine can take hours over on a line of a few dozen characters,
 * holding every run, approval and request. vm's timeout interrupts running code, a regex included.
 */
const context = vm.createContext({ run: (): unknown => undefined });
const script = new vm.Script('run()');

export function runWithin<T>(ms: number, task: () => T): T | undefined {
  let result: T | undefined;
  context.run = () => (result = task());
  try {
    script.runInContext(context, { timeout: Math.max(1, Math.floor(ms)) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return undefined;
    throw error;
  } finally {
    context.run = () => undefined;
  }
  return result;
}
