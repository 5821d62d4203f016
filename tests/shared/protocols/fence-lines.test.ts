import { describe, expect, it } from 'vitest';
import { findBlocks, outlineBlocks } from '../../../shared/protocols';

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

  it.each([`${T} Done.`, `${T}Done`])('"%s" in the seed\'s own blocks is still refused: it would close them alone', (line) => {
    const [block] = findBlocks(`${T}act\nwrite_file\n${T}\n${T}\na.txt\n${T}\n${T}\nhi\n${line}\n${T}\n`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`close the block with a line of ${T} alone`);
  });
});

describe('a call shown in a markdown code block is an example of a reply', () => {
  const F = '```';
  const example = '{"metadata": {"step_id": "demo", "reason": "r"}, "type": "operate", "file_operations": [{"action_type": "delete_directory", "path": "src"}]}';
  const plan = '{"metadata": {"step_id": "s1", "reason": "r"}, "type": "operate", "file_operations": [{"action_type": "read_file", "path": "a.txt"}]}';
  const xml = (command: string) => `<function_calls>\n<invoke name="shell.exec">\n<parameter name="command">${command}</parameter>\n</invoke>\n</function_calls>`;

  it.each([
    ["seed 002's one-line form", `${F}#####--${example}--#####${F}`],
    ['a plan written straight into it', `#####--\n${example}\n--#####`],
  ])('%s opens nothing; the reply\'s own plan after it is its plan, not a second one', (_what, shown) => {
    // read as the reply's first plan, the example's delete_directory ran, fenced, and the real plan was ignored
    for (const fence of [`${F}\``, F]) {
      const reply = `A reply looks like this:\n\n${fence}markdown\n好的：\n${shown}\n${fence}\n\nMine:\n\n${F}json\n#####--\n${plan}\n--#####\n${F}\n`;
      const blocks = findBlocks(reply);
      expect(blocks).toHaveLength(1);
      expect(blocks[0]?.error).toBeUndefined();
      expect((blocks[0]?.payload as { metadata: { step_id: string } }).metadata.step_id).toBe('s1');
      expect(findBlocks(`${fence}md\n${shown}\n${fence}\n`)).toEqual([]);
    }
  });

  it('after a mention of the format in prose, the example still opens nothing', () => {
    // the mention's opener does not read, and the opener read in its place was the example's, fenced and so auto-run
    const reply = `Write it like #####--{"type": …} and the executor picks it up:\n\n${F}\`markdown\n${F}#####--${example}--#####${F}\n${F}\`\n`;
    expect(findBlocks(reply)).toEqual([]);
  });

  it('a <function_calls> call or JSON-lines call written straight into it opens nothing; the reply\'s own call runs', () => {
    const jsonl = '{"type": "function_call_start", "name": "shell.exec", "call_id": 1}\n{"type": "parameter", "key": "command", "value": "rm -rf build"}\n{"type": "function_call_end", "call_id": 1}';
    for (const shown of [xml('rm -rf build'), jsonl]) {
      const reply = `Format:\n\n${F}\`markdown\n${shown}\n${F}\`\n\nNow:\n\n${F}xml\n${xml('ls')}\n${F}\n`;
      const blocks = findBlocks(reply);
      expect(blocks.map((b) => (b.payload as { calls: Array<{ arguments: unknown }> }).calls[0]?.arguments)).toEqual([{ command: 'ls' }]);
    }
  });
});

