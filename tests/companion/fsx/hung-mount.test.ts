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
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_AUTO,
  context,
  journalEntries,
  makeWorkspace,
  mcpRequestBlock,
  mcpResultText,
  parseMcpResponse,
  startCompanionProcess,
  type CompanionProcess,
  undo,
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

/**
 * Tool calls through `POST /v1/run` in one conversation, each a new block; `waitMs` is how long the companion holds
 * the answer for a run still going. A call is abandoned with its signal.
 */
function runner(companion: () => CompanionProcess, conversation: string, waitMs?: number) {
  let n = 0;
  return (name: string, args: Record<string, unknown>, signal: AbortSignal) => {
    n += 1;
    const { port, token } = companion();
    return fetch(`http://127.0.0.1:${port}/v1/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'mcp-request', text: mcpRequestBlock(n, name, args), context: context(conversation, `m${n}`), ...(waitMs === undefined ? {} : { waitMs }) }),
      signal,
    }).then(async (response) => (await response.json()) as { status: string; resultText: string });
  };
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

describe.skipIf(!canMount)('a mounted file system that does not answer, outside the roots', () => {
  let ws: Workspace;
  let share: string;
  let fuse: number | undefined;
  let companion: CompanionProcess;

  const run = runner(() => companion, 'conv-hung-out');

  beforeAll(async () => {
    ws = makeWorkspace('cb-hung-outside-');
    writeFileSync(join(ws.root, 'local.txt'), 'on the local disk\n');
    share = join(ws.base, 'share');
    mkdirSync(share);
    fuse = mountUnanswered(share);
    symlinkSync(join(share, 'projects'), join(ws.root, 'nas'));
    companion = await startCompanionProcess({ root: ws.root, home: ws.home });
  }, 60_000);

  afterAll(async () => {
    if (fuse !== undefined) closeSync(fuse);
    unmount(share);
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('paths there are refused at once as outside the roots, and more of them than the pool has threads freeze nothing', async (ctx) => {
    if (fuse === undefined) ctx.skip();
    // more calls than libuv's pool has threads (4): each one that looked into the mount would hold one for good
    const outside = await timed('reads of paths in the mount outside the roots', 5_000, (signal) =>
      Promise.all([
        ...Array.from({ length: 6 }, (_, i) => run('fs.read', { path: join(share, `notes-${i}.txt`) }, signal)),
        run('fs.read', { path: join(ws.root, 'nas', 'notes.txt') }, signal),
        run('fs.write', { path: join(ws.root, 'nas', 'new.txt'), content: 'x', mode: 'overwrite' }, signal),
      ]),
    );
    for (const answer of outside) {
      expect(answer.status).toBe('error');
      expect(parseMcpResponse(answer.resultText).error?.message).toMatch(/^FORBIDDEN: path .* (is outside the allowed roots|leads through a symlink that points outside the workspace)/);
    }
    const listed = await timed('fs.ls of the root, which holds a link into the mount', 5_000, (signal) => run('fs.ls', { path: ws.root }, signal));
    expect(mcpResultText(listed.resultText)).toMatch(/nas -> \(points outside the workspace\)/);
    const axon = await timed('an Axon check_cwd_match naming the mount', 5_000, async (signal) => {
      const response = await fetch(`http://127.0.0.1:${companion.port}/v1/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${companion.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'axon', text: `\`\`\`act\ncheck_cwd_match\n\`\`\`\n\n\`\`\`expected_path\n${share}/projects\n\`\`\``, context: context('conv-hung-out', 'axon-check') }),
        signal,
      });
      return (await response.json()) as { status: string; resultText: string };
    });
    expect(axon.resultText).toMatch(/the workspace root is/);
    const local = await timed('fs.read of a local file after them', 3_000, (signal) => run('fs.read', { path: join(ws.root, 'local.txt') }, signal));
    expect(mcpResultText(local.resultText)).toBe('on the local disk\n');
  });
});

