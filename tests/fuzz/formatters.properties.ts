import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { ERROR_CODES, type ErrorCode } from '../../shared/errors';
import {
  fenced,
  formatAutocoderResponse,
  formatAxonResult,
  formatFlycodeResult,
  formatMcpResponse,
  formatRuntimeFeedback,
  mcpPendingResponse,
  mcpResponseFor,
  oneLine,
  type AutocoderResponse,
  type AxonActReport,
  type AxonResultInput,
  type DirTree,
  type FileActionReport,
  type Outcome,
  type ProgramExecReport,
  type ResultMeta,
  type RuntimeFeedback,
} from '../../shared/results';
import { payloadText } from './arbitraries';
import type { FuzzProperty } from './fuzz-settings';
import { readAutocoderReply, readFencedReply } from './read-reply';

/*
 * Every formatter on random outcomes: the reply, read back the way a chat shows it and the way the model's
 * side parses it, gives back exactly what went in — whatever fences, markers, backslashes or NULs the tool's
 * output holds.
 */

const errorCode = fc.constantFrom(...(Object.keys(ERROR_CODES) as ErrorCode[]));

const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  fc.record({ ok: fc.constant(true as const), text: payloadText, truncated: fc.option(fc.boolean(), { nil: undefined }) }, { requiredKeys: ['ok', 'text'] }),
  fc.record(
    {
      ok: fc.constant(false as const),
      code: errorCode,
      message: payloadText,
      data: fc.dictionary(fc.oneof(payloadText, fc.constantFrom('code', 'auditId', '__proto__', 'repaired')), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    },
    { requiredKeys: ['ok', 'code', 'message'] },
  ),
);

const meta: fc.Arbitrary<ResultMeta> = fc.record(
  {
    auditId: payloadText,
    truncated: fc.boolean(),
    pendingConfirmationId: payloadText,
    repaired: fc.boolean(),
  },
  { requiredKeys: ['auditId'] },
);

const jsonRpcId = fc.oneof(payloadText, fc.integer(), fc.constant(null));

/** JSON as it travels: the formatted reply can only promise what JSON itself keeps (no undefined, no -0). */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function checkMcpResponse(id: string | number | null, result: Outcome, resultMeta: ResultMeta): void {
  const response = mcpResponseFor(id, result, resultMeta);
  if (result.ok && 'result' in response && response.result.content[0]?.text !== result.text) {
    throw new Error('content[0].text is not the outcome text');
  }
  if (!result.ok) {
    if (!('error' in response)) throw new Error('a failed outcome gave a result');
    const { code, message, data } = response.error;
    // The code and the audit id are the companion's own: details from a tool never replace them.
    if (data.code !== result.code || data.auditId !== resultMeta.auditId || code !== ERROR_CODES[result.code]) {
      throw new Error(`error ${JSON.stringify(response.error).slice(0, 300)} does not carry ${result.code} and the audit id`);
    }
    if (!message.startsWith(`${result.code}: `)) throw new Error(`error message ${JSON.stringify(message)} does not start with its code`);
  }
  checkMcpReply(response);
}

function checkMcpPending(id: string | number | null, what: string, resultMeta: ResultMeta, pendingConfirmationId: string): void {
  const response = mcpPendingResponse(id, what, { ...resultMeta, pendingConfirmationId });
  if (response.result.meta.pendingConfirmationId !== pendingConfirmationId) throw new Error('pendingConfirmationId lost');
  const text = response.result.content[0]?.text ?? '';
  if (!text.startsWith('Pending confirmation') || /[\r\n]/.test(text)) throw new Error(`pending text ${JSON.stringify(text)}`);
  checkMcpReply(response);
}

function checkMcpReply(response: object): void {
  const reply = formatMcpResponse(response);
  const body = readFencedReply(reply, 'mcp-response');
  if (/[\r\n\u2028\u2029]/.test(body)) throw new Error(`the JSON is not on one line: ${JSON.stringify(body.slice(0, 200))}`);
  const parsed: unknown = JSON.parse(body);
  if (!isDeepStrictEqual(parsed, asJson(response))) {
    throw new Error(`the mcp-response reads back as ${body.slice(0, 300)}, not ${JSON.stringify(response).slice(0, 300)}`);
  }
}

