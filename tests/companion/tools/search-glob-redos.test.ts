/**
 * Attack: fs.search's `glob` is compiled by picomatch into a backtracking JS regex and matched against every file's
 * name on the companion's own thread (the JS walk; with ripgrep, against every file with a hit). A glob of a few
 * stars (`*a*a*a*a*a*b`) against one long file name (a look-around in the query is enough to make the search
 * fall back from ripgrep to the JS walk) — 200 characters, which any write may create — blocked the
 * event loop for minutes: every run, approval, `/v1/status` and `/ws` hung. The companion must keep answering; a
 * glob from a call may hold at most two `**` segments, two runs of `*` in a segment and one `{…}` group
 * (companion/fsx/model-glob.ts).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeredWhileResponsive, context, makeWorkspace, mcpRequestBlock, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

describe.each(['auto', 'js'] as const)('attack: a catastrophic glob in fs.search (real companion, %s backend)', { timeout: 90_000 }, (backend) => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-glob-redos-');
    writeFileSync(join(ws.root, `${'a'.repeat(200)}.txt`), 'x marks the spot\n');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, env: backend === 'js' ? { CHATBRIDGE_SEARCH_BACKEND: 'js' } : {} });
  }, 60_000);

  afterAll(async () => {
    await companion?.kill();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('the companion keeps answering, and the search ends', async () => {
    const search = postBlock(companion, 'mcp-request', mcpRequestBlock('g', 'fs.search', { path: ws.root, query: '(?=x)x', regex: true, glob: `*${'a*'.repeat(6)}b` }), context('conv-glob', 'm1'));
    const run = await answeredWhileResponsive(companion, search, { withinMs: 20_000 });
    expect(run).not.toBeNull();
    expect(run?.resultText).toMatch(/INVALID_INPUT/);
  });

  it('three ** segments against a deep path are refused the same way, naming the rule', async () => {
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock('d', 'fs.search', { path: ws.root, query: 'x', glob: '**/a/**/a/**/b' }), context('conv-glob', 'm2'));
    expect(run.resultText).toMatch(/INVALID_INPUT.*3 \*\* segments, more than 2/);
  });

  it('the globs people use still work', async () => {
    for (const glob of ['*.txt', '**/*.txt', '*.{txt,md}', `${'a'.repeat(200)}.txt`, '**/*.t*t', '**/**/*.txt']) {
      const run = await postBlock(companion, 'mcp-request', mcpRequestBlock('ok', 'fs.search', { path: ws.root, query: 'x marks', glob }), context('conv-glob', `ok-${glob.slice(0, 20)}`));
      expect(run.resultText, glob).toContain('x marks the spot');
    }
  });
});
