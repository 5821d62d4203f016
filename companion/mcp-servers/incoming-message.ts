import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * What a server sent, read as a JSON-RPC message, the same way over every transport (stdio, Streamable HTTP, SSE):
 *
 * - `_meta` written as null rather than left out (servers built on other SDKs write optional fields so), which the
 *   message schema refuses whole, is read as left out, in a result or in params;
 * - an answer to a request of ours that does not hold what an answer must becomes an error answer to that request
 *   naming what came (`problem`), so the call it answers ends now rather than waiting out its whole timeout and being
 *   told TIMEOUT of a tool that has run;
 * - anything else that is no JSON-RPC message is `undefined` (the caller skips it).
 *
 * `shown` is the message as it came, cut to what a log line and an error message show.
 */
export function readIncoming(value: unknown, shown: string): { message: JSONRPCMessage; problem?: string } | undefined {
  const parsed = JSONRPCMessageSchema.safeParse(withoutNullMeta(value));
  if (parsed.success) return { message: parsed.data };
  const id = answerId(value);
  if (id === undefined) return undefined;
  const problem = `the server's answer to request ${JSON.stringify(id)} is not a valid JSON-RPC response: ${shown}`;
  return { message: { jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: problem } }, problem };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function withoutNullMeta(value: unknown): unknown {
  if (!isRecord(value)) return value;
  for (const key of ['result', 'params'] as const) {
    const inner = value[key];
    if (isRecord(inner) && inner._meta === null) {
      const { _meta: _, ...rest } = inner;
      return { ...value, [key]: rest };
    }
  }
  return value;
}

/** The id of what reads as an answer (a result or an error, with a string or number id), or undefined. */
function answerId(value: unknown): string | number | undefined {
  if (!isRecord(value) || value.jsonrpc !== '2.0' || !('result' in value || 'error' in value)) return undefined;
  return typeof value.id === 'string' || typeof value.id === 'number' ? value.id : undefined;
}

/**
 * `fetch` for the person's MCP servers over HTTP that reads each message of an answer — a JSON body (one message or
 * a batch) or an event of an event stream — as the stdio transport reads a line (readIncoming above), before the
 * SDK's transport parses it: the SDK's transports refuse a message the schema refuses (a `_meta: null`) and skip it,
 * and a call whose answer was skipped waited out its whole timeout. What is no message at all is left as it came.
 * `note` hears each answer that was made an error, for the server's log.
 */
export function fetchReadingMessages(base: FetchLike, note: (problem: string) => void): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    // an error status is read by the SDK as text to report, never as a message
    if (!response.body || !response.ok) return response;
    const type = (response.headers.get('content-type') ?? '').toLowerCase();
    let body: ReadableStream<Uint8Array> | string;
    if (type.includes('text/event-stream')) body = response.body.pipeThrough(eventsRead(note));
    else if (type.includes('application/json')) body = jsonRead(await response.text(), note);
    else return response;
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** One message as it is handed on: read, or left as it came when it is none. */
function messageRead(value: unknown, note: (problem: string) => void): unknown {
  const incoming = readIncoming(value, JSON.stringify(value).slice(0, 200));
  if (incoming === undefined) return value;
  if (incoming.problem !== undefined) note(incoming.problem);
  return incoming.message;
}

function jsonRead(text: string, note: (problem: string) => void): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(Array.isArray(value) ? value.map((one) => messageRead(one, note)) : messageRead(value, note));
}

/**
 * An event stream with the data of each message event read as one message (and written back as one `data:` line);
 * every other line is passed on as it came. One event is held until its blank line, which limited-fetch.ts bounds.
 */
function eventsRead(note: (problem: string) => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  // the line being read, in the pieces it came in (a long line comes in many chunks: searched once each)
  let parts: string[] = [];
  // the last piece ended in \r, which may be the first half of a \r\n
  let afterCR = false;
  let lines: string[] = [];
  const ends = /\r\n|\r|\n/g;
  const take = (text: string): string => {
    if (text === '') return '';
    let out = '';
    let start = afterCR && text.startsWith('\n') ? 1 : 0;
    afterCR = false;
    ends.lastIndex = start;
    for (let end = ends.exec(text); end !== null; end = ends.exec(text)) {
      parts.push(text.slice(start, end.index));
      const line = parts.join('');
      parts = [];
      start = end.index + end[0].length;
      afterCR = end[0] === '\r' && start === text.length;
      if (line !== '') {
        lines.push(line);
        continue;
      }
      out += eventRead(lines, note) + '\n';
      lines = [];
    }
    if (start < text.length) parts.push(text.slice(start));
    return out;
  };
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const out = take(decoder.decode(chunk, { stream: true }));
      if (out !== '') controller.enqueue(encoder.encode(out));
    },
    flush(controller) {
      let out = take(decoder.decode());
      if (parts.length > 0) lines.push(parts.join(''));
      // an event the stream ended in the middle of is passed on as it came (its reader drops it)
      out += lines.map((line) => `${line}\n`).join('');
      if (out !== '') controller.enqueue(encoder.encode(out));
    },
  });
}

/** The lines of one event, each ending in \n, its data read as a message when it is a message event holding JSON. */
function eventRead(lines: string[], note: (problem: string) => void): string {
  const field = (line: string) => {
    const colon = line.indexOf(':');
    if (colon === -1) return { name: line, value: '' };
    const value = line.slice(colon + 1);
    return { name: line.slice(0, colon), value: value.startsWith(' ') ? value.slice(1) : value };
  };
  const fields = lines.map(field);
  const kind = fields.filter((f) => f.name === 'event').pop()?.value ?? '';
  const data = fields.filter((f) => f.name === 'data');
  const asCame = lines.map((line) => `${line}\n`).join('');
  if (data.length === 0 || (kind !== '' && kind !== 'message')) return asCame;
  let value: unknown;
  try {
    value = JSON.parse(data.map((f) => f.value).join('\n'));
  } catch {
    return asCame;
  }
  const read = `data: ${JSON.stringify(messageRead(value, note))}`;
  const firstData = fields.findIndex((f) => f.name === 'data');
  return lines
    .flatMap((line, i) => (fields[i]?.name !== 'data' ? [line] : i === firstData ? [read] : []))
    .map((line) => `${line}\n`)
    .join('');
}
