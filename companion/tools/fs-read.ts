import { fsRead, parseLineSpan, parseReadRange } from '../../shared/tools/fs-read';
import { ToolError } from '../../shared/errors';
import { looksBinary } from '../fsx/binary';
import { shownSha256 } from '../fsx/sha256';
import { bytesHoldSecret, mapSecrets, refuseEncodedSecrets } from '../policy/redact';
import type { Policy } from '../policy/schema';
import type { z } from 'zod';
import { defineHandler, readGuardedWithStat, resolvePath } from './define-handler';

type ReadArgs = z.infer<typeof fsRead.input>;

/** [start, end) of what the call selects by characters (or bytes for base64/hex); undefined for lines. */
function charWindow(args: ReadArgs, length: number): { start: number; end: number } | undefined {
  if (args.head !== undefined) return { start: 0, end: Math.min(args.head, length) };
  if (args.tail !== undefined) return { start: Math.max(0, length - args.tail), end: length };
  if (args.range !== undefined) {
    const slice = parseReadRange(args.range);
    if (slice.kind === 'head') return { start: 0, end: Math.min(slice.chars, length) };
    if (slice.kind === 'tail') return { start: Math.max(0, length - slice.chars), end: length };
    if (slice.start > length) {
      throw new ToolError('INVALID_INPUT', `range ${args.range} starts past the end; the content is ${length} long`, { range: args.range });
    }
    return { start: slice.start, end: Math.min(slice.end ?? length, length) };
  }
  return undefined;
}

function splitTextLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Lines n..m of the file, each shown through the file's secrets (one marker per line a secret covers); secrets
 * are found in the whole file (see findSecrets `within` for why looking on the asked lines is the same).
 */
function selectLines(text: string, policy: Policy, args: ReadArgs, max: number): { text: string; truncated: boolean } {
  const lines = splitTextLines(text);
  const span = args.line !== undefined ? { start: args.line, end: args.line } : parseLineSpan(args.lines!);
  const asked = args.line !== undefined ? `line ${args.line}` : `lines ${args.lines}`;
  if (span.start > lines.length) {
    throw new ToolError('INVALID_INPUT', `${asked} is past the end; the file has ${lines.length} lines`, { lines: lines.length });
  }
  const end = Math.min(span.end ?? lines.length, lines.length);
  let offset = lines.slice(0, span.start - 1).reduce((sum, line) => sum + line.length + 1, 0);
  const spanEnd = lines.slice(span.start - 1, end).reduce((sum, line) => sum + line.length + 1, offset);
  const map = mapSecrets(text, policy, [{ start: offset, end: Math.min(spanEnd, text.length) }]);
  let out = '';
  for (let n = span.start; n <= end; n++) {
    const length = lines[n - 1]!.length;
    if (n === span.start && length > max) {
      return {
        text: `${map.window(offset, offset + max)}\n… [line ${n} is ${length} characters; read the rest with range: "${offset + max}:${offset + length}"]`,
        truncated: true,
      };
    }
    const next = map.window(offset, offset + length);
    if (out.length + next.length + 1 > max && n > span.start) {
      return { text: `${out}… [truncated after line ${n - 1}; read more with lines: "${n}-${end}"]`, truncated: true };
    }
    out += `${next}\n`;
    offset += length + 1;
  }
  return { text: out.replace(/\n$/, text.endsWith('\n') || end < lines.length ? '\n' : ''), truncated: false };
}

function encodeBytes(bytes: Buffer, encoding: 'base64' | 'hex'): string {
  return bytes.toString(encoding);
}

export const fsReadHandler = defineHandler({
  contract: fsRead,
  async plan(args, ctx) {
    return { risk: 'read', paths: [await resolvePath(args.path, ctx, { mustExist: true })] };
  },
  async preview(args, ctx) {
    const path = await resolvePath(args.path, ctx, { mustExist: true });
    return { title: `Read ${path}`, heading: { kind: 'read', path }, paths: [path] };
  },
  async run(args, ctx) {
    const path = await resolvePath(args.path, ctx, { mustExist: true });
    const { bytes, stat } = await readGuardedWithStat(path, ctx.policy);
    const max = ctx.policy.limits.maxResultChars;
    const encoding = args.encoding ?? 'utf-8';
    let body: { text: string; truncated: boolean };
    let lineCount: number | undefined;

    if (encoding === 'base64' || encoding === 'hex') {
      refuseEncodedSecrets(bytes, ctx.policy, args.path, encoding);
      const window = charWindow(args, bytes.length) ?? { start: 0, end: bytes.length };
      // Bytes that fit in `max` characters once encoded (base64: 4 per 3, hex: 2 per 1).
      const fit = encoding === 'base64' ? Math.floor(max / 4) * 3 : Math.floor(max / 2);
      const end = Math.min(window.end, window.start + fit);
      const encoded = encodeBytes(bytes.subarray(window.start, end), encoding);
      body =
        end < window.end
          ? { text: `${encoded}\n… [truncated at byte ${end} of ${window.end}; read more with range: "${end}:${Math.min(window.end, end + fit)}"]`, truncated: true }
          : { text: encoded, truncated: false };
    } else {
      if (looksBinary(bytes)) {
        throw new ToolError(
          'INVALID_INPUT',
          `${JSON.stringify(args.path)} is a binary file (${bytes.length} bytes, not UTF-8 text); read it with encoding "base64" or "hex"`,
          { path },
        );
      }
      const text = bytes.toString('utf8');
      lineCount = splitTextLines(text).length - (text === '' ? 1 : 0);
      // secrets are found in the whole file, so a window that cuts one still shows the marker
      if (args.line !== undefined || args.lines !== undefined) {
        body = selectLines(text, ctx.policy, args, max);
      } else {
        const window = charWindow(args, text.length) ?? { start: 0, end: text.length };
        const end = Math.min(window.end, window.start + max);
        const selected = mapSecrets(text, ctx.policy, [{ start: window.start, end }]).window(window.start, end);
        body =
          end < window.end
            ? {
                text: `${selected}\n… [truncated at character ${end} of ${window.end}; read more with range: "${end}:${Math.min(window.end, end + max)}"]`,
                truncated: true,
              }
            : { text: selected, truncated: false };
      }
    }

    let header = '';
    // hashed only when shown: nothing reads `data` but the tests, and every other read would pay for it
    const digest = args.includeMeta ? shownSha256(bytes, bytesHoldSecret(bytes, ctx.policy)) : undefined;
    if (args.includeMeta) {
      header =
        [
          `path: ${path}`,
          `size: ${bytes.length} B`,
          `sha256: ${digest}`,
          `mtime: ${stat.mtime.toISOString()}`,
          ...(lineCount !== undefined ? [`lines: ${lineCount}`] : []),
          `encoding: ${encoding}`,
        ].join('\n') + '\n---\n';
    }
    return {
      text: header + body.text,
      truncated: body.truncated,
      data: { path, size: bytes.length, ...(digest !== undefined ? { sha256: digest } : {}), mtime: stat.mtime.toISOString(), ...(lineCount !== undefined ? { lines: lineCount } : {}) },
    };
  },
});
