import { describe, expect, it } from 'vitest';
import { parseLineSpan, parseReadRange, validateToolArgs } from '../../../shared/tools';

type Case = [tool: string, args: unknown, message: string];

/** Calls a model gets wrong, and the exact line it reads back. */
const refused: Case[] = [
  // misspelt or invented argument names
  ['fs.mv', { src: '/a', dest: '/b' }, 'fs.mv takes fromPath/toPath, not src/dest; its arguments are fromPath, toPath, overwrite'],
  ['fs.mv', { from: '/a', to: '/b' }, 'fs.mv takes fromPath/toPath, not from/to; its arguments are fromPath, toPath, overwrite'],
  ['fs.read', { file: '/a' }, 'fs.read has no argument "file" (did you mean "path"?); its arguments are path, range, line, lines, head, tail, encoding, includeMeta'],
  ['fs.read', { path: '/a', lenght: 3 }, 'fs.read has no argument "lenght"; its arguments are path, range, line, lines, head, tail, encoding, includeMeta'],
  ['fs.read', { path: '/a', includemeta: true }, 'fs.read has no argument "includemeta" (did you mean "includeMeta"?); its arguments are path, range, line, lines, head, tail, encoding, includeMeta'],
  ['fs.ls', { path: '/a', dpeth: 2 }, 'fs.ls has no argument "dpeth" (did you mean "depth"?); its arguments are path, depth, glob, sizes'],
  ['fs.search', { path: '/a', pattern: 'TODO' }, 'fs.search has no argument "pattern" (did you mean "query"?); its arguments are path, query, regex, glob, limit, extensions, minBytes, maxBytes, mtimeFrom, mtimeTo, contextLines'],
  ['fs.write', { path: '/a', mode: 'overwrite', text: 'x' }, 'fs.write has no argument "text" (did you mean "content"?); its arguments are path, mode, content, expectedSha256'],
  ['fs.write', { path: '/a', content: 'x', modee: 'append' }, 'fs.write has no argument "modee" (did you mean "mode"?); its arguments are path, mode, content, expectedSha256'],
  ['fs.write', { filePath: '/a', mode: 'append', contents: 'x' }, 'fs.write takes path/content, not filePath/contents; its arguments are path, mode, content, expectedSha256'],
  ['fs.mkdir', { path: '/a', recursive: true }, 'fs.mkdir has no argument "recursive" (did you mean "parents"?); its arguments are path, parents'],
  ['fs.rm', { path: '/a', parents: true }, 'fs.rm has no argument "parents" (did you mean "recursive"?); its arguments are path, recursive, force'],
  ['process.run', { cmd: 'npm' }, 'process.run has no argument "cmd" (did you mean "command"?); its arguments are command, args, cwd, timeoutMs, env'],
  ['shell.exec', { command: 'ls', timeout: 5 }, 'shell.exec has no argument "timeout" (did you mean "timeoutMs"?); its arguments are command, cwd, timeoutMs, env'],
  ['fs.writeBatch', { files: [{ path: '/a', text: 'x' }] }, 'fs.writeBatch files[0] has no field "text" (did you mean "content"?); its fields are path, content, mode, expectedSha256'],
  ['fs.diff', { left: '/a', right: '/b' }, 'fs.diff takes leftPath/rightPath, not left/right; its arguments are leftPath, rightPath, rightContent, contextLines'],
  // missing required arguments
  ['fs.write', { path: '/a', content: '' }, 'fs.write is missing "mode" (one of overwrite, append)'],
  ['fs.write', { path: '/a', mode: 'overwrite' }, 'fs.write is missing "content" (a string)'],
  ['fs.search', { path: '/a' }, 'fs.search is missing "query" (a string)'],
  ['fs.read', undefined, 'fs.read is missing "path" (a string)'],
  ['fs.writeBatch', { files: [] }, 'fs.writeBatch argument "files" must hold at least 1 item(s)'],
  // wrong types and values
  ['fs.ls', { path: '/a', depth: '2' }, 'fs.ls argument "depth" must be an integer ≥ 1, got "2" (a string)'],
  ['fs.read', { path: '/a', line: 1.5 }, 'fs.read argument "line" must be an integer ≥ 1, got 1.5 (a number)'],
  ['fs.read', { path: '/a', line: 0 }, 'fs.read argument "line" must be an integer ≥ 1, got 0 (a number)'],
  ['fs.read', { path: 42 }, 'fs.read argument "path" must be a string, got 42 (a number)'],
  ['fs.read', { path: '' }, 'fs.read argument "path" must not be empty'],
  ['fs.read', { path: '/a', encoding: 'utf8' }, 'fs.read argument "encoding" must be one of utf-8, base64, hex, got "utf8" (a string)'],
  ['fs.read', { path: '/a', range: '0-100' }, 'fs.read argument "range" must be "head:N", "tail:N" or "start:end" (characters), got "0-100" (a string)'],
  ['fs.read', { path: '/a', range: '50:10' }, 'fs.read argument "range" has end 10 before start 50'],
  ['fs.read', { path: '/a', lines: 'ten' }, 'fs.read argument "lines" must be "start-end" (1-based lines, e.g. "10-40"; "10-" reads to the end), got "ten" (a string)'],
  ['fs.read', { path: '/a', lines: '40-10' }, 'fs.read argument "lines" has end line 10 before start line 40'],
  ['fs.read', { path: '/a', lines: '0-3' }, 'fs.read argument "lines" must start at line 1 or later, got "0-3" (a string)'],
  ['fs.write', { path: '/a', mode: 'replace', content: 'x' }, 'fs.write argument "mode" must be one of overwrite, append, got "replace" (a string)'],
  ['fs.write', { path: '/a', mode: 'append', content: 'x', expectedSha256: 'abc' }, 'fs.write argument "expectedSha256" must be 64 hexadecimal characters (a SHA-256 of the current file), got "abc" (a string)'],
  ['fs.writeBatch', { files: [{ path: '/a', content: 'x', mode: 'prepend' }] }, 'fs.writeBatch argument "files[0].mode" must be one of overwrite, append, got "prepend" (a string)'],
  ['fs.chmod', { path: '/a', mode: 755 }, 'fs.chmod argument "mode" must be a string, got 755 (a number)'],
  ['fs.chmod', { path: '/a', mode: '79' }, 'fs.chmod argument "mode" must be a 3–4 digit octal string like "755" or "0644", got "79" (a string)'],
  ['fs.chmod', { path: '/a', mode: '75555' }, 'fs.chmod argument "mode" must be a 3–4 digit octal string like "755" or "0644", got "75555" (a string)'],
  ['fs.chmod', { path: '/a', mode: 'u+x' }, 'fs.chmod argument "mode" must be a 3–4 digit octal string like "755" or "0644", got "u+x" (a string)'],
  ['fs.search', { path: '/a', query: 'x', contextLines: 9 }, 'fs.search argument "contextLines" must be an integer from 0 to 5, got 9 (a number)'],
  ['fs.search', { path: '/a', query: 'x', contextLines: -1 }, 'fs.search argument "contextLines" must be an integer from 0 to 5, got -1 (a number)'],
  ['fs.diff', { leftPath: '/a', rightContent: '', contextLines: 6 }, 'fs.diff argument "contextLines" must be an integer from 0 to 5, got 6 (a number)'],
  ['fs.search', { path: '/a', query: 'x', extensions: 'ts' }, 'fs.search argument "extensions" must be an array of strings, got "ts" (a string)'],
  ['fs.search', { path: '/a', query: 'x', mtimeFrom: 'yesterday' }, 'fs.search argument "mtimeFrom" must be a date/time like "2026-01-31" or "2026-01-31T12:00:00Z", got "yesterday" (a string)'],
  ['fs.search', { path: '/a', query: 'x', minBytes: 10, maxBytes: 5 }, 'fs.search minBytes 10 is larger than maxBytes 5'],
  ['process.run', { command: 'npm', args: 'run test' }, 'process.run argument "args" must be an array of strings, got "run test" (a string)'],
  ['process.run', { command: 'npm', args: ['run', 1] }, 'process.run argument "args[1]" must be a string, got 1 (a number)'],
  ['process.run', { command: 'npm', env: { CI: true } }, 'process.run argument "env.CI" must be a string, got true (a boolean)'],
  [
    'fs.ls',
    { path: 7, depth: 'x', glob: 3, extra: 1 },
    'fs.ls has no argument "extra"; its arguments are path, depth, glob, sizes; fs.ls argument "path" must be a string, got 7 (a number); ' +
      'fs.ls argument "depth" must be an integer ≥ 1, got "x" (a string) (and 1 more)',
  ],
  ['process.run', { command: 'npm', env: ['CI=1'] }, 'process.run argument "env" must be an object of string values, got ["CI=1"] (an array)'],
  ['shell.exec', { command: '' }, 'shell.exec argument "command" must not be empty'],
  ['shell.exec', { command: 'ls', timeoutMs: 0 }, 'shell.exec argument "timeoutMs" must be an integer ≥ 1, got 0 (a number)'],
  // exclusivity
  ['fs.read', { path: '/a', range: 'head:10', line: 3 }, 'fs.read takes at most one of range/line/lines/head/tail, got range and line'],
  ['fs.read', { path: '/a', head: 10, tail: 10 }, 'fs.read takes at most one of range/line/lines/head/tail, got head and tail'],
  ['fs.read', { path: '/a', line: 1, lines: '1-2', range: 'tail:5' }, 'fs.read takes at most one of range/line/lines/head/tail, got range and line and lines'],
  ['fs.read', { path: '/a', encoding: 'base64', line: 3 }, 'fs.read with encoding "base64" cannot use line/lines (lines only exist in text); use range, head or tail'],
  ['fs.read', { path: '/a', encoding: 'hex', lines: '1-3' }, 'fs.read with encoding "hex" cannot use line/lines (lines only exist in text); use range, head or tail'],
  ['fs.diff', { leftPath: '/a' }, 'fs.diff takes exactly one of rightPath/rightContent, got neither'],
  ['fs.diff', { leftPath: '/a', rightPath: '/b', rightContent: 'x' }, 'fs.diff takes exactly one of rightPath/rightContent, got both'],
  // arguments that are not an object
  ['fs.read', ['/a'], 'fs.read arguments must be an object like {"name": value}, got ["/a"] (an array)'],
  ['fs.read', '/a', 'fs.read arguments must be an object like {"name": value}, got "/a" (a string)'],
  ['fs.read', null, 'fs.read arguments must be an object like {"name": value}, got null'],
  // several problems at once: unknown names first; "missing path" is not repeated, "dir" already points at it
  [
    'fs.ls',
    { dir: '/a', depth: 'x', glob: 3, extra: 1 },
    'fs.ls has no arguments "dir" (did you mean "path"?), "extra"; its arguments are path, depth, glob, sizes; ' +
      'fs.ls argument "depth" must be an integer ≥ 1, got "x" (a string); fs.ls argument "glob" must be a string, got 3 (a number)',
  ],
];

