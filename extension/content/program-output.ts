/**
 * Program output as it streams over ws, kept per program so auto_coder runtime feedback can send exactly what is new
 * since the last feedback. Chunks carry their byte offset: repeats are dropped, overlaps trimmed, and a gap is
 * written into the text rather than silently skipped. Each feedback is typed into the chat box as one message, so
 * what a stream printed since the last one is kept to its start and its newest end (FEEDBACK_STREAM_CHARS), with a
 * line saying how much was left out between them.
 */

export interface OutputChunk {
  programId: string;
  name: string;
  stream: 'stdout' | 'stderr';
  chunk: string;
  offset: number;
}

interface StreamState {
  next: number;
  /** not sent yet: all of it, or (once past the budget) its start … */
  unsent: string;
  /** … and its newest end, with the characters left out between them */
  tail: string;
  omitted: number;
}

/** Characters of one stream one feedback carries at most (half from the start, half from the newest end). */
export const FEEDBACK_STREAM_CHARS = 8_000;
const HALF = FEEDBACK_STREAM_CHARS / 2;

/** Never cuts between the two halves of a surrogate pair. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return at > 0 && code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

function append(stream: StreamState, text: string): void {
  if (stream.omitted === 0 && stream.tail === '') {
    stream.unsent += text;
    if (stream.unsent.length <= FEEDBACK_STREAM_CHARS) return;
    const all = stream.unsent;
    const headEnd = safeCut(all, HALF);
    stream.unsent = all.slice(0, headEnd);
    stream.tail = all.slice(headEnd);
  } else {
    stream.tail += text;
  }
  if (stream.tail.length > HALF) {
    const from = safeCut(stream.tail, stream.tail.length - HALF);
    stream.omitted += from;
    stream.tail = stream.tail.slice(from);
  }
}

function takeStream(stream: StreamState): string {
  const text =
    stream.omitted > 0 ? `${stream.unsent}\n[… ${stream.omitted} characters of output left out …]\n${stream.tail}` : stream.unsent + stream.tail;
  stream.unsent = '';
  stream.tail = '';
  stream.omitted = 0;
  return text;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class ProgramOutputBuffer {
  private readonly programs = new Map<string, { name: string; stdout: StreamState; stderr: StreamState }>();

  add(event: OutputChunk): void {
    const program = this.programs.get(event.programId) ?? {
      name: event.name,
      stdout: { next: 0, unsent: '', tail: '', omitted: 0 },
      stderr: { next: 0, unsent: '', tail: '', omitted: 0 },
    };
    this.programs.set(event.programId, program);
    const stream = program[event.stream];
    const bytes = encoder.encode(event.chunk);
    const end = event.offset + bytes.length;
    if (end <= stream.next) return;
    if (event.offset > stream.next) {
      append(stream, `\n[… ${event.offset - stream.next} bytes of output not received …]\n`);
      append(stream, event.chunk);
    } else {
      append(stream, decoder.decode(bytes.subarray(stream.next - event.offset)));
    }
    stream.next = end;
  }

  /** Takes (and forgets) the output not sent yet of these programs. */
  take(programId: string): { name: string; stdout: string; stderr: string } | null {
    const program = this.programs.get(programId);
    if (!program) return null;
    return { name: program.name, stdout: takeStream(program.stdout), stderr: takeStream(program.stderr) };
  }

  forget(programId: string): void {
    this.programs.delete(programId);
  }
}
