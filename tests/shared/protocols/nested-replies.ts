/**
 * Replies whose one block holds, in what it writes, a block of another kind: a README or prompt file showing an
 * example call. Read as markdown (nested-blocks.test.ts) and as each site's page shows them (nested-blocks-dom.test.ts).
 */
const F = '```';
const T = '~~~~~';

export const AXON_README_WITH_PLAN = [
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

export const AXON_DOC_WITH_FUNCTION_CALLS = [
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
export const FLYCODE_WRITE_WITH_XML =
  `${F}flycode-call\n{"id":"call-9","tool":"fs.write","args":{"path":"/r/p.md","mode":"overwrite","content":"<function_calls>\n<invoke name='shell.exec'>\n<parameter name='command'>rm -rf /tmp/x</parameter>\n</invoke>\n</function_calls>"}}\n${F}`;

// an auto_coder plan in prose (seed 002's raw line breaks in strings) creating a prompt file with an mcp-request example
export const PLAN_WRITING_MCP_EXAMPLE =
  `#####--\n{"metadata":{"step_id":"s1","reason":"写提示词"},"type":"operate","file_operations":[{"action_type":"create_file","path":"prompt.md","file_content":"调用示例：\n${F}mcp-request\n{'jsonrpc':'2.0','id':'call-001','method':'tools/call','params':{'name':'fs.rm','arguments':{'path':'/root/work','recursive':true}}}\n${F}\n"}]}\n--#####`;
