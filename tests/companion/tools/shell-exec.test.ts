import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig, policyFromConfig } from '../../../companion/policy/load-config';
import { toolHandlers } from '../../../companion/tools';
import { createWorld, DEFAULT_LIMITS, type World } from './world';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(process.platform === 'win32')('shell.exec', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld();
  });
  afterEach(() => world.cleanup());

  it('runs a shell string (pipes, chaining, expansion) in the workspace root', async () => {
    const out = await world.call('shell.exec', { command: 'echo $((1+2)) && printf "b\\na\\n" | sort && pwd' });
    expect(out.text).toBe(`exit code: 0 (${(out.data as { status: string }).status} in ${(out.data as { runtime: number }).runtime} s)\nstdout:\n3\na\nb\n${world.root}\nstderr: (empty)`);
  });

  it('colour codes a program prints are not typed into the chat, and a secret they split is still redacted', async () => {
    // the built-in redaction this world leaves out
    await world.cleanup();
    world = await createWorld({ redact: policyFromConfig(parseConfig({}), [{ root: process.cwd(), base: process.cwd(), key: 'cwd' }]).redact });
    const out = await world.call('shell.exec', { command: "printf '\\033[32mPASS\\033[0mWORD=hunter2\\n\\033[1;31merror\\033[0m done\\n'; printf '\\033[2K\\033[33mwarn\\033[0m\\n' >&2" });
    expect(out.text).not.toContain('\x1b');
    expect(out.text).not.toContain('hunter2');
    expect(out.text).toContain('stdout:\nPASSWORD=[REDACTED]\nerror done\nstderr:\nwarn');
  });

  it("attack: a secret the output cap cuts through is not shown in pieces (limits.maxOutputBytes below the result's size)", async () => {
    await world.cleanup();
    const redact = policyFromConfig(parseConfig({}), [{ root: process.cwd(), base: process.cwd(), key: 'cwd' }]).redact;
    world = await createWorld({ redact, limits: { ...DEFAULT_LIMITS, maxOutputBytes: 8192 } });
    // the cap keeps the first 4096 bytes and the last 4096: a token lies across the head's cut and a password=… value
    // across the tail's, and neither piece is long enough to be known as a secret once cut
    const token = (tag: string) => `ghp_${tag}${'Z9'.repeat(18)}`;
    const program = [
      `process.stdout.write('f'.repeat(4080) + ' ' + ${JSON.stringify(token('AAAA'))} + ' next\\n')`,
      `process.stdout.write('m'.repeat(20000) + '\\n')`,
      `process.stdout.write('x'.repeat(4090) + 'DB_PASSWORD=hunter2hunter2 ' + ${JSON.stringify(token('BBBB'))} + '\\n' + 'e'.repeat(4040) + '\\n')`,
    ].join(';');
    const out = await world.call('process.run', { command: process.execPath, args: ['-e', program] });
    expect(out.text).toContain('bytes omitted');
    for (const piece of ['AAAA', 'BBBB', 'Z9Z9Z9', 'hunter2']) expect(out.text).not.toContain(piece);
  });

  it('call env is visible to the command and shown to the policy in front of it', async () => {
    const out = await world.call('shell.exec', { command: 'echo "$GREETING"', env: { GREETING: 'hi there' } });
    expect(out.text).toContain('stdout:\nhi there\n');
    const plan = await toolHandlers['shell.exec'].plan({ command: 'npm test', env: { GREETING: 'hi there' } }, world.ctx);
    expect(plan.command).toEqual({ shell: "GREETING='hi there' npm test", cwd: world.root });
    // in front of a line of more than one plain command, a shell would set them for its first command alone, after
    // expanding its words: the card shows them exported, as they are for the whole line that runs
    const line = await toolHandlers['shell.exec'].preview({ command: 'echo "$GREETING"; tool', env: { GREETING: 'hi there' } }, world.ctx);
    expect(line.command).toBe(`export GREETING='hi there'; echo "$GREETING"; tool`);
    const preview = await toolHandlers['shell.exec'].preview({ command: 'ls', cwd: world.root }, world.ctx);
    expect(preview).toMatchObject({ command: 'ls', cwd: world.root });
  });

  it('timeout kills the whole tree, grandchildren included', async () => {
    const pidFile = path.join(world.root, 'pid');
    const out = await world.call('shell.exec', { command: `sleep 30 & echo $! > ${pidFile}; wait`, timeoutMs: 500 });
    expect(out.text).toMatch(/timed out after 500 ms/);
    const pid = Number((await fs.readFile(pidFile, 'utf8')).trim());
    const deadline = Date.now() + 5000;
    while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive(pid)).toBe(false);
  });

  it('non-zero exit is a result, not an error; errors: cwd outside FORBIDDEN, missing command INVALID_INPUT', async () => {
    const out = await world.call('shell.exec', { command: 'echo bad >&2; exit 7' });
    expect(out.text).toMatch(/^exit code: 7 \(failure/);
    expect(out.text).toContain('stderr:\nbad');
    await world.fails('shell.exec', { command: 'ls', cwd: world.outside }, 'FORBIDDEN');
    await world.fails('shell.exec', { cwd: world.root }, 'INVALID_INPUT');
    await world.fails('shell.exec', { command: 'ls', argv: ['ls'] }, 'INVALID_INPUT');
  });
});
