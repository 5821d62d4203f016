/**
 * attack: a plan's replace that misses quotes the file's closest lines back to the model; a line from inside a
 * private key block does not look like a secret on its own, so the last redaction pass over the reply cannot
 * catch it. The closest lines are taken from the file with its secrets already found. Likewise a read_file of a
 * file longer than a result holds: cut at the limit inside a token, the piece left is too short to be known as one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAutocoderPlan, runAxonPlan } from '../../../companion/plans';
import { redactExecutorResponse } from '../../../companion/runs/block-job';
import { parseConfig, policyFromConfig } from '../../../companion/policy/load-config';
import type { ToolContext } from '../../../companion/types';
import { createWorld, parseExecutorResponse, type World } from './world';

const KEY_BODY = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW';
const FILE = `config:\n  name: demo\n-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_BODY}\nQyNTUxOQAAACBk3sGqkqS1pWxh2m4vX6bH8r0Qm1x2u5n1sYyT0a6ZzQAAAJhY1m1xWNZt\n-----END OPENSSH PRIVATE KEY-----\nfooter: 1\n`;

let world: World;
let ctx: ToolContext;

beforeEach(async () => {
  world = await createWorld();
  // the built-in patterns, as the companion runs with them
  const { redact } = policyFromConfig(parseConfig({}), [{ root: world.root, base: world.root, key: 'test' }]);
  ctx = { ...world.ctx(), policy: { ...world.policy, redact } };
  await world.write('notes.txt', FILE);
});

afterEach(async () => {
  await world.dispose();
});

describe('attack: closest lines of a missed replace leak a key block', () => {
  it('auto_coder replace_file', async () => {
    const text = await runAutocoderPlan(
      {
        type: 'operate',
        metadata: { step_id: 's', reason: 'r' },
        file_operations: [
          { action_type: 'replace_file', path: 'notes.txt', modify_content: [{ identifier: 'k', old_content: `${KEY_BODY.slice(0, 60)}X\n`, new_content: 'x\n' }] },
        ],
      },
      ctx,
      { auditId: 'a' },
    );
    const response = parseExecutorResponse(text);
    expect(JSON.stringify(response)).toMatch(/MISMATCH|closest/i);
    expect(text).not.toContain(KEY_BODY.slice(0, 40));
  });

  it('Axon replace', async () => {
    const text = await runAxonPlan(
      [{ acts: [{ act: 'replace', args: ['notes.txt\n', `${KEY_BODY.slice(0, 60)}X\n`, 'x\n'] }] }],
      ctx,
      { auditId: 'a' },
    );
    expect(text).toMatch(/MISMATCH|closest/i);
    expect(text).not.toContain(KEY_BODY.slice(0, 40));
  });
});

describe('attack: a read_file cut at the result limit inside a token', () => {
  it('shows no piece of the token, before or after the last redaction pass over the reply', async () => {
    const token = 'ghp_R7xQ2mV9kL4pW8zT3nB6yH1cF5gJ0dS2aE4u';
    const limit = ctx.policy.limits.maxResultChars;
    // the file goes on past the limit, which falls 20 characters into the token: `ghp_` and 16 more are no token
    await world.write('big.txt', `${'a'.repeat(limit - 21)} ${token}\n${'b'.repeat(100)}\n`);
    const text = await runAutocoderPlan(
      { type: 'operate', metadata: { step_id: 's', reason: 'r' }, file_operations: [{ action_type: 'read_file', path: 'big.txt' }] },
      ctx,
      { auditId: 'a' },
    );
    const shown = redactExecutorResponse(text!, ctx.policy);
    expect(shown).toContain('truncated');
    for (let i = 0; i + 6 <= token.length; i++) expect(shown, `a piece of the token: ${token.slice(i, i + 6)}`).not.toContain(token.slice(i, i + 6));
  });
});
