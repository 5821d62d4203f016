import { Marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import { locateBlock, mayHoldBlocks, serializeMessage } from '../../extension/scanner/serialize';
import { generic } from '../../extension/sites';
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

describe('a <function_calls> call in paragraph text on a page whose renderer lets HTML through', () => {
  // marked's default (no site module: the generic reader): <invoke> and <parameter> become elements, their names
  // attributes; <function_calls> (an underscore: no HTML tag to markdown) stays text.
  const htmlThrough = new Marked();
  function onPage(reply: string) {
    const message = document.createElement('div');
    message.className = 'message assistant';
    message.innerHTML = htmlThrough.parse(reply, { async: false });
    document.body.replaceChildren(message);
    const [found] = generic.messages(document);
    const serialized = serializeMessage(generic.answerRoot(found!.el)!, generic);
    expect(mayHoldBlocks(found!.el, found!.el.textContent ?? '', generic)).toBe(true);
    return findBlocks(serialized.markdown).map((block) => ({ block, unreadable: locateBlock(serialized, block.start, block.end).unreadable }));
  }

  it('is found, and shown as not readable as written, saying why', () => {
    const [found, ...rest] = onPage('I will read it:\n\n<function_calls>\n<invoke name="fs.read">\n<parameter name="path">/tmp/a.txt</parameter>\n</invoke>\n</function_calls>');
    expect(rest).toEqual([]);
    expect(found!.block).toMatchObject({ kind: 'function-calls', complete: true, unfenced: true });
    expect(found!.block.error).toBeUndefined();
    expect(found!.unreadable).toContain('<invoke>/<parameter> tags as HTML');
  });

  it('whose value the page moved out of its parameter (a heading closes the paragraph) is never read as an empty file', () => {
    const [found, ...rest] = onPage(
      '<function_calls>\n<invoke name="fs.write">\n<parameter name="path">README.md</parameter>\n<parameter name="content"><h1>Title</h1></parameter>\n</invoke>\n</function_calls>',
    );
    expect(rest).toEqual([]);
    expect(found!.block.kind).toBe('function-calls');
    expect(found!.unreadable).toContain('<invoke>/<parameter> tags as HTML');
  });

  it('in a heading or a table cell is shown as not readable as written too (the page shows no tool name there either)', () => {
    const call = '<function_calls><invoke name="fs.write"><parameter name="path">a.txt</parameter><parameter name="content">hi</parameter></invoke></function_calls>';
    for (const reply of [`# ${call}`, `| a | b |\n|---|---|\n| ${call} | x |`]) {
      const [found, ...rest] = onPage(reply);
      expect(rest).toEqual([]);
      expect(found!.block.kind).toBe('function-calls');
      expect(found!.unreadable).toContain('<invoke>/<parameter> tags as HTML');
    }
  });

  it('a call the page shows as text (HTML escaped) reads as before', () => {
    const blocks = blocksOnPage('<function_calls>\n<invoke name="fs.read">\n<parameter name="path">/tmp/a.txt</parameter>\n</invoke>\n</function_calls>');
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ kind: 'function-calls', complete: true });
    expect(blocks[0]!.error).toBeUndefined();
  });
});

describe('a plan whose marker a renderer drew as a heading (`#####` without the space CommonMark asks for)', () => {
  // marked's pedantic mode and showdown's default take `#####--…` for a level-5 heading: the opener's `#####` becomes
  // the h5 and a closing `--#####` on the same line is dropped as the heading's closing sequence.
  const pedantic = new Marked({ pedantic: true });
  const json = '{"metadata":{"step_id":"s1","reason":"r"},"type":"operate","file_operations":[{"action_type":"read_file","path":"src/app.py"}]}';
  function onPage(reply: string) {
    const site = SITE_OF['deepseek-prism'];
    document.body.innerHTML = `<div class="ds-message"><div class="ds-markdown">${pedantic.parse(reply, { async: false })}</div></div>`;
    const message = document.querySelector('.ds-message')!;
    expect(message.querySelector('h5')).not.toBeNull();
    expect(mayHoldBlocks(message, message.textContent ?? '', site)).toBe(true);
    return findBlocks(serializeMessage(site.answerRoot(message)!, site).markdown);
  }

  it.each([
    ['on one line', `好的，读取文件：\n\n#####--${json}--#####\n`],
    ['the opener on its own line', `好的，读取文件：\n\n#####--\n${json}\n--#####\n`],
  ])('%s: the plan is found as written, offered, never run by itself', (_how, reply) => {
    const [block, ...rest] = onPage(reply);
    expect(rest).toEqual([]);
    expect(block).toMatchObject({ kind: 'autocoder', complete: true, unfenced: true });
    expect(block!.error).toBeUndefined();
    expect(block!.payload).toEqual(JSON.parse(json));
  });
});
