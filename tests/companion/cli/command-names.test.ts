import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../companion/cli';

/**
 * A clone puts no `chatbridge` on the PATH: a message that tells a person to run `chatbridge mcp import --yes`
 * sends them to "command not found". Every command a message tells them to run is written as they can type it
 * (README, "The companion CLI"), from the real command line with a fake HOME and data directory.
 */
const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-command-names-')));
const fakeHome = join(base, 'home-of-person');
mkdirSync(fakeHome);
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<string> {
  const lines: string[] = [];
  await runCli(argv, {
    out: (line) => lines.push(line),
    err: (line) => lines.push(line),
    env: { HOME: fakeHome, CHATBRIDGE_HOME: join(fakeHome, '.chatbridge'), PATH: process.env.PATH ?? '' },
    cwd: base,
  });
  return lines.join('\n');
}

/** each command the output tells the person to run, as written there */
function commandsToRun(output: string): string[] {
  return [...output.matchAll(/(?:run|with|see|first \(|"--":)\s+`?((?:npx |npm )?chatbridge [a-z-][^`),;]*)/g)].map((m) => m[1] as string);
}

describe('the commands a message tells a person to run are ones they can type', () => {
  it.each([
    ['mcp list with no servers', ['mcp', 'list']],
    ['start with an unknown option', ['start', '--bogus']],
    ['status with an unknown option', ['status', '--bogus']],
    ['mcp with an unknown command', ['mcp', 'lst']],
    ['mcp add with its command not after --', ['mcp', 'add', 'x', 'npx', 'pkg']],
  ])('%s', async (_name, argv) => {
    const output = await cli(...argv);
    const commands = commandsToRun(output);
    expect(commands.length, output).toBeGreaterThan(0);
    for (const command of commands) expect(command, output).toMatch(/^npx chatbridge /);
  });

  it('--help, whose lines say "chatbridge start" and "chatbridge pair", says how to type them in a clone', async () => {
    const help = await cli('--help');
    expect(help).toContain('`npm start -- [options]` and `npx chatbridge <command>`');
  });

  it('mcp import names the command that writes what it showed, and how to add a server by hand', async () => {
    const claudeDesktop = join(fakeHome, '.config', 'Claude');
    mkdirSync(claudeDesktop, { recursive: true });
    writeFileSync(
      join(claudeDesktop, 'claude_desktop_config.json'),
      JSON.stringify({ mcpServers: { memory: { command: 'npx', args: ['-y', 'server-memory'] }, vars: { command: 'x', env: { T: '${env:TOKEN}' } } } }),
    );
    const output = await cli('mcp', 'import');
    expect(output).toContain('run `npx chatbridge mcp import --yes` in the chatbridge folder to add it');
    expect(output).toContain('Add it by hand with `npx chatbridge mcp add` in the chatbridge folder');
    expect(output).not.toMatch(/(?<!npx )chatbridge mcp (add|import)/);
  });
});
