import { redact } from '../policy/redact';
import type { Policy } from '../policy/schema';
import type { ProgramOutputEvent } from '../types';

/**
 * Live program output on its way to the extension, redacted like every other result a model can read: auto_coder
 * runtime feedback is typed into the chat from these events. Patterns match within a line, so each stream is
 * cut at line ends; a line still being written is held back until its newline, until it grows past `maxHoldChars`,
 * or until `flushMs` pass without one (a progress bar), and then redacted alone. Offsets count the bytes of the
 * redacted stream the client receives, so its gap detection keeps working; a gap in the program's own stream is
 * passed on as a gap of the same size.
 */
export interface OutputRedactor {
  push(event: ProgramOutputEvent): void;
  /** The program ended: what is held back goes out now. */
  end(programId: string): void;
  close(): void;
}

interface StreamState {
  event: Omit<ProgramOutputEvent, 'chunk' | 'offset'>;
  held: string;
  /** next byte offset expected from the program */
  sourceNext: number;
  /** next byte offset of what was published */
  published: number;
  timer?: NodeJS.Timeout | undefined;
}

export function createOutputRedactor(
  policy: Pick<Policy, 'redact'>,
  publish: (event: ProgramOutputEvent) => void,
  options: { flushMs?: number; maxHoldChars?: number } = {},
): OutputRedactor {
  const flushMs = options.flushMs ?? 250;
  const maxHoldChars = options.maxHoldChars ?? 8192;
  const streams = new Map<string, StreamState>();

  function send(state: StreamState, text: string): void {
    if (text === '') return;
    const chunk = redact(text, policy);
    publish({ ...state.event, chunk, offset: state.published });
    state.published += Buffer.byteLength(chunk);
  }

  function flush(state: StreamState): void {
    clearTimeout(state.timer);
    state.timer = undefined;
    const held = state.held;
    state.held = '';
    send(state, held);
  }

  return {
    push(event) {
      const key = `${event.programId}\0${event.stream}`;
      let state = streams.get(key);
      if (!state) {
        state = { event: { programId: event.programId, name: event.name, stream: event.stream }, held: '', sourceNext: 0, published: 0 };
        streams.set(key, state);
      }
      const bytes = Buffer.byteLength(event.chunk);
      if (event.offset + bytes <= state.sourceNext) return; // a repeat
      if (event.offset > state.sourceNext) {
        // the program's stream lost bytes (over its cap): the client is told of a gap of that size
        flush(state);
        state.published += event.offset - state.sourceNext;
      }
      state.sourceNext = event.offset + bytes;
      state.held += event.chunk;
      const lastNewline = state.held.lastIndexOf('\n');
      if (lastNewline >= 0) {
        const complete = state.held.slice(0, lastNewline + 1);
        state.held = state.held.slice(lastNewline + 1);
        send(state, complete);
      }
      if (state.held.length > maxHoldChars) flush(state);
      else if (state.held !== '' && !state.timer) {
        const held = state;
        state.timer = setTimeout(() => flush(held), flushMs);
        state.timer.unref?.();
      }
    },
    end(programId) {
      for (const stream of ['stdout', 'stderr'] as const) {
        const key = `${programId}\0${stream}`;
        const state = streams.get(key);
        if (!state) continue;
        flush(state);
        streams.delete(key);
      }
    },
    close() {
      for (const state of streams.values()) clearTimeout(state.timer);
      streams.clear();
    },
  };
}
