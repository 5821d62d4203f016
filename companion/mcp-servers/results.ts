import { stripVTControlCharacters } from 'node:util';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MAX_NESTING, valueNestingExceeds } from '../../shared/protocols/json';
import { canonicalJson } from '../approvals/args-hash';

/**
 * What a model reads of an MCP tool's result (issue 11 §5). Pure. Text as it is; an image or audio clip as a
 * short placeholder naming its type and size — never its base64, which would fill the chat and the model's context
 * with noise; a resource link as its name and URI; an embedded text resource as its text (also one sent as a blob
 * whose type says text), a binary one as a placeholder; `structuredContent` as compact JSON unless a text part gives the result, or the data inside it, as
 * JSON (the spec asks servers to give it as text too, and a model reads it once); a long base64 data URL, or a file's worth of bare base64,
 * anywhere in the text as a placeholder like an image's. Parts are joined with a newline. `isError` is not looked at
 * here: the caller turns such a result into the protocol's error form.
 */
export interface ToolResultLike {
  content?: unknown;
  structuredContent?: unknown;
}

/**
 * A tools/call result as it is read from a server: any content part, whatever its type and fields, is kept for
 * toolResultText to show or name, and an isError that is not `true` (null from a nullable field) is no error. The
 * SDK's CallToolResultSchema refuses the whole result for one part of a type a newer spec version added, or an image
 * without its mimeType — after the tool has run — and its parse error read as the connection failing: the call was
 * UNAVAILABLE with a page of schema errors and the server was restarted, so a model called again what already ran.
 */
export const ToolResultSchema = ResultSchema.extend({
  content: z.array(z.unknown()).default([]),
  structuredContent: z.unknown().optional(),
  isError: z.unknown().optional(),
});

