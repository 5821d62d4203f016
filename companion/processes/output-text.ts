import { isUtf8 } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';

/**
 * How a program's output bytes become the text a result shows. Programs print in their locale's encoding, not
 * always UTF-8: `dir` on a Chinese Windows prints GBK, a Latin-1 log is Latin-1, `cat` of a Shift-JIS file is
 * Shift-JIS, a binary printed by mistake is no text at all. Read as UTF-8 each such byte became U+FFFD with no word
 * said, and a model reasoned from text the program never printed. So each stream is:
 *
 * - binary (NULs among control bytes, not UTF-16 text): a note with its size and how to see it, as fs.read answers
 *   for a binary file, and none of its bytes;
 * - else UTF-8, as it is, when it is valid UTF-8;
 * - else decoded with the program's locale charset (LC_ALL, LC_CTYPE, LANG of its environment, when that names one
 *   that is not UTF-8 and the bytes are valid in it), saying which;
 * - else UTF-8 with the bytes that are not UTF-8 replaced by U+FFFD, saying how many.
 *
 * A note stands on the stream's first line, in brackets; the text follows it and is redacted with it afterwards.
 */

export interface StreamDecoding {
  /** the text of one kept part of the stream */
  decode(part: Uint8Array): string;
  /** what the text is, when it is not the program's UTF-8 as printed */
  note?: string;
  /** no text is shown, only the note */
  binary?: boolean;
}

/**
 * The charset a program's locale names (`zh_CN.GBK`, `ja_JP.SJIS`, `de_DE.ISO-8859-1`) as a TextDecoder label, with
 * the variable it came from; none for a UTF-8 locale, C/POSIX, a locale naming no charset or one not known here.
 * LC_ALL wins over LC_CTYPE, which wins over LANG, as setlocale reads them.
 */
export function localeCharset(env: Record<string, string | undefined>): { label: string; from: string } | undefined {
  for (const name of ['LC_ALL', 'LC_CTYPE', 'LANG']) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const charset = /^[^.@]*\.([^@]+)/.exec(value)?.[1];
    if (charset === undefined) return undefined;
    const label = decoderLabel(charset);
    if (label === undefined || label === 'utf-8') return undefined;
    return { label, from: `${name}=${value}` };
  }
  return undefined;
}

function decoderLabel(charset: string): string | undefined {
  const lower = charset.toLowerCase();
  // glibc writes some without the hyphen a decoder's label has (eucJP, euckr)
  for (const candidate of [lower, lower.replace(/^euc(?=[a-z])/, 'euc-')]) {
    try {
      return new TextDecoder(candidate).encoding;
    } catch {
      // not a label this Node.js knows
    }
  }
  return undefined;
}

/** How many bytes of `bytes` are not part of a well-formed UTF-8 sequence (each would be read as U+FFFD). */
export function invalidUtf8Bytes(bytes: Uint8Array): number {
  let bad = 0;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const need = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0;
    // the second byte's range rules out overlong forms, surrogates and code points past U+10FFFF
    const low = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
    const high = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
    let ok = need > 0;
    for (let k = 1; ok && k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) ok = false;
    }
    if (ok) i += need + 1;
    else {
      bad++;
      i++;
    }
  }
  return bad;
}

/**
 * Binary, not text: it holds a NUL and more than 5 % of it are NULs and control bytes, unless it is UTF-16 text (a
 * quarter or more NULs, nine in ten of them on the same side of each pair), which stays text so redaction sees it.
 * A few NULs among text (`find -print0`) stay text too.
 */
export function looksBinaryOutput(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 64 * 1024);
  if (!sample.includes(0)) return false;
  let nuls = 0;
  let evenNuls = 0;
  let controls = 0;
  for (let i = 0; i < sample.length; i++) {
    const b = sample[i]!;
    if (b === 0) {
      nuls++;
      if (i % 2 === 0) evenNuls++;
    } else if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x0b && b !== 0x1b) || b === 0x7f) controls++;
  }
  const utf16 = nuls >= sample.length / 4 && Math.max(evenNuls, nuls - evenNuls) >= nuls * 0.9;
  return !utf16 && nuls + controls > sample.length * 0.05;
}

