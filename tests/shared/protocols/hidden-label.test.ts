import { describe, expect, it } from 'vitest';
import { findBlocks, outlineBlocks } from '../../../shared/protocols';
import { HIDDEN_LABEL } from '../../../shared/protocols/json-fence';

/**
 * A code block whose page hid the label it was written with (Gemini's "Code snippet", HuggingChat's blocks without a
 * language) reaches the parsers labelled HIDDEN_LABEL: the model may have written ```mcp-request there.
 */
const F = '```';
const call = '{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"."}}}';
const list = '{"jsonrpc":"2.0","id":"2","method":"tools/list"}';
const hidden = (json: string) => `${F}${HIDDEN_LABEL}\n${json}\n${F}\n`;

describe('a JSON-RPC request alone in a code block whose page hid its label', () => {
  it.each([
    ['tools/call', call],
    ['tools/list', list],
  ])('%s is a call offered with Run (labelHidden), not an inert example', (_method, json) => {
    // it was inert 'unlabelled-call', its chip telling the model to write ```mcp-request, which it had done
    const blocks = findBlocks(hidden(json));
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ kind: 'mcp-request', complete: true, labelHidden: true, payload: JSON.parse(json) });
    expect(blocks[0]?.inert).toBeUndefined();
    expect(blocks[0]?.error).toBeUndefined();
    expect(outlineBlocks(hidden(json)).map((b) => b.kind)).toEqual(['mcp-request']);
    // the companion, reading the raw text alone, runs the same call
    expect(findBlocks(blocks[0]!.raw)).toEqual([{ ...blocks[0], start: 0, end: blocks[0]!.raw.length }]);
  });

  it('a call the companion would refuse keeps its error (the model reads why), still no auto-run', () => {
    const [block] = findBlocks(hidden(call.replace('fs.ls', 'fs.nope')));
    expect(block).toMatchObject({ labelHidden: true });
    expect(block?.error).toContain('tool "fs.nope" is not available');
  });

  it.each([
    ['initialize', '{"jsonrpc":"2.0","id":"0","method":"initialize"}'],
    ['a notification', '{"jsonrpc":"2.0","method":"notifications/initialized"}'],
  ])('%s there is still the format\'s example: inert, saying where it was', (_what, json) => {
    const [block] = findBlocks(hidden(json));
    expect(block).toMatchObject({ kind: 'mcp-request', inert: 'unlabelled-call' });
    expect(block?.labelHidden).toBeUndefined();
    expect(block?.error).toContain('a code block whose label the chat page does not show');
  });

  it('a code block with no label, or ```json, on a page that shows labels stays inert', () => {
    for (const reply of [`${F}\n${call}\n${F}\n`, `${F}json\n${call}\n${F}\n`]) {
      expect(findBlocks(reply)).toMatchObject([{ kind: 'mcp-request', inert: 'unlabelled-call' }]);
    }
  });

  it('beside a labelled mcp-request it is the explanation\'s example: only the labelled call is a block', () => {
    const blocks = findBlocks(`${hidden(call.replace('fs.ls', 'fs.rm'))}\nMine:\n\n${F}mcp-request\n${call}\n${F}\n`);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.raw).toContain('```mcp-request');
    expect(blocks[0]?.labelHidden).toBeUndefined();
  });

  it('the label on the first line of such a block is the label, as in a block with none', () => {
    const [block] = findBlocks(hidden(`mcp-request\n${call}`));
    expect(block).toMatchObject({ kind: 'mcp-request', payload: JSON.parse(call) });
    expect(block?.labelHidden).toBeUndefined();
  });
});

describe('zero-width characters in a fence label', () => {
  it.each([
    ['a zero-width space after it', 'mcp-request\u200B'],
    ['a zero-width space before it', '\u200Bmcp-request'],
    ['a word joiner inside it', 'mcp\u2060-request'],
    ['a BOM before it', '\uFEFFmcp-request'],
  ])('%s: the label is what the page shows, and the companion reads the same call', (_what, label) => {
    // the label read "mcp-request\u200B", so a call the person saw labelled mcp-request was no block
    const reply = `${F}${label}\n${call}\n${F}\n`;
    const blocks = findBlocks(reply);
    expect(blocks).toMatchObject([{ kind: 'mcp-request', complete: true, payload: JSON.parse(call) }]);
    expect(blocks[0]?.error).toBeUndefined();
    expect(findBlocks(blocks[0]!.raw)).toEqual([{ ...blocks[0], start: 0, end: blocks[0]!.raw.length }]);
  });

  it('an Axon act fence with one is still the act', () => {
    const [block] = findBlocks('~~~~~act\u200B\ncheck_files_exist\n~~~~~\n~~~~~\na.txt\n~~~~~\n');
    expect(block).toMatchObject({ kind: 'axon', payload: { acts: [{ act: 'check_files_exist', args: ['a.txt\n'] }] } });
    expect(block?.error).toBeUndefined();
  });
});