// Once a gap: paths outside the roots were kept out of a mount that does not answer, but one inside a root was
// looked into by every call naming it, each holding a thread of libuv's pool (4) for good: six reads there and every
// other file tool of the companion waited with them.
describe.skipIf(!canMount)('a mounted file system that does not answer, inside a root', () => {
  let ws: Workspace;
  let share: string;
  let fuse: number | undefined;
  let companion: CompanionProcess;

  const run = runner(() => companion, 'conv-hung-in', 60_000);

  beforeAll(async () => {
    ws = makeWorkspace('cb-hung-inside-');
    writeFileSync(join(ws.root, 'local.txt'), 'on the local disk\n');
    share = join(ws.root, 'share');
    mkdirSync(share);
    fuse = mountUnanswered(share);
    companion = await startCompanionProcess({ root: ws.root, home: ws.home });
  }, 60_000);

  afterAll(async () => {
    if (fuse !== undefined) closeSync(fuse);
    unmount(share);
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('more calls on it than the pool has threads leave local files readable, and the waiting ones are told why', async (ctx) => {
    if (fuse === undefined) ctx.skip();
    // more calls than libuv's pool has threads (4), each looking into the mount
    const stuck = Array.from({ length: 6 }, (_, i) => run('fs.read', { path: join(share, `notes-${i}.txt`) }, AbortSignal.timeout(60_000)));
    for (const call of stuck) call.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const local = await timed('fs.read of a local file while they wait', 5_000, (signal) => run('fs.read', { path: join(ws.root, 'local.txt') }, signal));
    expect(mcpResultText(local.resultText)).toBe('on the local disk\n');
    const listed = await timed('fs.ls of the root, which holds the mount point', 5_000, (signal) => run('fs.ls', { path: ws.root }, signal));
    expect(listed.status).toBe('done');
    // the calls beyond what the mount may hold are refused once they have waited, naming the mount
    const refused = (await timed('the calls waiting for the mount', 30_000, () => Promise.race(stuck))) as { status: string; resultText: string };
    expect(refused.status).toBe('error');
    expect(parseMcpResponse(refused.resultText).error?.message).toMatch(new RegExp(`the file system mounted at ${share} \\(fuse\\.chatbridge-test\\) has not answered`));
  }, 60_000);
});

// Once a gap: the journal looked at the paths of a change to undo (lstat, and a moved folder's whole tree) outside the
// turns of calls on a mount, so an undo of a change on a share that stopped answering held a thread of libuv's pool
// beside the three the gate lets such calls hold, and every file tool of the companion waited with them.
describe.skipIf(!canMount)('a mounted file system that does not answer, under a change to undo', () => {
  let ws: Workspace;
  const shares: Record<'written' | 'inner' | 'third', { dir: string; fuse?: number | undefined }> = {
    written: { dir: '' },
    inner: { dir: '' },
    third: { dir: '' },
  };
  let companion: CompanionProcess;
  let written: string;
  let moved: string;

  const run = runner(() => companion, 'conv-hung-undo', 60_000);
  const stuck = (name: string, args: Record<string, unknown>) => {
    const call = run(name, args, AbortSignal.timeout(60_000));
    call.catch(() => undefined);
    return call;
  };
  const undoing = (id: string) => {
    const call = undo(companion, id);
    call.catch(() => undefined);
    return call;
  };
  const localRead = () => timed('fs.read of a local file', 5_000, (signal) => run('fs.read', { path: join(ws.root, 'local.txt') }, signal));

  beforeAll(async () => {
    ws = makeWorkspace('cb-hung-undo-');
    writeFileSync(join(ws.root, 'local.txt'), 'on the local disk\n');
    shares.written.dir = join(ws.root, 'share');
    shares.third.dir = join(ws.root, 'third');
    shares.inner.dir = join(ws.root, 'moved', 'inner');
    for (const dir of [shares.written.dir, shares.third.dir, join(ws.root, 'source', 'inner')]) mkdirSync(dir, { recursive: true });
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: ALL_AUTO });
    // two changes made while their folders were local: a file written, a folder moved
    expect((await run('fs.write', { path: join(shares.written.dir, 'notes.txt'), content: 'x\n', mode: 'overwrite' }, AbortSignal.timeout(10_000))).status).toBe('done');
    expect((await run('fs.mv', { fromPath: join(ws.root, 'source'), toPath: join(ws.root, 'moved') }, AbortSignal.timeout(10_000))).status).toBe('done');
    const entries = await journalEntries(companion);
    written = entries.find((e) => e.label === 'fs.write')!.id;
    moved = entries.find((e) => e.label === 'fs.mv')!.id;
    // then the file systems mounted there stop answering; the companion reads the mount table again every 5 s
    for (const share of Object.values(shares)) share.fuse = mountUnanswered(share.dir);
    await new Promise((resolve) => setTimeout(resolve, 5_500));
  }, 60_000);

  afterAll(async () => {
    for (const share of Object.values(shares)) {
      if (share.fuse !== undefined) closeSync(share.fuse);
      unmount(share.dir);
    }
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('an undo of a file written there waits its turn like the reads there: local files stay readable', async (ctx) => {
    if (Object.values(shares).some((share) => share.fuse === undefined)) ctx.skip();
    const undone = undoing(written);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // as many calls on the mounts as the gate lets them hold threads: two on the share, one on another
    const reads = [stuck('fs.read', { path: join(shares.written.dir, 'a.txt') }), stuck('fs.read', { path: join(shares.written.dir, 'b.txt') })];
    stuck('fs.read', { path: join(shares.third.dir, 'c.txt') });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mcpResultText((await localRead()).resultText)).toBe('on the local disk\n');
    // the share's server goes: everything waiting on it fails, the undo with it, and the journal is free again
    closeSync(shares.written.fuse!);
    shares.written.fuse = undefined;
    await timed('the undo once the share is gone', 30_000, () => undone);
    await timed('the reads once the share is gone', 30_000, () => Promise.all(reads));
  }, 60_000);

  it("an undo of a moved folder with a mount inside: its tree's walk waits its turn too", async (ctx) => {
    if (shares.inner.fuse === undefined || shares.third.fuse === undefined) ctx.skip();
    // the read on the third mount still holds its thread
    undoing(moved);
    await new Promise((resolve) => setTimeout(resolve, 300));
    stuck('fs.read', { path: join(shares.inner.dir, 'a.txt') });
    stuck('fs.read', { path: join(shares.inner.dir, 'b.txt') });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mcpResultText((await localRead()).resultText)).toBe('on the local disk\n');
  }, 60_000);
});

