/**
 * A PATH entry that is not absolute (`.`, an empty entry, `node_modules/.bin`) names a folder of the program's
 * working directory — a folder inside the roots that a model chose and writes into. Against the real companion
 * process started with such a PATH, where writes are auto: a program the model wrote there under an allow-listed
 * command's name is not what that command runs.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { environmentFor } from '../../../companion/tools/run-program';
import { context, makeWorkspace, mcpRequestBlock, mcpResultText, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const SYSTEM_PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';

describe('attack: a relative entry on the companion\'s PATH', () => {
  let ws: Workspace | undefined;
  let companion: CompanionProcess | undefined;

  afterEach(async () => {
    await companion?.stop();
    if (ws) rmSync(ws.base, { recursive: true, force: true });
  });

  it.each([
    ['.', `.:${SYSTEM_PATH}`, 'git', ['status', '--short']],
    ['node_modules/.bin', `node_modules/.bin:${SYSTEM_PATH}`, 'node_modules/.bin/git', ['status', '--short']],
    // an empty entry (a stray ':' at the end) is searched last: a command the system does not have is found there
    ['an empty entry', `${SYSTEM_PATH}:`, 'cb-check-not-installed', []],
  ] as const)('with %s on PATH, an allow-listed command run where the model wrote its name does not run that file', async (_entry, PATH, planted, args) => {
    ws = makeWorkspace('cb-relpath-');
    const outside = join(ws.base, 'outside');
    mkdirSync(outside);
    const program = planted.split('/').at(-1)!;
    companion = await startCompanionProcess({
      root: ws.root,
      home: ws.home,
      config: {
        modes: { read: 'auto', write: 'auto', delete: 'confirm', exec: 'confirm' },
        allowCommands: [[program, ...args].join(' ')],
      },
      env: { PATH },
    });
    const cwd = join(ws.root, 'sub');
    const file = join(cwd, planted);
    mkdirSync(join(file, '..'), { recursive: true });
    const marker = join(outside, 'pwned');
    let n = 0;
    const call = (name: string, callArgs: Record<string, unknown>) =>
      postBlock(companion!, 'mcp-request', mcpRequestBlock(++n, name, callArgs), context('conv-relpath', `m${n}`));
    // writes are auto: the program and its mode go in without a card
    mcpResultText((await call('fs.write', { path: file, mode: 'overwrite', content: `#!/bin/sh\necho x > '${marker}'\n` })).resultText ?? '');
    mcpResultText((await call('fs.chmod', { path: file, mode: '755' })).resultText ?? '');
    const run = await call('process.run', { command: program, args, cwd });
    expect(run.status).toBe('done');
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  it('programs get PATH with only its absolute folders; a PATH the call sets itself is left as the card shows it', () => {
    const base = { PATH: ['.', '/usr/bin', '', 'node_modules/.bin', 'bin', '/bin', ''].join(':'), HOME: '/h' };
    expect(environmentFor({}, { envAllow: ['PATH', 'HOME'] }, base)).toEqual({ PATH: '/usr/bin:/bin', HOME: '/h' });
    expect(environmentFor({ env: { PATH: '.:/usr/bin' } }, { envAllow: ['PATH'] }, base)).toEqual({ PATH: '.:/usr/bin' });
  });
});
