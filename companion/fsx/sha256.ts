import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';

export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Below this size (known from a stat) a file is hashed from one read: a stream costs several more trips. */
const WHOLE_READ_BYTES = 1024 * 1024;

/** Streams the file, so hashing a large file does not hold it in memory; `knownSize` lets a small one be read whole. */
export async function sha256File(path: string, knownSize?: number): Promise<string> {
  if (knownSize !== undefined && knownSize <= WHOLE_READ_BYTES) return sha256(await readFile(path));
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
