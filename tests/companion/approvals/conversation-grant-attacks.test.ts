/**
 * "Approve for this conversation" grants what its card showed, never more (DESIGN §5.4), against the real companion
 * process: a write to a file that runs code is decided as exec (policy/runs-code.ts), and approving such a write for
 * the conversation must not let the same tool run programs the person never saw on a card.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  context,
  decideApproval,
  forgetGrant,
  grants,
  makeWorkspace,
  postBlock,
  postPending,
  startCompanionProcess,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

function plan(step: string, files: unknown[], programs: unknown[] = []): string {
  return `#####--\n${JSON.stringify({ type: 'operate', metadata: { step_id: step, reason: 'set up' }, file_operations: files, program_operations: programs })}\n--#####`;
}

const createFile = (path: string, content: string) => ({ action_type: 'create_file', path, file_content: content });

describe('attack: a conversation grant for a write that runs code reaches programs', () => {
  let ws: Workspace;
  let outside: string;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-grant-');
    outside = join(ws.base, 'outside');
    mkdirSync(outside);
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: {} });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('approving a plan that writes .vscode/tasks.json for the conversation lets later such writes through, but a program still asks', async () => {
    const ctx = (m: string) => context('conv-tasks', m);
    const first = await postPending(companion, 'autocoder', plan('tasks', [createFile('.vscode/tasks.json', '{"version": "2.0.0"}')]), ctx('m1'));
    expect(first.approval.risk).toBe('exec');
    expect(first.approval.preview.command).toBeUndefined();
    expect((await decideApproval(companion, first.approval, 'approve-conversation', first.run.runId)).status).toBe('done');
    expect(readFileSync(join(ws.root, '.vscode', 'tasks.json'), 'utf8')).toBe('{"version": "2.0.0"}');

    // what the card showed, again: granted
    const again = await postBlock(companion, 'autocoder', plan('settings', [createFile('.vscode/settings.json', '{}')]), ctx('m2'));
    expect(again.status).toBe('done');
    expect(readFileSync(join(ws.root, '.vscode', 'settings.json'), 'utf8')).toBe('{}');

    // a program no card showed: asks, and nothing runs until the person decides
    const marker = join(outside, 'pwned');
    const program = await postPending(companion, 'autocoder', plan('run', [], [{ name: 'p', command: `echo x > '${marker}'` }]), ctx('m3'));
    expect(program.approval.preview.command).toContain('echo x');
    expect(existsSync(marker)).toBe(false);
    expect((await decideApproval(companion, program.approval, 'deny', program.run.runId)).status).toBe('done');
    expect(existsSync(marker)).toBe(false);
  });

  it('the grant is listed as the card showed it (exec) and forgetting it makes the next such write ask again', async () => {
    const ctx = (m: string) => context('conv-forget', m);
    const first = await postPending(companion, 'autocoder', plan('hook', [createFile('.husky/pre-commit', 'npm test\n')]), ctx('m1'));
    await decideApproval(companion, first.approval, 'approve-conversation', first.run.runId);
    const mine = (await grants(companion)).filter((g) => g.conversationId === 'conv-forget');
    expect(mine).toEqual([{ site: 'chatgpt', conversationId: 'conv-forget', tool: 'autocoder', risk: 'exec' }]);
    expect(await forgetGrant(companion, mine[0]!)).toBe(200);
    expect((await grants(companion)).filter((g) => g.conversationId === 'conv-forget')).toEqual([]);
    const next = await postPending(companion, 'autocoder', plan('hook2', [createFile('.husky/pre-push', 'npm test\n')]), ctx('m2'));
    expect(next.approval.risk).toBe('exec');
    await decideApproval(companion, next.approval, 'deny', next.run.runId);
  });

  it('a program the person approved for the conversation still covers a later write that runs code (exec covers it)', async () => {
    const ctx = (m: string) => context('conv-program', m);
    const first = await postPending(companion, 'autocoder', plan('run', [], [{ name: 'p', command: 'echo hi' }]), ctx('m1'));
    expect((await decideApproval(companion, first.approval, 'approve-conversation', first.run.runId)).status).toBe('done');
    const write = await postBlock(companion, 'autocoder', plan('envrc', [createFile('sub/.envrc', 'export A=1\n')]), ctx('m2'));
    expect(write.status).toBe('done');
    expect(readFileSync(join(ws.root, 'sub', '.envrc'), 'utf8')).toBe('export A=1\n');
  });
});
