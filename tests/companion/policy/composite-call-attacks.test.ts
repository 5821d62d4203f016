/**
 * Composite calls are as strict as their strictest part (DESIGN §5.3), against the real companion process started
 * the way the README says, with the README's example config:
 * - attack: an allow-listed program carries a plan's file changes past approval (and past `deny` modes);
 * - the rule as a property: for random plans over random policies, a plan never executes an action whose own class
 *   is deny, and never executes without the person's approval when any action's own class is confirm.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApprovalStore } from '../../../companion/approvals/store';
import { runAutocoderPlan } from '../../../companion/plans';
import { isAllowListed } from '../../../companion/policy/command-guard';
import { createAuthorize } from '../../../companion/runs/authorizer';
import type { ApprovalView, RunResponse } from '../../../shared/api';
import type { Risk } from '../../../shared/tools/define-tool';
import { context, getRun, makeWorkspace, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';
import { createWorld, type World } from '../plans/world';

/** The README's example config, plus a site whose write and delete modes are deny and one whose writes are auto. */
const README_CONFIG = {
  deny: ['**/.git/**', '**/.env', '**/.env.*', '**/*.pem', '**/*.key', '**/id_rsa*', '**/id_ed25519*', '**/.ssh/**'],
  modes: { read: 'auto', write: 'confirm', delete: 'confirm', exec: 'confirm' },
  allowCommands: ['npm test', 'git status --short'],
  sites: { deepseek: { modes: { write: 'deny', delete: 'deny' } }, kimi: { modes: { write: 'auto' } } },
};

const BENIGN_PACKAGE = JSON.stringify({ name: 'victim', version: '1.0.0', scripts: { test: 'node -e "console.log(42)"' } }, null, 2);

