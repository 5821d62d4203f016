import { describe, expect, it } from 'vitest';
import { findBlocks, outlineBlocks } from '../../../shared/protocols';
import { LIBRARY_REPAIR_LIMIT, prepareForRepair } from '../../../shared/protocols/json';

/** Replies as models write them when they get a detail of the JSON wrong, read through findBlocks. */
const F = '```';

describe('JSON a model gets slightly wrong keeps its arguments', () => {
  it('seed 000 template D with single backslashes: the Windows path is the one written', () => {
    const reply = `${F}mcp-request\n{"jsonrpc":"2.0","id":"call-004","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"C:\\Users\\a1881\\Documents\\notes.txt","range":"head:800"}}}\n${F}`;
    const [block] = findBlocks(reply);
    expect(block?.error).toBeUndefined();
    expect(block?.repaired).toBe(true);
    expect((block?.payload as { params: { arguments: unknown } }).params.arguments).toEqual({
      path: 'C:\\Users\\a1881\\Documents\\notes.txt',
      range: 'head:800',
    });
  });

  it('an auto_coder program command with a single-backslash Windows path runs that path', () => {
    const reply = `${F}\n#####--\n{"metadata":{"step_id":"s1","reason":"r"},"type":"operate","program_operations":[{"name":"p","command":"python C:\\Users\\me\\proj\\main.py","set_timeout":30}]}\n--#####\n${F}`;
    const [block] = findBlocks(reply);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { program_operations: Array<{ command: string }> }).program_operations[0]?.command).toBe(
      'python C:\\Users\\me\\proj\\main.py',
    );
  });

  it('a Python-style call keeps the backslashes of a Windows path and a regex in single quotes', () => {
    const reply = `${F}flycode-call\n{'id': 'call-1', 'tool': 'process.run', 'args': {'command': 'python', 'args': ['C:\\Users\\me\\notes.py', '\\d+\\.\\d+', 'a\\tb']}}\n${F}`;
    const [block] = findBlocks(reply);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: { args: unknown } }).args.args).toEqual(['C:\\Users\\me\\notes.py', '\\d+\\.\\d+', 'a\tb']);
  });

  it('an escaped back quote in a string in back quotes is that quote, as JavaScript reads it', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "shell.exec", "args": {"command": \`echo \\\`date\\\`\`}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ command: 'echo `date`' });
  });

  it('a Python-style auto_coder plan writing a file over the repair limit is read, not refused', () => {
    const content = 'print("x")\n'.repeat(600);
    const plan = `{'metadata': {'step_id': 's1', 'reason': 'r'}, 'type': 'operate', 'file_operations': [{'action_type': 'create_file', 'path': 'a.py', 'file_content': '${content.replace(/\n/g, '\\n')}'}]}`;
    expect(plan.length).toBeGreaterThan(LIBRARY_REPAIR_LIMIT);
    const [block] = findBlocks(`${F}\n#####--\n${plan}\n--#####\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { file_operations: Array<{ file_content: string }> }).file_operations[0]?.file_content).toBe(content);
  });

  it('a Python-style flycode-call with a URL in single quotes is read, not refused', () => {
    const reply = `${F}flycode-call\n{'id': 'call-003', 'tool': 'shell.exec', 'args': {'command': 'curl http://localhost:8080/health'}}\n${F}`;
    const [block] = findBlocks(reply);
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toEqual({ id: 'call-003', tool: 'shell.exec', args: { command: 'curl http://localhost:8080/health' } });
  });
});

describe('a Windows path with single backslashes in a string that also breaks lines', () => {
  it.each([
    ['in double quotes', '"@echo off\\r\\ncd C:\\Projects\\app\\r\\nnpm start\\r\\n"'],
    ['in single quotes', "'@echo off\\r\\ncd C:\\Projects\\app\\r\\nnpm start\\r\\n'"],
    ['ending in \\n', '"p = \'C:\\Users\\me\\data.csv\'\\nprint(p)\\n"'],
  ])('%s is refused, not written as one line with its line breaks as backslashes', (_how, content) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "/w/start.bat", "content": ${content}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('holds a Windows path written with single backslashes and a \\n or \\r that may be a line break');
  });

  it('a path alone keeps every backslash, a \\n in a name too', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "process.run", "args": {"command": "type C:\\new\\Users\\notes.txt", 'cwd': 'C:\\Users\\rn'}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ command: 'type C:\\new\\Users\\notes.txt', cwd: 'C:\\Users\\rn' });
  });
});

describe('a Windows path in single quotes ending in a backslash', () => {
  it('as the last value is refused, naming it, not run in a directory the repair makes of it', () => {
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'shell.exec', 'args': {'command': 'dir', 'cwd': 'C:\\work\\'}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`the string "C:\\\\work\\\\'}}" has no closing quote: the backslash before its quote escapes it; write that backslash as \\\\`);
  });

  it('cut off by the end of a reply still being written, it is JSON that stops short', () => {
    expect(prepareForRepair("{'id': 'call-1', 'args': {'cwd': 'C:\\work\\'").cutShort).toBe(true);
  });
});

describe('Python\'s triple-quoted strings', () => {
  it.each([
    ['double', '"""'],
    ['single', "'''"],
  ])('a file\'s content in %s triple quotes is written as it stands between them', (_how, quotes) => {
    const content = 'import os\nprint("it\'s", \'x\')  # a comment // too\n';
    const plan = `{'path': '/w/a.py', 'content': ${quotes}${content}${quotes}, 'mode': 'overwrite'}`;
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'fs.write', 'args': ${plan}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ path: '/w/a.py', content, mode: 'overwrite' });
  });

  it('one that ends in a quote of its own kind is refused, since where it ends is a guess', () => {
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'fs.write', 'args': {'path': '/w/a.txt', 'content': """say "hi""""}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('in triple quotes');
  });
});

describe('a Windows path whose backslash after the drive letter JSON reads as a control character', () => {
  it.each([
    ['in strict JSON', '{"id": "call-1", "tool": "shell.exec", "args": {"command": "type C:\\temp\\notes.txt"}}', '"type C:\\\\temp\\\\notes.txt"'],
    ['in single quotes', "{'id': 'call-1', 'tool': 'shell.exec', 'args': {'command': 'type C:\\new\\temp.txt'}}", '"type C:\\\\new\\\\temp.txt"'],
  ])('%s is refused, naming the string, not run with a tab or a line break in the path', (_how, call, shown) => {
    const [block] = findBlocks(`${F}flycode-call\n${call}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`the string ${shown} writes a Windows path with single backslashes, and JSON reads`);
  });

  it.each([
    ['a file name with its extension right after the drive', '"type C:\\new.txt"', '"type C:\\\\new.txt"'],
    ['a folder that is the whole string', '"C:\\temp"', '"C:\\\\temp"'],
    ['a path relative to the working folder', '"type .\\notes.txt"', '"type .\\\\notes.txt"'],
    ['a path relative to the folder above it', '"cd ..\\tools && dir"', '"cd ..\\\\tools && dir"'],
  ])('%s is refused, naming the string', (_how, value, shown) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "shell.exec", "args": {"command": ${value}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`the string ${shown} writes a Windows path with single backslashes, and JSON reads`);
  });

  it('a line break after a one-letter label is read as one', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "/w/faq.txt", "content": "Q:\\nWhy?\\nA:\\nBecause.\\nWait...\\nDone.\\n"}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: { content: string } }).args.content).toBe('Q:\nWhy?\nA:\nBecause.\nWait...\nDone.\n');
  });

  it.each([
    ['a Markdown heading ending in a one-letter label, then a blank line', 'Option A:\\n\\nUse a cache.\\n', 'Option A:\n\nUse a cache.\n'],
    ['a label and a line ending in a point, at the start of the string', 'A:\\nBecause.\\n', 'A:\nBecause.\n'],
    ['Python indented with a tab after a one-letter name', 'for i in x:\\n\\tprint(i)\\n', 'for i in x:\n\tprint(i)\n'],
    ['a separator that is a letter, a colon and a tab', 'a:\\t', 'a:\t'],
  ])('%s is read as written, not refused as a Windows path', (_how, written, content) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "/w/a.md", "content": "${written}"}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: { content: string } }).args.content).toBe(content);
  });

  it.each([
    ['a file', 'type \\"C:\\temp\\notes.txt\\"'],
    ['a folder', 'dir \\"C:\\temp\\"'],
    ['a file name right after the drive', 'copy a.txt \\"D:\\new.txt\\"'],
  ])('%s in double quotes inside a command is refused, naming the string', (_how, command) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "shell.exec", "args": {"command": "${command}"}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`the string ${JSON.stringify(command)} writes a Windows path with single backslashes, and JSON reads`);
  });
});

describe('a number JSON cannot carry is refused, naming it, not sent as something else', () => {
  it('a number too large for a number to hold is refused, not passed on as null', () => {
    const [block] = findBlocks(`${F}mcp-request\n{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs.read","arguments":{"path":"a.txt","offset":1e400}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('the number 1e400 is too large for a number to hold, and would reach the tool as null');
  });

  it.each(['1e-400', '-2.5E-999', '0.' + '0'.repeat(330) + '1'])('a number too small for a number to hold (%s) is refused, not passed on as 0', (number) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.read", "args": {"path": "a.txt", "offset": ${number}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`the number ${number} is too small for a number to hold, and would reach the tool as 0`);
  });

  it.each(['NaN', 'Infinity', '-Infinity'])('%s is refused, not passed on as a string', (word) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.read", "args": {"path": "a.txt", "offset": ${word}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`the value "${word}" is no number JSON can write`);
  });

  it('a large or small number a number holds, a zero with a long exponent, and NaN in a string, are read as written', () => {
    const [block] = findBlocks(
      `${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "a.txt", "content": "NaN 1e400 1e-400", "n": 1e300, "m": 5e-324, "z": 0e-500}}\n${F}`,
    );
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ path: 'a.txt', content: 'NaN 1e400 1e-400', n: 1e300, m: 5e-324, z: 0 });
  });
});

