import { describe, expect, it } from 'vitest';
import { approvalWaitFor, decide } from '../../../companion/policy/decide';
import { parseConfig, policyFromConfig } from '../../../companion/policy/load-config';
import type { Policy } from '../../../companion/policy/schema';
import type { AuthorizationRequest, CommandSpec, PlannedAction } from '../../../companion/types';
import type { Risk } from '../../../shared/tools/define-tool';

function policyWith(config: unknown): Policy {
  return policyFromConfig(parseConfig(config), [{ root: process.cwd(), base: process.cwd(), key: 'cwd' }]);
}

/** A plain tool call: one action; with several commands, one exec action per command (as plans list them). */
function request(risk: Risk, paths: string[], commands: CommandSpec[] = []): AuthorizationRequest {
  const actions: PlannedAction[] =
    commands.length > 0 ? commands.map((command) => ({ risk, label: 'test', paths, command })) : [{ risk, label: 'test', paths }];
  return { tool: 'test.tool', args: {}, actions, preview: { title: 'test', paths } };
}

const base = policyWith({
  allowCommands: ['npm test'],
  sites: {
    chatgpt: { modes: { write: 'auto', exec: 'deny' }, allowCommands: ['git status'] },
    deepseek: { modes: { read: 'confirm' }, approvalWaitMs: 5000 },
  },
});

const cwd = '/work/project';

// [name, request, site, expected]
const table: Array<[string, AuthorizationRequest, string, ReturnType<typeof decide>]> = [
  ['read is auto by default', request('read', [`${cwd}/a.txt`]), 'x', 'auto'],
  ['write is confirm by default', request('write', [`${cwd}/a.txt`]), 'x', 'confirm'],
  ['delete is confirm by default', request('delete', [`${cwd}/a.txt`]), 'x', 'confirm'],
  ['exec is confirm by default', request('exec', [], [{ shell: 'make', cwd }]), 'x', 'confirm'],
  ['allow-listed exec is auto', request('exec', [], [{ shell: 'npm test', cwd }]), 'x', 'auto'],
  ['allow-listed argv exec is auto', request('exec', [], [{ argv: ['npm', 'test'], cwd }]), 'x', 'auto'],
  ['chained allow-listed exec is confirm', request('exec', [], [{ shell: 'npm test; rm -rf ~', cwd }]), 'x', 'confirm'],
  ['one of two commands not allow-listed is confirm', request('exec', [], [{ shell: 'npm test', cwd }, { shell: 'make', cwd }]), 'x', 'confirm'],
  ["site allow-list applies on that site", request('exec', [], [{ shell: 'git status', cwd }]), 'deepseek', 'confirm'],
  ['site override write auto', request('write', [`${cwd}/a.txt`]), 'chatgpt', 'auto'],
  ['site override read confirm', request('read', [`${cwd}/a.txt`]), 'deepseek', 'confirm'],
  ['site exec deny beats the allow-list', request('exec', [], [{ shell: 'npm test', cwd }]), 'chatgpt', { deny: 'the policy mode for exec is deny on site chatgpt' }],
  ['deny glob .env', request('read', [`${cwd}/.env`]), 'x', { deny: `${cwd}/.env matches the deny glob "**/.env"` }],
  ['deny glob .env.local', request('read', [`${cwd}/.env.local`]), 'x', { deny: `${cwd}/.env.local matches the deny glob "**/.env.*"` }],
  ['deny glob inside .git', request('write', [`${cwd}/.git/config`]), 'chatgpt', { deny: `${cwd}/.git/config matches the deny glob "**/.git/**"` }],
  ['deny glob private key', request('read', [`${cwd}/certs/server.pem`]), 'x', { deny: `${cwd}/certs/server.pem matches the deny glob "**/*.pem"` }],
  ['deny glob .ssh directory itself', request('read', ['/home/u/.ssh']), 'x', { deny: '/home/u/.ssh matches the deny glob "**/.ssh/**"' }],
  ['deny glob on a command cwd', request('exec', [], [{ shell: 'npm test', cwd: `${cwd}/.git` }]), 'x', { deny: `working directory ${cwd}/.git matches the deny glob "**/.git/**"` }],
  ['a file named like env but not .env is fine', request('read', [`${cwd}/env.ts`]), 'x', 'auto'],
];

describe('decide', () => {
  it.each(table)('%s', (_name, req, site, expected) => {
    expect(decide(req, base, site)).toEqual(expected);
  });

  it('a deny mode refuses even allow-listed commands', () => {
    const policy = policyWith({ modes: { exec: 'deny' }, allowCommands: ['npm test'] });
    expect(decide(request('exec', [], [{ shell: 'npm test', cwd }]), policy, 'x')).toEqual({ deny: 'the policy mode for exec is deny' });
  });

  it('a root-relative deny glob refuses what the path guard refuses, and the data directory is always refused', () => {
    const policy = { ...policyWith({ deny: ['docs/private/**'], modes: { read: 'auto' } }), reserved: [`${process.cwd()}/.chatbridge`] };
    expect(decide(request('read', [`${process.cwd()}/docs/private/plan.txt`]), policy, 'x')).toEqual({
      deny: `${process.cwd()}/docs/private/plan.txt matches the deny glob "docs/private/**"`,
    });
    expect(decide(request('read', [`${process.cwd()}/.chatbridge/cli.token`]), policy, 'x')).toEqual({
      deny: expect.stringContaining('own data directory'),
    });
    expect(decide(request('read', [`${process.cwd()}/docs/public.txt`]), policy, 'x')).toBe('auto');
  });

  it("an action's own mode (an MCP server's tool) never lifts a class the person set to deny", () => {
    const own = (mode: 'auto' | 'confirm'): AuthorizationRequest => ({
      tool: 'memory.read_graph',
      args: {},
      actions: [{ risk: 'exec', label: 'memory.read_graph', paths: [], mode }],
      preview: { title: 'memory.read_graph', paths: [] },
    });
    expect(decide(own('auto'), policyWith({ modes: { exec: 'deny' } }), 'x')).toEqual({ deny: 'the policy mode for exec is deny' });
    expect(decide(own('auto'), policyWith({ modes: { exec: 'confirm' } }), 'x')).toBe('auto');
    expect(decide(own('confirm'), policyWith({ modes: { exec: 'auto' } }), 'x')).toBe('confirm');
  });

  it('exec with auto mode is auto without an allow-list', () => {
    const policy = policyWith({ modes: { exec: 'auto' } });
    expect(decide(request('exec', [], [{ shell: 'rm -rf build', cwd }]), policy, 'x')).toBe('auto');
  });

  it('a site named like an Object prototype key gets no override', () => {
    expect(decide(request('write', [`${cwd}/a`]), base, '__proto__')).toBe('confirm');
    expect(decide(request('write', [`${cwd}/a`]), base, 'constructor')).toBe('confirm');
  });

  it('approval wait: site override, else the policy default', () => {
    expect(approvalWaitFor(base, 'deepseek')).toBe(5000);
    expect(approvalWaitFor(base, 'chatgpt')).toBe(120_000);
  });
});
