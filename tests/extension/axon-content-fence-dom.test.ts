import { describe, expect, it } from 'vitest';
import { LAYOUTS, blocksOnPage } from './render-like-site';
import { AXON_README_WITH_PLAN } from '../shared/protocols/nested-replies';

/**
 * An Axon write_file of a README whose ```bash block sits in a ``` content block, as the page shows it: the README's
 * closing line closes the content block there too, and the page draws the rest as text and an empty code block.
 */
const README = '# Tool\n\n```bash\nnpm install\n```\n\nThen run it.\n';

describe("an Axon write_file whose file's own code block closed the content block, read from the page", () => {
  for (const layout of LAYOUTS) {
    it(`${layout}: the statement is refused, naming the line, and writes no cut file`, () => {
      const blocks = blocksOnPage(`\`\`\`act\nwrite_file\n\`\`\`\n\`\`\`path\nREADME.md\n\`\`\`\n\`\`\`markdown\n${README}\`\`\`\n`, layout);
      expect(blocks.map((block) => block.kind)).toEqual(['axon']);
      expect(blocks[0]!.payload).toBeUndefined();
      expect(blocks[0]!.error).toContain('write_file parameter 2 (content) ends inside the code block it opens on its line 3 ("```bash")');
    });

    it(`${layout}: in the seed's five tildes the README is written whole`, () => {
      const [block] = blocksOnPage(`~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nREADME.md\n~~~~~\n~~~~~markdown\n${README}~~~~~\n`, layout);
      expect(block!.error).toBeUndefined();
      expect((block!.payload as { acts: Array<{ args: string[] }> }).acts[0]!.args[1]).toBe(README);
    });
  }
});

describe('an Axon write_file refused for what it holds, read from the page', () => {
  for (const layout of LAYOUTS) {
    it(`${layout}: still holds the plan its README shows, which is no plan of the reply`, () => {
      // the path in backticks: refused with no payload, the statement held nothing, and the README's delete_directory
      // plan, in a code block of the page, was the reply's own
      const blocks = blocksOnPage(AXON_README_WITH_PLAN.replace('\nREADME.md\n', '\n`README.md`\n'), layout);
      expect(blocks.map((block) => block.kind)).toEqual(['axon']);
      expect(blocks[0]!.error).toContain('is written in quotes or backticks');
    });
  }
});
