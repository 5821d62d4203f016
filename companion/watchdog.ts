import vm from 'node:vm';

/**
 * Runs `task` on this thread, interrupted after `ms`: undefined when it was. For the regular expressions this
 * companion runs for someone else — a model's `fs.search` pattern (the JS search), a pattern in a tool's schema of
 * the person's MCP server — which V8's backtracking engine can take hours over on a line of a few dozen characters,
 * holding every run, approval and request. vm's timeout interrupts running code, a regex included.
 */
const context = vm.createContext({ run: (): unknown => undefined });
const script = new vm.Script('run()');

/**
 * How many times a task cut short while the machine kept it waiting is tried (see runWithin): the timeout counts
 * wall time, and a busy machine (a build, the browser, other requests) can hold the thread off the CPU for longer
 * than a task's whole budget, which read as a runaway pattern ("it backtracks") of a search that was fine.
 */
const BUSY_TRIES = 4;

/**
 * An attempt cut short while the process had the CPU for less than half of it is tried again, up to BUSY_TRIES in
 * all: a runaway task uses the CPU it is given, so it still ends undefined, after at most BUSY_TRIES × `ms`.
 * (process.cpuUsage counts every thread of the process: other threads only make a retry less likely.)
 */
export function runWithin<T>(ms: number, task: () => T): T | undefined {
  for (let attempt = 1; ; attempt += 1) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const outcome = attemptWithin(ms, task);
    if (outcome.done) return outcome.value;
    const cpu = process.cpuUsage(cpuBefore);
    const waited = (cpu.user + cpu.system) / 1000 < (performance.now() - started) / 2;
    if (!waited || attempt >= BUSY_TRIES) return undefined;
  }
}

function attemptWithin<T>(ms: number, task: () => T): { done: true; value: T } | { done: false } {
  let result: T | undefined;
  context.run = () => (result = task());
  try {
    script.runInContext(context, { timeout: Math.max(1, Math.floor(ms)) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return { done: false };
    throw error;
  } finally {
    context.run = () => undefined;
  }
  return { done: true, value: result as T };
}
