import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

/**
 * The data dir's lock is claimed by link(2) (home-lock.ts). A file system without hard links (FAT and exFAT, some
 * network and FUSE mounts) answers link with EPERM or ENOTSUP: there the lock is created exclusively instead, so the
 * companion still starts, holds the data dir, and refuses a second start. link(2) is made to fail as such a file
 * system makes it fail; everything else is the real file system.
 */
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return {
    ...actual,
    linkSync: () => {
      throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    },
  };
});

const { lockHome } = await import('../../../companion/home-lock');

const home = realpathSync(mkdtempSync(join(tmpdir(), 'cb-lock-no-links-')));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('the data dir lock on a file system without hard links', () => {
  it('is taken, leaves no file of its own beside it, and is released', () => {
    const file = join(home, 'companion.lock');
    const release = lockHome(home, file);
    expect(JSON.parse(readFileSync(file, 'utf8')).pid).toBe(process.pid);
    expect(readdirSync(home)).toEqual(['companion.lock']);
    release();
    expect(existsSync(file)).toBe(false);
  });

  it('held by a process that runs, refuses the start, naming it', async () => {
    const holder = spawn('sleep', ['30']);
    try {
      const file = join(home, 'companion.lock');
      writeFileSync(file, JSON.stringify({ pid: holder.pid }));
      expect(() => lockHome(home, file)).toThrow(new RegExp(`another chatbridge companion \\(pid ${holder.pid}\\) is using the data dir`));
      expect(JSON.parse(readFileSync(file, 'utf8')).pid).toBe(holder.pid);
    } finally {
      holder.kill();
    }
  });
});
