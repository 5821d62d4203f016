import { describe, expect, it } from 'vitest';
import { findBlocks, outlineBlocks } from '../../../shared/protocols';
import { AXON_DOC_WITH_FUNCTION_CALLS, AXON_README_WITH_PLAN, FLYCODE_WRITE_WITH_XML, PLAN_WRITING_MCP_EXAMPLE } from './nested-replies';

/**
 * A block of one kind written inside what a block of another kind holds is that block's data (a README, a prompt
 * file), not a call: it must not be found as a block of its own, or the file's example would run too.
 */

const F = '```';

describe('a block inside another block\'s content is data, not a call', () => {
  it.each([
    ['an Axon write_file of a README showing an auto_coder plan', AXON_README_WITH_PLAN, 'axon'],
    ['an Axon write_file of a doc showing a <function_calls> call', AXON_DOC_WITH_FUNCTION_CALLS, 'axon'],
    ['a flycode-call fs.write of a prompt file with a <function_calls> example', FLYCODE_WRITE_WITH_XML, 'flycode-call'],
  ])('%s', (_name, markdown, kind) => {
    const blocks = findBlocks(markdown);
    expect(blocks.map((b) => b.kind)).toEqual([kind]);
    expect(blocks[0]?.payload).toBeDefined();
    expect(blocks[0]?.error).toBeUndefined();
    // asked for one kind, the answer is the same
    for (const other of ['mcp-request', 'flycode-call', 'autocoder', 'axon', 'function-calls'] as const) {
      expect(findBlocks(markdown, other)).toEqual(blocks.filter((b) => b.kind === other));
    }
    // the raw text the companion re-parses gives the outer block alone
    expect(findBlocks(blocks[0]!.raw).map((b) => b.kind)).toEqual([kind]);
  });

  it.each([
    ['its path in backticks', (reply: string) => reply.replace('\nREADME.md\n', '\n`README.md`\n'), 'is written in quotes or backticks'],
    ['its README cut by a code block of its own', (reply: string) => reply.replace(/\n~~~~~$/, '\n```bash\nnpm install\n~~~~~'), 'ends inside the code block'],
  ])('an Axon write_file refused for %s still holds the plan its README shows', (_why, change, refusal) => {
    // refused, the statement has no payload; the README's delete_directory plan was then the reply's own, in a code block
    const reply = change(AXON_README_WITH_PLAN);
    expect(reply).not.toBe(AXON_README_WITH_PLAN);
    const blocks = findBlocks(reply);
    expect(blocks.map((b) => b.kind)).toEqual(['axon']);
    expect(blocks[0]?.error).toContain(refusal);
    expect(findBlocks(reply, 'autocoder')).toEqual([]);
  });

  it('an auto_coder create_file of a prompt file with an mcp-request example is refused, and the example is still its text', () => {
    // written with raw line breaks, the example's fence lines are fences to markdown: the page cuts the plan into code
    // blocks and text and reads the file back with blank lines of its own, so the plan is refused; its example never runs
    const blocks = findBlocks(PLAN_WRITING_MCP_EXAMPLE);
    expect(blocks.map((b) => b.kind)).toEqual(['autocoder']);
    expect(blocks[0]?.payload).toBeDefined();
    expect(blocks[0]?.error).toContain('holds a line "```mcp-request" written with raw line breaks');
    expect(findBlocks(PLAN_WRITING_MCP_EXAMPLE, 'mcp-request')).toEqual([]);
    expect(findBlocks(blocks[0]!.raw).map((b) => [b.kind, b.error !== undefined])).toEqual([['autocoder', true]]);
  });

  it('still finds blocks side by side', () => {
    const markdown = `${AXON_DOC_WITH_FUNCTION_CALLS}\n\n${F}mcp-request\n{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"/a"}}}\n${F}\n`;
    expect(findBlocks(markdown).map((b) => b.kind)).toEqual(['axon', 'mcp-request']);
    expect(outlineBlocks(markdown).map((b) => b.kind)).toEqual(['axon', 'mcp-request']);
  });
});