describe('an mcp-request written without its label on the fence line', () => {
  const F = '```';
  const request = '{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"."}}}';

  it.each([
    ['mcp-request', `${F}\nmcp-request\n${request}\n${F}\n`],
    ['upper case, CRLF', `${F}\r\nMCP-Request\r\n${request}\r\n${F}\r\n`],
    ['flycode-call', `${F}\nflycode-call\n{"id":"call-1","tool":"fs.ls","args":{"path":"."}}\n${F}\n`],
    ['a page that labels a block written with none plaintext', `${F}plaintext\nmcp-request\n${request}\n${F}\n`],
  ])('the label alone on the line after the fence (%s) is the label: the call runs', (_how, reply) => {
    // it gave no block at all: no chip, no Run, nothing said
    const blocks = findBlocks(reply);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ complete: true, raw: reply.trimEnd().replace(/\r$/, '') });
    expect(blocks[0]?.error).toBeUndefined();
    expect(blocks[0]?.inert).toBeUndefined();
    expect(blocks[0]?.payload).toBeDefined();
    expect(outlineBlocks(reply).map((b) => [b.kind, b.complete])).toEqual([[blocks[0]?.kind, true]]);
    // the companion, reading the raw text alone, reads the same call
    expect(findBlocks(blocks[0]!.raw)).toEqual([{ ...blocks[0], start: 0, end: blocks[0]!.raw.length }]);
  });

  it('a code block holding the name alone, or a list of the block kinds, is no block', () => {
    // read as a call, it was an error answered to the model ("mcp-request block is empty", "is not JSON")
    for (const reply of [`${F}\nmcp-request\n${F}\n`, `${F}\nmcp-request\nflycode-call\n${F}\n`, `${F}text\nflycode-call\nmcp-response\n${F}\n`]) {
      expect(findBlocks(reply), reply).toEqual([]);
      expect(outlineBlocks(reply), reply).toEqual([]);
    }
  });

  it('mid-stream, the label line counts once its line break has come', () => {
    expect(findBlocks(`${F}\nmcp-req`)).toEqual([]);
    expect(findBlocks(`${F}\nmcp-request\n{"jsonrpc"`)).toMatchObject([{ kind: 'mcp-request', complete: false }]);
  });

  it.each([
    ['json', `${F}json\n${request}\n${F}\n`, 'a ```json block'],
    ['no label', `${F}\n${request}\n${F}\n`, 'a code block with no label'],
  ])('a JSON-RPC request in a code block with %s is shown, never run, saying why', (_label, reply, where) => {
    // it may be the format's example; it gave no block, so the person saw nothing happen and no reason
    const blocks = findBlocks(reply);
    expect(blocks).toMatchObject([{ kind: 'mcp-request', complete: true, inert: 'unlabelled-call' }]);
    expect(blocks[0]?.error).toContain(`a JSON-RPC request in ${where} does not run`);
    expect(blocks[0]?.error).toContain('write it in a ```mcp-request block');
    expect(outlineBlocks(reply).map((b) => b.kind)).toEqual(['mcp-request']);
    // sent anyway, the companion refuses it with the same error
    expect(findBlocks(blocks[0]!.raw)[0]?.error).toBe(blocks[0]?.error);
  });

  it('beside a labelled mcp-request it is the explanation\'s example: only the labelled call is a block', () => {
    const reply = `A request looks like this:\n\n${F}json\n${request.replace('fs.ls', 'fs.rm')}\n${F}\n\nMine:\n\n${F}mcp-request\n${request}\n${F}\n`;
    const blocks = findBlocks(reply);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.raw).toContain('```mcp-request');
    expect(blocks[0]?.error).toBeUndefined();
  });

  it('a ```json block holding other JSON, or a JSON-RPC response, is no block', () => {
    expect(findBlocks(`${F}json\n{"jsonrpc":"2.0","id":"1","result":{"content":[]}}\n${F}\n`)).toEqual([]);
    expect(findBlocks(`${F}json\n{"name":"fs.ls","method":"x"}\n${F}\n`)).toEqual([]);
  });
});

