import { describe, expect, it } from 'vitest';
import { LAYOUTS, blocksOnPage } from './render-like-site';

/** A reply showing how a reply calls a tool: a ```xml or ```json block inside a ````markdown one, as the page shows it. */
const EXAMPLE = '<function_calls>\n<invoke name="shell.exec">\n<parameter name="command">rm -rf build</parameter>\n</invoke>\n</function_calls>';
const OWN = '<function_calls>\n<invoke name="fs.read">\n<parameter name="path">a.txt</parameter>\n</invoke>\n</function_calls>';

describe('a <function_calls> example in a code block inside a larger one, read from the page', () => {
  for (const layout of LAYOUTS) {
    it(`${layout}: is no block; the reply's own call after it is`, () => {
      const reply = `A reply calls a tool like this:\n\n\`\`\`\`markdown\n\`\`\`xml\n${EXAMPLE}\n\`\`\`\n\`\`\`\`\n\nMine:\n\n\`\`\`xml\n${OWN}\n\`\`\`\n`;
      const blocks = blocksOnPage(reply, layout);
      expect(blocks.map((block) => [block.kind, block.error, block.payload])).toEqual([
        ['function-calls', undefined, { form: 'xml', calls: [{ name: 'fs.read', arguments: { path: 'a.txt' } }] }],
      ]);
    });
  }
});

describe('an auto_coder plan example in a code block inside a larger one, read from the page', () => {
  const plan = (step: string, action: string) =>
    `#####--\n{"metadata": {"step_id": "${step}", "reason": "r"}, "type": "operate", "file_operations": [{"action_type": "${action}", "path": "src"}]}\n--#####`;
  for (const layout of LAYOUTS) {
    it(`${layout}: is no plan; the reply's own plan after it is the first`, () => {
      const reply = `A reply looks like this:\n\n\`\`\`\`markdown\n\`\`\`json\n${plan('demo', 'delete_directory')}\n\`\`\`\n\`\`\`\`\n\nMine:\n\n\`\`\`json\n${plan('s1', 'list_tree')}\n\`\`\`\n`;
      const blocks = blocksOnPage(reply, layout);
      expect(blocks.map((block) => [block.kind, block.error, (block.payload as { metadata: { step_id: string } }).metadata.step_id])).toEqual([
        ['autocoder', undefined, 's1'],
      ]);
    });
  }
});

describe('a call written straight into a markdown code block, read from the page', () => {
  const plan = (step: string) =>
    `{"metadata": {"step_id": "${step}", "reason": "r"}, "type": "operate", "file_operations": [{"action_type": "list_tree", "path": "."}]}`;
  for (const layout of LAYOUTS) {
    it(`${layout}: seed 002's one-line form or a <function_calls> call there is no block; the reply's own plan is the first`, () => {
      const reply =
        `A reply looks like this:\n\n\`\`\`\`markdown\n好的：\n\`\`\`#####--${plan('demo')}--#####\`\`\`\n\n${EXAMPLE}\n\`\`\`\`\n\n` +
        `Mine:\n\n\`\`\`json\n#####--\n${plan('s1')}\n--#####\n\`\`\`\n`;
      const blocks = blocksOnPage(reply, layout);
      expect(blocks.map((block) => [block.kind, block.error, (block.payload as { metadata: { step_id: string } }).metadata.step_id])).toEqual([
        ['autocoder', undefined, 's1'],
      ]);
    });
  }
});

describe('a <function_calls> block in a ```xml block whose parameter holds a ``` line, read from the page', () => {
  const call = '<function_calls>\n<invoke name="fs.write">\n<parameter name="path">README.md</parameter>\n<parameter name="content"># Tool\n```python\nprint(1)\n```\n</parameter>\n</invoke>\n</function_calls>';
  for (const layout of LAYOUTS) {
    it(`${layout}: is complete and refused, saying to open the code block with a longer fence`, () => {
      const blocks = blocksOnPage(`Writing it:\n\n\`\`\`xml\n${call}\n\`\`\`\n`, layout);
      expect(blocks.map((block) => [block.kind, block.complete, block.payload])).toEqual([['function-calls', true, undefined]]);
      expect(blocks[0]!.error).toMatch(/closed the code block \(`{3,}xml\) holding the <function_calls> block/);
      expect(blocks[0]!.error).toContain('open the code block with a fence longer than any line inside it');
    });
  }
});
