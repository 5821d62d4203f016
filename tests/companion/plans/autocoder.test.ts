import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAutocoderPlan } from '../../../companion/plans';
import { highestRisk } from '../../../companion/policy/decide';
import type { ProgramOutputEvent } from '../../../companion/types';
import { findBlocks } from '../../../shared/protocols';
import type { AutocoderPlan } from '../../../shared/protocols/types';
import { createWorld, parseExecutorResponse, type World } from './world';

const meta = { auditId: 'audit-1' };
let world: World;

beforeEach(async () => {
  world = await createWorld();
});
afterEach(async () => {
  await world.dispose();
});

async function run(plan: AutocoderPlan, origin = {}) {
  return parseExecutorResponse(await runAutocoderPlan(plan, world.ctx(origin), meta));
}

/** Waits until the process manager lists a running program with that name. */
async function waitForRunning(name: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (!world.processes.list().some((p) => p.name === name && p.status === 'running')) {
    if (Date.now() > until) throw new Error(`program ${name} never started`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Seed 002, 阶段1: the AI request, as the protocol parser hands it over.
const seedInitPlan: AutocoderPlan = {
  metadata: { step_id: 'init_001', reason: '创建基础项目结构' },
  type: 'operate',
  file_operations: [
    {
      action_type: 'create_file',
      path: 'tetris/game.py',
      file_content: 'import pygame\n\nclass Tetris:\n    def __init__(self):\n        pass',
    },
    { action_type: 'create_directory', path: 'tetris/assets' },
  ],
};

// Seed 002, 阶段2: the CharPrinter replace and the run_game program.
const charPrinterOld =
  '# 其他代码...\nclass CharPrinter:\n    def __init__(self, max_width=40):\n        self.max_width = max_width\n\n\n    def _is_ansi(self, char):';
const charPrinterNew =
  '# 其他代码...\nclass CharPrinter:\n    def __init__(self, max_width=40):\n        self.max_width = max_width\n        self.buffer = []  # 缓存当前行的字符列表\n        self.visible_length = 0  # 当前行可见字符长度\n\n    def _is_ansi(self, char):';

describe('auto_coder plans: the seed 002 examples end to end', () => {
  it('init_001: create_file (with parents) and create_directory answer the seed\'s executor response', async () => {
    const response = await run(seedInitPlan);
    expect(response).toEqual({
      metadata: { step_id: 'init_001', reason: '创建基础项目结构', summary: '2 file actions succeeded.' },
      file_actions: [
        { status: 'success', action: 'create_file', path: 'tetris/game.py' },
        { status: 'success', action: 'create_directory', path: 'tetris/assets' },
      ],
      program_execs: {},
    });
    expect(await world.read('tetris/game.py')).toBe('import pygame\n\nclass Tetris:\n    def __init__(self):\n        pass');
    expect(await readdir(join(world.root, 'tetris', 'assets'))).toEqual([]);
    // one approval for the whole plan: every action with its own class, a unified diff
    expect(world.requests).toHaveLength(1);
    const [request] = world.requests;
    expect(request!.tool).toBe('autocoder');
    expect(request!.actions).toEqual([
      { risk: 'write', label: 'create_file tetris/game.py', paths: [join(world.root, 'tetris/game.py')] },
      { risk: 'write', label: 'create_directory tetris/assets', paths: [join(world.root, 'tetris/assets')] },
    ]);
    expect(request!.preview.diff).toContain('+++ b/tetris/game.py');
    expect(request!.preview.diff).toContain('+import pygame');
    expect(request!.preview.diff).toContain('# create directory tetris/assets');
    // every change went through the journal
    expect((await world.journal.list()).map((e) => e.label)).toEqual(
      expect.arrayContaining(['autocoder create_file tetris/game.py', 'autocoder create_directory tetris/assets']),
    );
  });

  it('code_002: replace_file with the CharPrinter block is replaced, verified, and run_game fails with its output', async () => {
    await world.write('tetris/game.py', `import sys\n\n${charPrinterOld}\n        return False\n`);
    const response = await run({
      metadata: { step_id: 'code_002', reason: '实现游戏初始化逻辑' },
      type: 'operate',
      file_operations: [
        {
          action_type: 'replace_file',
          path: 'tetris/game.py',
          modify_content: [{ identifier: 'Tetris.__init__', old_content: charPrinterOld, new_content: charPrinterNew }],
        },
      ],
      program_operations: [
        {
          name: 'run_game',
          command: 'echo "pygame.error: No available video device"; echo "Traceback..." >&2; exit 1',
          set_timeout: 20,
          expected_output: '显示游戏窗口',
        },
      ],
    });
    expect(response.file_actions).toEqual([
      {
        status: 'success',
        action: 'replace_file',
        path: 'tetris/game.py',
        replaces: [{ id: 'Tetris.__init__', replaced: true, matches: 1, verified: true }],
      },
    ]);
    expect(response.program_execs.run_game).toMatchObject({
      status: 'failure',
      stdout: 'pygame.error: No available video device\n',
      stderr: 'Traceback...\n',
      returncode: 1,
    });
    expect(typeof response.program_execs.run_game.runtime).toBe('number');
    expect(response.metadata).toMatchObject({ step_id: 'code_002', reason: '实现游戏初始化逻辑' });
    expect(response.metadata.summary).toContain('run_game failure (exit 1)');
    expect(await world.read('tetris/game.py')).toBe(`import sys\n\n${charPrinterNew}\n        return False\n`);
    expect(world.requests[0]!.actions.map((a) => a.risk)).toEqual(['write', 'exec']);
    expect(world.requests[0]!.actions[1]!.command).toEqual({ shell: expect.stringContaining('pygame.error'), cwd: world.root });
    expect(world.requests[0]!.preview.diff).toContain('+        self.buffer = []  # 缓存当前行的字符列表');
  });

  it('finish answers nothing (null) and touches nothing', async () => {
    const text = await runAutocoderPlan(
      { metadata: { step_id: 'done_001', reason: 'done', summary: '完成' }, type: 'finish', file_operations: [] },
      world.ctx(),
      meta,
    );
    expect(text).toBeNull();
    expect(world.requests).toEqual([]);
  });

  it('type "operate/finish" (copied from the template) is an INVALID_INPUT response and nothing runs', async () => {
    const response = await run({ ...seedInitPlan, type: 'operate/finish' });
    expect(response.file_actions).toHaveLength(3);
    expect(response.file_actions[0]).toMatchObject({ status: 'failure', action: 'plan' });
    expect(response.file_actions[0].error).toMatch(/^INVALID_INPUT: type "operate\/finish" is not one of operate, finish, check_program/);
    expect(response.file_actions.slice(1).every((a: { status: string; error: string }) => a.status === 'failure' && a.error.startsWith('INVALID_INPUT: not run'))).toBe(true);
    expect(response.metadata.summary).toMatch(/^Plan refused, nothing was changed or run/);
    expect(await world.exists('tetris/game.py')).toBe(false);
    expect(world.requests).toEqual([]);
  });

  it('an unknown action_type or a missing path refuses the whole plan, naming each problem', async () => {
    const response = await run({
      metadata: { step_id: 's1', reason: 'r' },
      type: 'operate',
      file_operations: [
        { action_type: 'create_file', path: 'a.txt', file_content: 'a' },
        { action_type: 'edit_file', path: 'b.txt' },
        { action_type: 'read_file' },
      ],
      program_operations: [{ name: 'p', command: 'touch ran.txt' }],
    });
    expect(response.file_actions.map((a: { error: string }) => a.error)).toEqual([
      expect.stringMatching(/^INVALID_INPUT: not run: the plan was refused \(file_operations\[1\]\.action_type "edit_file" is not one of create_file, replace_file/),
      expect.stringMatching(/^INVALID_INPUT: file_operations\[1\]\.action_type "edit_file" is not one of/),
      'INVALID_INPUT: file_operations[2] (read_file) has no path; give a path relative to the workspace root',
    ]);
    expect(response.program_execs.p).toMatchObject({ status: 'failure', returncode: null });
    expect(await world.exists('a.txt')).toBe(false);
    expect(await world.exists('ran.txt')).toBe(false);
  });

  it('a plan that is not even a plan object shape still answers (bad lists, bad timeout, duplicate names)', async () => {
    const response = await run({
      type: 'operate',
      file_operations: 'create everything' as unknown as [],
      program_operations: [
        { name: 'a', command: 'true', set_timeout: -1 },
        { name: 'b', command: 'true' },
        { name: 'b', command: 'true' },
        { command: 'true' },
      ],
    });
    expect(response.metadata.summary).toContain('file_operations must be a list');
    expect(response.metadata.summary).toContain('set_timeout -1 must be a positive number of seconds');
    expect(response.metadata.summary).toContain('the name "b" is used twice');
    expect(response.metadata.summary).toContain('program_operations[3] has no name');
  });
});

describe('auto_coder file actions', () => {
  it('each action succeeds or fails on its own, in order; later actions see earlier ones', async () => {
    await world.write('keep.txt', 'keep me\n');
    await world.write('old/inner/x.txt', 'x');
    const response = await run({
      metadata: { step_id: 'mix', reason: 'mix' },
      type: 'operate',
      file_operations: [
        { action_type: 'read_file', path: 'missing.txt' },
        { action_type: 'create_file', path: 'src/new.py', file_content: 'print(1)\n' },
        { action_type: 'read_file', path: 'src/new.py' },
        { action_type: 'delete_file', path: 'keep.txt' },
        { action_type: 'delete_file', path: 'old' },
        { action_type: 'delete_directory', path: 'old' },
        { action_type: 'delete_directory', path: 'old' },
      ],
    });
    expect(response.file_actions).toEqual([
      { status: 'failure', action: 'read_file', path: 'missing.txt', error: 'NOT_FOUND: missing.txt does not exist' },
      { status: 'success', action: 'create_file', path: 'src/new.py' },
      { status: 'success', action: 'read_file', path: 'src/new.py', content: 'print(1)\n' },
      { status: 'success', action: 'delete_file', path: 'keep.txt' },
      { status: 'failure', action: 'delete_file', path: 'old', error: 'INVALID_INPUT: old is a directory; use delete_directory' },
      { status: 'success', action: 'delete_directory', path: 'old' },
      { status: 'failure', action: 'delete_directory', path: 'old', error: 'NOT_FOUND: old does not exist' },
    ]);
    expect(response.metadata.summary).toBe(
      '4 of 7 file actions succeeded; failed: read_file missing.txt, delete_file old, delete_directory old.',
    );
    expect(highestRisk(world.requests[0]!.actions)).toBe('delete');
    expect(await world.exists('keep.txt')).toBe(false);
    expect(await world.exists('old/inner/x.txt')).toBe(false);
  });

  it('replace_file writes only if every block matched, and reports each block', async () => {
    const original = 'def a():\n    return 1\n\ndef b():\n    return 2\n\ndef b2():\n    return 2\n';
    await world.write('m.py', original);
    const response = await run({
      type: 'operate',
      file_operations: [
        {
          action_type: 'replace_file',
          path: 'm.py',
          modify_content: [
            { identifier: 'a', old_content: 'def a():\n    return 1', new_content: 'def a():\n    return 10' },
            { identifier: 'nope', old_content: 'def zzz():', new_content: 'def yyy():' },
            { identifier: 'twice', old_content: '    return 2', new_content: '    return 20' },
            { identifier: 'same', old_content: 'def a', new_content: 'def a' },
          ],
        },
      ],
    });
    const [action] = response.file_actions;
    expect(action.status).toBe('failure');
    expect(action.error).toBe('MISMATCH: 3 of 4 modify_content blocks did not apply ("nope", "twice", "same"); the file was not changed');
    expect(action.replaces.map((r: { id: string; replaced: boolean; matches: number; verified: boolean }) => [r.id, r.replaced, r.matches, r.verified])).toEqual([
      ['a', false, 1, false],
      ['nope', false, 0, false],
      ['twice', false, 2, false],
      ['same', false, 0, false],
    ]);
    expect(action.replaces[0].error).toBeUndefined();
    expect(action.replaces[1].error).toMatch(/^MISMATCH: /);
    expect(action.replaces[2].error).toMatch(/^AMBIGUOUS: /);
    expect(action.replaces[3].error).toMatch(/^INVALID_INPUT: old_content and new_content are identical/);
    expect(await world.read('m.py')).toBe(original);
  });

  it('replace_file on a missing file fails and says to create it', async () => {
    const response = await run({
      type: 'operate',
      file_operations: [{ action_type: 'replace_file', path: 'ghost.py', modify_content: [{ identifier: 'x', old_content: 'a', new_content: 'b' }] }],
    });
    expect(response.file_actions[0]).toMatchObject({ status: 'failure', error: 'NOT_FOUND: ghost.py does not exist; create it with create_file' });
  });

  it('create_file overwrites an existing file and keeps content exactly', async () => {
    await world.write('a.md', 'old');
    const content = 'line 1\r\nline 2 --##### not the end\n```\ncode\n```\n';
    const text = await runAutocoderPlan(
      { type: 'operate', file_operations: [{ action_type: 'create_file', path: 'a.md', file_content: content }, { action_type: 'read_file', path: 'a.md' }] },
      world.ctx(),
      meta,
    );
    expect(await world.read('a.md')).toBe(content);
    // the read content holds the closing marker, yet the seed's regex still finds the whole response
    expect(parseExecutorResponse(text).file_actions[1].content).toBe(content);
  });

  it('read_file of a large file is capped with a marker naming the program that prints what follows', async () => {
    const small = await createWorld({ limits: { maxResultChars: 100 } });
    try {
      await small.write('big.txt', 'y'.repeat(250));
      const response = parseExecutorResponse(
        await runAutocoderPlan({ type: 'operate', file_operations: [{ action_type: 'read_file', path: 'big.txt' }] }, small.ctx(), meta),
      );
      expect(response.file_actions[0].content).toBe(
        // one line longer than a program's output shows: the characters after the cut, as many as it shows
        `${'y'.repeat(100)}\n[… truncated: the file has 250 characters and only the first 100 are shown; read_file shows no more of it; ` +
          `to see the rest, run a program to print characters 101 to 250 of it with ${process.platform === 'win32' ? `powershell -NoProfile -Command "(Get-Content -Raw -LiteralPath 'big.txt').Substring(100, 150)"` : 'tail -c +101 big.txt | head -c 150'} …]`,
      );
    } finally {
      await small.dispose();
    }
  });

  it('list_tree gives {name, files, dirs}, skipping .git, node_modules and denied files', async () => {
    await world.write('src/main.py', '');
    await world.write('src/lib/util.py', '');
    await world.write('README.md', '');
    await world.write('.env', 'SECRET=1');
    await world.write('.git/config', '');
    await world.write('node_modules/x/index.js', '');
    const response = await run({ type: 'operate', file_operations: [{ action_type: 'list_tree', path: '.' }, { action_type: 'list_tree', path: 'src' }] });
    const name = world.root.split('/').pop();
    expect(response.file_actions[0]).toEqual({
      status: 'success',
      action: 'list_tree',
      path: '.',
      dir_tree: { name, files: ['README.md'], dirs: { src: { name: 'src', files: ['main.py'], dirs: { lib: { name: 'lib', files: ['util.py'], dirs: {} } } } } },
    });
    expect(response.file_actions[1].dir_tree).toEqual({ name: 'src', files: ['main.py'], dirs: { lib: { name: 'lib', files: ['util.py'], dirs: {} } } });
    expect(world.requests[0]!.actions.map((a) => a.risk)).toEqual(['read', 'read']);
  });

  it('list_tree is capped at limits.maxListEntries and says so', async () => {
    const small = await createWorld({ limits: { maxListEntries: 3 } });
    try {
      for (const f of ['a', 'b', 'c', 'd', 'e']) await small.write(`d/${f}.txt`, '');
      const response = parseExecutorResponse(
        await runAutocoderPlan({ type: 'operate', file_operations: [{ action_type: 'list_tree', path: 'd' }] }, small.ctx(), meta),
      );
      expect(response.file_actions[0].dir_tree.files).toEqual([
        'a.txt',
        'b.txt',
        'c.txt',
        '[… listing stopped at 3 entries (limits.maxListEntries); list a subdirectory to see more …]',
      ]);
    } finally {
      await small.dispose();
    }
  });

  it('a path attack in any file action refuses the whole plan before any card, and nothing reaches the disk: "..", absolute outside, symlink out, deny glob, "~", "$HOME"', async () => {
    const outside = join(world.root, '..', 'outside');
    await mkdir(outside);
    await symlink(outside, join(world.root, 'link-out'));
    const attacks = [
      { path: '../escape.txt', code: 'FORBIDDEN' },
      { path: '../workspace/back-in.txt', code: 'FORBIDDEN' },
      { path: `${outside}/abs.txt`, code: 'FORBIDDEN' },
      { path: 'link-out/through.txt', code: 'FORBIDDEN' },
      { path: '.env', code: 'POLICY_BLOCKED' },
      { path: '~/.bashrc', code: 'INVALID_INPUT' },
      { path: '$HOME/.bashrc', code: 'INVALID_INPUT' },
    ];
    for (const attack of attacks) {
      const response = await run({
        type: 'operate',
        file_operations: [
          { action_type: 'create_file', path: 'before.txt', file_content: 'ok' },
          { action_type: 'create_file', path: attack.path, file_content: 'x' },
          { action_type: 'create_file', path: 'after.txt', file_content: 'ok' },
        ],
        program_operations: [{ name: 'check', command: 'echo ran > ran.txt', set_timeout: 5 }],
      });
      expect(response.file_actions.map((a: { status: string }) => a.status)).toEqual(['failure', 'failure', 'failure']);
      expect(response.file_actions[1].error.split(':')[0]).toBe(attack.code);
      for (const other of [response.file_actions[0], response.file_actions[2]]) {
        expect(other.error).toContain(`${attack.code}: file action 2 (create_file ${JSON.stringify(attack.path)}) was refused, so no part of the plan ran`);
      }
      expect(response.program_execs.check.status).toBe('failure');
      expect(response.metadata.summary).toMatch(/^Nothing was changed or run/);
    }
    expect(world.requests).toEqual([]);
    expect(await readdir(outside)).toEqual([]);
    for (const name of ['.env', '$HOME', 'before.txt', 'after.txt', 'ran.txt']) expect(await world.exists(name)).toBe(false);
  });

  it('a Windows path whose single backslashes JSON read as escapes is refused, not made into a file named with a line break', async () => {
    // as a model on Windows writes it: "src\new_module.py", where \n is a valid JSON escape
    const [block] = findBlocks('#####--\n{"type":"operate","file_operations":[{"action_type":"create_file","path":"src\\new_module.py","file_content":"x = 1\\n"}]}\n--#####');
    const response = await run(block!.payload as AutocoderPlan);
    expect(response.file_actions[0].status).toBe('failure');
    expect(response.file_actions[0].error).toContain('INVALID_INPUT: path "src\\new_module.py" holds a line break (U+000A): in a JSON string');
    expect(await readdir(world.root)).toEqual([]);
  });

  it('an absolute path inside the workspace is accepted; the workspace root itself cannot be deleted', async () => {
    const accepted = await run({ type: 'operate', file_operations: [{ action_type: 'create_file', path: join(world.root, 'abs.txt'), file_content: 'abs' }] });
    expect(accepted.file_actions[0]).toEqual({ status: 'success', action: 'create_file', path: join(world.root, 'abs.txt') });
    expect(await world.read('abs.txt')).toBe('abs');
    const dot = await run({ type: 'operate', file_operations: [{ action_type: 'delete_directory', path: '.' }] });
    expect(dot.file_actions[0].error).toMatch(/^INVALID_INPUT: path "\." names the workspace root itself/);
    const root = await run({ type: 'operate', file_operations: [{ action_type: 'delete_directory', path: world.root }] });
    expect(root.file_actions[0].error).toMatch(/^FORBIDDEN: .* is a root itself/);
    expect(await world.read('abs.txt')).toBe('abs');
  });

  it('read_file refuses a binary file instead of answering garbage', async () => {
    await writeFile(join(world.root, 'blob.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const response = await run({ type: 'operate', file_operations: [{ action_type: 'read_file', path: 'blob.bin' }] });
    expect(response.file_actions[0].error).toBe(
      'INVALID_INPUT: blob.bin is not UTF-8 text (4 bytes: another encoding, such as GBK, or binary data); a plan reads and edits files as UTF-8 only, so it was not read or changed; to change it, write it whole in UTF-8 with create_file',
    );
  });

  it('denied by the person: every action and program fails with DENIED and nothing changes', async () => {
    world.answer = 'deny';
    await world.write('tetris/game.py', 'original');
    const response = await run({
      ...seedInitPlan,
      program_operations: [{ name: 'touch', command: 'touch touched.txt' }],
    });
    expect(response.file_actions).toEqual([
      { status: 'failure', action: 'create_file', path: 'tetris/game.py', error: 'DENIED: the person denied this plan' },
      { status: 'failure', action: 'create_directory', path: 'tetris/assets', error: 'DENIED: the person denied this plan' },
    ]);
    expect(response.program_execs.touch).toEqual({
      status: 'failure',
      stdout: '',
      stderr: 'DENIED: the person denied this plan',
      returncode: null,
      runtime: 0,
    });
    expect(await world.read('tetris/game.py')).toBe('original');
    expect(await world.exists('tetris/assets')).toBe(false);
    expect(await world.exists('touched.txt')).toBe(false);
    expect(await world.journal.list()).toEqual([]);
  });

  it('blocked by policy: POLICY_BLOCKED on every action', async () => {
    world.answer = 'block';
    const response = await run({ type: 'operate', program_operations: [{ name: 'p', command: 'touch x' }] });
    expect(response.program_execs.p.stderr).toBe('POLICY_BLOCKED: policy denies exec');
    expect(await world.exists('x')).toBe(false);
  });
});

describe('auto_coder programs', () => {
  it('programs run in parallel, in the workspace root, with output streamed and kept whole', async () => {
    const events: ProgramOutputEvent[] = [];
    world.processes.onOutput((event) => events.push(event));
    const node = JSON.stringify(process.execPath);
    const timed = (tag: string) =>
      `${node} -e "console.log('${tag} start', Date.now()); setTimeout(() => console.log('${tag} end', Date.now()), 1000)"`;
    const response = await run({
      type: 'operate',
      program_operations: [
        { name: 'one', command: timed('one') },
        { name: 'two', command: timed('two') },
        { name: 'where', command: 'pwd -P' },
      ],
    });
    const stamps = (name: string) => {
      const [start, end] = [...response.program_execs[name].stdout.matchAll(/ (start|end) (\d+)/g)].map((m) => Number(m[2]));
      return { start: start!, end: end! };
    };
    const one = stamps('one');
    const two = stamps('two');
    // overlap: each started before the other ended
    expect(one.start).toBeLessThan(two.end);
    expect(two.start).toBeLessThan(one.end);
    expect(response.program_execs.where).toMatchObject({ status: 'completed', stdout: `${world.root}\n`, returncode: 0 });
    for (const name of ['one', 'two']) {
      expect(response.program_execs[name].status).toBe('completed');
      const streamed = events.filter((e) => e.name === name && e.stream === 'stdout').map((e) => e.chunk).join('');
      expect(streamed).toBe(response.program_execs[name].stdout);
    }
    expect(world.processes.list().every((p) => p.origin.conversationId === 'conv-1')).toBe(true);
  });

  it('a program that prints a flood answers its start and end, within what one result may hold, as a tool call would', async () => {
    const response = await run({ type: 'operate', program_operations: [{ name: 'big', command: 'seq 1 200000; echo done >&2' }] });
    const big = response.program_execs.big;
    expect(big).toMatchObject({ status: 'completed', returncode: 0, stderr: 'done\n' });
    // 1.3 MB of output: the executor response is typed into the chat box, like shell.exec's result it stays near
    // limits.maxResultChars (20000)
    expect(big.stdout.length).toBeLessThan(20_000);
    expect(big.stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(big.stdout.endsWith('199999\n200000\n')).toBe(true);
    expect(big.stdout).toMatch(/omitted/);
  });

  it('colour codes a program prints are not in the executor response typed into the chat', async () => {
    const response = await run({ type: 'operate', program_operations: [{ name: 'colour', command: "printf '\\033[32m2 passed\\033[0m\\n'; printf '\\033[31mwarn\\033[0m\\n' >&2" }] });
    expect(response.program_execs.colour).toMatchObject({ status: 'completed', stdout: '2 passed\n', stderr: 'warn\n' });
  });

  it('set_timeout ends a program as timeout', async () => {
    const response = await run({ type: 'operate', program_operations: [{ name: 'slow', command: 'echo begun; sleep 20', set_timeout: 0.5 }] });
    expect(response.program_execs.slow).toMatchObject({ status: 'timeout', stdout: 'begun\n', returncode: null });
  });

  it('set_timeout is capped by limits.maxTimeoutMs', async () => {
    const capped = await createWorld({ limits: { maxTimeoutMs: 400 } });
    try {
      const response = parseExecutorResponse(
        await runAutocoderPlan({ type: 'operate', program_operations: [{ name: 's', command: 'sleep 20', set_timeout: 3600 }] }, capped.ctx(), meta),
      );
      expect(response.program_execs.s.status).toBe('timeout');
    } finally {
      await capped.dispose();
    }
  });

  it('programs get only the allowed environment', async () => {
    process.env.CHATBRIDGE_TEST_SECRET = 'hunter2';
    try {
      const response = await run({ type: 'operate', program_operations: [{ name: 'env', command: 'echo "[$CHATBRIDGE_TEST_SECRET]"; test -n "$PATH" && echo has-path' }] });
      expect(response.program_execs.env.stdout).toBe('[]\nhas-path\n');
    } finally {
      delete process.env.CHATBRIDGE_TEST_SECRET;
    }
  });

  it('check_program terminates a long sleeping program by name; its own plan then completes as terminated', async () => {
    // its output is asserted below: running is not yet having written it (a busy machine stopped it before the echo)
    let heard = '';
    const listening = new Promise<void>((resolve) => {
      const off = world.processes.onOutput((event) => {
        if (event.name !== 'server' || event.stream !== 'stdout') return;
        heard += event.chunk;
        if (heard.includes('listening\n')) {
          off();
          resolve();
        }
      });
    });
    const long = runAutocoderPlan(
      {
        metadata: { step_id: 'run_001', reason: 'start server' },
        type: 'operate',
        program_operations: [{ name: 'server', command: 'echo listening; sleep 60', set_timeout: 120 }],
      },
      world.ctx({ runId: 'run-long' }),
      meta,
    );
    await waitForRunning('server');
    await listening;
    // another conversation cannot stop it
    const foreign = await run(
      { type: 'check_program', program_operations: [{ name: 'server', terminal: true }] },
      { conversationId: 'conv-other', runId: 'run-foreign' },
    );
    expect(foreign.program_execs.server).toMatchObject({ status: 'failure', returncode: null });
    expect(foreign.program_execs.server.stderr).toMatch(/^NOT_FOUND: no running program named "server"/);
    expect(world.processes.list().find((p) => p.name === 'server')?.status).toBe('running');

    const stop = await run(
      {
        metadata: { step_id: 'term_001', reason: '程序输出异常，需要终止', timestamp: 'now' },
        type: 'check_program',
        program_operations: [
          { name: 'server', terminal: true, reason: 'hangs' },
          { name: 'ghost', terminal: true },
          { name: 'server-not-terminal', terminal: false },
        ],
      },
      { runId: 'run-stop' },
    );
    expect(stop.metadata).toEqual({
      step_id: 'term_001',
      reason: '程序输出异常，需要终止',
      summary: 'terminated: server; not running in this conversation: ghost; not stopped (terminal is not true): server-not-terminal.',
    });
    expect(stop.file_actions).toEqual([]);
    expect(stop.program_execs.server).toMatchObject({ status: 'terminated', stdout: 'listening\n' });
    expect(stop.program_execs.ghost.status).toBe('failure');
    expect(stop.program_execs['server-not-terminal'].stderr).toMatch(/set "terminal": true/);

    const finished = parseExecutorResponse(await long);
    expect(finished.program_execs.server).toMatchObject({ status: 'terminated', stdout: 'listening\n', returncode: null });
    expect(finished.metadata.summary).toBe('programs: server terminated.');
  });

  it('aborting the run (shutdown, cancel) stops its programs', async () => {
    const controller = new AbortController();
    const pending = runAutocoderPlan(
      { type: 'operate', program_operations: [{ name: 'sleeper', command: 'sleep 60', set_timeout: 120 }] },
      world.ctx({}, controller.signal),
      meta,
    );
    await waitForRunning('sleeper');
    controller.abort();
    const response = parseExecutorResponse(await pending);
    expect(response.program_execs.sleeper.status).toBe('terminated');
  });

  it('check_program without programs is refused', async () => {
    const response = await run({ type: 'check_program' });
    expect(response.metadata.summary).toContain('check_program needs program_operations');
  });
});