describe('<function_calls> in a ```xml block whose parameter holds a ``` line', () => {
  const F = '```';
  const call = `<function_calls>\n<invoke name="fs.write">\n<parameter name="path">README.md</parameter>\n<parameter name="content"># Tool\n${F}python\nprint(1)\n${F}\n</parameter>\n</invoke>\n</function_calls>`;

  it('is a complete block that runs nothing, saying which line closed the code block and what to write', () => {
    // that line ends the ```xml block on the page as in the text; the call stayed "writing" for good
    const reply = `Writing the README:\n\n${F}xml\n${call}\n${F}\n`;
    const blocks = findBlocks(reply);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ kind: 'function-calls', complete: true, start: reply.indexOf(`${F}xml`), end: reply.indexOf('</function_calls>') + '</function_calls>'.length });
    expect(blocks[0]?.payload).toBeUndefined();
    expect(blocks[0]?.unfenced).toBeUndefined();
    expect(blocks[0]?.error).toBe(
      'the line ``` inside <parameter name="content"> of fs.write closed the code block (```xml) holding the <function_calls> block, ' +
        'so the page shows the rest of the call as text and it is not read back as written; nothing ran: open the code block ' +
        'with a fence longer than any line inside it (````xml)',
    );
    expect(outlineBlocks(reply).map((b) => [b.start, b.complete])).toEqual([[blocks[0]?.start, true]]);
    // the companion, reading the raw text alone, refuses it the same way instead of running what the page cut
    expect(findBlocks(blocks[0]!.raw)).toEqual([{ ...blocks[0], start: 0, end: blocks[0]!.raw.length }]);
  });

  it('is still being written until its closer comes', () => {
    const reply = `${F}xml\n${call.slice(0, call.indexOf('</invoke>'))}`;
    expect(findBlocks(reply)).toMatchObject([{ kind: 'function-calls', complete: false }]);
  });

  it('in a longer fence, or outside a code block, the call runs with the README as written', () => {
    for (const reply of [`${F}\`xml\n${call}\n${F}\`\n`, `${call}\n`]) {
      const [block] = findBlocks(reply);
      expect(block?.error).toBeUndefined();
      expect((block?.payload as { calls: Array<{ arguments: { content: string } }> }).calls[0]?.arguments.content).toBe(`# Tool\n${F}python\nprint(1)\n${F}\n`);
    }
  });

  it('a call opened after the cut one is read as before', () => {
    const cutOnly = `${F}xml\n<function_calls>\n<invoke name="fs.write">\n<parameter name="content">x\n${F}\n`;
    const reply = `${cutOnly}\nInstead:\n\n<function_calls>\n<invoke name="fs.ls">\n<parameter name="path">.</parameter>\n</invoke>\n</function_calls>\n`;
    const blocks = findBlocks(reply);
    expect(blocks.map((b) => [b.complete, b.payload !== undefined])).toEqual([[false, false], [true, true]]);
  });
});

describe('a reply that begins with a byte order mark', () => {
  // A page or a copied text can start with U+FEFF; markdown ignores it there, so the page shows the code block.
  const BOM = '\uFEFF';
  const F = '```';

  it.each([
    ['mcp-request', `${F}mcp-request\n{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"/root/work/flycode","depth":2}}}\n${F}`],
    ['flycode-call', `${F}flycode-call\n{"id":"call-001","tool":"fs.ls","args":{"path":"/root/work/flycode","depth":2}}\n${F}`],
    ['axon', '~~~~~act\nwrite_file\n~~~~~\n~~~~~path\ndocs/example.md\n~~~~~\n~~~~~content\n# Python Guide\n~~~~~\n'],
  ])('its %s block on the first line is found as without the mark, and re-parses from its raw text', (kind, reply) => {
    const [plain] = findBlocks(reply);
    const blocks = findBlocks(BOM + reply);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ kind, complete: true, start: 1, payload: plain!.payload });
    expect(blocks[0]!.error).toBeUndefined();
    expect(blocks[0]!.warnings).toEqual(plain!.warnings);
    expect(findBlocks(blocks[0]!.raw)[0]?.payload).toEqual(plain!.payload);
  });
});