describe('seed 004: the manual names the tool "@tool://filesystem"', () => {
  it('an mcp-request or flycode-call naming it is a call of the filesystem tool, not an unknown tool', () => {
    const mcp = findBlocks(`${F}mcp-request\n{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"@tool://filesystem","arguments":{"action":"read","path":"resource/tool/example.js"}}}\n${F}`);
    expect(mcp[0]?.error).toBeUndefined();
    const fly = findBlocks(`${F}flycode-call\n{"id":"c1","tool":"@tool://filesystem","args":{"action":"read","path":"resource/tool/example.js"}}\n${F}`);
    expect(fly[0]?.error).toBeUndefined();
  });
});

describe('seed 002 asks for ```#####--xxx--#####```', () => {
  // Written over several lines, `#####--` is the info string of a code block holding the JSON: the page shows the
  // plan as code, text intact. It must be a fenced plan (auto-run allowed), not one "the page may have changed".
  it('a plan opened by ```#####-- is a fenced plan', () => {
    const reply = '```#####--\n{"metadata":{"step_id":"s1","reason":"r"},"type":"operate","file_operations":[{"action_type":"read_file","path":"tetris/game.py"}]}\n--#####```';
    const [block] = findBlocks(reply);
    expect(block?.kind).toBe('autocoder');
    expect(block?.error).toBeUndefined();
    expect(block?.unfenced).toBeUndefined();
  });

  it('a plan in prose stays unfenced', () => {
    const [block] = findBlocks('好的：\n\n#####--\n{"type":"finish","metadata":{"step_id":"d","reason":"r","summary":"done"}}\n--#####');
    expect(block?.unfenced).toBe(true);
  });
});

