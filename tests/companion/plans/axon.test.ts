import { mkdir, readdir, symlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAxonPlan } from '../../../companion/plans';
import type { AxonPayload } from '../../../shared/protocols/types';
import { createWorld, type World } from './world';

const meta = { auditId: 'audit-axon' };
let world: World;

beforeEach(async () => {
  world = await createWorld();
});
afterEach(async () => {
  await world.dispose();
});

/** One statement as the parser hands it over: block contents keep their final newline. */
function statement(act: string, ...args: string[]): AxonPayload {
  return { acts: [{ act: `${act}\n`, args }] };
}

function result(lines: string[]): string {
  return ['```axon-result', ...lines, `auditId: ${meta.auditId}`, '```'].join('\n');
}

// Seed 003 §4, 场景：创建 Markdown 文件（内含代码）
const markdownContent = '# Python Guide\n\nHere is a script:\n```python\nprint("hello world")\n```\n';

describe('Axon plans: the seed 003 examples byte for byte', () => {
  it('write_file with ``` inside the content writes it exactly, final newline kept', async () => {
    const text = await runAxonPlan([statement('write_file', 'docs/example.md\n', markdownContent)], world.ctx(), meta);
    expect(text).toBe(result(['1 write_file docs/example.md: ok (created, 6 lines)', 'plan: applied']));
    expect(await world.read('docs/example.md')).toBe(markdownContent);
    expect(world.requests).toHaveLength(1);
    expect(world.requests[0]).toMatchObject({
      tool: 'axon',
      actions: [{ risk: 'write', label: 'write_file docs/example.md', paths: [join(world.root, 'docs/example.md')] }],
    });
    expect(world.requests[0]!.preview.diff).toContain('+```python');
    expect((await world.journal.list()).map((e) => e.label)).toEqual(['axon plan (1 acts)']);
  });

  it('replace keeps indentation: one trailing newline comes off old and new', async () => {
    await world.write('src/main.py', 'class App:\n    def hello():\n        pass\n\n    def bye():\n        pass\n');
    const text = await runAxonPlan(
      [statement('replace', 'src/main.py\n', '    def hello():\n        pass\n', '    def hello():\n        print("Fixed")\n')],
      world.ctx(),
      meta,
    );
    expect(text).toBe(result(['1 replace src/main.py: ok (replaced at line 2)', 'plan: applied']));
    expect(await world.read('src/main.py')).toBe('class App:\n    def hello():\n        print("Fixed")\n\n    def bye():\n        pass\n');
  });

  it('silent-mode example: replace {"Hello": "World"} with {"Hello": "Axon"} in main.py', async () => {
    const source = 'from fastapi import FastAPI\n\napp = FastAPI()\n\n@app.get("/")\ndef read_root():\n    return {"Hello": "World"}\n';
    await world.write('main.py', source);
    const text = await runAxonPlan(
      [statement('replace', 'main.py\n', '    return {"Hello": "World"}\n', '    return {"Hello": "Axon"}\n')],
      world.ctx(),
      meta,
    );
    expect(text).toBe(result(['1 replace main.py: ok (replaced at line 7)', 'plan: applied']));
    expect(await world.read('main.py')).toBe(source.replace('"World"', '"Axon"'));
  });

  it('check_files_exist on config.json + utils/helpers.py (missing) aborts and changes nothing', async () => {
    const config = '{\n    "debug": false\n}\n';
    await world.write('config.json', config);
    const text = await runAxonPlan(
      [
        statement('check_files_exist', 'config.json\nutils/helpers.py\n'),
        statement('replace', 'config.json\n', '    "debug": false\n', '    "debug": true\n'),
      ],
      world.ctx(),
      meta,
    );
    expect(text).toBe(
      result([
        '1 check_files_exist: NOT_FOUND: 1 of 2 paths are missing from the workspace: utils/helpers.py',
        '2 replace config.json: not checked: the plan stopped at act 1',
        'plan: aborted at act 1 — nothing changed',
      ]),
    );
    expect(await world.read('config.json')).toBe(config);
    expect(world.requests).toEqual([]);
    expect(await world.journal.list()).toEqual([]);
  });

  it('check_files_exist lists every missing path and ignores blank lines', async () => {
    const text = await runAxonPlan([statement('check_files_exist', '\na.txt\n\n  b/c.txt  \n\n')], world.ctx(), meta);
    expect(text).toContain('1 check_files_exist: NOT_FOUND: 2 of 2 paths are missing from the workspace: a.txt, b/c.txt');
  });

  it('the full config example applies when both files exist', async () => {
    await world.write('config.json', '{\n    "debug": false\n}\n');
    await world.write('utils/helpers.py', '');
    const text = await runAxonPlan(
      [
        statement('check_files_exist', 'config.json\nutils/helpers.py\n'),
        statement('replace', 'config.json\n', '    "debug": false\n', '    "debug": true\n'),
      ],
      world.ctx(),
      meta,
    );
    expect(text).toBe(
      result(['1 check_files_exist: ok (all 2 paths exist)', '2 replace config.json: ok (replaced at line 2)', 'plan: applied']),
    );
    expect(await world.read('config.json')).toBe('{\n    "debug": true\n}\n');
  });
});

