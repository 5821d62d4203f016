import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../companion/cli';
import { MAX_AUDIT_LIMIT } from '../../../shared/audit-limit';

/**
 * `chatbridge audit --limit N` past what the companion returns at most: refused by the command line as a usage
 * error naming the option and its bound, before anything is asked of a companion (here none runs, so a limit
 * sent on would have met "not running" instead).
 */
const home = realpathSync(mkdtempSync(join(tmpdir(), 'cb-audit-limit-')));
afterAll(() => rmSync(home, { recursive: true, force: true }));

async function audit(...args: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const code = await runCli(['audit', ...args], { out: () => {}, err: (line) => err.push(line), env: { CHATBRIDGE_HOME: home }, cwd: home });
  return { code, err: err.join('\n') };
}

describe('chatbridge audit --limit', () => {
  it.each([String(MAX_AUDIT_LIMIT + 1), '20000', `--limit=${MAX_AUDIT_LIMIT * 10}`])('refuses %s naming --limit and the largest it takes', async (value) => {
    const args = value.startsWith('--') ? [value] : ['--limit', value];
    const { code, err } = await audit(...args);
    expect(code).toBe(2);
    expect(err).toMatch(new RegExp(`^chatbridge: --limit \\d+ must be a positive integer no larger than ${MAX_AUDIT_LIMIT}$`));
  });

  it('takes the largest itself (and then looks for the companion)', async () => {
    const { code, err } = await audit('--limit', String(MAX_AUDIT_LIMIT));
    expect(code).toBe(1);
    expect(err).toContain('chatbridge is not running');
  });
});