/** Edge values that are valid. */
const accepted: Array<[tool: string, args: Record<string, unknown>]> = [
  ['fs.write', { path: '/a', mode: 'overwrite', content: '' }],
  ['fs.write', { path: 'C:\\Users\\张三\\笔记.md', mode: 'append', content: '测试成功\r\n' }],
  ['fs.write', { path: '/a', mode: 'overwrite', content: 'x', expectedSha256: 'a'.repeat(64) }],
  ['fs.read', { path: '/a', range: 'tail:0' }],
  ['fs.read', { path: '/a', range: '100:' }],
  ['fs.read', { path: '/a', range: '10:20' }],
  ['fs.read', { path: '/a', lines: '10-' }],
  ['fs.read', { path: '/a', lines: '7' }],
  ['fs.read', { path: '/a', lines: '3:9' }],
  ['fs.read', { path: '/a', encoding: 'base64', range: 'head:16' }],
  ['fs.read', { path: '/a', encoding: 'hex', tail: 16 }],
  ['fs.chmod', { path: '/a', mode: '0644' }],
  ['fs.chmod', { path: '/a', mode: '4755' }],
  ['fs.diff', { leftPath: '/a', rightContent: '' }],
  ['fs.search', { path: '/a', query: 'x', contextLines: 0, mtimeFrom: '2026-01-31', mtimeTo: '2026-02-01T12:00:00Z', minBytes: 0, maxBytes: 0 }],
  ['fs.search', { path: '/a', query: 'x', contextLines: 5 }],
  ['process.run', { command: 'node', args: [], env: {}, timeoutMs: 1 }],
  ['process.run', { command: 'node', args: ['-e', 'console.log(1)'], env: { CI: '1', LANG: 'zh_CN.UTF-8' } }],
  ['shell.exec', { command: 'echo "a && b" | wc -c', cwd: 'D:\\work' }],
];

