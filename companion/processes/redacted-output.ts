import { stripVTControlCharacters } from 'node:util';
import { redact, spanningLiterals } from '../policy/redact';
import type { Policy } from '../policy/schema';
import type { ProgramOutputEvent } from '../types';

/**
 * Live program output on its way to the extension, redacted like every other result a model can read: auto_coder
 * runtime feedback is typed into the chat from these events. Patterns match within a line, so each stream is
 * cut at line ends; a line still being written is held back until its newline, until it grows past `maxHoldChars`,
 * or until `flushMs` pass without one (a progress bar). Then it goes out up to its last blank only, the word being
 * written held for WORD_HOLDS more (a token printed in two writes with a pause is not sent in two pieces, each too
 * short to be known), and each part is redacted together with the end of what was sent before it, earlier lines
 * included (`Authorization: Bearer ` then the token, or a .netrc's `machine host` line then `password secret` on a
 * write of its own: the secret is still known by what precedes it, as in the whole text). Offsets count the
 * bytes of the redacted stream the client receives, so its gap detection keeps working; a gap in the program's own
 * stream is passed on as a gap of the same size. A private key block spans lines: from its BEGIN line on, every part
 * is redacted after that line until its END line has gone by (a key printed a line at a time went out but its first).
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
  /** the end of what was already sent (raw, at most CONTEXT_CHARS, over lines), redacted again with what follows */
  context: string;
  /** the BEGIN line of a private key block sent without its END line yet; redacted again with what follows */
  openKey: string;
  /** the held word was kept back once already: the next flush sends all */
  keptBack: boolean;
  /** next byte offset expected from the program */
  sourceNext: number;
  /** next byte offset of what was published */
  published: number;
  timer?: NodeJS.Timeout | undefined;
}

/**
 * How many hold times a word being written is kept back past the first: a program whose output is buffered can
 * write a token in two parts with a pause, and a spinner with no blank is late by that much at most.
 */
const WORD_HOLDS = 7;

/**
 * How much of what was already sent is redacted again with the next part: more than any built-in pattern's lead-in,
 * a .netrc entry's lines above its password included.
 */
const CONTEXT_CHARS = 1024;

/** A private key block's first and last lines, as the built-in redaction knows them (policy/redact.ts). */
const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g;
const KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;

/** The BEGIN line of the last private key block `text` opens and does not end; '' when there is none. */
function openKeyIn(text: string): string {
  let begin: RegExpExecArray | undefined;
  for (const match of text.matchAll(KEY_BEGIN)) begin = match;
  if (begin === undefined || KEY_END.test(text.slice(begin.index + begin[0].length))) return '';
  return `${begin[0]}\n`;
}

/** The length of the text both strings start with. */
function sharedStart(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export function createOutputRedactor(
  policy: Pick<Policy, 'redact'>,
  publish: (event: ProgramOutputEvent) => void,
  options: { flushMs?: number; maxHoldChars?: number } = {},
): OutputRedactor {
  const flushMs = options.flushMs ?? 250;
  const maxHoldChars = options.maxHoldChars ?? 8192;
  const streams = new Map<string, StreamState>();

  /**
   * What of the end already sent is redacted again with `text`: all of it when a pattern that spans lines may match
   * there (the person's own patterns, or a built-in one's literal is in it: `password` of a .netrc entry), else the
   * current line's end, all a pattern within a line can need — redacting a kilobyte again with every line of a
   * chatty program cost more than twice the time.
   */
  function contextFor(state: StreamState, text: string): string {
    const literals = spanningLiterals(policy);
    const both = state.context + text;
    if (literals === undefined || literals.some((literal) => both.includes(literal))) return state.context;
    return state.context.slice(state.context.lastIndexOf('\n') + 1);
  }

  function send(state: StreamState, raw: string): void {
    // a terminal's colour and cursor codes out, before redaction, as in a program's result (tools/run-program.ts)
    const text = stripVTControlCharacters(raw);
    if (text === '') return;
    let chunk = redact(text, policy);
    const before = state.openKey + contextFor(state, text);
    if (before !== '') {
      // the end of what was already sent (and an open key block's BEGIN line) and this part are redacted as one: of
      // the result, what goes out is what differs from that end redacted alone — a secret begun in the part sent
      // comes out as its marker here
      const sent = redact(before, policy);
      const whole = redact(before + text, policy);
      chunk = whole.slice(sharedStart(sent, whole));
    }
    state.openKey = openKeyIn(before + text);
    state.context = (state.context + text).slice(-CONTEXT_CHARS);
    if (chunk === '') return;
    publish({ ...state.event, chunk, offset: state.published });
    state.published += Buffer.byteLength(chunk);
  }

  function flush(state: StreamState): void {
    clearTimeout(state.timer);
    state.timer = undefined;
    state.keptBack = false;
    const held = state.held;
    state.held = '';
    send(state, held);
  }

  /** The hold time passed without a newline: out up to the last blank, the word after it held once more. */
  function flushHeld(state: StreamState): void {
    state.timer = undefined;
    // the last blank before the word being written; the held text's last character when it ends in a blank
    const lastBlank = state.held.search(/\s\S*$/);
    if (state.keptBack || lastBlank + 1 === state.held.length) {
      flush(state);
      return;
    }
    state.keptBack = true;
    if (lastBlank >= 0) {
      const out = state.held.slice(0, lastBlank + 1);
      state.held = state.held.slice(lastBlank + 1);
      send(state, out);
    }
    arm(state, WORD_HOLDS * flushMs);
  }

  function arm(state: StreamState, ms = flushMs): void {
    clearTimeout(state.timer);
    state.timer = setTimeout(() => flushHeld(state), ms);
    state.timer.unref?.();
  }

  return {
    push(event) {
      const key = `${event.programId}\0${event.stream}`;
      let state = streams.get(key);
      if (!state) {
        state = {
          event: { programId: event.programId, name: event.name, stream: event.stream },
          held: '',
          context: '',
          openKey: '',
          keptBack: false,
          sourceNext: 0,
          published: 0,
        };
        streams.set(key, state);
      }
      const bytes = Buffer.byteLength(event.chunk);
      if (event.offset + bytes <= state.sourceNext) return; // a repeat
      if (event.offset > state.sourceNext) {
        // the program's stream lost bytes (over its cap): the client is told of a gap of that size
        flush(state);
        state.published += event.offset - state.sourceNext;
        state.context = '';
      }
      state.sourceNext = event.offset + bytes;
      state.held += event.chunk;
      const lastNewline = state.held.lastIndexOf('\n');
      if (lastNewline >= 0) {
        const complete = state.held.slice(0, lastNewline + 1);
        state.held = state.held.slice(lastNewline + 1);
        state.keptBack = false;
        send(state, complete);
      }
      if (state.held.length > maxHoldChars) flush(state);
      else if (state.held === '') {
        clearTimeout(state.timer);
        state.timer = undefined;
      } else if (!state.timer) arm(state);
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
