import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import { serializeMessage } from '../../extension/scanner/serialize';
import { LAYOUTS, SITE_OF, renderLikeSite } from './render-like-site';

/**
 * The page's view of a reply whose Axon write_file writes a README showing an auto_coder plan and a <function_calls>
 * example: one block (the write), not three — the examples are the file's text (shared/protocols/index.ts
 * `withoutContent`).
 */
const F = '```';
const T = '~~~~~';
const README = [
  '好的，我来写 README。',
  '',
  `${T}act`, 'write_file', T,
  `${T}path`, 'README.md', T,
  `${T}markdown`,
  '# auto_coder',
  '',
  '指令格式：',
  '',
  F,
  '#####--',
  '{"type": "operate", "file_operations": [{"action_type": "delete_directory", "path": "src"}]}',
  '--#####',
  F,
  '',
  '工具调用：',
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

describe('examples inside a written file are not blocks, as the page shows the reply', () => {
  for (const layout of LAYOUTS) {
    it(layout, () => {
      const site = SITE_OF[layout];
      const { message, root } = renderLikeSite(README, layout);
      document.body.replaceChildren(root);
      const answer = site.answerRoot(message)!;
      const blocks = findBlocks(serializeMessage(answer, site).markdown);
      expect(blocks.map((b) => b.kind)).toEqual(['axon']);
      const payload = blocks[0]!.payload as { acts: Array<{ act: string; args: string[] }> };
      expect(payload.acts[0]!.act).toBe('write_file');
      expect(payload.acts[0]!.args[1]).toContain('rm -rf build');
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