describe('a zero-width space or BOM pasted between the tokens of a call', () => {
  const call = { jsonrpc: '2.0', id: 'call-001', method: 'tools/call', params: { name: 'fs.read', arguments: { path: '/tmp/a.txt' } } };
  const json = JSON.stringify(call);
  const invisible: Array<[string, string]> = [
    ['a zero-width space', '\u200B'],
    ['a word joiner', '\u2060'],
    ['a BOM', '\uFEFF'],
  ];

  it.each(invisible)('%s before the JSON of an mcp-request is read past', (_what, mark) => {
    const [block] = findBlocks(`${F}mcp-request\n${mark}${json}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toEqual(call);
  });

  it.each(invisible)('%s between the keys of a flycode-call is read past', (_what, mark) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id":"call-001",${mark}"tool":"fs.read","args":{"path":"/tmp/a.txt"}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toEqual({ id: 'call-001', tool: 'fs.read', args: { path: '/tmp/a.txt' } });
  });

  it.each(invisible)('%s after #####-- still opens the auto_coder plan', (_what, mark) => {
    const plan = { metadata: { step_id: 's1', reason: 'r' }, type: 'operate', file_operations: [] };
    const [block] = findBlocks(`#####--\n${mark}${JSON.stringify(plan)}\n--#####`);
    expect(block?.kind).toBe('autocoder');
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toMatchObject(plan);
  });

  it.each(invisible)('%s in an Axon act name is no part of the act', (_what, mark) => {
    const [block] = findBlocks(`~~~~~act\n${mark}write_file\n~~~~~\n~~~~~path\na.md\n~~~~~\n~~~~~content\nx\n~~~~~`);
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toEqual({ acts: [{ act: 'write_file', args: ['a.md\n', 'x\n'] }] });
  });

  it('in a tool name it is kept, and the refusal shows it: the name only looks like an allowed one', () => {
    const [fly] = findBlocks(`${F}flycode-call\n{"id":"call-001","tool":"fs.read\u200B","args":{"path":"/tmp/a.txt"}}\n${F}`);
    expect(fly?.error).toContain('tool "fs.read⟨U+200B⟩" is not available');
    const [mcp] = findBlocks(`${F}mcp-request\n${json.replace('"fs.read"', '"fs.read\u200B"')}\n${F}`);
    expect(mcp?.error).toContain('tool "fs.read⟨U+200B⟩" is not available');
  });

  it('inside a string it is kept: the path is the one written, for the approval card to show', () => {
    const [block] = findBlocks(`${F}flycode-call\n\u200B{"id":"call-001","tool":"fs.read","args":{"path":"/tmp/a\u200B.txt"}}\n${F}`);
    expect((block?.payload as { args: { path: string } }).args.path).toBe('/tmp/a\u200B.txt');
  });
});

describe('words after the JSON inside an mcp-request fence', () => {
  const json = '{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"/tmp/a.txt"}}}';

  it('are said to follow the JSON object, not taken for a batch the model never wrote; nothing runs', () => {
    const [block] = findBlocks(`${F}mcp-request\n${json}\nDone.\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('text follows the JSON object');
    expect(block?.error).not.toContain('batch');
  });

  it('a second object after the first is refused the same way: one call per block', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id":"c1","tool":"fs.read","args":{"path":"/a"}}\n{"id":"c2","tool":"fs.rm","args":{"path":"/a"}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('text follows the JSON object, 2 objects one after another; write each call in a block of its own');
  });
});

describe('a full-width comma or colon, or a wide space, between the keys of a call', () => {
  const args = (block: { payload?: unknown } | undefined) => (block?.payload as { params: { arguments: unknown } }).params.arguments;
  const exec = (between: string) =>
    `${F}mcp-request\n{"jsonrpc":"2.0","id":"call-007","method":"tools/call","params":{"name":"shell.exec","arguments":{\n  "command": "rm -rf build"${between}"cwd": "/work/app/sub",\n  "timeoutMs": 30000\n}}}\n${F}`;

  it.each([
    ['a full-width comma (，)', '，'],
    ['a comma and a no-break space', ',\u00a0'],
    ['a comma and an ideographic space', ',\u3000'],
  ])('%s keeps the key after it: the command runs in the folder written', (_what, between) => {
    const [block] = findBlocks(exec(between));
    expect(block?.error).toBeUndefined();
    expect(args(block)).toEqual({ command: 'rm -rf build', cwd: '/work/app/sub', timeoutMs: 30000 });
  });

  it('a full-width colon after a key, on a call written on one line, is that colon', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id"："call-001"，"tool"："fs.read"，"args"：{"path"："/tmp/笔记.md"}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toEqual({ id: 'call-001', tool: 'fs.read', args: { path: '/tmp/笔记.md' } });
  });

  it('inside a string they stay as written', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id":"call-001"，"tool":"fs.write","args":{"path":"/tmp/a.md","content":"你好，世界：\u00a0ok"}}\n${F}`);
    expect((block?.payload as { args: unknown }).args).toEqual({ path: '/tmp/a.md', content: '你好，世界：\u00a0ok' });
  });

  it('words with another key after them on their line are refused, naming the words, instead of dropping that key', () => {
    const [block] = findBlocks(exec(', 注意 '));
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('the words "注意" stand between its values with more of the JSON after them on their line');
  });

  it.each([
    ['in single quotes', "'cwd': '/work/app/sub'"],
    ['in curly single quotes', '\u2018cwd\u2019: "/work/app/sub"'],
    ['written bare', 'cwd: "/work/app/sub"'],
    ['written bare, before a full-width colon', 'cwd：“/work/app/sub”'],
  ])('words followed on their line by a key %s are refused too, instead of dropping that key', (_how, cwd) => {
    const [block] = findBlocks(
      `${F}mcp-request\n{"jsonrpc":"2.0","id":"call-007","method":"tools/call","params":{"name":"shell.exec","arguments":{\n  "command": "rm -rf build", 注意 ${cwd},\n  "timeoutMs": 30000\n}}}\n${F}`,
    );
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('the words "注意" stand between its values with more of the JSON after them on their line');
  });

  it.each([
    ['curly quotes', '“finish”表示任务完成'],
    ['curly single quotes', '‘finish’ 表示任务完成'],
    ['single quotes', "'finish' 表示任务完成"],
    ['back quotes', '`finish`表示任务完成'],
  ])('a note after a comma that starts with a term in %s is dropped with its line, as seed 002\'s notes are', (_how, note) => {
    const [block] = findBlocks(`#####--\n{\n  "type": "finish",  ${note}\n  "metadata": {"step_id": "s9", "reason": "done"}\n}\n--#####`);
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toMatchObject({ type: 'finish', metadata: { step_id: 's9', reason: 'done' } });
  });

  it('seed 002\'s note after a value is still dropped with its line', () => {
    const [block] = findBlocks('#####--\n{\n  "type": "operate",  执行编辑文件，执行程序，读取文件内容时使用“operate”：\n  "file_operations": [{"action_type": "read_file", "path": "a.py"}]\n}\n--#####');
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toMatchObject({ type: 'operate', file_operations: [{ action_type: 'read_file', path: 'a.py' }] });
  });
});

describe('keys and values in curly quotes', () => {
  it('a call written with “ ” throughout (an input method, a word processor) is read as written', () => {
    const [block] = findBlocks(`${F}mcp-request\n{\n  “jsonrpc”：“2.0”，\n  “id”：“call-001”，\n  “method”：“tools/call”，\n  “params”：{“name”：“fs.read”，“arguments”：{“path”：“/tmp/我的 笔记.md”，“line”：3}}\n}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect(block?.repaired).toBe(true);
    expect(block?.payload).toEqual({ jsonrpc: '2.0', id: 'call-001', method: 'tools/call', params: { name: 'fs.read', arguments: { path: '/tmp/我的 笔记.md', line: 3 } } });
  });

  it('a flycode-call on one line with “ ” keys and values', () => {
    const [block] = findBlocks(`${F}flycode-call\n{“id”: “call-002”, “tool”: “fs.ls”, “args”: {“path”: “/tmp”}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toEqual({ id: 'call-002', tool: 'fs.ls', args: { path: '/tmp' } });
  });

  it.each([
    ['a straight quote', '“He said "hi"”'],
    ['another curly quote', '“He said “hi” to me”'],
  ])('a string in curly quotes holding %s is refused, not guessed at', (_what, value) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-003", "tool": "fs.write", "args": {"path": "/tmp/a.txt", "content": ${value}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('opens a string with a curly quote and holds another quote, a backslash or a line break before it ends');
  });

  it.each([
    ['curly quotes and full-width colons', '{“id”：“call-1”， “tool”：“shell.exec”， “args”：{\n  “command”：“rm -rf build”\n  “cwd”：“/w/sub”\n}}'],
    ['curly single quotes', '{"id": "call-1", "tool": "shell.exec", "args": {\n  "command": "rm -rf build"\n  ‘cwd’: ‘/w/sub’\n}}'],
  ])('a key in %s on the next line after a value with no comma is read, not dropped as a note', (_how, call) => {
    const [block] = findBlocks(`${F}flycode-call\n${call}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toEqual({ id: 'call-1', tool: 'shell.exec', args: { command: 'rm -rf build', cwd: '/w/sub' } });
  });

  it('curly quotes inside a straight-quoted string stay part of the text', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-004", "tool": "fs.write", "args": {"path": "/tmp/a.txt", "content": "“引号”",}}\n${F}`);
    expect((block?.payload as { args: unknown }).args).toEqual({ path: '/tmp/a.txt', content: '“引号”' });
  });
});

describe('Python-style single quotes around text holding an apostrophe', () => {
  it("an auto_coder plan writing 'Don't panic' is refused, saying why, instead of writing \"Don\"", () => {
    const [block] = findBlocks("#####--\n{'type': 'operate', 'file_operations': [{'action_type': 'create_file', 'path': 'NOTES.md', 'file_content': 'Don't panic'}]}\n--#####");
    expect(block?.kind).toBe('autocoder');
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`"'Don't panic'}]}" opens a string with a single quote and holds an apostrophe, so where it ends is a guess`);
  });

  it.each([
    ['a path', "{'id': 'call-1', 'tool': 'fs.read', 'args': {'path': '/tmp/it's.txt'}}"],
    ['words in quotes', "{'id': 'call-1', 'tool': 'fs.write', 'args': {'path': '/tmp/a.txt', 'content': 'rock 'n' roll'}}"],
    ['an apostrophe before more words', "{'id': 'call-1', 'tool': 'fs.write', 'args': {'path': '/tmp/a.txt', 'content': 'the users' files'}}"],
  ])('%s in a flycode-call is refused, not read as another file or another key', (_what, call) => {
    const [block] = findBlocks(`${F}flycode-call\n${call}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('holds an apostrophe, so where it ends is a guess; write the string in double quotes');
  });

  it.each([
    ['curly single quotes', "{'id': 'call-1', 'tool': 'fs.write', 'args': {'path': '/tmp/a.txt', 'content': \u2018it\u2019s ok\u2019}}"],
    ['a closing curly quote as the opening one', '{"id": "call-1", "tool": "fs.write", "args": {"path": "/tmp/a.txt", "content": \u2019it\u2019s ok\u2019}}'],
    ['back quotes', "{'id': 'call-1', 'tool': 'fs.write', 'args': {'path': '/tmp/a.txt', 'content': `it`s ok`}}"],
    ['acute accents', "{'id': 'call-1', 'tool': 'fs.write', 'args': {'path': '/tmp/a.txt', 'content': \u00b4it\u00b4s ok\u00b4}}"],
  ])('a string in %s holding an apostrophe is refused, not written with a double quote for it', (_what, call) => {
    const [block] = findBlocks(`${F}flycode-call\n${call}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('holds an apostrophe, so where it ends is a guess; write the string in double quotes');
  });

  it('a key in curly single quotes on its own line is read, not dropped as a note after the comma', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "shell.exec", "args": {\n  "command": "rm -rf build",\n  \u2018cwd\u2019: \u2018/work/app/sub\u2019,\n  "timeoutMs": 30000\n}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ command: 'rm -rf build', cwd: '/work/app/sub', timeoutMs: 30000 });
  });

  it('keys and values in curly single or back quotes that end where JSON goes on are read', () => {
    const [block] = findBlocks(`${F}flycode-call\n{\u2018id\u2019: \u2018call-1\u2019, \u2018tool\u2019: \u2018fs.read\u2019, \u2018args\u2019: {\`path\`: \`/tmp/a.txt\`}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toEqual({ id: 'call-1', tool: 'fs.read', args: { path: '/tmp/a.txt' } });
  });

  it('a Python-style plan whose file content in single quotes runs over lines writes that content, its # line and punctuation kept', () => {
    const content = '# 价格表\n价格：100，数量\u00a02\n';
    const [block] = findBlocks(
      `#####--\n{'type': 'operate', 'file_operations': [{'action_type': 'create_file', 'path': 'PRICES.md', 'file_content': '${content}'}]}\n--#####`,
    );
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { file_operations: Array<{ file_content: string }> }).file_operations[0]?.file_content).toBe(content);
  });

  it('an apostrophe in single-quoted text that runs over lines is refused like one on a line', () => {
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'fs.write', 'args': {'path': '/tmp/a.txt', 'content': 'first line\nDon't panic'}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('holds an apostrophe, so where it ends is a guess; write the string in double quotes');
  });

  it('single-quoted strings that end where JSON goes on are still read, an escaped apostrophe included', () => {
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'fs.write', 'args': {'path': '/tmp/a.txt', 'content': 'I said \\'hi\\'', 'mode': 'overwrite'}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toEqual({ id: 'call-1', tool: 'fs.write', args: { path: '/tmp/a.txt', content: "I said 'hi'", mode: 'overwrite' } });
  });
});

describe('"..." where the writer left something out', () => {
  it.each([
    ['after the last argument', '{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"shell.exec","arguments":{"command":"rm -rf dist", ...}}}', '"..."'],
    ['as a value', '{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"fs.write","arguments":{"path":"/w/a.txt","content": …,}}}', '"…"'],
  ])('%s: the call is refused, not run without what it stands for', (_where, call, shown) => {
    const [block] = findBlocks(`You could call it like this:\n\n${F}mcp-request\n${call}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`${shown} stands where something was left out; write the call in full`);
  });

  it('inside a string it is text', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id":"call-1","tool":"fs.write","args":{"path":"/w/a.txt","content":"to be continued...",}}\n${F}`);
    expect((block?.payload as { args: unknown }).args).toEqual({ path: '/w/a.txt', content: 'to be continued...' });
  });
});

describe('a value wrapped in a function call', () => {
  it.each([
    ['echo("rm -rf build")', 'echo('],
    ['make (all)', 'make ('],
    ['ObjectId("5f1")', 'ObjectId('],
  ])('%s is refused, not run as the value inside it', (value, shown) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "shell.exec", "args": {"command": ${value}, "cwd": "/w"}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`${JSON.stringify(shown)} wraps a value in a function call, which JSON has no way to write; write the value itself`);
  });

  it('an unquoted value with a bracket later is still read as the library reads it', () => {
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'fs.read', 'args': {'path': '/w/a (1).txt'}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ path: '/w/a (1).txt' });
  });
});