function bytesOfBase64(data: string): number {
  const clean = data.replace(/\s+/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function partText(part: unknown): string {
  if (part === null || typeof part !== 'object') return `[content ${JSON.stringify(part)} — not shown]`;
  const p = part as Record<string, unknown>;
  switch (p.type) {
    case 'text':
      return str(p.text) ?? '';
    case 'image':
    case 'audio': {
      const size = typeof p.data === 'string' ? `, ${humanSize(bytesOfBase64(p.data))}` : '';
      return `[${p.type} ${str(p.mimeType) ?? 'of unknown type'}${size} — not shown in the chat]`;
    }
    case 'resource_link': {
      const name = str(p.title) ?? str(p.name) ?? '';
      const facts = [str(p.mimeType), typeof p.size === 'number' ? humanSize(p.size) : undefined].filter(Boolean).join(', ');
      const description = str(p.description);
      return `[resource link] ${name ? `${name} — ` : ''}${str(p.uri) ?? '(no uri)'}${facts ? ` (${facts})` : ''}${description ? `: ${description}` : ''}`;
    }
    case 'resource': {
      const resource = (p.resource ?? {}) as Record<string, unknown>;
      const uri = str(resource.uri) ?? '(no uri)';
      const type = str(resource.mimeType);
      if (typeof resource.text === 'string') return `[resource ${uri}${type ? ` (${type})` : ''}]\n${resource.text}`;
      const decoded = typeof resource.blob === 'string' ? textOfBlob(resource.blob, type) : undefined;
      if (decoded !== undefined) return `[resource ${uri} (${type})]\n${decoded}`;
      const size = typeof resource.blob === 'string' ? `, ${humanSize(bytesOfBase64(resource.blob))}` : '';
      return `[resource ${uri}: ${type ?? 'binary'}${size} — not shown in the chat]`;
    }
    default: {
      // a kind a newer spec version added (the SDK knows the five above): named with what it says of itself
      const facts = [str(p.mimeType), typeof p.data === 'string' ? humanSize(bytesOfBase64(p.data)) : undefined].filter(Boolean).join(', ');
      return `[${typeof p.type === 'string' ? p.type : 'unknown'} content${facts ? ` (${facts})` : ''} — not shown in the chat]`;
    }
  }
}

/** Types whose bytes are text: a file's content a server sent as a blob (base64) though it is text. */
const TEXT_TYPE = /^(?:text\/[\w.+-]+|application\/(?:[\w.-]+\+)?(?:json|xml|yaml|x-yaml|javascript|toml|sql|x-sh|graphql))(?:\s*;.*)?$/i;

/**
 * The text of a blob whose type says text and whose bytes are UTF-8: servers send a text file's content as a blob
 * too, and its placeholder ("text/plain, 55 B — not shown") lost what the person asked for. Anything else stays a
 * placeholder, and so do bytes holding a NUL anywhere, as fs.read takes a file with one for binary: UTF-16 without its
 * byte-order mark decodes as UTF-8 with a NUL after each letter, which no redaction pattern sees through and a chat
 * drops as it shows the text.
 */
function textOfBlob(blob: string, type: string | undefined): string | undefined {
  if (type === undefined || !TEXT_TYPE.test(type)) return undefined;
  const bytes = Buffer.from(blob, 'base64');
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * A base64 data URL long enough to be content (a chart, a screenshot, a file) rather than a short example: servers
 * put them in text parts and JSON where they should send an image part. Shown like an image part.
 */
const DATA_URL = /data:([\w.+-]+\/[\w.+-]+)?((?:;[\w.+-]+=[\w.+-]*)*);base64,([A-Za-z0-9+/]{256,}={0,2})/g;

/**
 * Base64 with no data URL around it, long enough to be a file's bytes (a screenshot in a JSON field, a PDF in a text
 * part): capped, it was the 20 000 characters a model reads, as noise, and the fields after it were cut off. Past 3 KB
 * of encoded text no cursor or token a model passes on is that long; a run counts only from its start (the lookbehind
 * keeps the scan linear), and only with capitals, small letters and digits in it, as encoded bytes have and a DNA
 * sequence or a hex digest has not.
 */
const BASE64_RUN = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{4096,}={0,2}/g;

function withoutDataUrls(text: string): string {
  const shown = !text.includes(';base64,')
    ? text
    : text.replace(DATA_URL, (_match, type: string | undefined, _parameters: string, data: string) => {
        return `[data URL ${type ?? 'of unknown type'}, ${humanSize(bytesOfBase64(data))} — not shown in the chat]`;
      });
  return shown.replace(BASE64_RUN, (run) =>
    /[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9]/.test(run) ? `[base64 data, ${humanSize(bytesOfBase64(run))} — not shown in the chat]` : run,
  );
}

/** The text of a text part or of an embedded text resource, where a server may put its structured result's JSON. */
function textOf(part: unknown): string | undefined {
  const p = part as { type?: unknown; text?: unknown; resource?: { text?: unknown } } | null;
  if (p?.type === 'text') return str(p.text);
  if (p?.type === 'resource') return str(p.resource?.text);
  return undefined;
}

/**
 * What a text may give of structured data as JSON, each written canonically: the value itself, in any layout and key
 * order (what the spec asks for), or the data inside it as servers write it — one of its values (the memory server's
 * text is the list of entities, its structuredContent `{entities: […]}`) or an item of one (the Python SDK gives each
 * item of a list in a text part of its own, and `{result: […]}`). JSON that is none of these (`{"status": "created"}`)
 * is not the data. Written once per result: written again for each text part, the whole structure twice and every
 * item once each time, 5000 parts beside a list of 5000 items held the companion for four minutes.
 */
function jsonShapesOf(structured: unknown): Set<string> {
  const inside = (value: unknown): unknown[] => (value !== null && typeof value === 'object' ? Object.values(value) : []);
  const candidates = [structured, ...inside(structured), ...inside(structured).flatMap(inside)];
  return new Set(candidates.filter((value) => value !== null && typeof value === 'object').map(canonicalJson));
}

/** Whether `text` is JSON written canonically as one of `shapes`. */
function givesJsonOf(text: string, shapes: () => Set<string>): boolean {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') && trimmed.endsWith('}')) && !(trimmed.startsWith('[') && trimmed.endsWith(']'))) return false;
  let given: string;
  try {
    given = canonicalJson(JSON.parse(trimmed));
  } catch {
    return false;
  }
  return shapes().has(given);
}

export function toolResultText(result: ToolResultLike): string {
  const parts = Array.isArray(result.content) ? result.content : [];
  const lines = parts.map(partText);
  const structured = result.structuredContent;
  // a structure deeper than any call's arguments may be (a hostile or broken server's) cannot be written out, or even
  // compared, without overflowing the stack after the tool has run: it is named, and the text is kept
  if (structured !== null && typeof structured === 'object' && valueNestingExceeds(structured, MAX_NESTING)) {
    lines.push(`[structured content nested deeper than ${MAX_NESTING} levels of arrays and objects — not shown in the chat]`);
    return withoutDataUrls(lines.join('\n'));
  }
  // the spec asks servers to put their structured result's JSON in a text part too: then it is shown once, by that
  // text; a text that only speaks of the result ('Created issue #12.') leaves the data to structuredContent
  let shapes: Set<string> | undefined;
  const shapesOf = () => (shapes ??= jsonShapesOf(structured));
  if (structured !== undefined && structured !== null && !parts.some((part) => givesJsonOf(textOf(part) ?? '', shapesOf))) {
    lines.push(JSON.stringify(structured));
  }
  // a terminal's colour and cursor codes out (a tool passing on a program's output), as from a program's own result
  return withoutDataUrls(stripVTControlCharacters(lines.join('\n')));
}
