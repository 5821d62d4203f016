import { randomFillSync } from 'node:crypto';

/**
 * Random identifiers (runs, audit records) drawn from a buffer of the system's CSPRNG filled 4 KB at a time, as
 * crypto.randomUUID does: one randomBytes() per id was a call into the CSPRNG on every request. Secrets (tokens,
 * pairing codes) do not come from here; they keep their own randomBytes().
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

export function randomId(bytes: number, encoding: 'hex' | 'base64url'): string {
  if (bytes > POOL_BYTES) throw new RangeError(`randomId: at most ${POOL_BYTES} bytes, not ${bytes}`);
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString(encoding, offset, offset + bytes);
  offset += bytes;
  return id;
}