describe('a number the repair would change', () => {
  it.each([
    ['a lone minus sign', '"line": -', '"-"'],
    ['a lone minus sign before another key', '"head": -, "path": "/w/a.txt"', '"-"'],
    ['a lone point', '"tail": .', '"."'],
    ['a minus sign and a point', '"line": -.', '"-."'],
    ['a point before an exponent', '"tail": .e3', '".e3"'],
    ['an exponent with no digits', '"head": 1e', '"1e"'],
    ['an exponent with a sign and no digits', '"head": 2E+', '"2E+"'],
  ])('%s is refused, naming the value, not read as a number the writer never wrote', (_what, args, shown) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.read", "args": {"path": "/w/a.txt", ${args}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`the value ${shown} has a sign, point or exponent with no digit after it`);
  });

  it('a lone minus sign among the items of a list is refused, not run as 0', () => {
    const [block] = findBlocks(`${F}mcp-request\n{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"process.run","arguments":{"command":"cat","args":["-n", -]}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('the value "-" has a sign, point or exponent with no digit after it');
  });

  it.each([
    ['0x1F', 'a hexadecimal'],
    ['0x', 'a hexadecimal'],
    ['0o17', 'an octal'],
    ['0b101', 'a binary'],
  ])('%s is refused as %s number JSON cannot write, not passed on as the string it writes', (value, base) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.read", "args": {"path": "/w/a.txt", "head": ${value}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`the value ${JSON.stringify(value)} is ${base} number, which JSON has no way to write`);
  });

  it.each([
    ['a file mode with a leading zero', '"mode": 0755', '"0755" has a leading zero'],
    ['a leading zero among the items of a list', '"lines": [08, 9]', '"08" has a leading zero'],
    ['a leading zero after a minus sign', '"line": -01,', '"-01" has a leading zero'],
    ["Python's digits grouped with underscores", '"limit": 1_000', '"1_000" groups its digits with underscores'],
  ])('%s is refused, naming the value, not passed on as the string it writes', (_what, args, shown) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "/w/a.sh", ${args}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`the value ${shown}, which JSON numbers do not have`);
  });

  it('words that start with digits, a leading zero or an underscore are read as before', () => {
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'process.run', 'args': {'command': 'ls', 'args': [01-intro.md, 2024_report.txt, 0.5, 0, -0.25, 0e1]}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ command: 'ls', args: ['01-intro.md', '2024_report.txt', 0.5, 0, -0.25, 0] });
  });

  it('a + after a string that joins it to nothing is refused, not run without the missing part', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "/w/a.txt", "content": "line 1\\n" +\n}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('the "+" after "line 1\\\\n" joins the string before it to nothing, so a part of it is missing');
  });

  it.each([
    ['a // comment', '"line 1\\n" + // the rest follows\n}', '"line 1\\\\n"'],
    ['a # comment', '"line 1\\n" +  # the rest follows\n, "mode": "overwrite"}', '"line 1\\\\n"'],
    ['a block comment', '"line 1\\n" + /* more */ }', '"line 1\\\\n"'],
    ['nothing, after a string in single quotes', "'line 1' +\n}", '"line 1"'],
  ])('a + with %s before the end of its value is refused, naming the string', (_between, content, shown) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "/w/a.txt", "content": ${content}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`the "+" after ${shown} joins the string before it to nothing, so a part of it is missing`);
  });

  it('a + with a comment before the string it joins is read as the joined string', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "/w/a.txt", "content": "line 1\\n" + // then\n "line 2"}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ path: '/w/a.txt', content: 'line 1\nline 2' });
  });

  it('a plus sign is refused, saying which number to write', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.read", "args": {"path": "/w/a.txt", "line": +5,}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('the value "+5" starts with a plus sign, which JSON numbers do not have; write 5');
  });

  it('numbers that keep their value, and words starting with a minus sign, are read as before', () => {
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'process.run', 'args': {'command': 'ls', 'args': [-la, '-'], 'a': 2., 'b': .5, 'c': -.5, 'd': 1e3}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ command: 'ls', args: ['-la', '-'], a: 2, b: 0.5, c: -0.5, d: 1000 });
  });
});

describe('a key written with no value', () => {
  it.each([
    ['before a comma', '"content": , "mode": "overwrite"', '"\\"content\\": ,"'],
    ['before the closing brace, on the next line', '"mode": "overwrite", "content":\n', '"\\"content\\": }"'],
  ])('%s is refused, naming the key, not written as null', (_where, args, shown) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "/w/a.txt", ${args}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`a key has no value after its colon (${shown}); write the value, or leave the key out`);
  });

  it('JavaScript\'s undefined is refused, not passed on as null', () => {
    const [block] = findBlocks(`${F}mcp-request\n{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"/w/a.txt","range":undefined}}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('the value "undefined" is no JSON value, and the repair would write null');
  });

  it('the word undefined in a string is read as before', () => {
    const [block] = findBlocks(`${F}flycode-call\n{id: "call-1", tool: "shell.exec", args: {command: "echo undefined", cwd: "/w",},}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ command: 'echo undefined', cwd: '/w' });
  });
});

describe('an integer past what a number holds exactly', () => {
  it.each([
    ['strict JSON', '{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"/w/a.txt","head":1189234567890123456}}}', '1189234567890123456', '1189234567890123500'],
    ['JSON the repair reads', "{'jsonrpc':'2.0','id':'c1','method':'tools/call','params':{'name':'fs.read','arguments':{'path':'/w/a.txt','head':9007199254740993,}}}", '9007199254740993', '9007199254740992'],
  ])('in %s is refused, naming it, not run with the nearest number', (_how, call, written, read) => {
    const [block] = findBlocks(`${F}mcp-request\n${call}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`the integer ${written} has more digits than a number keeps exactly, and would be read as ${read}; write it in double quotes`);
  });

  it('the same digits in a string, and large integers a number holds exactly, are read', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id":"call-1","tool":"fs.write","args":{"path":"/w/ids.txt","content":"1189234567890123456"},"n":100000000000000000000}\n${F}`);
    expect(block?.payload).toEqual({ id: 'call-1', tool: 'fs.write', args: { path: '/w/ids.txt', content: '1189234567890123456' }, n: 1e20 });
  });
});

