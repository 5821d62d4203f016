import { describe, expect, it } from 'vitest';
import { LIBRARY_REPAIR_LIMIT, MAX_NESTING, parseJsonLenient, prepareForRepair } from '../../../shared/protocols/json';

describe('parseJsonLenient', () => {
  const repaired: Array<[string, string, unknown]> = [
    ['# comments outside strings (seed 002)', '{"a": 1, # 注释\n "b": "x # y"}', { a: 1, b: 'x # y' }],
    ['// and block comments', '{"a": 1, // c\n /* d */ "b": 2}', { a: 1, b: 2 }],
    ['missing commas between lines', '{\n "a": "x"\n "b": 2\n "c": [1 2]\n}', { a: 'x', b: 2, c: [1, 2] }],
    ['trailing commas', '{"a": [1, 2,], "b": {"c": 1,},}', { a: [1, 2], b: { c: 1 } }],
    ['raw newlines and tabs inside strings', '{"a": "line 1\nline 2\t!"}', { a: 'line 1\nline 2\t!' }],
    ['prose after a comma (seed 002 §二)', '{"type": "operate",  执行编辑文件，用finish\n "x": 1}', { type: 'operate', x: 1 }],
    ['single quotes (library)', "{'a': 'b'}", { a: 'b' }],
    ['unquoted keys (library)', '{a: 1, b: [true, null]}', { a: 1, b: [true, null] }],
    ['a markdown fence around the JSON (library)', '```json\n{"a": 1}\n```', { a: 1 }],
    ['a comma before the last item, in curly quotes, of a list typed with an input method', '{“a”：[222，“x”]}', { a: [222, 'x'] }],
  ];
  it.each(repaired)('repairs %s', (_name, text, value) => {
    expect(parseJsonLenient(text)).toEqual({ ok: true, value, repaired: true });
  });

  it('keeps strict JSON strict', () => {
    expect(parseJsonLenient(' {"a": "#x"}\n')).toEqual({ ok: true, value: { a: '#x' }, repaired: false });
  });

  const refused: Array<[string, string, string]> = [
    ['prose, which the library would turn into a string', 'fs.read /tmp/a.txt', 'not valid JSON'],
    ['JSON cut off inside a string', '{"a": "half', 'ends inside a string or before its closing bracket'],
    ['JSON cut off before its closing brace', '{"a": 1, "b": [1, 2', 'ends inside a string or before its closing bracket'],
    ['nesting deeper than the limit', '['.repeat(MAX_NESTING + 1) + ']'.repeat(MAX_NESTING + 1), 'nested deeper than'],
    ['library-only repairs over the size limit', `[${'{"a": b} '.repeat(LIBRARY_REPAIR_LIMIT / 6)}]`, 'repair limit'],
  ];
  it.each(refused)('refuses %s', (_name, text, reason) => {
    const result = parseJsonLenient(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });

  it('repairs raw newlines in a string far over the library limit, in the linear pass', () => {
    const content = 'x = 1\n'.repeat(20_000);
    const text = `{"path": "a.py", "content": "${content}"} # done`;
    expect(text.length).toBeGreaterThan(LIBRARY_REPAIR_LIMIT);
    expect(parseJsonLenient(text)).toEqual({ ok: true, value: { path: 'a.py', content }, repaired: true });
  });
});

describe('prepareForRepair', () => {
  it('keeps # and // inside strings, with escaped quotes', () => {
    const text = '{"a": "say \\"#hi\\" // there"} # bye';
    expect(prepareForRepair(text)).toEqual({ text: '{"a": "say \\"#hi\\" // there"} ', cutShort: false });
  });
});

describe('backslashes a model did not escape (Windows paths, regex)', () => {
  // Seed 000 template D writes `C:\\Users\\…`; models often write the path with single backslashes. Dropping the
  // backslash of an escape JSON does not have (`\U` → `U`) turns the path into another one.
  it('keeps a Windows path written with single backslashes whole, \\n of \\notes.txt included', () => {
    expect(parseJsonLenient('{"path":"C:\\Users\\a1881\\Documents\\notes.txt","range":"head:800"}')).toEqual({
      ok: true,
      value: { path: 'C:\\Users\\a1881\\Documents\\notes.txt', range: 'head:800' },
      repaired: true,
    });
  });

  it('reads a lower-case \\users path (an invalid \\u escape) instead of refusing it', () => {
    expect(parseJsonLenient('{"path":"C:\\users\\alice\\notes.txt"}')).toEqual({
      ok: true,
      value: { path: 'C:\\users\\alice\\notes.txt' },
      repaired: true,
    });
  });

  it('keeps the path inside a command', () => {
    expect(parseJsonLenient('{"command":"python C:\\Users\\me\\proj\\main.py"}')).toEqual({
      ok: true,
      value: { command: 'python C:\\Users\\me\\proj\\main.py' },
      repaired: true,
    });
  });

  it("reads \\' as an apostrophe, as before", () => {
    expect(parseJsonLenient("{\"content\":\"print(\\'hi\\')\\n\"}")).toEqual({ ok: true, value: { content: "print('hi')\n" }, repaired: true });
  });

  it('keeps the backslash of an escape JSON does not have, and the meaning of those it has', () => {
    expect(parseJsonLenient('{"content":"a\\.b\\nline2 \\"q\\""}')).toEqual({
      ok: true,
      value: { content: 'a\\.b\nline2 "q"' },
      repaired: true,
    });
  });
});

describe('single-quoted strings holding // or # (Python-style plans)', () => {
  // DESIGN §3: single quotes are repaired. The comment pass did not know single-quoted strings, so a URL's `//` or
  // a file's `# header` cut the rest of the line away and the block was refused.
  it('keeps a URL in a single-quoted string', () => {
    expect(parseJsonLenient("{'id': 'call-003', 'tool': 'shell.exec', 'args': {'command': 'curl http://localhost:8080/health'}}")).toEqual({
      ok: true,
      value: { id: 'call-003', tool: 'shell.exec', args: { command: 'curl http://localhost:8080/health' } },
      repaired: true,
    });
  });

  it('keeps a # in a single-quoted string and still drops a # comment after it', () => {
    expect(parseJsonLenient("{'path': 'a.py', # the file\n 'file_content': '# header\\nprint(1)\\n'}")).toEqual({
      ok: true,
      value: { path: 'a.py', file_content: '# header\nprint(1)\n' },
      repaired: true,
    });
  });
});
