/**
 * Keeps one stream of a program's output within a byte budget: whole while it fits, then the first half of the
 * budget and the last half, joined by a marker `[… N bytes omitted …]`. The live listeners still see every chunk;
 * only what is kept for the final result is cut, so a flood of output cannot exhaust the companion's memory.
 *
 * Sizes count the bytes the program printed, kept as bytes and decoded only in result() (output-text.ts tells how);
 * the cuts fall at ASCII bytes no multi-byte character of UTF-8 or a legacy CJK encoding holds. The kept text is redacted only afterwards (tools/run-program.ts), and a
 * secret cut in two is no longer known as one: the head's `ghp_AAAAZ9Z9Z9Z` and the tail's `r2hunter2` (the end of a
 * `DB_PASSWORD=hunter2hunter2`) reached the chat. So the cuts fall where no secret goes on across them: the head ends
 * at its last line break and the tail starts after its first one — or, in a run without one, at a blank or a quote,
 * comma, semicolon or `&` (what ends a `password=` value) —, and a tail that starts inside a private key block starts
 * after the block's END line. What they drop counts as omitted; a run without any such place is omitted whole.
 */
export interface OutputBuffer {
  /** bytes as the program printed them; a string is taken as its UTF-8 */
  push(chunk: Buffer | string): void;
  /** total bytes pushed so far */
  readonly totalBytes: number;
  /** the bytes the result keeps: the whole output, or its head and its tail */
  parts(): Buffer[];
  /** the kept text, each part read with `decode` (UTF-8 unless told), and whether anything was cut */
  result(decode?: (part: Buffer) => string): { text: string; truncated: boolean };
}

const utf8 = (part: Buffer) => part.toString('utf8');

export function omittedMarker(bytes: number): string {
  return `\n[… ${bytes} bytes omitted …]\n`;
}

export function createOutputBuffer(maxBytes: number): OutputBuffer {
  const headBudget = Math.ceil(maxBytes / 2);
  const tailBudget = maxBytes - headBudget;
  // While the output fits, every chunk is kept in `kept`; once it overflows, `kept` is frozen into the head and
  // later bytes go to a rolling tail.
  let kept: Buffer[] = [];
  let keptBytes = 0;
  let overflowed = false;
  let head = Buffer.alloc(0);
  let tail: Buffer[] = [];
  let tailBytes = 0;
  let total = 0;

  function pushTail(bytes: Buffer): void {
    tail.push(bytes);
    tailBytes += bytes.length;
    while (tail.length > 1 && tailBytes - tail[0]!.length >= tailBudget) {
      tailBytes -= tail.shift()!.length;
    }
  }

  function parts(): Buffer[] {
    if (!overflowed) return [Buffer.concat(kept)];
    let tailAll = Buffer.concat(tail);
    if (tailAll.length > tailBudget) tailAll = tailAll.subarray(tailAll.length - tailBudget);
    return [head.subarray(0, headEnd(head)), tailAll.subarray(tailStart(tailAll))];
  }

  return {
    push(chunk: Buffer | string) {
      if (chunk.length === 0) return;
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      total += bytes.length;
      if (!overflowed) {
        if (keptBytes + bytes.length <= maxBytes) {
          kept.push(bytes);
          keptBytes += bytes.length;
          return;
        }
        overflowed = true;
        const all = Buffer.concat([...kept, bytes]);
        kept = [];
        head = all.subarray(0, headBudget);
        pushTail(all.subarray(headBudget));
        return;
      }
      pushTail(bytes);
    },
    get totalBytes() {
      return total;
    },
    parts,
    result(decode = utf8) {
      const [headPart, tailPart] = parts() as [Buffer, Buffer | undefined];
      if (tailPart === undefined) return { text: decode(headPart), truncated: false };
      const omitted = total - headPart.length - tailPart.length;
      return { text: decode(headPart) + omittedMarker(omitted) + decode(tailPart), truncated: true };
    },
  };
}

const NEWLINE = 0x0a;
/** Bytes no secret the redaction knows goes on across, in a run without a line break: blanks, quotes, `,` `;` `&`. */
const BREAKS = new Set([0x20, 0x09, 0x0d, 0x0b, 0x0c, 0x22, 0x27, 0x2c, 0x3b, 0x26]);
const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
const KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;

/** Where the kept head ends: at its last line break (left out), else after its last break byte, else 0. */
function headEnd(head: Buffer): number {
  const newline = head.lastIndexOf(NEWLINE);
  if (newline >= 0) return newline;
  for (let i = head.length - 1; i >= 0; i--) if (BREAKS.has(head[i]!)) return i + 1;
  return 0;
}

/**
 * Where the kept tail starts: after its first line break, else at its first break byte, else at its end; and after
 * the END line of a private key block whose BEGIN line it does not hold (its lines before are the key's).
 */
function tailStart(tail: Buffer): number {
  const newline = tail.indexOf(NEWLINE);
  let start = tail.length;
  if (newline >= 0) start = newline + 1;
  else {
    const at = tail.findIndex((byte) => BREAKS.has(byte));
    if (at >= 0) start = at;
  }
  const text = tail.toString('latin1', start);
  const end = KEY_END.exec(text);
  if (end === null || KEY_BEGIN.test(text.slice(0, end.index))) return start;
  const lineEnd = text.indexOf('\n', end.index);
  return lineEnd < 0 ? tail.length : start + lineEnd + 1;
}
