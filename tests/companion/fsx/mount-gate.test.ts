/**
 * The turns of calls on a network or FUSE mount (companion/fsx/mount-gate.ts) on a share that answers: every call is
 * made, never more than two at once on the mount, and a path elsewhere does not wait. The mount is a FUSE mount with
 * no program behind it, so that the kernel's table names a FUSE file system at a known place; the calls given to the
 * gate stand for calls on a share that answers in 30 ms and never touch it. Needs root and /dev/fuse, else skips.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onMountOf } from '../../../companion/fsx/mount-gate';

const canMount = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/dev/fuse') && spawnSync('mount', ['--version']).status === 0;

describe.skipIf(!canMount)('turns on a network or FUSE mount that answers', () => {
  const base = mkdtempSync(join(tmpdir(), 'cb-mount-gate-'));
  const share = join(base, 'share');
  let fuse: number | undefined;

  beforeAll(() => {
    mkdirSync(share);
    fuse = openSync('/dev/fuse', 'r+');
    const mounted = spawnSync('mount', ['-t', 'fuse.chatbridge-test', '-o', 'fd=3,rootmode=40000,user_id=0,group_id=0', 'chatbridge-test', share], {
      stdio: ['ignore', 'pipe', 'pipe', fuse],
    });
    if (mounted.status !== 0) {
      closeSync(fuse);
      fuse = undefined;
    }
  });

  afterAll(() => {
    if (fuse !== undefined) closeSync(fuse);
    if (spawnSync('umount', [share]).status !== 0) spawnSync('umount', ['-l', share]);
    rmSync(base, { recursive: true, force: true });
  });

  it('every call is made, at most two at once on the mount; a local path does not wait', async (ctx) => {
    if (fuse === undefined) ctx.skip();
    let now = 0;
    let most = 0;
    let ended = 0;
    const answering = async (i: number) => {
      now += 1;
      most = Math.max(most, now);
      await new Promise((resolve) => setTimeout(resolve, 30));
      now -= 1;
      ended += 1;
      return i;
    };
    const onShare = Array.from({ length: 8 }, (_, i) => onMountOf(join(share, `file-${i}`), () => answering(i)));
    // a local path queued behind the mount's calls would run after all eight ended (four turns of 30 ms at least);
    // counted, not timed, so a busy machine does not decide it
    let endedWhenLocalRan = -1;
    await onMountOf(join(base, 'local'), async () => (endedWhenLocalRan = ended));
    expect(await Promise.all(onShare)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(2);
    expect(endedWhenLocalRan).toBeGreaterThanOrEqual(0);
    expect(endedWhenLocalRan).toBeLessThan(8);
  });

  it('a call that fails gives its turn back', async (ctx) => {
    if (fuse === undefined) ctx.skip();
    const failing = Array.from({ length: 4 }, () => onMountOf(join(share, 'gone'), () => Promise.reject(new Error('ENOENT'))));
    for (const call of failing) await expect(call).rejects.toThrow('ENOENT');
    expect(await onMountOf(join(share, 'after'), async () => 'made')).toBe('made');
  });
});
