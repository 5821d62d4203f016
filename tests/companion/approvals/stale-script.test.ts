/**
 * An approved command runs the scripts its card showed. A card for `bash run.sh` shows the command line, not the
 * script; the card may wait half an hour while the model's next block (where writes are auto), another call or any
 * program rewrites run.sh. Approving then must not run text nobody saw: the scripts a command names inside the roots
 * (the program when it is a path, the script of a well-known interpreter) are pinned by their content when the card
 * is made, and a changed one refuses the run with CONFLICT naming it. Against the real companion process with the
 * default modes (exec asks).
 */
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  context,
  decideApproval,
  makeWorkspace,
  mcpRequestBlock,
  parseMcpResponse,
  postPending,
  startCompanionProcess,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

const SHOWN = 'echo shown-content\n';
const SWAPPED = 'echo swapped-content\n';

describe('approving a command after the script it runs changed', () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;
  const next = () => context('conv-stale-script', `m${++n}`);

  beforeAll(async () => {
    ws = makeWorkspace('cb-stale-script-');
    mkdirSync(join(ws.root, 'tools'));
    companion = await startCompanionProcess({ root: ws.root, home: ws.home });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  /** posts the call, rewrites `script` while its card waits, approves, and returns the run's answer */
  async function approveAfterRewrite(tool: string, args: Record<string, unknown>, script: string, swapped = SWAPPED) {
    const { run, approval } = await postPending(companion, 'mcp-request', mcpRequestBlock(++n, tool, args), next());
    writeFileSync(script, swapped);
    const done = await decideApproval(companion, approval, 'approve', run.runId);
    return { done, approval, text: done.resultText ?? '' };
  }

  function expectRefused(result: { done: { status: string }; approval: { id: string }; text: string }, script: string) {
    expect(result.text).not.toContain('swapped-content');
    expect(result.done.status).toBe('error');
    expect(parseMcpResponse(result.text).error?.message).toBe(
      `CONFLICT: ${JSON.stringify(script)}, which the approved command runs, changed while approval ${result.approval.id} waited: the card showed the command with the file as it was, so what would run now is not what was approved; nothing was run — send the call again for a new card`,
    );
  }

  it.each([
    ['bash run.sh', 'process.run', (root: string) => ({ command: 'bash', args: ['run.sh'], cwd: root }), 'run.sh'],
    ['python -u x.py', 'process.run', () => ({ command: 'python3', args: ['-u', 'x.py'] }), 'x.py'],
    ['node --import ./pre.mjs y.js (the preload)', 'process.run', () => ({ command: 'node', args: ['--import', './pre.mjs', 'y.js'] }), 'pre.mjs'],
    ['node --import ./pre.mjs y.js (the script)', 'process.run', () => ({ command: 'node', args: ['--import', './pre.mjs', 'y.js'] }), 'y.js'],
    ['sh -c "./x.sh"', 'process.run', () => ({ command: 'sh', args: ['-c', './x.sh'] }), 'x.sh'],
    ['a relative script resolved against the cwd', 'process.run', (root: string) => ({ command: 'sh', args: ['go.sh'], cwd: join(root, 'tools') }), 'tools/go.sh'],
    ['./x.sh as the program', 'process.run', () => ({ command: './x.sh' }), 'x.sh'],
    ['shell.exec of cd tools && bash go.sh', 'shell.exec', () => ({ command: 'cd tools && bash go.sh' }), 'tools/go.sh'],
    // a wrapper's option value or operand is not the program: the script after it is what runs
    ['timeout 60 bash run.sh', 'process.run', () => ({ command: 'timeout', args: ['60', 'bash', 'run.sh'] }), 'run.sh'],
    ['nice -n 10 python x.py', 'process.run', () => ({ command: 'nice', args: ['-n', '10', 'python3', 'x.py'] }), 'x.py'],
    ['env -C tools bash go.sh (the script of the folder env changes into)', 'shell.exec', () => ({ command: 'env -C tools bash go.sh' }), 'tools/go.sh'],
    // a variable the call sets that names what runs: the program on its PATH, a preload, bash's start file
    ['a program found on the PATH the call sets', 'process.run', (root: string) => ({ command: 'go-tool', env: { PATH: `${join(root, 'tools')}:/usr/bin:/bin` } }), 'tools/go-tool'],
    ['NODE_OPTIONS=--require ./hook.js node y.js (the preload)', 'process.run', () => ({ command: 'node', args: ['y.js'], env: { NODE_OPTIONS: '--require ./hook.js' } }), 'hook.js'],
    ['BASH_ENV=./start.sh bash -c true (the file bash reads first)', 'process.run', () => ({ command: 'bash', args: ['-c', 'true'], env: { BASH_ENV: './start.sh' } }), 'start.sh'],
    // shell.exec's env is the whole shell's: the PATH it sets finds the program of every command of the line
    ['shell.exec of a second command, on the PATH the call sets', 'shell.exec', (root: string) => ({ command: 'true; go-tool', env: { PATH: `${join(root, 'tools')}:/usr/bin:/bin` } }), 'tools/go-tool'],
    ['shell.exec of export PATH=./tools:$PATH; go-tool', 'shell.exec', () => ({ command: 'export PATH=./tools:$PATH; go-tool' }), 'tools/go-tool'],
  ])('%s: the rewritten script is not run, CONFLICT names it', async (_name, tool, argsFor, relative) => {
    const script = join(ws.root, relative);
    const isNode = /\.(m?js)$/.test(relative);
    const shown = isNode ? "console.log('shown-content')\n" : SHOWN;
    const swapped = isNode ? "console.log('swapped-content')\n" : SWAPPED;
    // every file the commands above name exists, so the one not being rewritten runs as it is
    for (const other of ['pre.mjs', 'y.js']) writeFileSync(join(ws.root, other), '\n');
    writeFileSync(script, relative.endsWith('.py') ? "print('shown-content')\n" : shown);
    chmodSync(script, 0o755);
    const result = await approveAfterRewrite(tool, argsFor(ws.root), script, relative.endsWith('.py') ? "print('swapped-content')\n" : swapped);
    expectRefused(result, script);
    // the card named it as what runs
    expect(result.approval.preview.runs).toContain(script);
  });

  it.each([
    ['make: the Makefile', 'Makefile', { command: 'make', args: ['-s', 'all'] }, 'all:\n\t@echo shown-content\n', 'all:\n\t@echo swapped-content\n'],
    ['make -C sub -f x.mk: the makefile make reads there', 'sub/x.mk', { command: 'make', args: ['-s', '-C', 'sub', '-f', 'x.mk'] }, 'all:\n\t@echo shown-content\n', 'all:\n\t@echo swapped-content\n'],
    ['npm test: the package.json holding the script line', 'pkg/package.json', { command: 'npm', args: ['test'], cwd: 'pkg' }, '{"scripts":{"test":"echo shown-content"}}', '{"scripts":{"test":"echo swapped-content"}}'],
    ['npm test: a file the script line runs', 'pkg/t.sh', { command: 'npm', args: ['test'], cwd: 'pkg' }, SHOWN, SWAPPED],
    ['npm run build in a folder with no package.json: the one npm finds above', 'pkg/package.json', { command: 'npm', args: ['run', 'build'], cwd: 'pkg/src' }, '{"scripts":{"build":"echo shown-content"}}', '{"scripts":{"build":"echo swapped-content"}}'],
  ])('%s is pinned: rewritten while the card waits, CONFLICT names it', async (_name, relative, args, shown, swapped) => {
    mkdirSync(join(ws.root, 'sub'), { recursive: true });
    mkdirSync(join(ws.root, 'pkg', 'src'), { recursive: true });
    writeFileSync(join(ws.root, 'pkg', 'package.json'), '{"scripts":{"test":"sh t.sh"}}');
    writeFileSync(join(ws.root, 'pkg', 't.sh'), SHOWN);
    const script = join(ws.root, relative);
    writeFileSync(script, shown);
    const cwd = 'cwd' in args ? join(ws.root, args.cwd as string) : ws.root;
    const result = await approveAfterRewrite('process.run', { ...args, cwd }, script, swapped);
    expectRefused(result, script);
    expect(result.approval.preview.runs).toContain(script);
  });

  it.each([
    ["python -m pytool: the package's __main__.py", 'pytool/__main__.py', ['-m', 'pytool']],
    ['python -m pytool.cli: the module in the package', 'pytool/cli.py', ['-m', 'pytool.cli']],
    ['python -um pytool.cli: the module after clustered options', 'pytool/cli.py', ['-um', 'pytool.cli']],
    ["python -m pytool: the package's __init__.py, which runs first", 'pytool/__init__.py', ['-m', 'pytool']],
  ])('%s is pinned: rewritten while the card waits, CONFLICT names it', async (_name, relative, args) => {
    mkdirSync(join(ws.root, 'pytool'), { recursive: true });
    for (const file of ['__init__.py', '__main__.py', 'cli.py']) writeFileSync(join(ws.root, 'pytool', file), file === '__init__.py' ? '' : "print('shown-content')\n");
    const script = join(ws.root, relative);
    const result = await approveAfterRewrite('process.run', { command: 'python3', args, cwd: ws.root }, script, "print('swapped-content')\n");
    expectRefused(result, script);
    expect(result.approval.preview.runs).toContain(script);
  });

  it('python -m of an installed module is pinned as missing in the folder it runs in: a module of its name made there while the card waits would run instead, CONFLICT names it', async () => {
    const shadow = join(ws.root, 'calendar.py');
    const result = await approveAfterRewrite('process.run', { command: 'python3', args: ['-m', 'calendar', '2026'], cwd: ws.root }, shadow, "print('swapped-content')\n");
    expectRefused(result, shadow);
    rmSync(shadow);
  });

  it.each([
    ['include', 'mk/rules.mk'],
    ['-include', 'mk/rules.mk'],
    ['include, from a file it includes in turn', 'mk/deeper.mk'],
  ])('make: a makefile the Makefile names with %s is pinned: rewritten while the card waits, CONFLICT names it', async (how, relative) => {
    const dir = join(ws.root, 'inc-make');
    mkdirSync(join(dir, 'mk'), { recursive: true });
    const directive = how.startsWith('-include') ? '-include' : 'include';
    writeFileSync(join(dir, 'Makefile'), `${directive} mk/rules.mk # the project's rules\n`);
    const rule = (word: string) => `all:\n\t@echo ${word}-content\n`;
    if (relative === 'mk/deeper.mk') {
      writeFileSync(join(dir, 'mk', 'rules.mk'), 'include mk/deeper.mk\n');
      writeFileSync(join(dir, 'mk', 'deeper.mk'), rule('shown'));
    } else writeFileSync(join(dir, 'mk', 'rules.mk'), rule('shown'));
    const script = join(dir, relative);
    const result = await approveAfterRewrite('process.run', { command: 'make', args: ['-s', 'all'], cwd: dir }, script, rule('swapped'));
    expectRefused(result, script);
    expect(result.approval.preview.runs).toContain(script);
  });

  it('a makefile included by a name known only when make runs cannot be pinned: the card says so, naming the line as written', async () => {
    const dir = join(ws.root, 'var-make');
    mkdirSync(join(dir, 'mk'), { recursive: true });
    writeFileSync(join(dir, 'Makefile'), 'DEPS := mk/deps.mk\ninclude $(DEPS)\n-include $(wildcard mk/*.local.mk) # the person\'s own\ninclude mk/rules.mk\nall:\n\t@echo shown-content\n');
    writeFileSync(join(dir, 'mk', 'rules.mk'), '');
    const { run, approval } = await postPending(companion, 'mcp-request', mcpRequestBlock(++n, 'process.run', { command: 'make', args: ['-s', 'all'], cwd: dir }), next());
    expect(approval.preview.unpinned).toEqual(['include $(DEPS)', '-include $(wildcard mk/*.local.mk)']);
    expect(approval.preview.runs).toEqual([join(dir, 'Makefile'), join(dir, 'mk', 'rules.mk')]);
    await decideApproval(companion, approval, 'deny', run.runId);
  });

  it('a script known only when the command runs cannot be pinned: the card says so, naming it as written', async () => {
    const { run, approval } = await postPending(companion, 'mcp-request', mcpRequestBlock(++n, 'shell.exec', { command: 'cd tools && bash "$SCRIPT"' }), next());
    expect(approval.preview.unpinned).toEqual(['$SCRIPT']);
    expect(approval.preview.runs).toBeUndefined();
    await decideApproval(companion, approval, 'deny', run.runId);
  });

  it('a script reached through a link is pinned by the file the link leads to', async () => {
    const real = join(ws.root, 'tools', 'real.sh');
    writeFileSync(real, SHOWN);
    symlinkSync(real, join(ws.root, 'linked.sh'));
    const result = await approveAfterRewrite('process.run', { command: 'bash', args: ['linked.sh'] }, real);
    expectRefused(result, real);
    expect(result.approval.preview.runs).toEqual([join(ws.root, 'linked.sh'), real]);
  });

  const plan = (fileOperations: unknown[], command: string) =>
    `#####--\n${JSON.stringify({ type: 'operate', metadata: { step_id: 's1', reason: 'run' }, file_operations: fileOperations, program_operations: [{ name: 'go', command }] })}\n--#####`;

  it("an auto_coder plan's program is not run on a script rewritten while the card waited, nor any of the plan", async () => {
    const script = join(ws.root, 'plan.sh');
    writeFileSync(script, SHOWN);
    const { run, approval } = await postPending(companion, 'autocoder', plan([{ action_type: 'create_file', path: 'made.txt', file_content: 'x\n' }], 'bash plan.sh'), next());
    writeFileSync(script, SWAPPED);
    const done = await decideApproval(companion, approval, 'approve', run.runId);
    expect(done.resultText).not.toContain('swapped-content');
    expect(done.resultText).toContain(`${JSON.stringify(script).replace(/"/g, '\\"')}, which the approved command runs, changed while approval ${approval.id} waited`);
    expect(existsSync(join(ws.root, 'made.txt'))).toBe(false);
  });

  it('a plan that writes the script it then runs runs it as its diff showed: the change is part of what was approved', async () => {
    const script = join(ws.root, 'own.sh');
    writeFileSync(script, SHOWN);
    const { run, approval } = await postPending(companion, 'autocoder', plan([{ action_type: 'create_file', path: 'own.sh', file_content: 'echo planned-content\n' }], 'bash own.sh'), next());
    expect(approval.preview.diff).toContain('+echo planned-content');
    const done = await decideApproval(companion, approval, 'approve', run.runId);
    expect(done.resultText).toContain('planned-content');
  });

  it('a script left alone, or saved again with the same bytes, runs as approved', async () => {
    const script = join(ws.root, 'same.sh');
    writeFileSync(script, SHOWN);
    const result = await approveAfterRewrite('process.run', { command: 'bash', args: ['same.sh'] }, script, SHOWN);
    expect(result.done.status).toBe('done');
    expect(result.text).toContain('shown-content');
  });
});