describe('Axon plans: all or nothing', () => {
  it('a plan whose second act fails leaves the first act\'s file untouched', async () => {
    await world.write('a.txt', 'original a\n');
    await world.write('b.txt', 'original b\n');
    const text = await runAxonPlan(
      [statement('write_file', 'a.txt\n', 'new a\n'), statement('replace', 'b.txt\n', 'not in the file\n', 'x\n')],
      world.ctx(),
      meta,
    );
    expect(text).toMatch(/^```axon-result\n1 write_file a\.txt: ok \(checked, not applied: would be overwritten, 1 line\)\n2 replace b\.txt: MISMATCH: /);
    expect(text).toContain('\nplan: aborted at act 2 — nothing changed\n');
    expect(await world.read('a.txt')).toBe('original a\n');
    expect(await world.read('b.txt')).toBe('original b\n');
    expect(world.requests).toEqual([]);
    expect(await world.journal.list()).toEqual([]);
  });

  it('a replace after a write_file of the same file sees the written text', async () => {
    const text = await runAxonPlan(
      [statement('write_file', 'n.py\n', 'def f():\n    return 1\n'), statement('replace', 'n.py\n', '    return 1\n', '    return 2\n')],
      world.ctx(),
      meta,
    );
    expect(text).toContain('plan: applied');
    expect(await world.read('n.py')).toBe('def f():\n    return 2\n');
    // one diff per file, from the state before the plan to the state after it
    expect(world.requests[0]!.preview.diff).toContain('+    return 2');
    expect(world.requests[0]!.preview.diff).not.toContain('+    return 1');
  });

  it('a check after a write_file sees the planned file', async () => {
    const text = await runAxonPlan(
      [statement('write_file', 'made/here.txt\n', 'x'), statement('check_files_exist', 'made/here.txt\nmade\n')],
      world.ctx(),
      meta,
    );
    expect(text).toContain('2 check_files_exist: ok (all 2 paths exist)');
    expect(await world.read('made/here.txt')).toBe('x');
  });

  it('a write that fails while applying rolls back the writes before it (one journal entry)', async () => {
    await world.write('first.txt', 'first before\n');
    await world.write('blocker', 'a file where a directory is needed');
    const text = await runAxonPlan(
      [statement('write_file', 'first.txt\n', 'first after\n'), statement('write_file', 'blocker/child.txt\n', 'x\n')],
      world.ctx(),
      meta,
    );
    expect(text).toMatch(/\nplan: aborted — nothing changed: [A-Z_]+: /);
    expect(await world.read('first.txt')).toBe('first before\n');
    expect(await world.read('blocker')).toBe('a file where a directory is needed');
  });

  it('denied: nothing changes and the reply says why', async () => {
    world.answer = 'deny';
    await world.write('a.txt', 'keep\n');
    const text = await runAxonPlan([statement('write_file', 'a.txt\n', 'changed\n')], world.ctx(), meta);
    expect(text).toBe(
      result([
        '1 write_file a.txt: ok (checked, not applied: would be overwritten, 1 line)',
        'plan: aborted — nothing changed: DENIED: the person denied this plan',
      ]),
    );
    expect(await world.read('a.txt')).toBe('keep\n');
    expect(await world.journal.list()).toEqual([]);
  });

  it('statements from several blocks form one plan, numbered in order', async () => {
    const text = await runAxonPlan(
      [statement('write_file', 'one.txt\n', '1\n'), { acts: [] }, statement('write_file', 'two.txt\n', '2\n')],
      world.ctx(),
      meta,
    );
    expect(text).toBe(
      result(['1 write_file one.txt: ok (created, 1 line)', '2 write_file two.txt: ok (created, 1 line)', 'plan: applied']),
    );
    expect(world.requests).toHaveLength(1);
    expect((await world.journal.list()).length).toBe(1);
  });
});

describe('Axon plans: bad input', () => {
  it('an unknown act names the supported acts', async () => {
    const text = await runAxonPlan([statement('delete_file', 'a.txt\n')], world.ctx(), meta);
    expect(text).toContain(
      '1 delete_file: INVALID_INPUT: unknown act "delete_file". Supported acts: check_files_exist(file_list), check_cwd_match(expected_path), write_file(path, content), replace(path, old_string, new_string)',
    );
    expect(text).toContain('plan: aborted at act 1 — nothing changed');
  });

  it('missing and extra parameter blocks are errors naming the parameters', async () => {
    const missing = await runAxonPlan([statement('write_file', 'a.txt\n')], world.ctx(), meta);
    expect(missing).toContain('1 write_file a.txt: INVALID_INPUT: write_file takes 2 parameter blocks (path, content) but got 1. Supported acts:');
    const extra = await runAxonPlan([statement('check_cwd_match', '/x\n', 'stray\n')], world.ctx(), meta);
    expect(extra).toContain('check_cwd_match takes 1 parameter block (expected_path) but got 2; close a statement with an `end` block');
    expect(await world.exists('a.txt')).toBe(false);
  });

  it('an empty plan is refused', async () => {
    expect(await runAxonPlan([], world.ctx(), meta)).toBe(
      result(['plan: aborted — nothing changed: INVALID_INPUT: the plan has no act; start each statement with an `act` block naming one of check_files_exist, check_cwd_match, write_file, replace']),
    );
  });

  it('replace on a missing file, an ambiguous match and empty old text abort', async () => {
    await world.write('dup.txt', 'x\nx\n');
    expect(await runAxonPlan([statement('replace', 'nope.txt\n', 'a\n', 'b\n')], world.ctx(), meta)).toContain(
      '1 replace nope.txt: NOT_FOUND: nope.txt does not exist; create it with write_file',
    );
    expect(await runAxonPlan([statement('replace', 'dup.txt\n', 'x\n', 'y\n')], world.ctx(), meta)).toMatch(/1 replace dup\.txt: AMBIGUOUS: /);
    expect(await runAxonPlan([statement('replace', 'dup.txt\n', '\n', 'y\n')], world.ctx(), meta)).toMatch(/1 replace dup\.txt: INVALID_INPUT: /);
    expect(await world.read('dup.txt')).toBe('x\nx\n');
  });

  it('path attacks abort the plan: "..", symlink out, deny glob, "~", "$HOME", absolute outside', async () => {
    const outside = join(dirname(world.root), 'outside');
    await mkdir(outside);
    await symlink(outside, join(world.root, 'out'));
    const cases: Array<[string, string]> = [
      ['../escape.txt', 'FORBIDDEN'],
      ['out/x.txt', 'FORBIDDEN'],
      ['.env', 'POLICY_BLOCKED'],
      ['~/x.txt', 'INVALID_INPUT'],
      ['$HOME/x.txt', 'INVALID_INPUT'],
      [`${outside}/abs.txt`, 'FORBIDDEN'],
    ];
    for (const [target, code] of cases) {
      const text = await runAxonPlan([statement('write_file', 'ok.txt\n', 'fine\n'), statement('write_file', `${target}\n`, 'x\n')], world.ctx(), meta);
      expect(text).toContain(`2 write_file ${target}: ${code}: `);
      expect(text).toContain('plan: aborted at act 2 — nothing changed');
    }
    expect(await readdir(outside)).toEqual([]);
    expect(await world.exists('ok.txt')).toBe(false);
    expect(await world.exists('.env')).toBe(false);
    expect(await world.exists('$HOME')).toBe(false);
  });
});

describe('Axon check_cwd_match', () => {
  it('matches the resolved workspace root, trailing slashes ignored', async () => {
    for (const written of [world.root, `${world.root}/`, `${world.root}//`]) {
      const text = await runAxonPlan([statement('check_cwd_match', `${written}\n`)], world.ctx(), meta);
      expect(text).toBe(result([`1 check_cwd_match: ok (workspace root is ${world.root})`, 'plan: applied']));
    }
  });

  it('expands ~ to the home directory', async () => {
    const saved = process.env.HOME;
    process.env.HOME = dirname(world.root);
    try {
      const text = await runAxonPlan([statement('check_cwd_match', `~/${basename(world.root)}\n`)], world.ctx(), meta);
      expect(text).toContain('1 check_cwd_match: ok');
    } finally {
      process.env.HOME = saved;
    }
  });

  it('a different directory aborts with both paths named', async () => {
    const text = await runAxonPlan([statement('check_cwd_match', '/home/someone/else\n'), statement('write_file', 'a.txt\n', 'x\n')], world.ctx(), meta);
    expect(text).toContain(`1 check_cwd_match: MISMATCH: the workspace root is ${world.root}, not /home/someone/else`);
    expect(text).toContain('plan: aborted at act 1 — nothing changed');
    expect(await world.exists('a.txt')).toBe(false);
  });
});
