import { createHash, createHmac, randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { ToolError } from '../../shared/errors';
import { READ_NO_FOLLOW } from './fd';

export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Per process: the key of the digest a model is shown of a file that holds a secret (shownSha256). */
const SHOWN_KEY = randomBytes(32);

/**
 * The digest of a file a model is shown (fs.read `includeMeta`, a write's CONFLICT) and may pass back as
 * `expectedSha256`: its sha256 — unless the file holds a secret. Then the model sees every byte but the secret, and
 * the sha256 of the real bytes would let it try candidate secrets offline, as fast as it can hash (a password from
 * a dictionary in seconds). Such a file is shown an HMAC-SHA256 under a key of this process instead: it works as
 * `expectedSha256` all the same (until the companion restarts: then the write is a CONFLICT and the file is read
 * again) and says nothing about the secret.
 */
export function shownSha256(bytes: Uint8Array, holdsSecret: boolean): string {
  return holdsSecret ? createHmac('sha256', SHOWN_KEY).update(bytes).digest('hex') : sha256(bytes);
}

/** Below this size (known from a stat) a file is hashed from one read: a stream costs several more trips. */
const WHOLE_READ_BYTES = 1024 * 1024;

/**
 * Streams the file, so hashing a large file does not hold it in memory; `knownSize` lets a small one be read whole.
 * Callers found a regular file at `path` a moment before; what is opened must still be one, not followed through a
 * symlink and not waited on: a FIFO swapped in meanwhile would hold a thread of the pool until something wrote to it.
 */
export async function sha256File(path: string, knownSize?: number): Promise<string> {
  const handle = await open(path, READ_NO_FOLLOW);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new ToolError('INVALID_INPUT', `${JSON.stringify(path)} is no longer a regular file`, { path });
    if (knownSize !== undefined && knownSize <= WHOLE_READ_BYTES) return sha256(await handle.readFile());
    const hash = createHash('sha256');
    for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}