describe('a key written twice in one object', () => {
  it('an auto_coder plan with two file_operations lists is refused, not run with the second list only', () => {
    const plan =
      '{"metadata":{"step_id":"s1","reason":"r"},"type":"operate",' +
      '"file_operations":[{"action_type":"create_file","path":"a.py","file_content":"x = 1\\n"}],' +
      '"file_operations":[{"action_type":"delete_file","path":"old.py"}]}';
    const [block] = findBlocks(`${F}\n#####--\n${plan}\n--#####\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('the key "file_operations" is written twice in one object, and only the last would count; write it once');
  });

  it('a flycode-call naming two paths is refused, in JSON the repair reads too', () => {
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'fs.read', 'args': {'path': '/w/a.txt', 'path': '/w/.env',}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('the key "path" is written twice in one object');
  });

  it('the same key in different objects, or inside a string, is read', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id":"call-1","tool":"fs.writeBatch","args":{"files":[{"path":"/w/a","content":"\\"path\\": 1"},{"path":"/w/b","content":""}]}}\n${F}`);
    expect(block?.error).toBeUndefined();
  });
});

describe('double quotes left unescaped inside a string', () => {
  it('code with a quote the repair cannot place is refused, saying which quote to escape', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "/w/a.py", "content": "print("hello")\\n"}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('if the double quote that starts "hello")\\n"}} is part of a string, write it as \\"');
  });

  it('an auto_coder file whose content the repair would cut into another key is refused, not written cut', () => {
    const [block] = findBlocks('#####--\n{"type": "operate", "file_operations": [{"action_type": "create_file", "path": "config.py", "file_content": "HOST = "localhost", PORT = "8080""}]}\n--#####');
    expect(block?.kind).toBe('autocoder');
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('reading it would make "PORT =" a key, which the text does not write as one');
  });

  it.each([
    ['a comment marker and an open brace', "{id: 'call-1', tool: fs.write, args: {path: '/w/a.js', content: \"// config {\"}}", '"// config {"'],
    ['code with a line comment and an open brace', "{id: 'call-1', tool: fs.write, args: {path: '/w/a.c', content: \"x = 1 // set {\"}}", '"x = 1 // set {"'],
    ['a comment marker and an open brace, in single quotes', "{id: 'call-1', tool: fs.write, args: {path: '/w/a.js', content: '// config {'}}", '"// config {"'],
    ['a comment marker and an open brace, in curly quotes', "{id: 'call-1', tool: fs.write, args: {path: '/w/a.js', content: “// config {”}}", '"// config {"'],
  ])('a string holding %s before a closing bracket, in a call with a bare value, is refused, not cut where the repair guesses', (_what, call, shown) => {
    const [block] = findBlocks(`${F}flycode-call\n${call}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(`the string ${shown} opens a bracket it does not close and ends right before a closing one`);
  });

  it.each([
    ['in double quotes', '"// config {"'],
    ['in single quotes', "'// config {'"],
    ['in curly quotes', '“// config {”'],
  ])('the same string %s, in a call whose values are all quoted, is written whole', (_how, content) => {
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'fs.write', 'args': {'path': '/w/a.js', 'content': ${content}}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ path: '/w/a.js', content: '// config {' });
    const [bare] = findBlocks(`${F}flycode-call\n{id: 'call-1', tool: 'fs.write', args: {path: '/w/a.js', content: ${content}}}\n${F}`);
    expect(bare?.error).toBeUndefined();
    expect((bare?.payload as { args: unknown }).args).toEqual({ path: '/w/a.js', content: '// config {' });
  });

  it('a call with bare keys whose string starts with a colon is read as written, not refused as a key it does not write', () => {
    const [block] = findBlocks(`${F}flycode-call\n{id: "call-1", tool: "fs.write", args: {path: "/w/style.css", content: ":root { --bg: #fff; }"}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ path: '/w/style.css', content: ':root { --bg: #fff; }' });
  });

  it('a call with bare keys writing a file over the repair limit is read, not refused', () => {
    const content = 'x = 1\n'.repeat(1000);
    const call = `{id: "call-1", tool: "fs.write", args: {path: "/w/a.py", content: ${JSON.stringify(content)}, mode: "overwrite"}}`;
    expect(call.length).toBeGreaterThan(LIBRARY_REPAIR_LIMIT);
    const [block] = findBlocks(`${F}flycode-call\n${call}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ path: '/w/a.py', content, mode: 'overwrite' });
  });

  it('a string with an open brace ending right before a closing one, in a call the library must repair, is refused, not run with "} after it', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "/w/a.md", "content": "see {x"}, "note": yes}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('the string "see {x" opens a bracket it does not close and ends right before a closing one');
  });

  it('the same call with Python\'s None, which needs no library, is read as written', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "/w/a.md", "content": "see {x"}, "note": None}\n${F}`);
    expect(block?.payload).toEqual({ id: 'call-1', tool: 'fs.write', args: { path: '/w/a.md', content: 'see {x' }, note: null });
  });

  it('a plan with Python\'s True and None writing a file over the repair limit is read, not refused', () => {
    const content = 'x = 1\n'.repeat(1000);
    const plan = `{"metadata": {"step_id": "s1", "reason": "r"}, "type": "operate", "file_operations": [{"action_type": "create_file", "path": "a.py", "file_content": ${JSON.stringify(content)}, "overwrite": True, "note": None}]}`;
    expect(plan.length).toBeGreaterThan(LIBRARY_REPAIR_LIMIT);
    const [block] = findBlocks(`${F}\n#####--\n${plan}\n--#####\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { file_operations: unknown[] }).file_operations[0]).toEqual({ action_type: 'create_file', path: 'a.py', file_content: content, overwrite: true, note: null });
  });

  it('a bare key after a value with no comma is that key, not read into the value before it', () => {
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'shell.exec', 'args': {'command': "rm -rf build" cwd: 'sub', "timeoutMs": 5000}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ command: 'rm -rf build', cwd: 'sub', timeoutMs: 5000 });
  });

  it('a key with no comma before it, whose name the call writes elsewhere too, is refused, not read over the one before', () => {
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'fs.writeBatch', 'args': {'files': [{'path': '/w/a', 'content': "x" path: '/w/b'}, {"path": "/w/c", "content": "y"}]}}\n${F}`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('not repaired: the key "path" is written twice in one object');
  });

  it.each([
    ['in single quotes', `'fix: a，b'`],
    ['in back quotes', '`fix: a，b`'],
  ])('an item %s after another with no comma keeps its full-width comma', (_how, item) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "process.run", "args": {"command": "git", "args": ["commit", "-m" ${item}], "x": True}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: { args: unknown } }).args.args).toEqual(['commit', '-m', 'fix: a，b']);
  });

  it('Python\'s None after an item with no comma is null, not read into the item', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "process.run", "args": {"command": "ls", "args": ["-l" None], "x": True}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ command: 'ls', args: ['-l', null], x: true });
  });

  it('strings the repair joins (\"a\" + \"b\") are still read', () => {
    const [block] = findBlocks(`${F}flycode-call\n{'id': 'call-1', 'tool': 'fs.write', 'args': {'path': '/w/a.txt', 'content': "a {" + "b"}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ path: '/w/a.txt', content: 'a {b' });
  });

  it('quotes the repair reads back into their string still run as written', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": {"path": "/w/a.html", "content": "<a href="x.html">x</a>"}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { args: unknown }).args).toEqual({ path: '/w/a.html', content: '<a href="x.html">x</a>' });
  });

  it('keys written bare or in single or back quotes are keys as written', () => {
    const [block] = findBlocks(`${F}flycode-call\n{id: 'call-1', 'tool': 'fs.write', \`args\`: {path: '/w/说明.md', content: '你好', 'mode': 'append'}}\n${F}`);
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toEqual({ id: 'call-1', tool: 'fs.write', args: { path: '/w/说明.md', content: '你好', mode: 'append' } });
  });
});

