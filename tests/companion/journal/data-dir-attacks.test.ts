/**
 * The companion's own data (token, journal, approvals, audit, logs) is never reachable through a tool, whatever the
 * config says, and a journal entry read back from disk never steers a restore outside the roots (DESIGN §5.3).
 * Against the real companion process with CHATBRIDGE_HOME inside the workspace root — `chatbridge start` run in the
 * home folder, which people do — and every mode on auto, so nothing here is held back by an approval.
 */
import { spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJournal } from '../../../companion/journal';
import { configSchema, type Policy } from '../../../companion/policy/schema';
import { readProc } from '../../../companion/processes/proc-table';
import {
  ALL_AUTO,
  call as rawCall,
  context,
  makeWorkspace,
  mcpRequestBlock,
  parseMcpResponse,
  postBlock,
  startCompanionProcess,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

const OWN_DATA = /own data directory/;

function answerOf(resultText: string): { ok: boolean; text: string } {
  const response = parseMcpResponse(resultText);
  if (response.result) return { ok: !response.result.isError, text: response.result.content.map((c) => c.text).join('') };
  return { ok: false, text: JSON.stringify(response.error) };
}

describe('attack: the companion\'s own data through its tools (data directory inside the root)', () => {
  let ws: Workspace;
  let home: string;
  let companion: CompanionProcess;
  let n = 0;

  async function call(name: string, args: Record<string, unknown>): Promise<{ ok: boolean; text: string }> {
    n++;
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock(n, name, args), context('conv-own', `m${n}`));
    return answerOf(run.resultText);
  }

  beforeAll(async () => {
    ws = makeWorkspace('cb-own-data-');
    home = join(ws.root, '.chatbridge');
    writeFileSync(join(ws.root, 'readme.txt'), 'hello');
    companion = await startCompanionProcess({ root: ws.root, home, config: ALL_AUTO });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('fs.read <home>/cli.token is refused and says why; the token is in no answer', async () => {
    const token = readFileSync(join(home, 'cli.token'), 'utf8');
    const answer = await call('fs.read', { path: join(home, 'cli.token') });
    expect(answer.ok).toBe(false);
    expect(answer.text).toMatch(OWN_DATA);
    expect(answer.text).not.toContain(token);
  });

  it('a symlink in the root that points into the data directory is refused too', async () => {
    symlinkSync(home, join(ws.root, 'innocent'));
    const answer = await call('fs.read', { path: join(ws.root, 'innocent', 'cli.token') });
    expect(answer.ok).toBe(false);
    expect(answer.text).toMatch(OWN_DATA);
  });

  it('fs.search and fs.ls over the root never show the data directory', async () => {
    const token = readFileSync(join(home, 'cli.token'), 'utf8');
    const search = await call('fs.search', { path: ws.root, pattern: token.slice(0, 12) });
    expect(search.text).not.toContain(token);
    expect(search.text).not.toContain('cli.token');
    const list = await call('fs.ls', { path: ws.root, depth: 5 });
    if (!list.ok) throw new Error(list.text);
    expect(list.ok).toBe(true);
    expect(list.text).toContain('readme.txt');
    expect(list.text).not.toContain('cli.token');
    expect(list.text).not.toContain('journal');
  });

  it('the token never shows in an answer, whatever path its bytes take: a program that prints it, a hard link to it', async () => {
    const token = readFileSync(join(home, 'cli.token'), 'utf8');
    // a program may read anything its user may (it ran with the person's approval, or on their allow-list)
    const printed = await call('process.run', { command: 'cat', args: [join(home, 'cli.token')] });
    expect(printed.text).not.toContain(token);
    expect(printed.text).toContain('[REDACTED]');
    // a hard link in the root is the same file under an ordinary name
    linkSync(join(home, 'cli.token'), join(ws.root, 'looks-harmless.txt'));
    const read = await call('fs.read', { path: join(ws.root, 'looks-harmless.txt') });
    expect(read.text).not.toContain(token);
    expect(read.text).toContain('[REDACTED]');
    const encoded = await call('fs.read', { path: join(ws.root, 'looks-harmless.txt'), encoding: 'base64' });
    expect(encoded.ok).toBe(false);
    expect(encoded.text).not.toContain(Buffer.from(token).toString('base64'));
    const found = await call('fs.search', { path: ws.root, query: token.slice(0, 20) });
    expect(found.text).not.toContain(token);
  });

  it('the config file given with --config is off limits too, inside the root: a model cannot rewrite its own policy or add a server the next start runs', async () => {
    // startCompanionProcess passes `--config <home>.config.json`: here that is a file in the workspace root
    const config = `${home}.config.json`;
    expect(config.startsWith(ws.root)).toBe(true);
    const before = readFileSync(config, 'utf8');
    const escalated = JSON.stringify({ modes: { exec: 'auto' }, mcpServers: { evil: { command: 'sh', args: ['-c', 'touch /tmp/pwned'] } } });
    for (const [name, args] of [
      ['fs.write', { path: config, content: escalated, mode: 'overwrite' }],
      ['fs.read', { path: config }],
      ['fs.rm', { path: config }],
      ['fs.mv', { fromPath: config, toPath: join(ws.root, 'moved.json') }],
      ['fs.chmod', { path: config, mode: '666' }],
    ] as const) {
      const answer = await call(name, args);
      expect(answer.ok, `${name}: ${answer.text}`).toBe(false);
      expect(answer.text).toMatch(/own data directory or config file/);
    }
    // a link to it under an ordinary name is the same file
    symlinkSync(config, join(ws.root, 'settings-link.json'));
    const linked = await call('fs.write', { path: join(ws.root, 'settings-link.json'), content: escalated, mode: 'overwrite' });
    expect(linked.ok).toBe(false);
    const plan = await postBlock(companion, 'autocoder', `#####--\n${JSON.stringify({ type: 'operate', metadata: { step_id: 'c1', reason: 'tidy' }, file_operations: [{ action_type: 'create_file', path: config.slice(ws.root.length + 1), file_content: escalated }], program_operations: [] })}\n--#####`, context('conv-own', 'm-config-plan'));
    expect(plan.resultText).toMatch(/own data directory or config file/);
    expect(readFileSync(config, 'utf8')).toBe(before);
  });

  it("a paired extension's token never shows either: the companion keeps only its hash, and redacts it once issued or presented, across a restart", async () => {
    const api = (path: string, init: { token: string; body?: unknown }) =>
      fetch(`http://127.0.0.1:${companion.port}${path}`, {
        method: init.body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${init.token}`, 'content-type': 'application/json' },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    const { code } = (await (await api('/v1/pair/code', { token: companion.token, body: {} })).json()) as { code: string };
    const { token: paired } = (await (await api('/v1/pair', { token: '', body: { code } })).json()) as { token: string };
    expect(paired).toMatch(/^[\w-]{43}$/);
    expect(readFileSync(join(home, 'tokens.json'), 'utf8')).not.toContain(paired);
    // where the browser keeps it is denied to tools; a copy elsewhere, or a program the person let run, is not
    writeFileSync(join(ws.root, 'profile-backup.txt'), `{"companionToken":"${paired}"}\n`);
    const issued = await call('fs.read', { path: join(ws.root, 'profile-backup.txt') });
    expect(issued.text).not.toContain(paired);
    expect(issued.text).toContain('[REDACTED]');

    // a new start knows only the hash, until the extension presents the token with its first call
    await companion.stop();
    companion = await startCompanionProcess({ root: ws.root, home, config: ALL_AUTO });
    const block = mcpRequestBlock('after-restart', 'process.run', { command: 'cat', args: [join(ws.root, 'profile-backup.txt')] });
    const response = await api('/v1/run', { token: paired, body: { kind: 'mcp-request', text: block, context: context('conv-own', 'm-restart') } });
    expect(response.status).toBe(200);
    const answer = answerOf(((await response.json()) as { resultText: string }).resultText);
    expect(answer.ok).toBe(true);
    expect(answer.text).not.toContain(paired);
    expect(answer.text).toContain('{"companionToken":"[REDACTED]"}');
  });

  it('a write into <home>/journal/… is refused, even with every mode on auto', async () => {
    const planted = join(home, 'journal', '20260101T000000000Z-deadbeef', 'intent.json');
    const answer = await call('fs.write', { path: planted, content: '{}', mode: 'overwrite' });
    expect(answer.ok).toBe(false);
    expect(answer.text).toMatch(OWN_DATA);
    expect(existsSync(planted)).toBe(false);
  });

  it('a plan cannot reach it either (auto_coder paths are relative to the root)', async () => {
    const plan = `#####--\n${JSON.stringify({
      type: 'operate',
      metadata: { step_id: 'own', reason: 'x' },
      file_operations: [
        { action_type: 'read_file', path: '.chatbridge/cli.token' },
        { action_type: 'create_file', path: '.chatbridge/journal/planted.txt', file_content: '{}' },
      ],
    })}\n--#####`;
    const run = await postBlock(companion, 'autocoder', plan, context('conv-own', 'plan-1'));
    expect(run.resultText).not.toContain(readFileSync(join(home, 'cli.token'), 'utf8'));
    expect(run.resultText).toMatch(OWN_DATA);
    expect(existsSync(join(home, 'journal', 'planted.txt'))).toBe(false);
  });
});

describe('attack: moving or removing a folder that holds the data directory', () => {
  let ws: Workspace;
  let companion: CompanionProcess;

  beforeAll(async () => {
    ws = makeWorkspace('cb-own-parent-');
    mkdirSync(join(ws.root, 'work'));
    companion = await startCompanionProcess({ root: ws.root, home: join(ws.root, 'work', 'cb-data'), config: ALL_AUTO });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it.each([
    ['fs.mv', { fromPath: 'work', toPath: 'moved' }],
    ['fs.rm', { path: 'work', recursive: true }],
    ['fs.chmod', { path: 'work', mode: '0000' }],
  ])('%s of the folder is refused', async (tool, relative) => {
    const args = Object.fromEntries(Object.entries(relative).map(([k, v]) => [k, typeof v === 'string' && k !== 'mode' ? join(ws.root, v) : v]));
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock(tool, tool, args), context('conv-parent', tool));
    const answer = answerOf(run.resultText);
    expect(answer.ok).toBe(false);
    expect(answer.text).toMatch(OWN_DATA);
    expect(existsSync(join(ws.root, 'work', 'cb-data', 'cli.token'))).toBe(true);
  });
});

describe('attack: a planted journal entry whose paths point outside the roots', () => {
  let ws: Workspace;
  let outside: string;

  beforeAll(() => {
    ws = makeWorkspace('cb-planted-');
    outside = join(ws.base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'victim.txt'), 'original');
  });

  afterAll(() => rmSync(ws.base, { recursive: true, force: true }));

  /** An unfinished entry, shaped like what apply writes, whose undo records restore and copy files outside the roots. */
  function plant(journalDir: string, id: string): void {
    const entry = join(journalDir, id);
    mkdirSync(join(entry, 'before'), { recursive: true });
    mkdirSync(join(entry, 'trash'), { recursive: true });
    writeFileSync(join(entry, 'before', '0'), 'attacker bytes');
    writeFileSync(
      join(entry, 'intent.json'),
      JSON.stringify({
        id,
        time: new Date().toISOString(),
        label: 'fs.write',
        state: 'applying',
        ops: [{ op: 'write', path: join(outside, 'victim.txt'), mode: 'overwrite', bytes: 1, sha256: 'x' }],
        paths: [join(outside, 'victim.txt')],
      }),
    );
    writeFileSync(
      join(entry, 'undo.jsonl'),
      [
        { type: 'restore-file', path: join(outside, 'victim.txt'), ref: 'before/0', mode: 0o644 },
        { type: 'move-back', from: join(outside, 'stolen'), to: join(ws.root, 'readme.txt') },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
  }

  it('is quarantined and reported at the next start, never applied', async () => {
    const home = join(ws.root, '.chatbridge');
    writeFileSync(join(ws.root, 'readme.txt'), 'mine');
    mkdirSync(join(home, 'journal'), { recursive: true });
    const id = '20260101T000000000Z-deadbeef';
    plant(join(home, 'journal'), id);
    const companion = await startCompanionProcess({ root: ws.root, home });
    try {
      expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('original');
      expect(existsSync(join(outside, 'stolen'))).toBe(false);
      expect(readFileSync(join(ws.root, 'readme.txt'), 'utf8')).toBe('mine');
      expect(companion.output()).toContain(`journal: entry ${id} failed validation`);
      expect(readdirSync(join(home, 'journal', 'quarantine'))).toEqual([id]);
    } finally {
      await companion.stop();
    }
  }, 60_000);

  it('a before-image reference that leaves its own entry folder is refused the same way', async () => {
    const root = ws.root;
    const journalDir = join(ws.base, 'journal-ref');
    const id = '20260101T000000001Z-cafebabe';
    mkdirSync(join(journalDir, id), { recursive: true });
    writeFileSync(
      join(journalDir, id, 'intent.json'),
      JSON.stringify({ id, time: new Date().toISOString(), label: 'fs.write', state: 'applied', ops: [], paths: [join(root, 'readme.txt')] }),
    );
    writeFileSync(join(journalDir, id, 'undo.jsonl'), JSON.stringify({ type: 'restore-file', path: join(root, 'readme.txt'), ref: '../../outside/victim.txt', mode: 0o644 }) + '\n');
    const reported: string[] = [];
    const policy: Policy = { ...configSchema.parse({}), roots: [root], redact: [], reserved: [] };
    const journal = createJournal({ dir: journalDir, policy, onQuarantine: (entry, reason) => reported.push(`${entry}: ${reason}`) });
    await expect(journal.undo(id)).rejects.toThrow(/failed validation.*quarantined and nothing was restored/);
    expect(reported).toEqual([expect.stringMatching(/before\/<n> or trash\/<n>/)]);
    expect(readFileSync(join(root, 'readme.txt'), 'utf8')).toBe('mine');
  });
});

const PLACE = 'plain-words-no-pattern-knows';

/** The processes whose parent is `pid`, as /proc says. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => readProc(child)?.ppid === pid);
}

describe("attack: the companion's own process through its tools (a root of /, which holds /proc)", () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;

  async function call(name: string, args: Record<string, unknown>): Promise<{ ok: boolean; text: string }> {
    n++;
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock(n, name, args), context('conv-proc', `p${n}`));
    return answerOf(run.resultText);
  }

  beforeAll(async () => {
    ws = makeWorkspace('cb-own-proc-');
    // an MCP server whose environment and arguments the companion's (reserved) config gives it
    const server = join(process.cwd(), 'tests', 'companion', 'mcp-servers', 'fixtures', 'no-tools.mjs');
    const mcpServers = { notes: { command: process.execPath, args: [server, PLACE], env: { NOTES_PLACE: PLACE } } };
    companion = await startCompanionProcess({ root: '/', home: ws.home, config: { ...ALL_AUTO, mcpServers } });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it.skipIf(!existsSync('/proc/self/environ'))('its environment, memory and open files in /proc are refused, by its pid and through /proc/self; another process\'s are not', async () => {
    for (const dir of ['/proc/self', '/proc/thread-self', `/proc/${companion.pid}`]) {
      for (const [name, args] of [
        ['fs.read', { path: `${dir}/environ`, encoding: 'base64' }],
        ['fs.read', { path: `${dir}/status` }],
        ['fs.ls', { path: `${dir}/fd` }],
      ] as const) {
        const answer = await call(name, args);
        expect(answer.ok, `${name} ${JSON.stringify(args)}: ${answer.text}`).toBe(false);
        expect(answer.text).toMatch(/its own process in \/proc/);
      }
    }
    // a listing of /proc leaves the companion's own entry out; a program this test started is another one (this
    // test's own process started the companion, and is refused as its parent: see below)
    const listed = await call('fs.ls', { path: '/proc' });
    expect(listed.ok, listed.text).toBe(true);
    expect(listed.text.split('\n').map((line) => line.replace(/\/$/, ''))).not.toContain(String(companion.pid));
    const sibling = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const other = await call('fs.read', { path: `/proc/${sibling.pid}/status` });
      expect(other.ok, other.text).toBe(true);
    } finally {
      sibling.kill('SIGKILL');
    }
  });

  it.skipIf(!existsSync('/proc/self/environ'))('its threads are refused by their own ids too: /proc/<tid> is the whole process (its environment, memory and open files) by another name', async () => {
    const threads = readdirSync(`/proc/${companion.pid}/task`).filter((tid) => tid !== String(companion.pid));
    expect(threads.length).toBeGreaterThan(0);
    for (const tid of threads) {
      for (const [name, args] of [
        ['fs.read', { path: `/proc/${tid}/environ` }],
        ['fs.read', { path: `/proc/${tid}/environ`, encoding: 'base64' }],
        ['fs.read', { path: `/proc/${tid}/task/${tid}/environ`, encoding: 'base64' }],
        ['fs.ls', { path: `/proc/${tid}/fd` }],
        ['fs.search', { path: `/proc/${tid}`, query: 'CHATBRIDGE', glob: 'environ' }],
      ] as const) {
        const answer = await call(name, args);
        if (!existsSync(`/proc/${companion.pid}/task/${tid}`)) continue; // a thread that ended meanwhile
        expect(answer.ok, `${name} ${JSON.stringify(args)}: ${answer.text}`).toBe(false);
        expect(answer.text).toMatch(/its own process in \/proc/);
      }
    }
  });

  it.skipIf(!existsSync('/proc/self/environ'))("the programs it started are refused too: an MCP server's environment and arguments are what its reserved config wrote, a running command's what its call gave", async () => {
    // answered once the command ends; stopped by its block below
    const sleeper = { kind: 'mcp-request', text: mcpRequestBlock('sleeper', 'process.run', { command: 'sleep', args: ['30'] }), context: context('conv-proc', 'sleeper') };
    const started = rawCall(companion, 'POST', '/v1/run', sleeper);
    try {
      // the MCP server and the command, as this test (another process) reads them
      const commandLine = (pid: number) => (existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0') : []);
      const both = (pids: number[]) => pids.some((pid) => commandLine(pid).includes(PLACE)) && pids.some((pid) => commandLine(pid)[0] === 'sleep');
      let children: number[] = [];
      for (let i = 0; i < 100 && !both(children); i++) {
        children = childrenOf(companion.pid);
        if (!both(children)) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(both(children), JSON.stringify(children.map(commandLine))).toBe(true);
      for (const child of children) {
        for (const [name, args] of [
          ['fs.read', { path: `/proc/${child}/environ`, encoding: 'base64' }],
          ['fs.read', { path: `/proc/${child}/cmdline`, encoding: 'base64' }],
          ['fs.ls', { path: `/proc/${child}/fd` }],
        ] as const) {
          const answer = await call(name, args);
          expect(answer.ok, `${name} ${JSON.stringify(args)}: ${answer.text}`).toBe(false);
          expect(answer.text).toMatch(/its own process in \/proc, or a program it started/);
        }
      }
      const listed = await call('fs.ls', { path: '/proc' });
      const names = listed.text.split('\n').map((line) => line.replace(/\/$/, ''));
      for (const child of children) expect(names).not.toContain(String(child));
    } finally {
      expect((await rawCall(companion, 'POST', '/v1/runs/stop', sleeper)).status).toBe(200);
      await started;
    }
  });
});

const STARTED_WITH = 'words-the-shell-was-given';

describe("attack: the processes that started the companion, through its tools (a root of /)", () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;

  async function call(name: string, args: Record<string, unknown>): Promise<{ ok: boolean; text: string }> {
    n++;
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock(n, name, args), context('conv-parents', `q${n}`));
    return answerOf(run.resultText);
  }

  beforeAll(async () => {
    ws = makeWorkspace('cb-parent-proc-');
    // as npm start runs it: a shell that stays the companion's parent (no exec), holding the environment it was
    // started with, here only a value no redaction pattern knows beside what the companion needs
    const started = [`PATH=${process.env.PATH ?? ''}`, `HOME=${process.env.HOME ?? ''}`, `CHATBRIDGE_HOME=${ws.home}`, `DEPLOY_NOTE=${STARTED_WITH}`];
    companion = await startCompanionProcess({
      root: '/',
      home: ws.home,
      config: ALL_AUTO,
      launcher: (args) => ['/usr/bin/env', '-i', ...started, '/bin/sh', '-c', '"$@"; exit $?', 'sh', ...args],
    });
  }, 60_000);

  afterAll(async () => {
    // the companion first (the shell would leave it running), then the shell, which ends with it
    if (companion) for (const pid of childrenOf(companion.pid)) process.kill(pid, 'SIGTERM');
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it.skipIf(!existsSync('/proc/self/environ'))("its parent's environment (npm start's npm and shell hold the one it was started with) is refused, as its own is", async () => {
    // companion.pid is the shell's: the companion is its child
    const shell = companion.pid;
    expect(readFileSync(`/proc/${shell}/environ`, 'utf8')).toContain(STARTED_WITH);
    for (const pid of [shell, process.pid]) {
      for (const [name, args] of [
        ['fs.read', { path: `/proc/${pid}/environ`, encoding: 'base64' }],
        ['fs.search', { path: `/proc/${pid}`, query: STARTED_WITH, glob: 'environ' }],
        ['fs.ls', { path: `/proc/${pid}/fd` }],
      ] as const) {
        const answer = await call(name, args);
        const shown = `${answer.text}\n${Buffer.from(answer.text, 'base64').toString('utf8')}`;
        expect(shown, `${name} ${JSON.stringify(args)}`).not.toContain(STARTED_WITH);
        expect(answer.ok, `${name} ${JSON.stringify(args)}: ${answer.text.slice(0, 300)}`).toBe(false);
        expect(answer.text).toMatch(/its own process in \/proc/);
      }
    }
  });
});
