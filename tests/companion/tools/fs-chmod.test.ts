import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './world';

describe.skipIf(process.platform === 'win32')('fs.chmod', () => {
  let world: World;
  let file: string;
  beforeEach(async () => {
    world = await createWorld();
    file = await world.write('run.sh', '#!/bin/sh\n');
    await fs.chmod(file, 0o644);
  });
  afterEach(() => world.cleanup());

  it.each([
    ['755', 0o755],
    ['0600', 0o600],
    // 4755 was here: setuid/setgid are refused since issue 9 (see path-guard/hard-link-attacks.test.ts)
    ['1755', 0o1755],
  ])('sets %s', async (mode, expected) => {
    const out = await world.call('fs.chmod', { path: file, mode });
    expect((await fs.stat(file)).mode & 0o7777).toBe(expected);
    await world.journal.undo(out.journalId!);
    expect((await fs.stat(file)).mode & 0o7777).toBe(0o644);
  });

  it('setuid or setgid (4755, 2755) is FORBIDDEN and the mode stays as it was', async () => {
    await world.fails('fs.chmod', { path: file, mode: '4755' }, 'FORBIDDEN', /setuid/);
    await world.fails('fs.chmod', { path: file, mode: '2755' }, 'FORBIDDEN', /setgid/);
    expect((await fs.stat(file)).mode & 0o7777).toBe(0o644);
  });

  it('errors: non-octal or numeric mode INVALID_INPUT, missing NOT_FOUND, outside FORBIDDEN', async () => {
    await world.fails('fs.chmod', { path: file, mode: '999' }, 'INVALID_INPUT', /octal/);
    await world.fails('fs.chmod', { path: file, mode: 755 }, 'INVALID_INPUT');
    await world.fails('fs.chmod', { path: file, mode: 'rwx' }, 'INVALID_INPUT');
    await world.fails('fs.chmod', { path: path.join(world.root, 'nope'), mode: '644' }, 'NOT_FOUND');
    await fs.writeFile(path.join(world.outside, 'o'), '');
    await fs.symlink(path.join(world.outside, 'o'), path.join(world.root, 'link'));
    await world.fails('fs.chmod', { path: path.join(world.root, 'link'), mode: '777' }, 'FORBIDDEN');
  });
});

describe('fs.chmod on Windows', () => {
  it('is NOT_SUPPORTED', async () => {
    const world = await createWorld();
    const file = await world.write('x', '');
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { value: 'win32' });
    try {
      await world.fails('fs.chmod', { path: file, mode: '644' }, 'NOT_SUPPORTED', /Windows/);
    } finally {
      Object.defineProperty(process, 'platform', platform);
      await world.cleanup();
    }
  });
});
