import fc from 'fast-check';

/*
 * Inputs shaped like the text chatbridge reads and writes: heavy in the characters that open and close blocks,
 * so random strings hit fences, markers and JSON edges far more often than uniform unicode would.
 */

/** Pieces a reply is made of; random text is a sequence of them. */
export const MARKER_PIECES = [
  '`',
  '```',
  '````',
  '~',
  '~~~',
  '~~~~~',
  '#####--',
  '--#####',
  '#',
  '-',
  '{',
  '}',
  '[',
  ']',
  '"',
  "'",
  ':',
  ',',
  '\\',
  '\n',
  '\r\n',
  '\r',
  ' ',
  '   ',
  '\t',
  '\u0000',
  '\u2028',
  '中文',
  '正确输出',
  '😀',
  '\uD800',
  'é',
  'mcp-request',
  'flycode-call',
  'act',
  'end',
  'json',
  'markdown',
  '"jsonrpc":"2.0"',
  '"method":"tools/call"',
  '"id":"call-001"',
  '"tool":"fs.read"',
  '"args":{',
  '"type":"operate"',
  'write_file',
  'replace',
  '<function_calls>',
  '</function_calls>',
  '<invoke name="fs.read" call_id="1">',
  '<invoke',
  '</invoke>',
  '<parameter name="path">',
  '</parameter>',
  '{"type": "function_call_start", "name": "fs.ls", "call_id": 1}',
  '{"type": "parameter", "key": "path", "value": "/"}',
  '{"type": "function_call_end", "call_id": 1}',
  '"function_call_start"',
  'null',
  'true',
  '1',
  'a',
] as const;

const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...MARKER_PIECES) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 4 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) },
);

/** Random text built from marker-heavy pieces. */
export function markerText(maxPieces = 80): fc.Arbitrary<string> {
  return fc.array(piece, { maxLength: maxPieces }).map((pieces) => pieces.join(''));
}

/** A fence line: 3–6 backticks or tildes, some indentation, a label or none. */
const fenceLine = fc
  .tuple(
    fc.constantFrom('', ' ', '   ', '    '),
    fc.constantFrom('`', '~'),
    fc.integer({ min: 3, max: 6 }),
    fc.constantFrom('', 'mcp-request', 'flycode-call', 'act', 'end', 'path', 'markdown', 'json', ' mcp-request x', 'a`b'),
    fc.constantFrom('\n', '\r\n', ''),
  )
  .map(([indent, char, size, label, eol]) => `${indent}${char.repeat(size)}${label}${eol}`);

/** Text made of lines, many of them fence lines: exercises nesting and closing rules. */
export function fencedText(): fc.Arbitrary<string> {
  return fc
    .array(fc.oneof({ weight: 2, arbitrary: fenceLine }, { weight: 3, arbitrary: markerText(8).map((text) => `${text}\n`) }), {
      maxLength: 30,
    })
    .map((lines) => lines.join(''));
}

/** One edit of a text; positions are fractions so the same edit applies to any length. */
export type Mutation =
  | { op: 'insert'; at: number; text: string }
  | { op: 'delete'; from: number; to: number }
  | { op: 'duplicate'; from: number; to: number; at: number }
  | { op: 'swap'; a: number; b: number; c: number; d: number };

const fraction = fc.double({ min: 0, max: 1, noNaN: true });

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), at: fraction, text: markerText(6) }),
  fc.record({ op: fc.constant('delete' as const), from: fraction, to: fraction }),
  fc.record({ op: fc.constant('duplicate' as const), from: fraction, to: fraction, at: fraction }),
  fc.record({ op: fc.constant('swap' as const), a: fraction, b: fraction, c: fraction, d: fraction }),
);

export function applyMutation(text: string, m: Mutation): string {
  const at = (f: number) => Math.min(text.length, Math.floor(f * (text.length + 1)));
  switch (m.op) {
    case 'insert':
      return text.slice(0, at(m.at)) + m.text + text.slice(at(m.at));
    case 'delete': {
      const [from, to] = [at(m.from), at(m.to)].sort((x, y) => x - y) as [number, number];
      return text.slice(0, from) + text.slice(to);
    }
    case 'duplicate': {
      const [from, to] = [at(m.from), at(m.to)].sort((x, y) => x - y) as [number, number];
      const where = at(m.at);
      return text.slice(0, where) + text.slice(from, to) + text.slice(where);
    }
    case 'swap': {
      const [a, b, c, d] = [at(m.a), at(m.b), at(m.c), at(m.d)].sort((x, y) => x - y) as [number, number, number, number];
      return text.slice(0, a) + text.slice(c, d) + text.slice(b, c) + text.slice(a, b) + text.slice(d);
    }
  }
}

/** Text for formatters to carry: anything, with fence runs, markers, backslashes, NULs and line breaks mixed in. */
export const payloadText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('```', '````', '~~~', '\n```\n', '\n    ```', '\n   ````', '--#####', '#####--', '--\\u0023####', '\\', '\\\\', '\u0000', '\n', '\r\n', '\r', '\u2028', '\u2029', '"', '中文', '[data]', '\n[ok] true', ': ', ' ') },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(''));

/*
 * Whole tool blocks of every kind, with random JSON inside and random prose around them: random text alone
 * almost never forms a complete block, and the payload and repair paths are where parsers break.
 */

const fenceOf = fc.tuple(fc.constantFrom('`', '~'), fc.integer({ min: 3, max: 5 })).map(([char, size]) => char.repeat(size));
const eol = fc.constantFrom('\n', '\n', '\r\n');
const jsonArgs = fc.dictionary(fc.oneof(fc.constantFrom('path', 'content', 'range', 'cmd', 'edits'), payloadText), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });

