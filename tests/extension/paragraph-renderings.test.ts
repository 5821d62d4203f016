import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import { serializeMessage } from '../../extension/scanner/serialize';
import { SITE_OF, renderLikeSite } from './render-like-site';

/**
 * Plans written in paragraph text, not in a code block, as the page draws them: what the site's markdown makes of the
 * characters a command or a call holds must be read back as the model wrote them, or not at all.
 */
function blocksOnPage(reply: string) {
  const site = SITE_OF['deepseek-prism'];
  const { message, root } = renderLikeSite(reply, 'deepseek-prism');
  document.body.replaceChildren(root);
  return findBlocks(serializeMessage(site.answerRoot(message)!, site).markdown);
}

const plan = (command: string) =>
  `#####--{"metadata":{"step_id":"s1","reason":"r"},"type":"check_program","program_operations":[{"name":"setup","command":${JSON.stringify(command)},"set_timeout":30}]}--#####`;

describe('a plan in paragraph text whose command names shell variables, drawn as KaTeX math between its dollars', () => {
  it.each([
    ['a formula', 'export PATH=$HOME/.local/bin:$PATH && pip install -r requirements.txt'],
    ['a formula KaTeX cannot parse (shown as written, dollars gone)', 'echo $HOME && cp $SRC /tmp/out'],
    ['two formulas', 'cp $A$ $B$'],
  ])('%s: the command is read as written', (_how, command) => {
    const [block, ...rest] = blocksOnPage(`好的，先配置环境：\n\n${plan(command)}`);
    expect(rest).toEqual([]);
    expect(block).toMatchObject({ kind: 'autocoder', complete: true, unfenced: true });
    expect(block!.error).toBeUndefined();
    expect((block!.payload as { program_operations: Array<{ command: string }> }).program_operations[0]!.command).toBe(command);
  });
});
