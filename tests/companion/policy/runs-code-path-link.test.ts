/**
 * A folder on PATH named through a symlink whose target inside a root is not there yet (`~/bin` linked to a
 * project's `bin` that its build makes): the link was read once, at start, and a link that led nowhere was known
 * by its own name only. A model that made the folder and wrote `git` into it, by the root's name, wrote a plain
 * file where writes are auto — and the companion's own allow-listed `git status`, whose PATH holds the link, ran
 * it. Against the real companion process started with such a PATH.
 */
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, makeWorkspace, mcpRequestBlock, postBlock, postPending, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const SYSTEM_PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';

describe('attack: a program written where a PATH link leads once the folder is made (real companion, writes auto)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-path-link-');
    const links = join(ws.base, 'links');
    mkdirSync(links);
    // the link leads into the root, to a folder, and a parent of it, that do not exist yet
    symlinkSync(join(ws.root, 'proj', 'bin'), join(links, 'bin'));
    companion = await startCompanionProcess({
      root: ws.root,
      home: ws.home,
      config: { modes: { read: 'auto', write: 'auto', delete: 'confirm', exec: 'confirm' }, allowCommands: ['git status --short'] },
      env: { PATH: `${join(links, 'bin')}:${SYSTEM_PATH}` },
    });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('the folder made, a program written into it asks on an exec card naming the PATH folder; nothing is written', async () => {
    const made = await postBlock(companion, 'mcp-request', mcpRequestBlock('mkdir', 'fs.mkdir', { path: join(ws.root, 'proj', 'bin'), parents: true }), context('conv-path-link', 'm1'));
    expect(made.status).toBe('done');
    const file = join(ws.root, 'proj', 'bin', 'git');
    const { approval } = await postPending(
      companion,
      'mcp-request',
      mcpRequestBlock('plant', 'fs.write', { path: file, mode: 'overwrite', content: '#!/bin/sh\necho planted\n' }),
      context('conv-path-link', 'm2'),
    );
    expect(approval.risk).toBe('exec');
    expect(JSON.stringify(approval.preview)).toContain('a folder on PATH');
    expect(existsSync(file)).toBe(false);
  });
});
