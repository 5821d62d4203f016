import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../../shared/protocols';

/** Lines of fence characters inside what a model writes: which close a block, which are the text it holds. */
const T = '~~~~~';

describe('Axon: a parameter whose last line is a fence run with words after it', () => {
  const replace = (old: string, next: string) => `${T}act\nreplace\n${T}\n${T}\nREADME.md\n${T}\n${T}\n${old}${T}\n${T}\n${next}${T}\n`;

  it.each([
    ['a README heading up to its code block', '## Install\n\n```bash\n', '## Setup\n\n```bash\n'],
    ["a code block's language", '```js\n', '```ts\n'],
  ])('a replace of %s (an opening line of the file\'s own code block) runs', (_what, old, next) => {
    // seed 003's ~~~~~ blocks are there to hold a file's backtick fences; the line was refused as a closing fence
    const [block] = findBlocks(replace(old, next));
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toEqual({ acts: [{ act: 'replace', args: ['README.md\n', old, next] }] });
  });

  it('"~~~~~ 完成" in a block opened with ``` is refused, saying that a line of ``` alone closes it', () => {
    // a line of ~~~~~ alone would not close that block either, so "put the fence alone on its line" sent the model astray
    const reply = '```act\nwrite_file\n```\n```path\nb.txt\n```\n```content\nho\n~~~~~ 完成\n```\n';
    const [block] = findBlocks(reply);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('ends with the line "~~~~~ 完成"');
    expect(block?.error).toContain('close the block with a line of ``` alone');
  });

  it('"~~~~~ Done." in the seed\'s own blocks is still refused', () => {
    const [block] = findBlocks(`${T}act\nwrite_file\n${T}\n${T}\na.txt\n${T}\n${T}\nhi\n${T} Done.\n${T}\n`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`close the block with a line of ${T} alone`);
  });
});