describe('a file\'s own code block inside a JSON string written with raw line breaks', () => {
  const reply = `I will write the README:\n\n${F}mcp-request\n{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs.write","arguments":{"path":"/w/README.md","content":"# Demo\n\n${F}bash\nnpm start\n${F}\n"}}}\n${F}\n`;

  it('closes the mcp-request at its ``` line: nothing runs, and the refusal says what closed it and what to write', () => {
    const blocks = findBlocks(reply);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.payload).toBeUndefined();
    expect(blocks[0]?.error).toContain(
      "if the JSON goes on after the line ```, that line inside one of its strings closed the code block: write the string's line breaks as \\n, or open the block with ````",
    );
    // the companion reads the block alone and answers the same
    expect(findBlocks(blocks[0]!.raw)[0]?.error).toBe(blocks[0]?.error);
  });

  it('a JSON cut before a closing bracket is not said to be closed inside a string', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id":"call-001","tool":"fs.read","args":{"path":"/w/a"}\n${F}`);
    expect(block?.error).toContain('before its closing bracket');
    expect(block?.error).not.toContain('closed the code block');
  });

  it('a string left open by a quote that does not match is not said to be closed by a ``` line', () => {
    const [block] = findBlocks(`${F}flycode-call\n{"id":"call-001","tool":"fs.write","args":{"path": 'a.txt", "content": "x"}}\n${F}`);
    expect(block?.error).toContain('the JSON ends inside a string');
    expect(block?.error).not.toContain('closed the code block');
  });
});

describe('reasoning written as text before the answer (<think>…</think>, as open models write it)', () => {
  const call = (path: string) =>
    `${F}mcp-request\n{"jsonrpc":"2.0","id":"${path}","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"${path}"}}}\n${F}`;

  it('a block drafted in the reasoning is no call; the answer’s block is, at its place in the reply', () => {
    const reply = `<think>\nThe person wants the file. I could write:\n\n${call('draft.txt')}\n\nYes, that.\n</think>\n\nHere it is:\n\n${call('a.txt')}\n`;
    const blocks = findBlocks(reply);
    expect(blocks.map((b) => b.payload && (b.payload as { id: string }).id)).toEqual(['a.txt']);
    expect(blocks[0]?.start).toBe(reply.indexOf(call('a.txt')));
    expect(blocks[0]?.raw).toBe(call('a.txt'));
  });

  it('while the reasoning is still being written (no </think> yet), none of its blocks is one', () => {
    const reply = `<thinking>\nFirst I read it:\n\n${call('draft.txt')}\n\nthen`;
    expect(findBlocks(reply)).toEqual([]);
    expect(outlineBlocks(reply)).toEqual([]);
  });

  it('an auto_coder plan drafted in the reasoning does not take the answer’s plan’s place', () => {
    const plan = (id: string) => `#####--\n{"metadata":{"step_id":"${id}","reason":"r"},"type":"operate","program_operations":[{"name":"p","command":"ls","set_timeout":30}]}\n--#####`;
    const blocks = findBlocks(`<think>\n${plan('draft')}\n</think>\n\n${plan('answer')}\n`);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.error).toBeUndefined();
    expect((blocks[0]?.payload as { metadata: { step_id: string } }).metadata.step_id).toBe('answer');
  });

  it('<think> mentioned in the answer, not starting the reply, hides nothing', () => {
    const reply = `R1 starts its reasoning with <think>. Now:\n\n${call('a.txt')}\n`;
    expect(findBlocks(reply)).toHaveLength(1);
  });

  it('reasoning with no opening tag (the template wrote it into the prompt) ends at </think> alone on its line', () => {
    const reply = `Okay, the person wants the file. I could write:\n\n${call('draft.txt')}\n\nYes, that.\n</think>\n\nHere it is:\n\n${call('a.txt')}\n`;
    const blocks = findBlocks(reply);
    expect(blocks.map((b) => b.payload && (b.payload as { id: string }).id)).toEqual(['a.txt']);
    expect(blocks[0]?.start).toBe(reply.indexOf(call('a.txt')));
  });

  it('</think> in a code block, or after an opening tag elsewhere, or in words, hides nothing before it', () => {
    const inCode = `R1's reply ends its reasoning so:\n\n${F}text\n</think>\n${F}\n\n${call('a.txt')}\n`;
    expect(findBlocks(inCode)).toHaveLength(1);
    const example = `${call('a.txt')}\n\nR1 writes\n<think>\nreasoning\n</think>\n`;
    expect(findBlocks(example)).toHaveLength(1);
    const words = `${call('a.txt')}\n\nIt closes with </think> and answers.\n`;
    expect(findBlocks(words)).toHaveLength(1);
  });

  it('a reply whose first words speak of <think>, with no closing tag, is an answer: its block is one', () => {
    const reply = `<think> tags hold R1's reasoning. To strip them from the log, run:\n\n${call('a.txt')}\n`;
    expect(findBlocks(reply).map((b) => b.payload && (b.payload as { id: string }).id)).toEqual(['a.txt']);
    expect(findBlocks(`<think>  \nFirst I read it:\n\n${call('draft.txt')}\n`)).toEqual([]);
  });

  it('a </think> in inline code inside the reasoning does not end it', () => {
    const reply = `<think>\nThey ask about the \`</think>\` tag. I could write:\n\n${call('draft.txt')}\n</think>\n\n${call('a.txt')}\n`;
    expect(findBlocks(reply).map((b) => b.payload && (b.payload as { id: string }).id)).toEqual(['a.txt']);
  });
});

describe('auto_coder markers typed with a Chinese input method (＃＃＃＃＃——{…}——＃＃＃＃＃)', () => {
  const plan = (id: string) => `{"metadata": {"step_id": "${id}", "reason": "r"}, "type": "operate", "program_operations": [{"name": "p", "command": "ls", "set_timeout": 30}]}`;

  it.each([
    ['in paragraphs', `好的，下面是指令：\n\n＃＃＃＃＃——\n${plan('s1')}\n——＃＃＃＃＃\n`, '"＃＃＃＃＃——" … "——＃＃＃＃＃"'],
    ['in a code block, with half-width #', `${F}\n#####——\n${plan('s1')}\n——#####\n${F}\n`, '"#####——" … "——#####"'],
    ['as seed 002 asks for it, ```＃＃＃＃＃——…——＃＃＃＃＃```', `${F}＃＃＃＃＃——\n${plan('s1')}\n——＃＃＃＃＃${F}\n`, '"＃＃＃＃＃——" … "——＃＃＃＃＃"'],
  ])('%s: a block that says why it is no plan, and never runs', (_how, reply, shown) => {
    const blocks = findBlocks(reply);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.payload).toBeUndefined();
    expect(blocks[0]?.error).toContain(`the plan's markers are written with look-alike characters (${shown}): a plan is read only between the ASCII #####-- and --#####`);
    // the companion reads the block's text alone, and answers the same error
    expect(findBlocks(blocks[0]!.raw).map((b) => b.error)).toEqual([blocks[0]?.error]);
  });

  it.each([
    ['a # short', `好的：\n\n####--\n${plan('s1')}\n--####\n`, '"####--"'],
    ['a # short in the opener alone, in a code block', `${F}\n####--\n${plan('s1')}\n--#####\n${F}\n`, '"####--"'],
    ['with a space between the hashes and the dashes', `${F}\n##### --\n${plan('s1')}\n-- #####\n${F}\n`, '"##### --" … "-- #####"'],
  ])('miscounted or spaced out, %s: a block that says why it is no plan, and never runs', (_how, reply, shown) => {
    const blocks = findBlocks(reply);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.payload).toBeUndefined();
    expect(blocks[0]?.error).toBe(
      `the plan's markers are not the seed's (${shown}): a plan is read only between the ASCII #####-- and --##### (five half-width # and two -, nothing between), so nothing in it ran; write those markers`,
    );
    expect(findBlocks(blocks[0]!.raw).map((b) => b.error)).toEqual([blocks[0]?.error]);
  });

  it('six # before the dashes hold the seed\'s markers, and the plan is read as the seed\'s executor reads it', () => {
    const [block] = findBlocks(`######--\n${plan('s1')}\n--######\n`);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { metadata: { step_id: string } }).metadata.step_id).toBe('s1');
  });

  it('after the reply’s real plan it is not looked at, and a mention of the markers is none', () => {
    const blocks = findBlocks(`#####--\n${plan('real')}\n--#####\n\n＃＃＃＃＃——\n${plan('other')}\n——＃＃＃＃＃\n`);
    expect(blocks.map((b) => b.error)).toEqual([undefined]);
    expect(findBlocks('格式是 ＃＃＃＃＃——{json}——＃＃＃＃＃，每次一段。\n')).toEqual([]);
  });

  it('before the reply’s real plan (the slip quoted back, or corrected), it is no block: only the plan is', () => {
    const reply = `上次我写错了标识符：\n\n＃＃＃＃＃——\n${plan('old')}\n——＃＃＃＃＃\n\n这次用正确的：\n\n#####--\n${plan('real')}\n--#####\n`;
    const blocks = findBlocks(reply);
    expect(blocks.map((b) => b.error)).toEqual([undefined]);
    expect((blocks[0]?.payload as { metadata: { step_id: string } }).metadata.step_id).toBe('real');
  });
});