describe('Axon: `act` on the first line of a fence with no label', () => {
  const T = '~~~~~';
  const write = (opening: string) => `${opening}\nact\nwrite_file\n${T}\n${T}\na.txt\n${T}\n${T}\nhi\n${T}\n`;

  it.each([
    ['no label', T],
    ['a plaintext label', `${T}text`],
  ])('with %s, the fence is the act fence, as an mcp-request\'s label there is its label', (_what, opening) => {
    // the statement the model meant was no block: nothing ran, nothing said why
    const reply = write(opening);
    const blocks = findBlocks(reply);
    expect(blocks).toMatchObject([{ kind: 'axon', complete: true, payload: { acts: [{ act: 'write_file', args: ['a.txt\n', 'hi\n'] }] } }]);
    expect(blocks[0]?.error).toBeUndefined();
    expect(findBlocks(blocks[0]!.raw)).toEqual([{ ...blocks[0], start: 0, end: blocks[0]!.raw.length }]);
  });

  it('cuts short the statement before it, and that statement\'s raw text re-parses the same way', () => {
    const reply = `${T}act\nwrite_file\n${T}\n${T}\na.txt\n${T}\n${write(T)}`;
    const blocks = findBlocks(reply);
    expect(blocks.map((b) => [b.complete, b.error?.slice(0, 30)])).toEqual([
      [true, 'write_file needs 2 parameters '],
      [true, undefined],
    ]);
    // the companion reads the first statement from its raw text alone (its complete blocks), as with a ~~~~~act after it
    expect(findBlocks(blocks[0]!.raw).filter((b) => b.complete)).toEqual([{ ...blocks[0], start: 0, end: blocks[0]!.raw.length }]);
    const labelled = findBlocks(`${T}act\nwrite_file\n${T}\n${T}\na.txt\n${T}\n${T}act\nlist\n${T}\n`)[0]!;
    expect(findBlocks(labelled.raw).map((b) => b.complete)).toEqual(findBlocks(blocks[0]!.raw).map((b) => b.complete));
  });

  it.each([
    ['an act not in the list', `${T}\nact\nlist_files\n${T}\n${T}\n.\n${T}\n`],
    ['more after the act\'s name', `${T}\nact\nwrite_file\nthen the path\n${T}\n${T}\na.txt\n${T}\n${T}\nhi\n${T}\n`],
    ['`act` alone', `${T}\nact\n${T}\n`],
    ['a labelled code block', `${T}python\nact\nwrite_file\n${T}\n${T}\na.txt\n${T}\n${T}\nhi\n${T}\n`],
  ])('%s there is the code block\'s text: no block', (_what, reply) => {
    expect(findBlocks(reply)).toEqual([]);
  });
});

describe('a flycode-call in a ```json block', () => {
  const fly = '{"id":"call-001","tool":"fs.read","args":{"path":"README.md"}}';

  it.each([
    ['json', `${F}json\n${fly}\n${F}\n`, 'a ```json block'],
    ['no label', `${F}\n${fly}\n${F}\n`, 'a code block with no label'],
  ])('with %s is shown, never run, saying why', (_label, reply, where) => {
    // it gave no block: the person saw nothing happen and no reason, the model was never told
    const blocks = findBlocks(reply);
    expect(blocks).toMatchObject([{ kind: 'flycode-call', complete: true, inert: 'unlabelled-flycode-call', payload: JSON.parse(fly) }]);
    expect(blocks[0]?.error).toContain(`a flycode-call in ${where} does not run`);
    expect(blocks[0]?.error).toContain('write it in a ```flycode-call block');
    expect(outlineBlocks(reply).map((b) => b.kind)).toEqual(['flycode-call']);
    expect(findBlocks(blocks[0]!.raw)[0]?.error).toBe(blocks[0]?.error);
  });

  it('with its page hiding the label, it is offered with Run', () => {
    const [block] = findBlocks(hidden(fly));
    expect(block).toMatchObject({ kind: 'flycode-call', labelHidden: true, payload: JSON.parse(fly) });
    expect(block?.inert).toBeUndefined();
    expect(block?.error).toBeUndefined();
  });

  it('other JSON with an id, a tool and args, or beside a labelled flycode-call, is no block of its own', () => {
    expect(findBlocks(`${F}json\n{"id":"1","tool":"web_search","args":{"q":"x"}}\n${F}\n`)).toEqual([]);
    expect(findBlocks(`${F}json\n{"tool":"fs.read","args":{}}\n${F}\n`)).toEqual([]);
    const blocks = findBlocks(`${F}json\n${fly}\n${F}\n\nMine:\n\n${F}flycode-call\n${fly}\n${F}\n`);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.raw).toContain('```flycode-call');
  });
});
