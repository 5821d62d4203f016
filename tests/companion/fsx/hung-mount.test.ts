/**
 * A file system that stops answering — an NFS or SMB server gone, an sshfs link down — must hold only the calls
 * on it, never the companion. A call that runs alone does its file-system calls on the main thread
 * (companion/fsx/io-mode.ts), where one that never returns would freeze everything: status, approvals, Stop.
 * So the main thread is used only while every mounted file system is local (fsx/mounts.ts).
 *
 * The file system here is real and really hangs: a FUSE mount with no program behind it (/dev/fuse opened,
 * mount(8) given its descriptor, nothing ever read from it), so every look inside waits for an answer that never
 * comes, until the descriptor is closed. It needs root and /dev/fuse (the CI machine has both); elsewhere it skips.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  context,
  makeWorkspace,
  mcpRequestBlock,
  mcpResultText,
  startCompanionProcess,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

const canMount = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/dev/fuse') && spawnSync('mount', ['--version']).status === 0;

/** Mounts a FUSE file system nobody serves at `dir`; closing the returned descriptor ends it (calls then fail fast). */
function mountUnanswered(dir: string): number | undefined {
  const fuse = openSync('/dev/fuse', 'r+');
  const mounted = spawnSync('mount', ['-t', 'fuse.chatbridge-test', '-o', 'fd=3,rootmode=40000,user_id=0,group_id=0', 'chatbridge-test', dir], {
    stdio: ['ignore', 'pipe', 'pipe', fuse],
  });
  if (mounted.status === 0) return fuse;
  closeSync(fuse);
  return undefined;
}

function unmount(dir: string): void {
  if (spawnSync('umount', [dir]).status !== 0) spawnSync('umount', ['-l', dir]);
}

async function timed<T>(what: string, ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  try {
    return await work(signal);
  } catch (error) {
    if (signal.aborted) throw new Error(`${what}: no answer within ${ms} ms — the companion is stuck`);
    throw error;
  }
}

describe.skipIf(!canMount)('a mounted file system that does not answer', () => {
  let ws: Workspace;
  let share: string;
  let fuse: number | undefined;
  let companion: CompanionProcess;
  let n = 0;

  const request = (path: string, signal: AbortSignal, body?: unknown) =>
    fetch(`http://127.0.0.1:${companion.port}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${companion.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
    });
  const readBlock = (path: string) => {
    n += 1;
    return { kind: 'mcp-request', text: mcpRequestBlock(n, 'fs.read', { path }), context: context('conv-hung', `m${n}`) };
  };

  beforeAll(async () => {
    ws = makeWorkspace('cb-hung-mount-');
    writeFileSync(join(ws.root, 'local.txt'), 'on the local disk\n');
    share = join(ws.root, 'share');
    mkdirSync(share);
    fuse = mountUnanswered(share);
    companion = await startCompanionProcess({ root: ws.root, home: ws.home });
  }, 60_000);

  afterAll(async () => {
    // the descriptor first: every call waiting on the mount then fails at once, so nothing below can hang
    if (fuse !== undefined) closeSync(fuse);
    unmount(share);
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('a read inside it holds only itself: status, a local read and the read itself when the mount goes', async (ctx) => {
    if (fuse === undefined) ctx.skip();
    // alone, so it would run on the main thread if the io mode allowed it
    const stuck = request('/v1/run', AbortSignal.timeout(60_000), readBlock(join(share, 'notes.txt')));
    stuck.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const status = await timed('GET /v1/status', 3_000, (signal) => request('/v1/status', signal));
    expect(status.status).toBe(200);
    const local = await timed('fs.read of a local file', 3_000, async (signal) => (await request('/v1/run', signal, readBlock(join(ws.root, 'local.txt')))).json());
    expect((local as { status: string }).status).toBe('done');
    expect(mcpResultText((local as { resultText: string }).resultText)).toBe('on the local disk\n');

    // the mount's server "goes away": the waiting call now fails, and is answered as an error, not lost
    closeSync(fuse!);
    fuse = undefined;
    const answered = (await timed('the read inside the mount', 10_000, async () => (await stuck).json())) as { status: string; resultText: string };
    expect(answered.status).toBe('error');
    expect(answered.resultText).toMatch(/share/);
  });
});