// Once a gap: the check of what a removal, move or chmod of a folder would touch read its folders outside the turns of
// calls on a mount, so four removals of a folder holding a share that stopped answering took every thread of the pool.
describe.skipIf(!canMount)('a mounted file system that does not answer, inside a folder to remove', () => {
  let ws: Workspace;
  let share: string;
  let fuse: number | undefined;
  let companion: CompanionProcess;

  const run = runner(() => companion, 'conv-hung-rm', 60_000);

  beforeAll(async () => {
    ws = makeWorkspace('cb-hung-rm-');
    writeFileSync(join(ws.root, 'local.txt'), 'on the local disk\n');
    share = join(ws.root, 'holder', 'share');
    mkdirSync(share, { recursive: true });
    fuse = mountUnanswered(share);
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: ALL_AUTO });
  }, 60_000);

  afterAll(async () => {
    if (fuse !== undefined) closeSync(fuse);
    unmount(share);
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('removals of the folder leave local files readable, and the ones past their turn are told why', async (ctx) => {
    if (fuse === undefined) ctx.skip();
    // as many as libuv's pool has threads, each checking what is under the folder before anything is removed
    const removals = Array.from({ length: 4 }, () => run('fs.rm', { path: join(ws.root, 'holder'), recursive: true }, AbortSignal.timeout(60_000)));
    for (const call of removals) call.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const local = await timed('fs.read of a local file while they wait', 5_000, (signal) => run('fs.read', { path: join(ws.root, 'local.txt') }, signal));
    expect(mcpResultText(local.resultText)).toBe('on the local disk\n');
    const refused = (await timed('the removals waiting for the mount', 30_000, () => Promise.race(removals))) as { status: string; resultText: string };
    expect(refused.status).toBe('error');
    expect(parseMcpResponse(refused.resultText).error?.message).toMatch(new RegExp(`the file system mounted at ${share} \\(fuse\\.chatbridge-test\\) has not answered`));
    expect(readdirSync(join(ws.root, 'holder'))).toEqual(['share']);
  }, 60_000);
});

// Once a gap: an undo whose look at a moved folder's tree was refused for a mount inside that did not answer said the
// folder had changed since the move ('what is inside it changed'), where nothing had: the mount had not answered.
describe.skipIf(!canMount)('a mounted file system that does not answer, inside a moved folder to undo', () => {
  let ws: Workspace;
  let inner: string;
  let fuse: number | undefined;
  let companion: CompanionProcess;

  const run = runner(() => companion, 'conv-hung-moved', 60_000);

  beforeAll(async () => {
    ws = makeWorkspace('cb-hung-moved-');
    mkdirSync(join(ws.root, 'source', 'inner'), { recursive: true });
    inner = join(ws.root, 'moved', 'inner');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: ALL_AUTO });
    expect((await run('fs.mv', { fromPath: join(ws.root, 'source'), toPath: join(ws.root, 'moved') }, AbortSignal.timeout(10_000))).status).toBe('done');
    fuse = mountUnanswered(inner);
    await new Promise((resolve) => setTimeout(resolve, 5_500));
  }, 60_000);

  afterAll(async () => {
    if (fuse !== undefined) closeSync(fuse);
    unmount(inner);
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('the undo is refused naming the mount, not as a change to the folder', async (ctx) => {
    if (fuse === undefined) ctx.skip();
    // both turns on the mount taken by calls that wait for good
    for (const name of ['a.txt', 'b.txt']) run('fs.read', { path: join(inner, name) }, AbortSignal.timeout(60_000)).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const id = (await journalEntries(companion)).find((e) => e.label === 'fs.mv')!.id;
    const answer = await timed('the undo', 30_000, () => undo(companion, id));
    const message = JSON.stringify(answer.json);
    expect(message).not.toContain('what is inside it changed');
    expect(message).toContain(`the file system mounted at ${inner} (fuse.chatbridge-test) has not answered`);
    expect(readdirSync(join(ws.root, 'moved'))).toEqual(['inner']);
  }, 60_000);
});