/** Reads `[name] value` field lines and the `[data]` text, as the seed describes them. */
function readFlycodeFields(body: string): { fields: Map<string, string>; data?: string } {
  const fields = new Map<string, string>();
  let at = 0;
  while (at <= body.length) {
    const lineEnd = body.indexOf('\n', at) === -1 ? body.length : body.indexOf('\n', at);
    const line = body.slice(at, lineEnd);
    if (line === '[data]') return { fields, data: lineEnd === body.length ? '' : body.slice(lineEnd + 1) };
    const match = /^\[(\w+)\] ([^\n]*)$/.exec(line);
    if (match === null) throw new Error(`not a field line: ${JSON.stringify(line)}`);
    if (line.includes('\r')) throw new Error(`a field line holds a line break: ${JSON.stringify(line)}`);
    fields.set(match[1] as string, match[2] as string);
    if (lineEnd === body.length) break;
    at = lineEnd + 1;
  }
  return { fields };
}

function checkFenced(label: string, content: string, char: '`' | '~'): void {
  const body = readFencedReply(fenced(label, content, char), label);
  if (body !== content) throw new Error(`fenced content reads back as ${JSON.stringify(body)}, not ${JSON.stringify(content)}`);
}

function checkFlycodeResult(id: string | null, tool: string | null, result: Outcome, resultMeta: ResultMeta): void {
  const reply = formatFlycodeResult({ id, tool, outcome: result, meta: resultMeta });
  const { fields, data } = readFlycodeFields(readFencedReply(reply, 'flycode-result'));
  const shown = (value: string | null) => (value === null || oneLine(value).trim() === '' ? '(none)' : oneLine(value).trim());
  for (const [field, value] of [['id', id], ['tool', tool], ['auditId', resultMeta.auditId]] as const) {
    if (fields.get(field) !== shown(value)) throw new Error(`[${field}] ${JSON.stringify(fields.get(field))}, expected ${JSON.stringify(shown(value))}`);
  }
  const hasId = id !== null && id.trim() !== '';
  const succeeded = result.ok && hasId && resultMeta.pendingConfirmationId === undefined;
  if (fields.get('ok') !== String(succeeded)) throw new Error(`[ok] ${fields.get('ok')}, expected ${succeeded}`);
  if (succeeded) {
    if (data !== result.text) throw new Error(`[data] reads back as ${JSON.stringify(data)}, not ${JSON.stringify(result.text)}`);
  } else {
    // a failure of a call with an id gives the tool's own answer, or a message of several lines whole, as [data]
    const failed = !result.ok && hasId && resultMeta.pendingConfirmationId === undefined ? result : undefined;
    const expected = failed === undefined ? undefined : (failed.answer ?? (/[\r\n]/.test(failed.message.trim()) ? failed.message : undefined));
    if (data !== expected) throw new Error(`[data] reads back as ${JSON.stringify(data)}, not ${JSON.stringify(expected)}`);
    const error = fields.get('error') ?? '';
    if (!/^[A-Z_]+: /.test(error)) throw new Error(`[error] does not start with a code: ${JSON.stringify(error)}`);
  }
}

const dirTree: fc.Arbitrary<DirTree> = fc.letrec<{ tree: DirTree }>((tie) => ({
  tree: fc.record({
    name: payloadText,
    files: fc.array(payloadText, { maxLength: 3 }),
    dirs: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant({}), fc.array(fc.tuple(payloadText, tie('tree')), { maxLength: 2 }).map((entries) => Object.fromEntries(entries))),
  }),
})).tree;

const fileAction: fc.Arbitrary<FileActionReport> = fc.record(
  {
    status: fc.constantFrom('success' as const, 'failure' as const),
    action: fc.oneof(fc.constantFrom('create_file', 'replace_file', 'read_file', 'list_tree'), payloadText),
    path: payloadText,
    content: payloadText,
    dir_tree: dirTree,
    replaces: fc.array(
      fc.record({ id: payloadText, replaced: fc.boolean(), matches: fc.nat(), verified: fc.boolean(), error: payloadText }, { requiredKeys: ['id', 'replaced', 'matches', 'verified'] }),
      { maxLength: 2 },
    ),
    error: payloadText,
  },
  { requiredKeys: ['status', 'action', 'path'] },
);

