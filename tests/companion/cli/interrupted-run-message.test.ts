import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { commandHow } from '../../../companion/how-to-run';
import { createRunStore } from '../../../companion/runs/run-store';

/*
 * A run the companion was executing when it stopped is answered, after the next start, with a note telling the
 * person to look at the audit log. That note named `chatbridge audit`, which a clone does not put on the PATH (the
 * shell answers command not found): it names the command as the other messages do (how-to-run.ts).
 */
const dir = mkdtempSync(join(tmpdir(), 'cb-interrupted-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('an interrupted run tells the person to check the audit log with a command they can type', () => {
  const file = join(dir, 'runs.jsonl');
  const now = new Date().toISOString();
  createRunStore({ file }).put({
    runId: 'r1',
    key: 'k1',
    kind: 'mcp-request',
    site: 's',
    conversationId: 'c',
    messageKey: 'm',
    status: 'running',
    resultText: '',
    auditId: 'audit-r1',
    createdAt: now,
    updatedAt: now,
  });
  const answered = createRunStore({ file }).byKey('k1');
  expect(answered?.status).toBe('error');
  expect(answered?.resultText).toContain(commandHow('audit'));
  expect(answered?.resultText).not.toMatch(/(?<!npx )chatbridge audit/);
});