describe('attack: an allow-listed program carries a plan\'s file changes past approval', () => {
  let ws: Workspace;
  let outside: string;
  let companion: CompanionProcess;

  /** The attack plan: rewrite the allow-listed command's script so it writes outside the roots, delete a file, run it. */
  function attackPlan(stepId: string): string {
    const evil = JSON.stringify(
      { name: 'victim', version: '1.0.0', scripts: { test: `node -e "require('fs').writeFileSync('${join(outside, 'pwned')}', 'x')"` } },
      null,
      2,
    );
    return `#####--\n${JSON.stringify({
      type: 'operate',
      metadata: { step_id: stepId, reason: 'run the tests' },
      file_operations: [
        { action_type: 'create_file', path: 'package.json', file_content: evil },
        { action_type: 'delete_file', path: 'notes.txt' },
      ],
      program_operations: [{ name: 'tests', command: 'npm test' }],
    })}\n--#####`;
  }

  function untouched(): void {
    expect(readFileSync(join(ws.root, 'package.json'), 'utf8')).toBe(BENIGN_PACKAGE);
    expect(readFileSync(join(ws.root, 'notes.txt'), 'utf8')).toBe('keep me');
    expect(existsSync(join(outside, 'pwned'))).toBe(false);
  }

  beforeAll(async () => {
    ws = makeWorkspace('cb-composite-');
    outside = join(ws.base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(ws.root, 'package.json'), BENIGN_PACKAGE);
    writeFileSync(join(ws.root, 'notes.txt'), 'keep me');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: README_CONFIG });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('on a site whose write and delete modes are deny, the whole plan is refused before anything happens', async () => {
    const run = await postBlock(companion, 'autocoder', attackPlan('deny-site'), { ...context('conv-deny', 'm1'), site: 'deepseek' });
    expect(run.status).toBe('done');
    expect(run.resultText).toMatch(/Nothing was changed or run: .*policy mode for (write|delete) is deny on site deepseek/);
    untouched();
  });

  it('on a site where writes need approval, the plan waits for the person, listing every action with its own class', async () => {
    const response = await fetch(`http://127.0.0.1:${companion.port}/v1/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${companion.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'autocoder', text: attackPlan('confirm-site'), context: context('conv-confirm', 'm1'), waitMs: 300 }),
    });
    const pending = (await response.json()) as RunResponse;
    expect(pending.status).toBe('pending');
    // nothing ran while the approval waits
    await new Promise((r) => setTimeout(r, 300));
    untouched();
    const approvals = (await (
      await fetch(`http://127.0.0.1:${companion.port}/v1/approvals`, { headers: { authorization: `Bearer ${companion.token}` } })
    ).json()) as { approvals: ApprovalView[] };
    const approval = approvals.approvals.find((a) => a.id === pending.pendingConfirmationId);
    expect(approval?.risk).toBe('exec');
    expect(approval?.preview.actions).toEqual([
      { risk: 'write', label: 'create_file package.json', decision: 'confirm' },
      { risk: 'delete', label: 'delete_file notes.txt', decision: 'confirm' },
      // allow-listed, but the same plan rewrites what it runs
      { risk: 'exec', label: 'run tests: npm test', decision: 'confirm' },
    ]);
    expect(approval?.preview.diff).toContain('pwned');
    const denied = await fetch(`http://127.0.0.1:${companion.port}/v1/approvals/${approval!.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${companion.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'deny', argsHash: approval!.argsHash }),
    });
    expect(denied.status).toBe(200);
    let final = await getRun(companion, pending.runId);
    for (let i = 0; i < 50 && final.status !== 'done' && final.status !== 'error'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      final = await getRun(companion, pending.runId);
    }
    expect(final.resultText).toMatch(/Nothing was changed or run: .*denied/);
    untouched();
  });

  it('a <function_calls> block that rewrites the script, then runs the allow-listed command, asks before the command', async () => {
    const evil = JSON.stringify({ name: 'victim', version: '1.0.0', scripts: { test: `node -e "require('fs').writeFileSync('${join(outside, 'pwned')}', 'x')"` } });
    const text =
      '<function_calls>\n' +
      `<invoke name="fs.write"><parameter name="path">${join(ws.root, 'package.json')}</parameter><parameter name="mode">overwrite</parameter><parameter name="content">${evil}</parameter></invoke>\n` +
      '<invoke name="process.run"><parameter name="command">npm</parameter><parameter name="args">["test"]</parameter></invoke>\n' +
      '</function_calls>';
    // where writes are auto the write is made; the command it rewrote waits for the person
    const kimi = { site: 'kimi', url: 'https://www.kimi.com/chat/conv-calls', conversationId: 'conv-calls', messageKey: 'm1' };
    const response = await fetch(`http://127.0.0.1:${companion.port}/v1/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${companion.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'function-calls', text, context: kimi, waitMs: 1_000 }),
    });
    const run = (await response.json()) as RunResponse;
    try {
      expect(existsSync(join(outside, 'pwned'))).toBe(false);
      expect(run.status).toBe('pending');
      const { approvals } = (await (
        await fetch(`http://127.0.0.1:${companion.port}/v1/approvals`, { headers: { authorization: `Bearer ${companion.token}` } })
      ).json()) as { approvals: ApprovalView[] };
      expect(approvals.find((a) => a.id === run.pendingConfirmationId)).toMatchObject({ tool: 'process.run', risk: 'exec' });
    } finally {
      writeFileSync(join(ws.root, 'package.json'), BENIGN_PACKAGE);
      await fetch(`http://127.0.0.1:${companion.port}/v1/runs/${run.runId}/stop`, { method: 'POST', headers: { authorization: `Bearer ${companion.token}` } });
    }
  });

  it('the allow-list still lets the command run alone, and only exactly', async () => {
    const plan = `#####--\n${JSON.stringify({
      type: 'operate',
      metadata: { step_id: 'alone', reason: 'run the tests' },
      program_operations: [{ name: 'tests', command: 'npm test' }],
    })}\n--#####`;
    const run = await postBlock(companion, 'autocoder', plan, context('conv-alone', 'm1'));
    expect(run.status).toBe('done');
    expect(run.resultText).toContain('42');
    untouched();
  });
});

// ---------------------------------------------------------------- the rule as a property

const MODES = ['auto', 'confirm', 'deny'] as const;
type Mode = (typeof MODES)[number];

interface RandomPlan {
  creates: number[];
  deletes: number[];
  reads: number[];
  programs: number[];
}

interface RandomPolicy {
  modes: Record<Risk, Mode>;
  /** which of the plan's programs are allow-listed */
  allowed: number[];
}

const arbitraryPlan: fc.Arbitrary<RandomPlan> = fc.record({
  creates: fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }),
  deletes: fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }),
  reads: fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }),
  programs: fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }),
});

const arbitraryPolicy: fc.Arbitrary<RandomPolicy> = fc.record({
  modes: fc.record({
    read: fc.constantFrom(...MODES),
    write: fc.constantFrom(...MODES),
    delete: fc.constantFrom(...MODES),
    exec: fc.constantFrom(...MODES),
  }),
  allowed: fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { maxLength: 3 }),
});