const programExec: fc.Arbitrary<ProgramExecReport> = fc.record({
  status: fc.constantFrom('completed' as const, 'failure' as const, 'timeout' as const, 'terminated' as const),
  stdout: payloadText,
  stderr: payloadText,
  returncode: fc.option(fc.integer({ min: -255, max: 255 }), { nil: null }),
  runtime: fc.double({ min: 0, max: 1e6, noNaN: true }).map((seconds) => Math.round(seconds * 1000) / 1000),
});

function record<T>(value: fc.Arbitrary<T>): fc.Arbitrary<Record<string, T>> {
  return fc.array(fc.tuple(payloadText, value), { maxLength: 3 }).map((entries) => Object.fromEntries(entries));
}

const autocoderResponse: fc.Arbitrary<AutocoderResponse> = fc.record({
  metadata: fc.record({ step_id: payloadText, reason: payloadText, summary: payloadText }),
  file_actions: fc.array(fileAction, { maxLength: 3 }),
  program_execs: record(programExec),
});

const runtimeFeedback: fc.Arbitrary<RuntimeFeedback> = fc.record({
  type: fc.constant('program_runtime_feedback' as const),
  request_id: payloadText,
  programs: record(
    fc.record({ name: payloadText, runtime: fc.nat({ max: 100000 }), stdout: payloadText, stderr: payloadText }),
  ),
});

function checkAutocoderReply(reply: string, value: object): void {
  const parsed = readAutocoderReply(reply);
  if (!isDeepStrictEqual(parsed, asJson(value))) {
    throw new Error(`the executor reply reads back differently: ${reply.slice(0, 300)}`);
  }
}

const axonAct: fc.Arbitrary<AxonActReport> = fc.oneof(
  fc.record(
    {
      index: fc.integer({ min: 1, max: 999 }),
      act: fc.oneof(fc.constantFrom('check_files_exist', 'check_cwd_match', 'write_file', 'replace'), payloadText),
      path: payloadText,
      ok: fc.constant(true),
      message: payloadText,
    },
    { requiredKeys: ['index', 'act', 'ok', 'message'] },
  ),
  // A failed act always names its code (AxonActReport): given, or already in the message.
  fc.record(
    {
      index: fc.integer({ min: 1, max: 999 }),
      act: fc.oneof(fc.constantFrom('write_file', 'replace'), payloadText),
      path: payloadText,
      ok: fc.constant(false),
      message: payloadText,
      code: errorCode,
    },
    { requiredKeys: ['index', 'act', 'ok', 'message', 'code'] },
  ),
);

const axonInput: fc.Arbitrary<AxonResultInput> = fc.record(
  {
    acts: fc.array(axonAct, { maxLength: 5 }),
    applied: fc.boolean(),
    abortedAt: fc.integer({ min: 1, max: 999 }),
    reason: payloadText,
    meta,
  },
  { requiredKeys: ['acts', 'applied', 'meta'] },
);