describe('<function_calls> written as prose around a ```xml block of its invokes', () => {
  const F = '```';
  const invokes = `<invoke name="fs.read">\n<parameter name="path">notes/a.txt</parameter>\n</invoke>`;
  const reply = `I will read it.\n\n<function_calls>\n\n${F}xml\n${invokes}\n${F}\n\n</function_calls>\n`;

  it('is the call it plainly is, offered with Run and never run by itself', () => {
    const blocks = findBlocks(reply);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ kind: 'function-calls', complete: true, unfenced: true, start: reply.indexOf('<function_calls>') });
    expect(blocks[0]?.error).toBeUndefined();
    expect(blocks[0]?.payload).toEqual({ form: 'xml', calls: [{ name: 'fs.read', arguments: { path: 'notes/a.txt' } }] });
    expect(findBlocks(blocks[0]!.raw)).toEqual([{ ...blocks[0], start: 0, end: blocks[0]!.raw.length }]);
  });

  it('while it streams it is being written, and never complete before its closer', () => {
    for (let cut = reply.indexOf('<function_calls>') + '<function_calls>'.length; cut < reply.indexOf('</function_calls>') + 17; cut++) {
      const blocks = findBlocks(reply.slice(0, cut));
      expect(blocks.every((block) => !block.complete)).toBe(true);
    }
  });

  it('a <function_calls> in prose followed by a code block of something else is a mention', () => {
    expect(findBlocks(`The wrapper is <function_calls>\n\n${F}bash\nls\n${F}\n\nand it ends with </function_calls>.\n`)).toEqual([]);
  });
});

describe('an <invoke> written without the <function_calls> around it', () => {
  const F = '```';
  const invoke = `<invoke name="fs.read" call_id="1">\n<parameter name="path">notes/a.txt</parameter>\n</invoke>`;
  const call = { form: 'xml', calls: [{ name: 'fs.read', callId: '1', arguments: { path: 'notes/a.txt' } }] };

  it.each([
    ['in a ```xml block', `I will read it.\n\n${F}xml\n${invoke}\n${F}\n`],
    ['in prose', `I will read it.\n\n${invoke}\n\nThen I will summarise it.\n`],
    ['in prose between a ```xml block of the opener and one of the closer', `I will read it.\n\n${F}xml\n<function_calls>\n${F}\n\n${invoke}\n\n${F}xml\n</function_calls>\n${F}\n`],
  ])('%s is the call it plainly is, offered with Run and never run by itself', (_, reply) => {
    const blocks = findBlocks(reply);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ kind: 'function-calls', complete: true, unwrapped: true, start: reply.indexOf('<invoke'), raw: invoke });
    expect(blocks[0]?.error).toBeUndefined();
    expect(blocks[0]?.payload).toEqual(call);
    expect(findBlocks(blocks[0]!.raw)).toEqual([{ ...blocks[0], start: 0, end: invoke.length }]);
  });

  it('each closed invoke is a call of its own; while one streams nothing is offered for it', () => {
    const second = invoke.replace('call_id="1"', 'call_id="2"').replace('a.txt', 'b.txt');
    const reply = `${F}xml\n${invoke}\n${second}\n${F}\n`;
    expect(findBlocks(reply).map((b) => [b.raw, b.unwrapped])).toEqual([[invoke, true], [second, true]]);
    for (let cut = 1; cut < invoke.length; cut++) expect(findBlocks(invoke.slice(0, cut))).toEqual([]);
  });

  it('an invoke inside a <function_calls> block, in inline code, on a quoted line, or with no name is no call of its own', () => {
    const wrapped = findBlocks(`<function_calls>\n${invoke}\n</function_calls>\n`);
    expect(wrapped.map((b) => b.unwrapped)).toEqual([undefined]);
    // mid-stream, the wrapper's block covers its invokes before its closer comes
    expect(findBlocks(`<function_calls>\n${invoke}\n`).map((b) => [b.complete, b.unwrapped])).toEqual([[false, undefined]]);
    expect(findBlocks(`Write \`${invoke.replaceAll('\n', '')}\` inside the wrapper.\n`)).toEqual([]);
    expect(findBlocks(`> ${invoke.replaceAll('\n', '\n> ')}\n`)).toEqual([]);
    expect(findBlocks(`<invoke>\n<parameter name="path">a</parameter>\n</invoke>\n`)).toEqual([]);
  });
});
