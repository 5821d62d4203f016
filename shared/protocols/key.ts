/**
 * The stable key of a block (DESIGN §3): `site|conversationId|messageKey|index|hash`, where the hash is over
 * the normalized raw text — CRLF as LF, trailing whitespace of every line and of the whole text removed — so
 * the same block read again from a re-rendered page keeps its key. Pure (no Node or DOM APIs).
 */

export interface BlockKeyParts {
  site: string;
  conversationId: string;
  messageKey: string;
  /** Position of the block among the message's blocks. */
  index: number;
  raw: string;
}

export function normalizeRaw(raw: string): string {
  return raw
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trimEnd();
}

/** cyrb53: a fast 53-bit string hash with good spread; not cryptographic (keys dedupe, they do not authorize). */
export function hashText(text: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const value = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return value.toString(16).padStart(14, '0');
}

export function blockKey(parts: BlockKeyParts): string {
  return [parts.site, parts.conversationId, parts.messageKey, String(parts.index), hashText(normalizeRaw(parts.raw))].join(
    '|',
  );
}

/**
 * A block key of conversation `from` as the same block's key in conversation `to` (a new chat that got its id: its
 * stand-in name becomes the id); a key of another site or conversation is returned as it is.
 */
export function moveBlockKey(key: string, site: string, from: string, to: string): string {
  const prefix = `${site}|${from}|`;
  return key.startsWith(prefix) ? `${site}|${to}|${key.slice(prefix.length)}` : key;
}