/** JSON as models write it: compact or pretty, sometimes broken by one dropped or added character. */
function jsonAsWritten(value: unknown): fc.Arbitrary<string> {
  return fc
    .tuple(fc.boolean(), fc.option(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom('', ',', '"', '}', '#', '\n')), { freq: 3 }))
    .map(([pretty, damage]) => {
      const text = JSON.stringify(value, null, pretty ? 2 : undefined) ?? 'null';
      if (damage === null) return text;
      const at = Math.floor(damage[0] * text.length);
      return text.slice(0, at) + damage[1] + text.slice(at + 1);
    });
}

function jsonFence(label: string, value: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc
    .tuple(fenceOf, eol, value.chain(jsonAsWritten), fc.boolean())
    .map(([fence, br, json, closed]) => `${fence}${label}${br}${json}${br}${closed ? fence : ''}`);
}

const mcpBlock = jsonFence(
  'mcp-request',
  fc.record({
    jsonrpc: fc.constantFrom('2.0', '1.0'),
    id: fc.oneof(payloadText, fc.integer()),
    method: fc.constantFrom('tools/call', 'tools/list', 'initialize', 'ping', 'fs.read'),
    params: fc.record({ name: fc.constantFrom('fs.read', 'fs.write', 'shell.exec', 'nope'), arguments: jsonArgs }),
  }),
);

const flycodeBlock = jsonFence(
  'flycode-call',
  fc.record({ id: payloadText, tool: fc.constantFrom('fs.read', 'fs.write', 'process.run', 'bogus'), args: jsonArgs }),
);

const autocoderBlock = fc
  .tuple(
    fc.record({
      type: fc.constantFrom('operate', 'finish', 'check_program', 'operate/finish'),
      file_operations: fc.array(fc.record({ action_type: fc.constantFrom('create_file', 'replace_file', 'delete_file'), path: payloadText, content: payloadText }), { maxLength: 2 }),
    }).chain(jsonAsWritten),
    fc.constantFrom('\n', ' ', ''),
    fc.boolean(),
  )
  .map(([json, gap, closed]) => `#####--${gap}${json}${gap}${closed ? '--#####' : ''}`);

const axonStatement = fc
  .tuple(
    fenceOf,
    eol,
    fc.constantFrom('write_file', 'replace', 'check_files_exist', 'check_cwd_match', 'bogus'),
    fc.array(fc.tuple(fenceOf, fc.constantFrom('path', 'text', 'old', 'new', ''), payloadText), { maxLength: 3 }),
    fc.boolean(),
  )
  .map(([fence, br, act, params, ended]) => {
    const parameters = params.map(([paramFence, label, content]) => `${paramFence}${label}${br}${content}${br}${paramFence}${br}`);
    return `${fence}act${br}${act}${br}${fence}${br}${parameters.join('')}${ended ? `${fence}end${br}${fence}${br}` : ''}`;
  });

/** An Axon statement written inside a block quote, every line behind a quote marker (`> `, `>`, ` > `). */
const quotedAxonStatement = fc
  .tuple(axonStatement, fc.constantFrom('> ', '>', ' > '))
  .map(([statement, marker]) => statement.split('\n').map((line) => (line === '' ? '>' : `${marker}${line}`)).join('\n'));

const functionCallsXml = fc
  .tuple(
    fc.array(
      fc.tuple(fc.constantFrom('fs.read', 'everything.echo', '', 'a"b'), fc.array(fc.tuple(fc.constantFrom('path', 'message', ''), payloadText), { maxLength: 3 }), fc.boolean()),
      { maxLength: 3 },
    ),
    eol,
    fc.boolean(),
  )
  .map(([invokes, br, closed]) => {
    const calls = invokes.map(([name, params, invokeClosed], index) => {
      const parameters = params.map(([key, value]) => `<parameter name="${key}">${value}</parameter>${br}`).join('');
      return `<invoke name="${name}" call_id="${index + 1}">${br}${parameters}${invokeClosed ? `</invoke>${br}` : ''}`;
    });
    return `<function_calls>${br}${calls.join('')}${closed ? '</function_calls>' : ''}`;
  });

const functionCallsJsonl = fc
  .tuple(fc.array(fc.tuple(fc.constantFrom('path', 'message'), fc.jsonValue()), { maxLength: 3 }), eol, fc.boolean(), fc.boolean())
  .map(([params, br, ended, fenced]) => {
    const lines = [
      JSON.stringify({ type: 'function_call_start', name: 'fs.ls', call_id: 1 }),
      ...params.map(([key, value]) => JSON.stringify({ type: 'parameter', key, value })),
      ...(ended ? [JSON.stringify({ type: 'function_call_end', call_id: 1 })] : []),
    ];
    const body = lines.join(br) + br;
    return fenced ? `\`\`\`jsonl${br}${body}\`\`\`` : body;
  });

/** A reply: prose and whole blocks of every kind, some closed, some cut, some with damaged JSON. */
export function blockText(): fc.Arbitrary<string> {
  const part = fc.oneof(
    { weight: 2, arbitrary: markerText(6) },
    { weight: 1, arbitrary: mcpBlock },
    { weight: 1, arbitrary: flycodeBlock },
    { weight: 1, arbitrary: autocoderBlock },
    { weight: 1, arbitrary: axonStatement },
    { weight: 1, arbitrary: quotedAxonStatement },
    { weight: 1, arbitrary: functionCallsXml },
    { weight: 1, arbitrary: functionCallsJsonl },
  );
  return fc.array(fc.tuple(part, fc.constantFrom('\n', '\n\n', '\r\n', ' ', '')), { maxLength: 6 }).map((parts) => parts.map(([text, gap]) => text + gap).join(''));
}
