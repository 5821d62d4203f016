import { describe, expect, it } from 'vitest';
import { findBlocks, outlineBlocks } from '../../../shared/protocols';

/** Every line of `text` behind a quote marker, as the page's serializer writes a block quote (`>` alone on an empty line). */
function quote(text: string): string {
  return text.split('\n').map((line) => (line === '' ? '>' : `> ${line}`)).join('\n');
}

const PLAN = [
  '~~~~~act\nwrite_file\n~~~~~',
  '~~~~~path\ndocs/a.md\n~~~~~',
  '~~~~~markdown\n# A\n\n    code kept indented\n```bash\nnpm test\n```\n~~~~~',
  '',
  '~~~~~act\nreplace\n~~~~~',
  '~~~~~path\nmain.py\n~~~~~',
  '~~~~~python\nprint("old")\n~~~~~',
  '~~~~~python\nprint("new")\n~~~~~',
].join('\n');

const ACTS = [
  { act: 'write_file', args: ['docs/a.md\n', '# A\n\n    code kept indented\n```bash\nnpm test\n```\n'] },
  { act: 'replace', args: ['main.py\n', 'print("old")\n', 'print("new")\n'] },
];

describe('an Axon plan written wholly inside a block quote', () => {
  const reply = `I will write the file and fix main.py:\n\n${quote(PLAN)}\n\nThat is all.\n`;

  it('is the plan: its statements read through the quote marks, byte-exact, marked quoted (never run by itself)', () => {
    const blocks = findBlocks(reply);
    expect(blocks.map((b) => b.payload)).toEqual(ACTS.map((act) => ({ acts: [act] })));
    expect(blocks.every((b) => b.complete && b.quoted === true && b.error === undefined)).toBe(true);
    expect(blocks[0]?.raw).toBe(quote(PLAN.split('\n\n~~~~~act')[0] as string));
    expect(blocks[0]?.start).toBe(reply.indexOf('> ~~~~~act'));
    for (const block of blocks) expect(block.raw).toBe(reply.slice(block.start, block.end));
    expect(outlineBlocks(reply).map((b) => [b.start, b.end, b.complete])).toEqual(blocks.map((b) => [b.start, b.end, b.complete]));
  });

  it('re-parsed as the extension sends it (the statements joined), it is the same plan: what the companion reads', () => {
    const sent = findBlocks(reply).map((b) => b.raw).join('\n\n');
    expect(findBlocks(sent).map((b) => [b.payload, b.quoted])).toEqual(ACTS.map((act) => [{ acts: [act] }, true]));
  });

  it('a quote beside a plan of the reply\'s own is a mention: only the real plan counts', () => {
    const earlier = quote('~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nold.txt\n~~~~~\n~~~~~text\nold\n~~~~~');
    const real = '~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nnew.txt\n~~~~~\n~~~~~text\nnew\n~~~~~';
    for (const text of [`Last time:\n\n${earlier}\n\nNow:\n\n${real}\n`, `${real}\n\nInstead of:\n\n${earlier}\n`]) {
      expect(findBlocks(text).map((b) => [b.payload, b.quoted])).toEqual([[{ acts: [{ act: 'write_file', args: ['new.txt\n', 'new\n'] }] }, undefined]]);
    }
    // a block of any kind of the reply's own, even one still being written, leaves the quote a mention
    expect(findBlocks(`${earlier}\n\n~~~~~act\nwrite_file\n~~~~~\n`).map((b) => [b.complete, b.quoted])).toEqual([[false, undefined]]);
    expect(findBlocks(`${earlier}\n\n\`\`\`mcp-request\n{"jsonrpc":"2.0","id":"1","method":"tools/list"}\n\`\`\`\n`).map((b) => b.kind)).toEqual(['mcp-request']);
  });

  it('one introduced as an example before the plan it shows is not read; prose or code in a quote holds no plan', () => {
    const example = quote('~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nex.txt\n~~~~~\n~~~~~text\nex\n~~~~~');
    const plan = quote('~~~~~act\nwrite_file\n~~~~~\n~~~~~path\na.txt\n~~~~~\n~~~~~text\na\n~~~~~');
    expect(findBlocks(`For example:\n\n${example}\n\nSo:\n\n${plan}\n`).map((b) => b.raw)).toEqual([plan]);
    expect(findBlocks(`> Use the act block to name the act.\n>\n> ~~~~~text\n> write_file\n> ~~~~~\n`)).toEqual([]);
    // in a code block, a quote is that code's text (an email quoting a plan, shown as written)
    expect(findBlocks(`\`\`\`markdown\n${plan}\n\`\`\`\n`)).toEqual([]);
    expect(findBlocks(`\`\`\`text\n${plan}\n`)).toEqual([]);
  });
});
