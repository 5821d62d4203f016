/**
 * Attack: redaction hides a secret's text, but fs.read with `includeMeta` (a read: auto by default) answered the
 * sha256 of the file's real bytes. The model sees every byte but the secret (`db_password=[REDACTED]`), so the
 * hash lets it try candidate secrets offline, as fast as it can hash — a password from a dictionary is found in
 * seconds, without another call. The same hash came back in a write's CONFLICT (`actualSha256`) and after an append.
 * A file that holds a secret must not answer a digest of its real bytes.
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, makeWorkspace, mcpRequestBlock, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const PASSWORD = 'sunshine1';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('attack: the sha256 of a file with a secret as an offline oracle (real companion)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;
  const call = async (tool: string, args: Record<string, unknown>) =>
    (await postBlock(companion, 'mcp-request', mcpRequestBlock(`h${++n}`, tool, args), context('conv-hash', `m${n}`))).resultText;
  /** What a model would do with an answer: try a dictionary against every 64-hex digest in it. */
  const crack = (answer: string, shown: string): string | undefined => {
    const digests: string[] = answer.match(/\b[0-9a-f]{64}\b/g) ?? [];
    for (const guess of ['password', '123456', 'qwerty', 'letmein', PASSWORD, 'dragon']) {
      const candidate = shown.replace('[REDACTED]', guess);
      if (digests.includes(sha(candidate))) return guess;
    }
    return undefined;
  };

  beforeAll(async () => {
    ws = makeWorkspace('cb-hash-oracle-');
    writeFileSync(join(ws.root, 'settings.ini'), `db_password=${PASSWORD}\nport=5432\n`);
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: { modes: { write: 'auto' } } });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('fs.read with includeMeta: the digest does not give the password away', async () => {
    const answer = await call('fs.read', { path: join(ws.root, 'settings.ini'), includeMeta: true });
    expect(answer).toContain('db_password=[REDACTED]');
    expect(crack(answer, 'db_password=[REDACTED]\nport=5432\n')).toBeUndefined();
  });

  it("a write's CONFLICT does not either", async () => {
    const answer = await call('fs.write', { path: join(ws.root, 'settings.ini'), content: 'x', mode: 'overwrite', expectedSha256: '0'.repeat(64) });
    expect(answer).toMatch(/CONFLICT|changed since/);
    expect(crack(answer, 'db_password=[REDACTED]\nport=5432\n')).toBeUndefined();
    expect(readFileSync(join(ws.root, 'settings.ini'), 'utf8')).toBe(`db_password=${PASSWORD}\nport=5432\n`);
  });

  it('nor an append', async () => {
    const answer = await call('fs.write', { path: join(ws.root, 'settings.ini'), content: 'debug=1\n', mode: 'append' });
    expect(crack(answer, 'db_password=[REDACTED]\nport=5432\ndebug=1\n')).toBeUndefined();
  });

  it('the digest shown still works as expectedSha256; a file without a secret still shows its sha256', async () => {
    const read = await call('fs.read', { path: join(ws.root, 'settings.ini'), includeMeta: true });
    const digest = /sha256: ([0-9a-f]{64})/.exec(read)?.[1];
    const written = await call('fs.write', { path: join(ws.root, 'settings.ini'), content: 'port=5433\n', mode: 'overwrite', expectedSha256: digest });
    expect(written).toContain('WRITE_SUCCESS');
    const plain = await call('fs.read', { path: join(ws.root, 'settings.ini'), includeMeta: true });
    expect(plain).toContain(`sha256: ${sha('port=5433\n')}`);
  });
});
