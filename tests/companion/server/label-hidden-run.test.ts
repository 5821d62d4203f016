import { afterEach, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../../shared/api';
import { findBlocks } from '../../../shared/protocols';
import { context, makeWorld, mcpJson, removeWorld, type World } from './harness';

/**
 * A Run click on a call in a code block whose page hid its label (shared/protocols json-fence.ts HIDDEN_LABEL) sends
 * the block's raw text; the companion, reading it again, runs the call. Before, it read an inert example and refused.
 */

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) {
    await w.close();
    removeWorld(w);
  }
});

describe('a call whose page hid its label, run by a click', () => {
  it('the companion runs the tools/list it holds', async () => {
    const [block] = findBlocks('```label-hidden-by-page\n{"jsonrpc":"2.0","id":"7","method":"tools/list"}\n```\n');
    expect(block?.labelHidden).toBe(true);
    const w = makeWorld();
    worlds.push(w);
    const response = await w.post('/v1/run', { kind: 'mcp-request', text: block!.raw, context: context(), waitMs: 2000 });
    expect(response.status).toBe(200);
    const res = (await response.json()) as RunResponse;
    const answer = mcpJson(res.resultText);
    expect(answer.error).toBeUndefined();
    expect(answer.id).toBe('7');
    expect(JSON.stringify(answer.result)).toContain('fs.read');
  });
});
