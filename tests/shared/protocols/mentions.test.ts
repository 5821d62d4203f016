import { describe, expect, it } from 'vitest';
import { findBlocks, type Block } from '../../../shared/protocols';
import { loadBlockFixtures } from './block-fixtures';

/**
 * Issue 10 §3: a reply that first explains the format must give the same blocks as the reply without the
 * explanation. Each explanation below is put before every auto_coder, Axon and <function_calls> fixture; the blocks of the fixture's
 * kind must be the same (same text, payload, error, completeness), only moved.
 */

const AUTOCODER_MENTIONS = [
  'I will answer in the executor\'s format: every step starts with `#####--`, JSON in the middle — here is this step:\n\n',
  '每一步都以 #####-- 开头，中间放 JSON，以 --##### 结尾。本步骤如下：\n\n',
  '指令格式为 `#####--{json}--#####`，每次只能输出一段。\n\n',
  '格式：#####--{结构化指令内容}--##### 每次输出只能有一段。\n\n',
  '#####-- 是开头标记，\n--##### 是结尾标记。\n\n',
  "The executor reads it with re.search(r'#####--\\s*(.*?)\\s*--#####', text, re.DOTALL).\n\n",
  'Write it like #####--{"type": …} and the executor picks it up.\n\n',
  '> 注意：#####-- 和 --##### 之间只能是 JSON。\n\n',
  // an earlier plan quoted back, and a whole plan given as an example in inline code: neither is this reply's plan
  '上一步的指令是：\n\n> #####--{"metadata": {"step_id": "old_001", "reason": "r"}, "type": "operate", "program_operations": [{"name": "clean", "command": "rm -rf build", "set_timeout": 30}]}--#####\n\n这一步：\n\n',
  'A plan looks like `#####--{"metadata": {"step_id": "demo"}, "type": "operate", "file_operations": [{"action_type": "delete_directory", "path": "src"}]}--#####`; mine is below.\n\n',
];

const AXON_MENTIONS = [
  '每个操作以 `~~~~~act` 块开头，后面依次是参数块。\n\n',
  'Each step is an `act` block (`~~~~~act`) followed by one block per parameter.\n\n',
];

const FUNCTION_CALLS_MENTIONS = [
  'I will answer with a `<function_calls>` block, one `<invoke>` per call:\n\n',
  'Wrap every call in <function_calls> tags with one invoke each.\n\n',
  '调用格式：<function_calls> 里放一个 <invoke name="工具名">，结果会在 <function_result> 里返回。\n\n',
  'Each line is a JSON object, the first one with "type": "function_call_start".\n\n',
];

function same(blocks: Block[]): Array<Pick<Block, 'raw' | 'complete' | 'error' | 'payload' | 'repaired'>> {
  return blocks.map(({ raw, complete, error, payload, repaired }) => ({ raw, complete, error, payload, repaired }));
}

describe('an explanation of the format before the reply changes nothing', () => {
  for (const [kind, mentions] of [['autocoder', AUTOCODER_MENTIONS], ['axon', AXON_MENTIONS], ['function-calls', FUNCTION_CALLS_MENTIONS]] as const) {
    const fixtures = loadBlockFixtures().filter((f) => f.name.startsWith(`${kind}/`));
    it.each(fixtures.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
      const want = same(findBlocks(fixture.markdown).filter((b) => b.kind === kind));
      for (const mention of mentions) {
        const got = same(findBlocks(mention + fixture.markdown).filter((b) => b.kind === kind));
        expect(got, JSON.stringify(mention)).toEqual(want);
      }
    });
  }
});

describe('a call quoted back on one line is a mention', () => {
  it('<function_calls> on a quoted line gives no block; the reply’s own call after it does', () => {
    const reply =
      'Last time I sent:\n\n> <function_calls><invoke name="shell.exec"><parameter name="command">rm -rf build</parameter></invoke></function_calls>\n\n' +
      'Now:\n\n<function_calls>\n<invoke name="fs.read">\n<parameter name="path">a.txt</parameter>\n</invoke>\n</function_calls>\n';
    const blocks = findBlocks(reply);
    expect(blocks.map((block) => block.payload)).toEqual([{ form: 'xml', calls: [{ name: 'fs.read', arguments: { path: 'a.txt' } }] }]);
  });
});

describe('a call in a code block shown inside a larger code block is an example', () => {
  // a reply that shows how a reply looks, in a ````markdown block around the ```xml one, ran that example's rm -rf
  const F = '```';
  const example = '<function_calls>\n<invoke name="shell.exec">\n<parameter name="command">rm -rf build</parameter>\n</invoke>\n</function_calls>';
  const own = '<function_calls>\n<invoke name="fs.read">\n<parameter name="path">a.txt</parameter>\n</invoke>\n</function_calls>';
  const jsonl = '{"type": "function_call_start", "name": "shell.exec", "call_id": 1}\n{"type": "parameter", "key": "command", "value": "rm -rf build"}\n{"type": "function_call_end", "call_id": 1}';

  it.each([
    ['<function_calls> in ```xml inside ````markdown', `A reply calls a tool like this:\n\n${F}\`markdown\n${F}xml\n${example}\n${F}\n${F}\`\n\n`],
    ['<function_calls> in ```xml inside ~~~~markdown', `A reply calls a tool like this:\n\n~~~~markdown\n${F}xml\n${example}\n${F}\n~~~~\n\n`],
    ['JSON lines in ```jsonl inside ````markdown', `A reply calls a tool like this:\n\n${F}\`markdown\n${F}jsonl\n${jsonl}\n${F}\n${F}\`\n\n`],
  ])('%s gives no block; the reply’s own call after it does', (_where, shown) => {
    expect(findBlocks(shown)).toEqual([]);
    const blocks = findBlocks(`${shown}Mine:\n\n${F}xml\n${own}\n${F}\n`);
    expect(blocks.map((block) => [block.error, block.payload])).toEqual([[undefined, { form: 'xml', calls: [{ name: 'fs.read', arguments: { path: 'a.txt' } }] }]]);
  });

  it('an auto_coder plan in ```json inside ````markdown is no plan; the reply’s own plan after it is the first', () => {
    // read as the reply's first plan, the example's delete_directory was the one offered, and the reply's own was ignored
    const plan = (step: string, action: string) =>
      `#####--\n{"metadata": {"step_id": "${step}", "reason": "r"}, "type": "operate", "file_operations": [{"action_type": "${action}", "path": "src"}]}\n--#####`;
    const shown = `A reply looks like this:\n\n${F}\`markdown\n${F}json\n${plan('demo', 'delete_directory')}\n${F}\n${F}\`\n\n`;
    expect(findBlocks(shown)).toEqual([]);
    const blocks = findBlocks(`${shown}Mine:\n\n${F}json\n${plan('s1', 'list_tree')}\n${F}\n`);
    expect(blocks.map((block) => [block.error, (block.payload as { metadata: { step_id: string } }).metadata.step_id])).toEqual([[undefined, 's1']]);
  });

  it('still being written, the example is no block either', () => {
    const shown = `A reply calls a tool like this:\n\n${F}\`markdown\n${F}xml\n${example}`;
    for (let cut = 1; cut <= shown.length; cut++) expect(findBlocks(shown.slice(0, cut))).toEqual([]);
  });
});
