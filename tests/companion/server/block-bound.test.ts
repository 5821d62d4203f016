import { afterEach, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../../shared/api';
import { findBlocks, type Block } from '../../../shared/protocols';
import { MAX_BLOCKS_PER_KIND } from '../../../shared/protocols/define-protocol';
import { context, flycodeCall, makeWorld, mcpCall, mcpJson, removeWorld, type World } from './harness';

/**
 * Issue 10 §2, the companion's side: the extension sends the raw text of the block that stands for the blocks past
 * the per-reply bound, like any other block. The companion re-parses it, finds that same block, runs nothing, and
 * answers in the block's own protocol with how many were not read and why.
 */

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) {
    await w.close();
    removeWorld(w);
  }
});

async function run(kind: string, text: string): Promise<{ res: RunResponse; w: World }> {
  // the harness caps request bodies at 256 KB; a reply past the bound is larger than that
  const w = makeWorld({ maxBodyBytes: 4 << 20 });
  worlds.push(w);
  const response = await w.post('/v1/run', { kind, text, context: context(), waitMs: 100 });
  expect(response.status).toBe(200);
  return { res: (await response.json()) as RunResponse, w };
}

function notReadBlockOf(markdown: string): Block {
  const block = findBlocks(markdown).find((b) => b.notRead !== undefined);
  if (!block) throw new Error('no not-read block');
  return block;
}

const extra = 17;
const calls = (write: (i: number) => string) => Array.from({ length: MAX_BLOCKS_PER_KIND + extra }, (_, i) => write(i)).join('\n\n');

describe('the block past the per-reply bound, run', () => {
  it('mcp-request: a JSON-RPC error LIMIT_EXCEEDED (-32008) saying how many and why; nothing runs', async () => {
    const block = notReadBlockOf(calls((i) => mcpCall(`call-${i}`, 'fs.read', { path: `/tmp/${i}.txt` })));
    const { res, w } = await run('mcp-request', block.raw);
    expect(res.status).toBe('error');
    const answer = mcpJson(res.resultText);
    expect(answer.id).toBeNull();
    expect(answer.error?.code).toBe(-32008);
    expect(answer.error?.message).toContain(`the last ${extra} mcp-request blocks of this reply were not read`);
    expect(answer.error?.message).toContain('split the calls over several replies');
    expect(w.runs['fs.read']).toBeUndefined();
  });

  it('flycode-call: [ok] false with [error] LIMIT_EXCEEDED', async () => {
    const block = notReadBlockOf(calls((i) => flycodeCall(`call-${i}`, 'fs.read', { path: `/tmp/${i}.txt` })));
    const { res, w } = await run('flycode-call', block.raw);
    expect(res.status).toBe('error');
    expect(res.resultText).toContain('[id] (none)');
    expect(res.resultText).toContain('[ok] false');
    expect(res.resultText).toContain(`[error] LIMIT_EXCEEDED: the last ${extra} flycode-call blocks of this reply were not read`);
    expect(w.runs['fs.read']).toBeUndefined();
  });

  it('auto_coder: an executor response in its delimiters; the first plan inside the text does not run', async () => {
    const plan = (i: number) => `#####--\n{"type":"operate","metadata":{"step_id":"s_${i}","reason":"r"},"file_operations":[]}\n--#####`;
    const block = notReadBlockOf(calls(plan));
    const { res, w } = await run('autocoder', block.raw);
    expect(res.status).toBe('error');
    expect(res.resultText).toMatch(/^#####--[\s\S]*--#####$/);
    expect(res.resultText).toContain(`LIMIT_EXCEEDED: the last ${extra} auto_coder candidates`);
    expect(w.runs.autocoder).toBeUndefined();
  });

  it('a block that was read still runs on its own, as before', async () => {
    const markdown = calls((i) => flycodeCall(`call-${i}`, 'fs.read', { path: `/tmp/${i}.txt` }));
    const first = findBlocks(markdown)[0] as Block;
    const { res } = await run('flycode-call', first.raw);
    // the file does not exist: what matters is that the call itself was made
    expect(res.resultText).toContain('[id] call-0');
    expect(res.resultText).not.toContain('LIMIT_EXCEEDED');
  });
});
