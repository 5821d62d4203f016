/**
 * Attack: redaction runs on the whole of what a tool reads (issue 9, finding 3), on the companion's own thread, with
 * built-in patterns whose look-behinds and look-aheads scan unbounded runs: `(?<=\bBearer[ \t]+)…` scans back over
 * every space before each position, `\bsk-…(?=[A-Za-z0-9_-]*\d)` forward over the whole run after each `sk-`. A
 * file of a few hundred kilobytes of spaces holding the word "Bearer" (or of `sk-sk-sk-…`) took minutes to redact —
 * quadratic — and fs.read is a read, auto by default: every run, approval, `/v1/status` and `/ws` of the companion
 * hung meanwhile. The companion must keep answering, and the read must end.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_REDACTIONS, redact } from '../../../companion/policy/redact';
import { growthWithinBound, MAX_RATIO } from '../../fuzz/linear-time';
import { answeredWhileResponsive, context, makeWorkspace, mcpRequestBlock, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

/** Each attack file at about `size` characters. */
const BUILD: Record<string, (size: number) => string> = {
  'spaces.txt': (size) => `Authorization: Bearer${' '.repeat(size)}\n`,
  'credential.ini': (size) => `aws_secret_access_key =${'\t'.repeat(size)}x\n`,
  'keys.txt': (size) => `${'sk-'.repeat(Math.ceil(size / 3))}\n`,
};
const FILES: Record<string, string> = Object.fromEntries(Object.entries(BUILD).map(([name, build]) => [name, build(300_000)]));

describe('attack: text that makes redaction quadratic', () => {
  // CPU time at 10 000 and 80 000 characters, never against a clock budget: linear grows ×8, quadratic ×64
  it.each(Object.keys(BUILD))('%s is redacted in time that grows linearly with its size', (name) => {
    const policy = { redact: [...BUILTIN_REDACTIONS] };
    const growth = growthWithinBound({ name, build: BUILD[name]! }, 10_000, (text) => redact(text, policy));
    expect(growth.ratio, `${growth.smallMs} ms → ${growth.largeMs} ms`).toBeLessThanOrEqual(MAX_RATIO);
  });

  it('what the bounded patterns still catch', () => {
    const policy = { redact: [...BUILTIN_REDACTIONS] };
    expect(redact('Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123', policy)).toBe('Authorization: Bearer [REDACTED]');
    expect(redact('aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', policy)).toBe('aws_secret_access_key = [REDACTED]');
    expect(redact('OPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90KlMnOpQr', policy)).toBe('OPENAI_API_KEY=[REDACTED]');
    expect(redact('key: sk-proj-Ab12Cd34Ef56Gh78Ij90KlMnOpQr', policy)).toBe('key: [REDACTED]');
    expect(redact('machine example.com login me password hunter22', policy)).toBe('machine example.com login me password [REDACTED]');
  });
});

describe('attack: fs.read of such a file (real companion)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-redact-redos-');
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(ws.root, name), text);
    companion = await startCompanionProcess({ root: ws.root, home: ws.home });
  }, 60_000);

  afterAll(async () => {
    await companion?.kill();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it.each(Object.keys(FILES))('%s: the companion keeps answering, and the read ends', async (name) => {
    const read = postBlock(companion, 'mcp-request', mcpRequestBlock(`r-${name}`, 'fs.read', { path: join(ws.root, name) }), context('conv-redos', name));
    const run = await answeredWhileResponsive(companion, read, { afterMs: 200, withinMs: 20_000 });
    expect(run).not.toBeNull();
  });
});