const command = (i: number) => `touch ran-${i}`;

describe('the composite rule as a property: random plans over random policies', () => {
  let world: World;

  beforeAll(async () => {
    world = await createWorld();
  });

  afterAll(async () => {
    await world.dispose();
  });

  async function resetWorkspace(): Promise<void> {
    for (const name of await readdir(world.root)) await rm(join(world.root, name), { recursive: true, force: true });
    await mkdir(world.root, { recursive: true });
    for (let i = 0; i < 3; i++) await writeFile(join(world.root, `existing-${i}.txt`), `existing ${i}`);
  }

  /** What happened on disk: a created file, a deleted one, a program's marker. */
  async function effects(plan: RandomPlan): Promise<string[]> {
    const seen: string[] = [];
    for (const i of plan.creates) if (existsSync(join(world.root, `new-${i}.txt`))) seen.push(`created new-${i}`);
    for (const i of plan.deletes) if (!existsSync(join(world.root, `existing-${i}.txt`))) seen.push(`deleted existing-${i}`);
    for (const i of plan.programs) if (existsSync(join(world.root, `ran-${i}`))) seen.push(`ran ${i}`);
    return seen;
  }

  it('never executes a deny action; never executes a confirm action without an approval', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryPlan, arbitraryPolicy, fc.boolean(), async (plan, random, personApproves) => {
        if (plan.creates.length + plan.deletes.length + plan.reads.length + plan.programs.length === 0) return;
        await resetWorkspace();
        const policy = { ...world.policy, modes: random.modes, allowCommands: random.allowed.map(command), sites: {} };
        const approvals = createApprovalStore({ ttlMs: 60_000 });
        const asked: ApprovalView[] = [];
        const origin = { runId: 'run-prop', site: 'chatgpt', conversationId: 'conv-prop' };
        const authorize = createAuthorize({ policy, approvals }, origin, { paths: [], commands: [], decision: '' }, {
          onPending(approval) {
            asked.push(approval);
            approvals.decide(approval.id, personApproves ? 'approve' : 'deny', approval.argsHash);
          },
          onResumed() {},
        });
        const ctx = { ...world.ctx(origin), policy, authorize };
        await runAutocoderPlan(
          {
            type: 'operate',
            metadata: { step_id: 'prop', reason: 'property' },
            file_operations: [
              ...plan.creates.map((i) => ({ action_type: 'create_file', path: `new-${i}.txt`, file_content: 'new' })),
              ...plan.deletes.map((i) => ({ action_type: 'delete_file', path: `existing-${i}.txt` })),
              ...plan.reads.map((i) => ({ action_type: 'read_file', path: `existing-${i}.txt` })),
            ],
            program_operations: plan.programs.map((i) => ({ name: `p${i}`, command: command(i) })),
          },
          ctx,
          { auditId: 'audit-prop' },
        );
        // wait for programs that may have been started in the background (they run to the end inside the plan)
        const happened = await effects(plan);

        // The oracle, from each action's own class alone.
        const classes: Array<{ risk: Risk; allowListed: boolean }> = [
          ...plan.creates.map(() => ({ risk: 'write' as Risk, allowListed: false })),
          ...plan.deletes.map(() => ({ risk: 'delete' as Risk, allowListed: false })),
          ...plan.reads.map(() => ({ risk: 'read' as Risk, allowListed: false })),
          ...plan.programs.map((i) => ({ risk: 'exec' as Risk, allowListed: isAllowListed({ shell: command(i) }, policy.allowCommands) })),
        ];
        const changesFiles = plan.creates.length + plan.deletes.length > 0;
        const anyDeny = classes.some((c) => random.modes[c.risk] === 'deny');
        const anyConfirm = classes.some((c) => random.modes[c.risk] === 'confirm' && !(c.risk === 'exec' && c.allowListed && !changesFiles));

        if (anyDeny) {
          expect(happened, 'a plan with a deny action did something').toEqual([]);
          expect(asked, 'a plan with a deny action asked the person').toEqual([]);
        } else if (anyConfirm) {
          expect(asked, 'a plan with a confirm action did not ask the person').toHaveLength(1);
          if (!personApproves) expect(happened, 'a denied plan did something').toEqual([]);
        } else {
          expect(asked, 'an all-auto plan asked the person').toEqual([]);
        }
      }),
      { numRuns: 60, seed: Number(process.env.FUZZ_SEED ?? 20261123) },
    );
  }, 120_000);
});