/**
 * How to read one stream, from its kept parts (`parts`: the whole stream, or its head and tail, which the output cap
 * cut at a line break or an ASCII blank, a byte no multi-byte character of UTF-8, GBK, GB18030, Big5 or Shift-JIS
 * holds, so each part decodes whole), `total` the bytes the program printed to it, `env` the program's environment.
 */
export function streamDecoding(parts: Uint8Array[], total: number, env: Record<string, string | undefined>, stream: string): StreamDecoding {
  const utf8 = (part: Uint8Array) => new TextDecoder('utf-8').decode(part);
  if (parts.some((part) => looksBinaryOutput(part))) {
    return {
      decode: () => '',
      binary: true,
      note: `[${stream}: binary output (${total} bytes), not shown; to see its bytes pipe it through xxd | head (od -c | head), or write it to a file and read that with fs.read encoding "base64"]`,
    };
  }
  // nearly all output is UTF-8: told in one native pass, the bytes counted one by one only when it is not
  if (parts.every((part) => isUtf8(part))) return { decode: utf8 };
  const bad = parts.reduce((sum, part) => sum + invalidUtf8Bytes(part), 0);
  const charset = localeCharset(env);
  if (charset !== undefined) {
    const decoder = new TextDecoder(charset.label, { fatal: true });
    const valid = parts.every((part) => {
      try {
        decoder.decode(part);
        return true;
      } catch {
        return false;
      }
    });
    if (valid) {
      return {
        decode: (part) => decoder.decode(part),
        note: `[${stream} is not UTF-8: decoded as ${charset.label}, the program's locale charset (${charset.from})]`,
      };
    }
  }
  const why = charset === undefined ? 'its encoding is not known (its locale names no charset but UTF-8)' : `nor is it valid ${charset.label}, its locale charset (${charset.from})`;
  return {
    decode: utf8,
    note: `[${stream}: ${bad} byte${bad === 1 ? ' is' : 's are'} not UTF-8, shown replaced by U+FFFD (\uFFFD); ${why} — convert it with iconv -f <encoding> -t UTF-8 to read it]`,
  };
}

/**
 * Live output (what auto_coder runtime feedback types into the chat) decoded as it comes: UTF-8, and in a locale
 * whose charset is not UTF-8 that charset from the first write that is not UTF-8 on (what came before was, ASCII
 * mostly, and reads the same in both), so `dir` on a GBK system is read live as in the result. A character split
 * between two writes is held until its end comes.
 */
export function createLiveDecoder(env: Record<string, string | undefined>): { write(bytes: Buffer): string; end(): string } {
  const charset = localeCharset(env);
  const utf8 = new StringDecoder('utf8');
  if (charset === undefined) return { write: (bytes) => utf8.write(bytes), end: () => utf8.end() };
  let pending = Buffer.alloc(0);
  let legacy: TextDecoder | undefined;
  return {
    write(bytes) {
      if (legacy !== undefined) return legacy.decode(bytes, { stream: true });
      const data = pending.length === 0 ? bytes : Buffer.concat([pending, bytes]);
      const body = data.subarray(0, data.length - incompleteTail(data));
      if (invalidUtf8Bytes(body) > 0) {
        pending = Buffer.alloc(0);
        legacy = new TextDecoder(charset.label);
        return legacy.decode(data, { stream: true });
      }
      pending = Buffer.from(data.subarray(body.length));
      return body.toString('utf8');
    },
    end() {
      if (legacy !== undefined) return legacy.decode();
      return pending.toString('utf8');
    },
  };
}

/** How many bytes at the end of `data` start a UTF-8 character whose rest has not come yet. */
function incompleteTail(data: Uint8Array): number {
  for (let back = 1; back <= 3 && back <= data.length; back++) {
    const b = data[data.length - back]!;
    if (b >= 0x80 && b <= 0xbf) continue;
    const need = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0;
    return need >= back ? back : 0;
  }
  return 0;
}
