import { describe, expect, it } from 'vitest';
import { LAYOUTS, blocksOnPage } from './render-like-site';

/** Replies that break a detail of the seeds' wire formats while plainly meaning them, read as the page shows them. */
const MCP = '{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"/tmp/a.txt"}}}';
const FLY = '{"id":"call-001","tool":"fs.read","args":{"path":"/tmp/a.txt"}}';


describe('a closing fence with words after it on its line', () => {
  // markdown takes no closing fence with words after it: the page shows "``` Done." as the code block's last line
  for (const layout of LAYOUTS) {
    it(`${layout}: the mcp-request is the JSON before that line`, () => {
      const [block, ...rest] = blocksOnPage('```mcp-request\n' + MCP + '\n``` Done, reading it now.', layout);
      expect(rest).toEqual([]);
      expect(block).toMatchObject({ kind: 'mcp-request', complete: true, payload: JSON.parse(MCP) });
      expect(block!.error).toBeUndefined();
    });

    it(`${layout}: the flycode-call too, after a tilde fence`, () => {
      const [block] = blocksOnPage('~~~flycode-call\n' + FLY + '\n~~~ 已发起读取', layout);
      expect(block).toMatchObject({ kind: 'flycode-call', complete: true, payload: JSON.parse(FLY) });
      expect(block!.error).toBeUndefined();
    });

    it(`${layout}: two JSON objects before such a line are still refused, not cut to one`, () => {
      const [block] = blocksOnPage('```mcp-request\n' + MCP + '\n' + MCP.replace('call-001', 'call-002') + '\n``` Done.', layout);
      expect(block?.kind).toBe('mcp-request');
      expect(block?.payload).toBeUndefined();
      expect(block?.error).toContain('text follows the JSON object');
    });
  }
});

describe('an Axon parameter closed by a fence with words after it', () => {
  const axon = '~~~~~act\nwrite_file\n~~~~~\n~~~~~path\ndocs/a.md\n~~~~~\n~~~~~content\nhello\n~~~~~';
  for (const layout of LAYOUTS) {
    it(`${layout}: "~~~~~ 完成" is never written into the file: the statement is refused, saying why`, () => {
      const [block, ...rest] = blocksOnPage(axon + ' 完成', layout);
      expect(rest).toEqual([]);
      expect(block).toMatchObject({ kind: 'axon', complete: true });
      expect(block!.payload).toBeUndefined();
      expect(block!.error).toContain('write_file parameter 2 (content) ends with the line "~~~~~ 完成"');
    });

    it(`${layout}: a content that ends in a bare fence line is written as it is`, () => {
      const [block] = blocksOnPage('~~~~~~act\nwrite_file\n~~~~~~\n~~~~~~path\ndocs/a.md\n~~~~~~\n~~~~~~content\n```python\nprint(1)\n```\n~~~~~~', layout);
      expect(block!.error).toBeUndefined();
      expect((block!.payload as { acts: Array<{ args: string[] }> }).acts[0]!.args[1]).toBe('```python\nprint(1)\n```\n');
    });
  }
});

describe('JSON typed with a Chinese input method, read from the page', () => {
  const typed = '```mcp-request\n{\n  “jsonrpc”：“2.0”，\n  “id”：“call-001”，\n  “method”：“tools/call”，\n  “params”：{“name”：“shell.exec”，“arguments”：{“command”：“rm -rf build”，“cwd”：“/work/app/sub”}}\n}\n```';
  for (const layout of LAYOUTS) {
    it(`${layout}: the full-width commas and colons and curly quotes are the JSON's own; every argument is kept`, () => {
      const [block, ...rest] = blocksOnPage('好的，我来清理构建目录：\n\n' + typed, layout);
      expect(rest).toEqual([]);
      expect(block!.error).toBeUndefined();
      expect((block!.payload as { params: { arguments: unknown } }).params.arguments).toEqual({ command: 'rm -rf build', cwd: '/work/app/sub' });
    });
  }
});

describe('an auto_coder plan whose markers stand around a ```json block', () => {
  // #####-- and --##### as paragraphs, the plan's JSON in a code block between them: the page shows that JSON intact
  const content = 'print("x")\n'.repeat(500);
  const plan = { metadata: { step_id: 's1', reason: 'r' }, type: 'operate', file_operations: [{ action_type: 'create_file', path: 'a.py', file_content: content }] };
  for (const layout of LAYOUTS) {
    it(`${layout}: is read from the code block, not as a plan in prose, a file over the repair limit included`, () => {
      const [block, ...rest] = blocksOnPage(`好的：\n\n#####--\n\`\`\`json\n${JSON.stringify(plan, null, 2)}\n\`\`\`\n--#####\n\n执行完告诉我结果。`, layout);
      expect(rest).toEqual([]);
      expect(block).toMatchObject({ kind: 'autocoder', complete: true, payload: plan });
      expect(block!.error).toBeUndefined();
      expect(block!.unfenced).toBeUndefined();
    });
  }
});