describe('validateToolArgs', () => {
  it.each(refused)('%s %j → %s', (tool, args, message) => {
    const result = validateToolArgs(tool, args);
    expect(result).toEqual({ ok: false, code: 'INVALID_INPUT', message });
    if (!result.ok) expect(result.message).not.toMatch(/[\r\n]/);
  });

  it.each(accepted)('%s %j is valid and comes back unchanged', (tool, args) => {
    const result = validateToolArgs(tool, args);
    expect(result.ok ? result.args : result.message).toEqual(args);
  });

  it('refuses unknown tools with NOT_FOUND, listing the tools and the closest one', () => {
    const list = 'fs.ls, fs.mkdir, fs.read, fs.search, fs.write, fs.writeBatch, fs.rm, fs.mv, fs.chmod, fs.diff, process.run, shell.exec, filesystem';
    const cases: Array<[string, string]> = [
      ['fs.raed', `unknown tool "fs.raed"; the tools are ${list} (did you mean "fs.read"?)`],
      ['read_file', `unknown tool "read_file"; the tools are ${list} (did you mean "fs.read"?)`],
      ['bash', `unknown tool "bash"; the tools are ${list} (did you mean "shell.exec"?)`],
      ['fs.writebatch', `unknown tool "fs.writebatch"; the tools are ${list} (did you mean "fs.writeBatch"?)`],
      ['weather', `unknown tool "weather"; the tools are ${list}`],
      ['', `unknown tool ""; the tools are ${list}`],
      ['toString', `unknown tool "toString"; the tools are ${list}`],
      ['__proto__', `unknown tool "__proto__"; the tools are ${list}`],
    ];
    for (const [name, message] of cases) expect(validateToolArgs(name, {})).toEqual({ ok: false, code: 'NOT_FOUND', message });
  });

  it('shows a character nobody can see in the value or name it refuses, which otherwise looks like an allowed one', () => {
    expect(validateToolArgs('fs.read', { 'path\u200B': '/a' })).toMatchObject({ ok: false, message: expect.stringContaining('no argument "path⟨U+200B⟩"') });
    expect(validateToolArgs('fs.write', { path: '/a', mode: 'overwrite\u2060', content: '' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('got "overwrite⟨U+2060⟩" (a string)'),
    });
  });

  it('keeps the message short when a model sends many or huge unknown names', () => {
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`k${index}`, index]));
    expect(validateToolArgs('fs.mkdir', { path: '/a', ...many })).toEqual({
      ok: false,
      code: 'INVALID_INPUT',
      message: 'fs.mkdir has no arguments "k0", "k1", "k2", "k3", "k4", and 7 more; its arguments are path, parents',
    });
    const huge = validateToolArgs('fs.mkdir', { path: '/a', [`x\n${'y'.repeat(5000)}`]: 1 });
    expect(huge).toEqual({
      ok: false,
      code: 'INVALID_INPUT',
      message: `fs.mkdir has no argument "x ${'y'.repeat(37)}…"; its arguments are path, parents`,
    });
  });

  it('never throws, whatever the arguments', () => {
    const cyclic: Record<string, unknown> = { path: '/a' };
    cyclic.self = cyclic;
    const odd: unknown[] = [cyclic, Object.create(null), { path: 1n }, { path: Symbol('x') }, { path: '/a', depth: Number.NaN }, { path: '/a', depth: Infinity }, 7, true];
    for (const args of odd) {
      for (const tool of ['fs.read', 'fs.ls', 'filesystem', 'process.run']) {
        const result = validateToolArgs(tool, args);
        expect(typeof result.ok).toBe('boolean');
      }
    }
  });
});

describe('fs.read range and lines', () => {
  it.each([
    ['head:1200', { kind: 'head', chars: 1200 }],
    ['tail:80', { kind: 'tail', chars: 80 }],
    ['10:20', { kind: 'chars', start: 10, end: 20 }],
    ['100:', { kind: 'chars', start: 100 }],
  ])('range %s', (range, slice) => expect(parseReadRange(range)).toEqual(slice));

  it.each([
    ['10-40', { start: 10, end: 40 }],
    ['10:40', { start: 10, end: 40 }],
    ['10-', { start: 10 }],
    ['7', { start: 7, end: 7 }],
  ])('lines %s', (lines, span) => expect(parseLineSpan(lines)).toEqual(span));
});
