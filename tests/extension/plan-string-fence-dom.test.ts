import { describe, expect, it } from 'vitest';
import { LAYOUTS, blocksOnPage } from './render-like-site';

/**
 * An auto_coder plan in a ```json block whose create_file content is a README written with raw line breaks: the
 * README's ``` line closes the page's code block, the rest is drawn as text, and the page's markdown puts a fence of
 * its own and a blank line into the README. A Run click wrote that README.
 */
const README = '# Tool\n```bash\nnpm install\n```\nThen run it.\n';
const plan = (content: string) =>
  `{"metadata": {"step_id": "s1", "reason": "r"}, "type": "operate", "file_operations": [{"action_type": "create_file", "path": "README.md", "content": "${content}"}]}`;

describe('an auto_coder plan whose string holds a code block written with raw line breaks, read from the page', () => {
  for (const layout of LAYOUTS) {
    it(`${layout}: is refused, saying to write the line breaks as \\n, and writes no README`, () => {
      const [block, ...rest] = blocksOnPage('```json\n#####--\n' + plan(README) + '\n--#####\n```\n', layout);
      expect(rest).toEqual([]);
      expect(block).toMatchObject({ kind: 'autocoder', complete: true });
      expect(block!.error).toContain('written with raw line breaks');
      expect(block!.error).toContain("write the string's line breaks as \\n");
    });

    it(`${layout}: written with \\n, the README is the one written`, () => {
      const [block] = blocksOnPage('```json\n#####--\n' + plan(README.replace(/\n/g, '\\n')) + '\n--#####\n```\n', layout);
      expect(block!.error).toBeUndefined();
      expect((block!.payload as { file_operations: Array<{ content: string }> }).file_operations[0]!.content).toBe(README);
    });
  }
});