describe('JSON no reading can take', () => {
  it.each([
    ['two strings with nothing between', '{"path": "a.txt", "content": "a" "b"}', 'it cannot read on at "\\"b\\"}}"'],
    ['words after a value', '{"path": "a.txt" (the file)}', 'it cannot read on at "(the file)}}"'],
  ])('%s: the refusal shows the text where it stops, not only its position', (_what, args, shown) => {
    const [block] = findBlocks(`${F}flycode-call\n{"id": "call-1", "tool": "fs.write", "args": ${args}}\n${F}\n`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain(shown);
  });
});

describe('the JSON written on the fence line (```mcp-request {…})', () => {
  it.each([
    ['as written', (call: string) => `${F}mcp-request ${call}\n${F}\n`],
    ['as the page gives it back (the label\'s first word only)', () => `${F}mcp-request\n${F}\n`],
  ])('%s: the block is empty, and the refusal says where the JSON goes', (_how, reply) => {
    const [block] = findBlocks(reply('{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs.ls","arguments":{"path":"/w"}}}'));
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toBe(
      "mcp-request block is empty; it must hold one JSON object, on the lines after the ```mcp-request line (JSON written on that line is part of the block's label, which the page does not show)",
    );
  });
});

describe('a call written on one line in three backticks, which the page shows as inline code', () => {
  const call = '{"id":"call-001","tool":"fs.ls","args":{"path":"/w"}}';

  it.each([
    ['as written', `${F}flycode-call ${call}${F}\n`],
    ['as the page gives it back', `\`flycode-call ${call}\`\n`],
    ['in a list item, after words', `先看目录：\n\n1. \`flycode-call ${call}\`\n`],
  ])('%s: a call offered with Run, never run by itself', (_how, reply) => {
    const blocks = findBlocks(reply);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ kind: 'flycode-call', complete: true, unfenced: true, payload: JSON.parse(call) });
    expect(blocks[0]?.error).toBeUndefined();
    // the companion reads the block's text alone, and finds the same call
    expect(findBlocks(blocks[0]!.raw).map((b) => b.payload)).toEqual([JSON.parse(call)]);
  });

  it('in a sentence, in a code block, or beside a fenced call of its kind, it is a mention', () => {
    expect(findBlocks(`Write \`flycode-call ${call}\` in a block.\n`)).toEqual([]);
    expect(findBlocks(`${F}text\n\`flycode-call ${call}\`\n${F}\n`)).toEqual([]);
    const fenced = `${F}flycode-call\n{"id":"call-002","tool":"fs.read","args":{"path":"/w/a.md"}}\n${F}`;
    expect(findBlocks(`Not \`flycode-call ${call}\` but:\n\n\`flycode-call ${call}\`\n\n${fenced}\n`).map((b) => (b.payload as { id: string }).id)).toEqual(['call-002']);
  });
});

describe('words before the JSON inside the block', () => {
  it('are named in the refusal with what to do, not only the letter the strict parser met', () => {
    const [block] = findBlocks(`${F}mcp-request\nHere is the call:\n{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"a.txt"}}}\n${F}\n`);
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toContain('not repaired: text comes before the JSON object ("Here is the call:"); write the call alone, text outside the block');
  });
});

describe('<function_calls> in JSON lines: a value JSON reads as another is refused as in the other formats', () => {
  const call = (value: string) =>
    `${F}jsonl\n{"type": "function_call_start", "name": "shell.exec", "call_id": 1}\n{"type": "parameter", "key": "command", "value": ${value}}\n{"type": "function_call_end", "call_id": 1}\n${F}\n`;

  it.each([
    ['a Windows path in single backslashes', '"type C:\\temp\\notes.txt"', 'line 2: the string "type C:\\\\temp\\\\notes.txt" writes a Windows path with single backslashes'],
    ['a number too large for a number', '1e400', 'line 2: the number 1e400 is too large for a number to hold'],
  ])('%s', (_what, value, error) => {
    // the call is answered with the error under its call_id; the block itself is whole
    const [block] = findBlocks(call(value));
    expect(block?.error).toBeUndefined();
    const [only] = (block?.payload as { calls: Array<{ error?: string; arguments: Record<string, unknown> }> }).calls;
    expect(only?.error).toContain(error);
    expect(only?.arguments).toEqual({});
  });

  it('a call written as JSON writes it is read', () => {
    const [block] = findBlocks(call('"type C:\\\\temp\\\\notes.txt"'));
    expect(block?.error).toBeUndefined();
    expect(block?.payload).toEqual({ form: 'jsonl', calls: [{ name: 'shell.exec', callId: '1', arguments: { command: 'type C:\\temp\\notes.txt' } }] });
  });
});

describe('seed 002 form after words on its line', () => {
  it('```#####--{…}--#####``` after 好的： is the reply’s plan', () => {
    const [block] = findBlocks('好的，指令如下：```#####--{"metadata": {"step_id": "s1", "reason": "r"}, "type": "operate", "file_operations": [{"action_type": "read_file", "path": "a.py"}]}--#####```\n');
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { metadata: { step_id: string } }).metadata.step_id).toBe('s1');
  });

  it('in one backtick, as a page shows it and the page is read back, it is the reply’s plan (never auto-run)', () => {
    const [block] = findBlocks('好的，指令如下：`#####--{"metadata": {"step_id": "s1", "reason": "r"}, "type": "operate", "file_operations": [{"action_type": "read_file", "path": "a.py"}]}--#####`\n');
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { metadata: { step_id: string } }).metadata.step_id).toBe('s1');
    expect(block?.unfenced).toBe(true);
  });

  it('in inline code ending its line before the reply’s own plan, it is an example', () => {
    const plan = (id: string) => `{"metadata": {"step_id": "${id}", "reason": "r"}, "type": "operate", "file_operations": [{"action_type": "read_file", "path": "a.py"}]}`;
    for (const example of [`A plan looks like: \`#####--${plan('demo')}--#####\``, `Plans look like:\n\n- \`#####--${plan('demo')}--#####\``]) {
      const blocks = findBlocks(`${example}\n\nMine:\n\n#####--\n${plan('s1')}\n--#####\n`);
      expect(blocks.map((b) => [b.error, (b.payload as { metadata: { step_id: string } }).metadata.step_id])).toEqual([[undefined, 's1']]);
    }
  });
});

