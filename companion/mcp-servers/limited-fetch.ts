import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * `fetch` for the person's MCP servers over HTTP, with the stdio transport's bound on one message (issue 11 §5): the
 * SDK reads a JSON answer whole and an event stream up to the end of each event, however long the server makes it.
 * A remote server (a service on the internet, not a program of the person's) that answered a call with an event
 * line that never ends grew the companion by ~125 MB a second until the call's timeout — a minute by default, enough
 * to end the process. Here a JSON body, or one event of an event stream (the bytes since the last blank line), larger
 * than `maxBytes` ends the response with an error and calls `onOverflow` (the caller resets the connection, so the
 * calls waiting on it fail at once as LIMIT_EXCEEDED).
 */
export class ResponseTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the server sent a message larger than ${limit} bytes; the connection was reset`);
    this.name = 'ResponseTooLargeError';
  }
}

const EVENT_ENDS = [Buffer.from('\n\n'), Buffer.from('\r\n\r\n'), Buffer.from('\r\r')];

/** The index just past the last event boundary in `bytes`, or -1. */
function lastEventEnd(bytes: Buffer): number {
  let end = -1;
  for (const boundary of EVENT_ENDS) {
    const at = bytes.lastIndexOf(boundary);
    if (at >= 0) end = Math.max(end, at + boundary.length);
  }
  return end;
}

export function limitedFetch(maxBytes: number, onOverflow: () => void, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    // a redirect is left as it came (the SDK reads its Location and its url), and has no message to read
    if (!response.body || (response.status >= 300 && response.status < 400)) return response;
    const stream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    // bytes of the message being read: the whole body, or the event since the last boundary
    let pending = 0;
    // the end of the previous chunk, so a boundary split across two chunks is still seen
    let tail = Buffer.alloc(0);
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (stream) {
            const joined = Buffer.concat([tail, chunk]);
            const end = lastEventEnd(joined);
            pending = end >= 0 ? joined.length - end : pending + chunk.byteLength;
            tail = joined.subarray(Math.max(0, joined.length - 3));
          } else {
            pending += chunk.byteLength;
          }
          if (pending > maxBytes) {
            controller.error(new ResponseTooLargeError(maxBytes));
            onOverflow();
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
