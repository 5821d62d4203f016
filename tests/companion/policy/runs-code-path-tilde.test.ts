/**
 * A PATH entry written with a leading `~` (`export PATH="~/tools:$PATH"`, the quotes keeping the tilde) is a folder
 * on PATH all the same: bash expands it when it looks a command up, so a program written there runs the next time
 * the person types its name. The companion's programs do not get such an entry (plans/program-env.ts keeps only
 * absolute ones), but a write into that folder is still a write that runs code. Against the real companion process
 * started with such a PATH, its home folder inside the root, where writes are auto.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, makeWorkspace, mcpRequestBlock, postPending, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const SYSTEM_PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';

describe('attack: a program written into a PATH folder the PATH names from ~ (real companion, writes auto)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let home: string;

  beforeAll(async () => {
    ws = makeWorkspace('cb-path-tilde-');
    home = join(ws.root, 'me');
    companion = await startCompanionProcess({
      root: ws.root,
      home: ws.home,
      config: { modes: { read: 'auto', write: 'auto', delete: 'confirm', exec: 'confirm' } },
      env: { HOME: home, PATH: `~/tools:${SYSTEM_PATH}` },
    });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('the write asks on an exec card naming the PATH folder, and nothing is written before the person decides', async () => {
    const file = join(home, 'tools', 'git');
    const { approval } = await postPending(
      companion,
      'mcp-request',
      mcpRequestBlock('plant', 'fs.write', { path: file, mode: 'overwrite', content: '#!/bin/sh\necho planted\n' }),
      context('conv-path-tilde', 'm1'),
    );
    expect(approval.risk).toBe('exec');
    expect(JSON.stringify(approval.preview)).toContain('a folder on PATH');
    expect(existsSync(file)).toBe(false);
  });
});