describe('an Axon path written with more than the path', () => {
  const T = '~~~~~';
  const writeFile = (path: string) => `${T}act\nwrite_file\n${T}\n${T}path\n${path}\n${T}\n${T}python\nprint(1)\n${T}\n`;

  it.each([
    ['in backticks', '`src/a.py`', 'is written in quotes or backticks: "`src/a.py`"'],
    ['in double quotes', '"src/a.py"', 'is written in quotes or backticks: "\\"src/a.py\\""'],
    ['after a label', '路径：src/a.py', 'has a label before it: "路径：src/a.py"'],
  ])('%s is refused, naming it, not written as a file whose name holds them', (_how, path, shown) => {
    const [block] = findBlocks(writeFile(path));
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toBe(`write_file parameter 1 (path) ${shown}; the block holds the path alone, and the act would take the rest for part of the file's name: write only the path`);
  });

  it('a path alone, or one whose quote is only inside it, is the path', () => {
    for (const path of ['src/a.py', "docs/it's.md"]) {
      const [block] = findBlocks(writeFile(path));
      expect(block?.error).toBeUndefined();
      expect((block?.payload as { acts: Array<{ args: string[] }> }).acts[0]?.args[0]).toBe(`${path}\n`);
    }
  });
});

describe('an Axon act block labelled action or acts, as a model writes the label from memory', () => {
  const T = '~~~~~';
  const statement = (label: string, path: string) => `${T}${label}\nwrite_file\n${T}\n${T}path\n${path}\n${T}\n${T}python\nprint(1)\n${T}\n`;
  const error = (label: string) =>
    `the act block is labelled "${label}" ("${T}${label}"): a statement is read only from a block labelled act, so nothing in this plan ran; open the act block with ${T}act`;

  it.each(['action', 'acts', 'actions'])('~~~~~%s: a statement that says the label to write, and never runs', (label) => {
    const blocks = findBlocks(`好的，我为你创建 main.py。\n\n${statement(label, 'main.py')}`);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ kind: 'axon', complete: true, error: error(label) });
    expect(blocks[0]?.payload).toBeUndefined();
    expect(blocks[0]?.raw).toBe(statement(label, 'main.py').trimEnd());
    expect(findBlocks(blocks[0]!.raw).map((b) => b.error)).toEqual([error(label)]);
  });

  it('beside a statement labelled act, both are read, so the companion refuses the plan whole', () => {
    const blocks = findBlocks(`${statement('act', 'a.py')}\n${statement('action', 'b.py')}`);
    expect(blocks.map((b) => b.error)).toEqual([undefined, error('action')]);
  });

  it('it cuts short a statement before it, as an act block does; while it streams it is no statement yet', () => {
    const cut = `${T}act\nwrite_file\n${T}\n${T}path\na.py\n${T}\n${T}action\nwrite_file\n`;
    const blocks = findBlocks(cut);
    expect(blocks[0]?.error).toBe('write_file needs 2 parameters (path, content), got 1');
    expect(findBlocks(blocks[0]!.raw)[0]).toEqual(blocks[0]);
    expect(findBlocks(`${T}action\nwrite_file\n${T}\n${T}path\nmain.py\n${T}\n${T}python\nprint(1)\n`)[0]).toMatchObject({ complete: false });
  });

  it('a code block labelled action that holds no act of the list is no statement', () => {
    expect(findBlocks(`${T}action\nnpm run build\n${T}\n${T}path\nmain.py\n${T}\n`)).toEqual([]);
  });
});

describe("an Axon write_file whose file's own code block closed the content block", () => {
  // A README written with ```bash inside a ``` content block (or an Axon example inside ~~~~~): the file's closing
  // line closes the content block, and the act wrote the file cut there while the rest stood outside as text.
  const statement = (fence: string, content: string) =>
    `${fence}act\nwrite_file\n${fence}\n${fence}path\nREADME.md\n${fence}\n${fence}markdown\n${content}${fence}\n`;

  it.each([
    ['a backtick block in a backtick block', statement('```', '# Tool\n\n```bash\nnpm install\n```\n\nThen run it.\n'), 3, '```bash', '~~~~~'],
    ['an Axon example in the seed\'s five tildes', statement('~~~~~', 'Example:\n\n~~~~~act\nwrite_file\n~~~~~\n\nThat is all.\n'), 3, '~~~~~act', '~~~~~~'],
  ])('%s is refused, naming the line, not written cut', (_how, reply, line, opening, longer) => {
    const [block] = findBlocks(reply);
    expect(block).toMatchObject({ kind: 'axon', complete: true });
    expect(block?.payload).toBeUndefined();
    expect(block?.error).toBe(
      `write_file parameter 2 (content) ends inside the code block it opens on its line ${line} (${JSON.stringify(opening)}): ` +
        "that code block's closing line closed the parameter's block instead, so the file would be written cut there and the " +
        `rest of it is outside the statement; open the parameter's block with a fence longer than any inside it (${longer})`,
    );
  });

  it('a file whose code blocks all close is written whole, in the seed\'s five tildes or a longer backtick fence', () => {
    const readme = '# Tool\n\n```bash\nnpm install\n```\n\nThen run it.\n';
    for (const reply of [statement('~~~~~', readme), statement('````', readme)]) {
      const [block] = findBlocks(reply);
      expect(block?.error).toBeUndefined();
      expect((block?.payload as { acts: Array<{ args: string[] }> }).acts[0]?.args[1]).toBe(readme);
    }
  });

  it("a replace's old and new text may open a code block and not close it: they are parts of a file", () => {
    const T = '~~~~~';
    const reply = `${T}act\nreplace\n${T}\n${T}path\nREADME.md\n${T}\n${T}old\n\`\`\`bash\nnpm install\n${T}\n${T}new\n\`\`\`bash\nnpm ci\n${T}\n`;
    const [block] = findBlocks(reply);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { acts: Array<{ args: string[] }> }).acts[0]?.args).toEqual(['README.md\n', '```bash\nnpm install\n', '```bash\nnpm ci\n']);
  });
});

describe('an auto_coder plan whose string holds a code block written with raw line breaks', () => {
  const readme = '# Tool\n```bash\nnpm install\n```\nThen run it.\n';
  const plan = (content: string) =>
    `{"metadata": {"step_id": "s1", "reason": "r"}, "type": "operate", "file_operations": [{"action_type": "create_file", "path": "README.md", "content": "${content}"}]}`;

  it.each([
    ['in a ```json block the README closes', `${F}json\n#####--\n${plan(readme)}\n--#####\n${F}\n`, '```'],
    ['in prose', `#####--\n${plan(readme)}\n--#####\n`, '```bash'],
    ['as the page reads the first back (its own fence, a blank line)', `${F}\`json\n#####--\n${plan('# Tool\n```bash\nnpm install\n````\n\nThen run it.\n')}\n--#####\n\n${F}\n${F}\n`, '````'],
  ])('%s is refused, naming the string and the line, its plan kept as data', (_where, reply, line) => {
    // the page cuts such a plan into code blocks and text and reads the README back with a fence and blank lines of its
    // own; a Run click wrote that README
    const [block, ...rest] = findBlocks(reply);
    expect(rest).toEqual([]);
    expect(block).toMatchObject({ kind: 'autocoder', complete: true });
    expect(block?.payload).toBeDefined();
    expect(block?.error).toMatch(new RegExp(`^the plan's string "# Tool\\\\n.*" holds a line ${JSON.stringify(line)} written with raw line breaks: `));
    expect(block?.error).toContain("write the string's line breaks as \\n");
    expect(findBlocks(block!.raw)[0]?.error).toContain('written with raw line breaks');
  });

  it.each([
    ['with \\n in its string', `#####--\n${plan(readme.replace(/\n/g, '\\n'))}\n--#####\n`],
    ['in a longer fence than its own', `${F}\`\n#####--\n${plan(readme)}\n--#####\n${F}\`\n`],
    ['in a tilde fence', `~~~json\n#####--\n${plan(readme)}\n--#####\n~~~\n`],
    ['in a code block closed before its --#####', `${F}\n#####--\n${plan(readme.replace(/\n/g, '\\n'))}\n${F}\n--#####\n`],
  ])('%s is read whole', (_where, reply) => {
    const [block] = findBlocks(reply);
    expect(block?.error).toBeUndefined();
    expect((block?.payload as { file_operations: Array<{ content: string }> }).file_operations[0]?.content).toBe(readme);
  });
});
