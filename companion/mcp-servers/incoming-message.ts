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
    if (type.includes('text/event-stream')) body = response.body.pipeThrough(eventsRead(note, requestIdsOf(init)));
    else if (type.includes('application/json')) body = jsonRead(await response.text(), note);
    else return response;
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * The `data` of the error answer given for a request whose event stream ended without its answer: a server that
 * closes a call's stream unanswered, and gave no event id to resume it by (the spec's way to go on after a break),
 * will never answer it there, and the SDK's transport, reaching the stream's end, waited on — the call waited out
 * its whole timeout (up to limits.maxTimeoutMs) and was then said not to have answered in time.
 */
export const STREAM_ENDED_UNANSWERED = { chatbridge: 'the event stream ended without the answer' } as const;

export function isStreamEndedUnanswered(data: unknown): boolean {
  return isRecord(data) && data.chatbridge === STREAM_ENDED_UNANSWERED.chatbridge;
}

/** The ids of the requests a POST sends (the SDK writes its body as JSON text), which its event stream answers. */
function requestIdsOf(init: RequestInit | undefined): Set<string> {
  const ids = new Set<string>();
  if ((init?.method ?? 'GET').toUpperCase() !== 'POST' || typeof init?.body !== 'string') return ids;
  let sent: unknown;
  try {
    sent = JSON.parse(init.body);
  } catch {
    return ids;
  }
  for (const message of Array.isArray(sent) ? sent : [sent]) {
    if (isRecord(message) && typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number')) ids.add(JSON.stringify(message.id));
  }
  return ids;
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
function eventsRead(note: (problem: string) => void, unanswered = new Set<string>()): TransformStream<Uint8Array, Uint8Array> {
  // an event with an id makes the stream one the SDK resumes after it ends (Last-Event-ID): its answers may come then
  let resumable = false;
  const heard = (lines: string[], value: unknown) => {
    if (lines.some((line) => /^id:\s*\S/.test(line))) resumable = true;
    const id = answerId(value);
    if (id !== undefined) unanswered.delete(JSON.stringify(id));
  };
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
      out += eventRead(lines, note, heard) + '\n';
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
      if (resumable || unanswered.size === 0) {
        // an event the stream ended in the middle of is passed on as it came (its reader drops it)
        out += lines.map((line) => `${line}\n`).join('');
      } else {
        // the answers in its place (that event is dropped here, as its reader would: the next blank line would end it)
        for (const id of unanswered) {
          const problem = `the server ended the event stream of request ${id} without answering it, and gave no event id to resume it by`;
          note(problem);
          const answer = { jsonrpc: '2.0', id: JSON.parse(id) as string | number, error: { code: ErrorCode.InternalError, message: problem, data: STREAM_ENDED_UNANSWERED } };
          out += `event: message\ndata: ${JSON.stringify(answer)}\n\n`;
        }
      }
      if (out !== '') controller.enqueue(encoder.encode(out));
    },
  });
}

/** The lines of one event, each ending in \n, its data read as a message when it is a message event holding JSON. */
function eventRead(lines: string[], note: (problem: string) => void, heard: (lines: string[], value: unknown) => void): string {
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
  if (data.length === 0 || (kind !== '' && kind !== 'message')) {
    heard(lines, undefined);
    return asCame;
  }
  let value: unknown;
  try {
    value = JSON.parse(data.map((f) => f.value).join('\n'));
  } catch {
    heard(lines, undefined);
    return asCame;
  }
  heard(lines, value);
  const read = `data: ${JSON.stringify(messageRead(value, note))}`;
  const firstData = fields.findIndex((f) => f.name === 'data');
  return lines
    .flatMap((line, i) => (fields[i]?.name !== 'data' ? [line] : i === firstData ? [read] : []))
    .map((line) => `${line}\n`)
    .join('');
}