/** Reads a token that is either a JSON string or runs up to `stop`; returns it and the rest of the line. */
function readToken(line: string, stop: RegExp): [string, string] {
  if (line.startsWith('"')) {
    let end = 1;
    while (end < line.length && line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
    return [JSON.parse(line.slice(0, end + 1)) as string, line.slice(end + 1)];
  }
  const match = stop.exec(line);
  const end = match === null ? line.length : match.index;
  return [line.slice(0, end), line.slice(end)];
}

/** One act line read by the grammar formatAxonResult documents: `<index> <act>[ <path>]: <outcome>`. */
function readActLine(line: string): { index: number; act: string; path?: string; outcome: string } {
  const head = /^(\d+) /.exec(line);
  if (head === null) throw new Error(`act line without an index: ${JSON.stringify(line)}`);
  const [act, afterAct] = readToken(line.slice(head[0].length), /[ :]/);
  let rest = afterAct;
  let path: string | undefined;
  if (rest.startsWith(' ')) {
    const [token, afterPath] = readToken(rest.slice(1), /: /);
    path = token;
    rest = afterPath;
  }
  if (!rest.startsWith(': ')) throw new Error(`act line without ": " after the subject: ${JSON.stringify(line)}`);
  return { index: Number(head[1]), act, ...(path === undefined ? {} : { path }), outcome: rest.slice(2) };
}

function checkAxonResult(input: AxonResultInput): void {
  const reply = formatAxonResult(input);
  const lines = readFencedReply(reply, 'axon-result').split('\n');
  const pending = input.meta.pendingConfirmationId !== undefined && !input.applied;
  const extra = pending ? 1 : 0;
  if (lines.length !== input.acts.length + 2 + extra) throw new Error(`${lines.length} lines for ${input.acts.length} acts: ${JSON.stringify(lines)}`);
  input.acts.forEach((act, position) => {
    const read = readActLine(lines[position] as string);
    if (read.index !== act.index) throw new Error(`act index ${read.index}, expected ${act.index}`);
    if (read.act !== oneLine(act.act)) throw new Error(`act ${JSON.stringify(read.act)}, expected ${JSON.stringify(oneLine(act.act))}`);
    if (read.path !== (act.path === undefined ? undefined : oneLine(act.path))) {
      throw new Error(`path ${JSON.stringify(read.path)}, expected ${JSON.stringify(act.path)} in ${JSON.stringify(lines[position])}`);
    }
    const succeeded = read.outcome === 'ok' || read.outcome.startsWith('ok (');
    if (succeeded !== act.ok || (!act.ok && !read.outcome.startsWith(act.code ?? ''))) {
      throw new Error(`outcome ${JSON.stringify(read.outcome)} does not say ${act.ok ? 'ok' : act.code}`);
    }
  });
  const plan = lines[input.acts.length] as string;
  if (!plan.startsWith(input.applied ? 'plan: applied' : pending ? 'plan: pending' : 'plan: aborted')) throw new Error(`plan line ${JSON.stringify(plan)}`);
  if (pending && lines[input.acts.length + 1] !== `pendingConfirmationId: ${oneLine(input.meta.pendingConfirmationId!)}`) {
    throw new Error(`pending line ${JSON.stringify(lines[input.acts.length + 1])}`);
  }
  const audit = lines[input.acts.length + 1 + extra] as string;
  if (audit !== `auditId: ${oneLine(input.meta.auditId)}`) throw new Error(`audit line ${JSON.stringify(audit)}`);
}

export const formatterProperties: FuzzProperty[] = [
  {
    name: 'fenced/fenceFor: any content, backtick or tilde fence, is one block that reads back exactly',
    runs: 3000,
    property: () =>
      fc.property(fc.constantFrom('text', 'diff', 'mcp-response', 'x'), payloadText, fc.constantFrom('`' as const, '~' as const), (label, content, char) =>
        checkFenced(label, content, char),
      ),
  },
  {
    name: 'mcp-response: one block, the one-line JSON parses back to the same response',
    runs: 3000,
    property: () => fc.property(jsonRpcId, outcome, meta, (id, result, resultMeta) => checkMcpResponse(id, result, resultMeta)),
  },
  {
    name: 'mcp-response pending answer: one block, says to wait, keeps pendingConfirmationId',
    runs: 1000,
    property: () => fc.property(jsonRpcId, payloadText, meta, payloadText, (id, what, resultMeta, pending) => checkMcpPending(id, what, resultMeta, pending)),
  },
  {
    name: 'flycode-result: one block, fields on one line each, the [data] text recovered exactly',
    runs: 3000,
    property: () =>
      fc.property(fc.option(payloadText, { nil: null }), fc.option(payloadText, { nil: null }), outcome, meta, (id, tool, result, resultMeta) =>
        checkFlycodeResult(id, tool, result, resultMeta),
      ),
  },
  {
    name: 'auto_coder response: the seed reader (#####--\\s*(.*?)\\s*--##### + JSON.parse) gives the same object',
    runs: 1500,
    property: () => fc.property(autocoderResponse, (response) => checkAutocoderReply(formatAutocoderResponse(response), response)),
  },
  {
    name: 'auto_coder runtime feedback: the seed reader gives the same object',
    runs: 1500,
    property: () => fc.property(runtimeFeedback, (feedback) => checkAutocoderReply(formatRuntimeFeedback(feedback), feedback)),
  },
  {
    name: 'axon-result: one block whatever the content; each act line reads back to its index, act, path and outcome',
    runs: 3000,
    property: () => fc.property(axonInput, (input) => checkAxonResult(input)),
  },
];
