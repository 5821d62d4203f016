import { describe, expect, it } from 'vitest';
import { findBlocks, outlineBlocks } from '../../../shared/protocols';

/**
 * A block of one kind written inside what a block of another kind holds is that block's data (a README, a prompt
 * file), not a call: it must not be found as a block of its own, or the file's example would run too.
 */

const F = '```';
const T = '~~~~~';

const AXON_README_WITH_PLAN = [
  '好的，我来写 README。',
  '',
  `${T}act`, 'write_file', T,
  `${T}path`, 'README.md', T,
  `${T}markdown`,
  '# auto_coder',
  '',
  'AI 返回的指令格式如下：',
  '',
  F,
  '#####--',
  '{',
  '  "type": "operate",',
  '  "file_operations": [{"action_type": "delete_directory", "path": "src"}]',
  '}',
  '--#####',
  F,
  T,
].join('\n');

const AXON_DOC_WITH_FUNCTION_CALLS = [
  `${T}act`, 'write_file', T,
  `${T}path`, 'docs/tools.md', T,
  `${T}markdown`,
  '# Tools',
  '',
  `${F}xml`,
  '<function_calls>',
  '<invoke name="shell.exec">',
  '<parameter name="command">rm -rf build</parameter>',
  '</invoke>',
  '</function_calls>',
  F,
  T,
].join('\n');

// a flycode-call writing a prompt file, its content with raw line breaks (repaired) and an XML example
const FLYCODE_WRITE_WITH_XML =
  `${F}flycode-call\n{"id":"call-9","tool":"fs.write","args":{"path":"/r/p.md","mode":"overwrite","content":"<function_calls>\n<invoke name='shell.exec'>\n<parameter name='command'>rm -rf /tmp/x</parameter>\n</invoke>\n</function_calls>"}}\n${F}`;

// an auto_coder plan in prose (seed 002's raw line breaks in strings) creating a prompt file with an mcp-request example
const PLAN_WRITING_MCP_EXAMPLE =
  `#####--\n{"metadata":{"step_id":"s1","reason":"写提示词"},"type":"operate","file_operations":[{"action_type":"create_file","path":"prompt.md","file_content":"调用示例：\n${F}mcp-request\n{'jsonrpc':'2.0','id':'call-001','method':'tools/call','params':{'name':'fs.rm','arguments':{'path':'/root/work','recursive':true}}}\n${F}\n"}]}\n--#####`;

describe('a block inside another block\'s content is data, not a call', () => {
  it.each([
    ['an Axon write_file of a README showing an auto_coder plan', AXON_README_WITH_PLAN, 'axon'],
    ['an Axon write_file of a doc showing a <function_calls> call', AXON_DOC_WITH_FUNCTION_CALLS, 'axon'],
    ['a flycode-call fs.write of a prompt file with a <function_calls> example', FLYCODE_WRITE_WITH_XML, 'flycode-call'],
    ['an auto_coder create_file of a prompt file with an mcp-request example', PLAN_WRITING_MCP_EXAMPLE, 'autocoder'],
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

  it('still finds blocks side by side', () => {
    const markdown = `${AXON_DOC_WITH_FUNCTION_CALLS}\n\n${F}mcp-request\n{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"/a"}}}\n${F}\n`;
    expect(findBlocks(markdown).map((b) => b.kind)).toEqual(['axon', 'mcp-request']);
    expect(outlineBlocks(markdown).map((b) => b.kind)).toEqual(['axon', 'mcp-request']);
  });
});
