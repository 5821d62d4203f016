import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256 } from '../../../companion/fsx/sha256';
import { toolHandlers } from '../../../companion/tools';
import { createWorld, type World } from './world';

describe('fs.write', () => {
  let world: World;
  let file: string;
  beforeEach(async () => {
    world = await createWorld();
    file = await world.write('a.txt', 'old\n');
  });
  afterEach(() => world.cleanup());

  it('overwrites atomically and answers WRITE_SUCCESS with a journal id', async () => {
    const out = await world.call('fs.write', { path: file, mode: 'overwrite', content: 'new\n' });
    expect(out.text).toBe('WRITE_SUCCESS');
    expect(out.journalId).toMatch(/^\d{8}T/);
    expect(out.data).toMatchObject({ path: file, bytes: 4, sha256: sha256('new\n') });
    expect(await world.read('a.txt')).toBe('new\n');
    expect(await fs.readdir(world.root)).toEqual(['a.txt']);
  });

  it('appends; creates missing parent directories; empty content is valid', async () => {
    await world.call('fs.write', { path: file, mode: 'append', content: 'more\n' });
    expect(await world.read('a.txt')).toBe('old\nmore\n');
    await world.call('fs.write', { path: path.join(world.root, 'x/y/z.txt'), mode: 'overwrite', content: '' });
    expect(await world.read('x/y/z.txt')).toBe('');
  });

  it('keeps the mode of an existing file', async () => {
    await fs.chmod(file, 0o640);
    await world.call('fs.write', { path: file, mode: 'overwrite', content: 'x' });
    expect((await fs.stat(file)).mode & 0o777).toBe(0o640);
  });

  it('expectedSha256 is checked at write time: a match writes, a mismatch is CONFLICT naming both hashes', async () => {
    await world.call('fs.write', { path: file, mode: 'overwrite', content: 'v2', expectedSha256: sha256('old\n') });
    const wrong = sha256('something else');
    const error = await world.fails('fs.write', { path: file, mode: 'overwrite', content: 'v3', expectedSha256: wrong }, 'CONFLICT');
    expect(error.message).toContain(wrong);
    expect(error.message).toContain(sha256('v2'));
    expect(await world.read('a.txt')).toBe('v2');
  });

  it('preview names the change; its unified diff of old vs new is made when asked', async () => {
    const handler = toolHandlers['fs.write'];
    const preview = await handler.preview({ path: file, mode: 'overwrite', content: 'new\n' }, world.ctx);
    expect(preview.paths).toEqual([file]);
    expect(preview.title).toBe(`Overwrite ${file}`);
    // the diff is made only when an approval card asks for it
    expect(preview.diff).toBeUndefined();
    const diff = await preview.diffLater!();
    expect(diff).toContain('-old');
    expect(diff).toContain('+new');
    const created = await handler.preview({ path: path.join(world.root, 'new.txt'), mode: 'overwrite', content: 'x' }, world.ctx);
    expect(created.title).toBe(`Create ${path.join(world.root, 'new.txt')}`);
    // a file that does not exist yet is diffed from /dev/null, so the card tags it new rather than changed
    expect(await created.diffLater!()).toContain(`\n--- /dev/null\n+++ ${path.join(world.root, 'new.txt')}\n`);
    expect(diff).toContain(`\n--- ${file}\n+++ ${file}\n`);
    await fs.mkdir(path.join(world.root, 'folder'));
    for (const mode of ['overwrite', 'append'] as const) {
      await expect(handler.preview({ path: path.join(world.root, 'folder'), mode, content: 'x' }, world.ctx)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    expect(await handler.plan({ path: file, mode: 'overwrite', content: '' }, world.ctx)).toEqual({ risk: 'write', paths: [file] });
  });

  it('undo through the journal restores the old content', async () => {
    const out = await world.call('fs.write', { path: file, mode: 'overwrite', content: 'new\n' });
    await world.journal.undo(out.journalId!);
    expect(await world.read('a.txt')).toBe('old\n');
  });

  it('errors: missing mode, bad sha, relative path, directory target, symlink out for write, dangling symlink out, denied, LIMIT_EXCEEDED', async () => {
    await world.fails('fs.write', { path: file, content: 'x' }, 'INVALID_INPUT');
    await world.fails('fs.write', { path: file, mode: 'overwrite', content: 'x', expectedSha256: 'abc' }, 'INVALID_INPUT', /64 hexadecimal/);
    await world.fails('fs.write', { path: 'a.txt', mode: 'overwrite', content: 'x' }, 'INVALID_INPUT');
    await world.fails('fs.write', { path: world.root, mode: 'overwrite', content: 'x' }, 'FORBIDDEN', /root itself/);
    await fs.mkdir(path.join(world.root, 'dir'));
    await world.fails('fs.write', { path: path.join(world.root, 'dir'), mode: 'overwrite', content: 'x' }, 'INVALID_INPUT', /directory/);
    await fs.symlink(world.outside, path.join(world.root, 'out'));
    await world.fails('fs.write', { path: path.join(world.root, 'out/pwn.txt'), mode: 'overwrite', content: 'x' }, 'FORBIDDEN');
    await fs.symlink(path.join(world.outside, 'created-by-attack'), path.join(world.root, 'dangling'));
    await world.fails('fs.write', { path: path.join(world.root, 'dangling'), mode: 'overwrite', content: 'x' }, 'FORBIDDEN');
    expect(await fs.readdir(world.outside)).toEqual([]);
    await world.fails('fs.write', { path: path.join(world.root, '.env'), mode: 'overwrite', content: 'x' }, 'POLICY_BLOCKED');
    await world.fails('fs.write', { path: path.join(world.root, '.git/config'), mode: 'overwrite', content: 'x' }, 'POLICY_BLOCKED');
    await world.fails('fs.write', { path: `${world.root}/../outside/x`, mode: 'overwrite', content: 'x' }, 'FORBIDDEN');
    const huge = 'z'.repeat(world.policy.limits.maxFileBytes + 1);
    await world.fails('fs.write', { path: file, mode: 'overwrite', content: huge }, 'LIMIT_EXCEEDED', /maxFileBytes/);
  });
});
