import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import { serializeMessage } from '../../extension/scanner/serialize';
import { AXON_DOC_WITH_FUNCTION_CALLS, AXON_README_WITH_PLAN } from '../shared/protocols/nested-replies';
import { LAYOUTS, SITE_OF, renderLikeSite } from './render-like-site';

/**
 * The page's view of replies whose Axon write_file writes a README showing an auto_coder plan, or a doc showing a
 * <function_calls> call: one block (the write) — the examples are the file's text (shared/protocols/index.ts
 * `withoutContent`).
 */
describe('examples inside a written file are not blocks, as the page shows the reply', () => {
  for (const layout of LAYOUTS) {
    it.each([
      ['README.md', AXON_README_WITH_PLAN, 'delete_directory'],
      ['docs/tools.md', AXON_DOC_WITH_FUNCTION_CALLS, 'rm -rf build'],
    ])(`${layout}: %s`, (file, reply, example) => {
      const site = SITE_OF[layout];
      const { message, root } = renderLikeSite(reply, layout);
      document.body.replaceChildren(root);
      const blocks = findBlocks(serializeMessage(site.answerRoot(message)!, site).markdown);
      expect(blocks.map((b) => b.kind)).toEqual(['axon']);
      const payload = blocks[0]!.payload as { acts: Array<{ act: string; args: string[] }> };
      expect(payload.acts[0]!.act).toBe('write_file');
      expect(payload.acts[0]!.args).toEqual([`${file}\n`, expect.stringContaining(example)]);
    });
  }
});

describe('seed 002\'s ```#####--xxx--##### form, as the page shows it, is a fenced plan', () => {
  const reply = '好的。\n\n```#####--\n{"metadata":{"step_id":"s1","reason":"r"},"type":"operate","file_operations":[{"action_type":"read_file","path":"tetris/game.py"}]}\n--#####```';
  for (const layout of LAYOUTS) {
    it(layout, () => {
      const site = SITE_OF[layout];
      const { message, root } = renderLikeSite(reply, layout);
      document.body.replaceChildren(root);
      const blocks = findBlocks(serializeMessage(site.answerRoot(message)!, site).markdown);
      expect(blocks).toHaveLength(1);
      expect(blocks[0]).toMatchObject({ kind: 'autocoder', complete: true });
      expect(blocks[0]!.error).toBeUndefined();
      expect(blocks[0]!.unfenced).toBeUndefined();
    });
  }
});

describe('seed 002\'s ```#####--xxx--#####``` form on one line, in a list item or after words, as the page shows it, is the plan', () => {
  const plan = '#####--{"metadata":{"step_id":"s1","reason":"r"},"type":"operate","file_operations":[{"action_type":"read_file","path":"tetris/game.py"}]}--#####';
  for (const layout of LAYOUTS) {
    it.each([
      ['numbered', `好的，步骤如下：\n\n1. \`\`\`${plan}\`\`\`\n`],
      ['bulleted', `Next step:\n\n- \`${plan}\`\n`],
      ['after words on its line', `好的，指令如下：\`\`\`${plan}\`\`\`\n`],
    ])(`${layout}: %s`, (_how, reply) => {
      const site = SITE_OF[layout];
      const { message, root } = renderLikeSite(reply, layout);
      document.body.replaceChildren(root);
      const blocks = findBlocks(serializeMessage(site.answerRoot(message)!, site).markdown);
      expect(blocks).toHaveLength(1);
      expect(blocks[0]).toMatchObject({ kind: 'autocoder', complete: true });
      expect(blocks[0]!.error).toBeUndefined();
    });
  }
});
