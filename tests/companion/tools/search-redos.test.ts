/**
 * Attack: fs.search is a read (auto by default). A regex ripgrep cannot run (a look-around) falls back to the JS
 * search, which ran the model's regex with V8's backtracking engine on the companion's own thread: one catastrophic
 * pattern (`(?=.)(.|.)*QQQ`) on any ordinary line of a few dozen characters blocked the event loop for hours — every
 * run, approval, `/v1/status` and `/ws` of the companion hung. The companion must keep answering, and the search
 * must end (with an error naming the limit) instead of running on.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeredWhileResponsive, context, makeWorkspace, mcpRequestBlock, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

describe('attack: a catastrophic regex in fs.search (real companion)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-redos-');
    writeFileSync(join(ws.root, 'notes.md'), `# Notes\n${'a line of ordinary prose, long enough to matter here'.repeat(2)}\n`);
    companion = await startCompanionProcess({ root: ws.root, home: ws.home });
  }, 60_000);

  afterAll(async () => {
    await companion?.kill();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('the companion keeps answering while the search runs, and the search ends', async () => {
    const search = postBlock(companion, 'mcp-request', mcpRequestBlock('redos', 'fs.search', { path: ws.root, query: '(?=.)(.|.)*QQQ', regex: true }), {
      ...context('conv-redos', 'm1'),
    });
    const run = await answeredWhileResponsive(companion, search, { withinMs: 30_000 });
    expect(run, 'the search ends within 30 s').not.toBeNull();
    expect(run?.resultText).toMatch(/LIMIT_EXCEEDED/);
  });

  it('many such files: one answer, and the companion is still alive after it', async () => {
    mkdirSync(join(ws.root, 'many'));
    for (let i = 0; i < 40; i++) writeFileSync(join(ws.root, 'many', `f${i}.md`), `${'ordinary prose, long enough '.repeat(2)}${i}\n`);
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock('redos2', 'fs.search', { path: join(ws.root, 'many'), query: '(?=.)(.|.)*QQQ', regex: true }), context('conv-redos', 'm2'));
    expect(run.resultText).toMatch(/LIMIT_EXCEEDED/);
    await new Promise((r) => setTimeout(r, 2_000)); // the reads still in flight finish
    const status = await fetch(`http://127.0.0.1:${companion.port}/v1/status`, { signal: AbortSignal.timeout(3_000) });
    expect(status.status).toBe(200);
  });
});
