/**
 * Attack: a file that runs code reached through a symlink, where writes are `auto` (real companion, the root is its
 * home). A dotfile manager made `~/.bashrc` a link to `~/dotfiles/bashrc`, `~/.config` one to `~/dotfiles/config`
 * and nvim's folder in it one to `~/dotfiles/nvim`; an allow-listed program on PATH is a link to its script (as nvm's `bin/npm` is). A write is
 * decided on the path it resolves to, which no rule named: an append to `~/.bashrc` by its own name, a write to the
 * dotfiles copy, and a rewrite of the program's script were all ordinary writes with no card — and the allow-listed
 * program then ran the model's script. The target of such a link now runs code as the link does.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  context,
  makeWorkspace,
  mcpRequestBlock,
  mcpResultText,
  parseMcpResponse,
  postBlock,
  startCompanionProcess,
  writeDeniedAsExec,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

const SYSTEM_PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
const BASHRC = '# mine\n';
const TOOL = '#!/bin/sh\necho the real tool\n';

describe('attack: a file that runs code, written through the link to it or by its target\'s name (real companion, writes auto)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;

  beforeAll(async () => {
    ws = makeWorkspace('cb-runs-code-linked-');
    const at = (...parts: string[]) => join(ws.root, ...parts);
    mkdirSync(at('dotfiles', 'nvim'), { recursive: true });
    writeFileSync(at('dotfiles', 'bashrc'), BASHRC);
    symlinkSync(at('dotfiles', 'bashrc'), at('.bashrc'));
    // ~/.config is itself a link, and nvim's folder in it another
    mkdirSync(at('dotfiles', 'config', 'autostart'), { recursive: true });
    symlinkSync(at('dotfiles', 'config'), at('.config'));
    symlinkSync(at('dotfiles', 'nvim'), at('dotfiles', 'config', 'nvim'));
    // rcm links file by file, into real folders: ~/.claude/settings.json and ~/.config/fish/config.fish
    mkdirSync(at('dotfiles', 'claude'));
    writeFileSync(at('dotfiles', 'claude', 'settings.json'), '{}\n');
    mkdirSync(at('.claude'));
    symlinkSync(at('dotfiles', 'claude', 'settings.json'), at('.claude', 'settings.json'));
    mkdirSync(at('dotfiles', 'fish'));
    writeFileSync(at('dotfiles', 'fish', 'config.fish'), 'set -x EDITOR nvim\n');
    mkdirSync(at('dotfiles', 'config', 'fish'));
    symlinkSync(at('dotfiles', 'fish', 'config.fish'), at('dotfiles', 'config', 'fish', 'config.fish'));
    mkdirSync(at('tools', 'bin'), { recursive: true });
    mkdirSync(at('tools', 'lib'));
    writeFileSync(at('tools', 'lib', 'tool.sh'), TOOL, { mode: 0o755 });
    symlinkSync('../lib/tool.sh', at('tools', 'bin', 'mytool'));
    // an ordinary link in the home folder
    mkdirSync(at('docs'));
    symlinkSync(at('docs', 'notes.md'), at('notes.md'));
    companion = await startCompanionProcess({
      root: ws.root,
      home: ws.home,
      env: { HOME: ws.root, PATH: `${at('tools', 'bin')}:${SYSTEM_PATH}` },
      config: { modes: { write: 'auto', exec: 'confirm' }, allowCommands: ['mytool'] },
    });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it.each([
    ['.bashrc', '.bashrc', /shell or desktop session runs when it starts, through the link .*\.bashrc/],
    ['dotfiles/bashrc', 'dotfiles/bashrc', /through the link .*\.bashrc/],
    ['dotfiles/nvim/init.lua (a folder linked as ~/.config/nvim)', 'dotfiles/nvim/init.lua', /editor.*through the link .*nvim/],
    ['dotfiles/config/autostart/x.desktop (~/.config is the link)', 'dotfiles/config/autostart/x.desktop', /autostart entry.*through the link .*\.config/],
    ['dotfiles/claude/settings.json (linked file by file into a real ~/.claude)', 'dotfiles/claude/settings.json', /coding agent's settings.*through the link .*\.claude\/settings\.json/],
    ['dotfiles/fish/config.fish (linked file by file into a real ~/.config/fish)', 'dotfiles/fish/config.fish', /shell or desktop session runs when it starts, through the link .*fish\/config\.fish/],
    ['tools/bin/mytool (a program on PATH that is a link)', 'tools/bin/mytool', /folder on PATH.*through the link .*mytool/],
    ['tools/lib/tool.sh (that program\'s target)', 'tools/lib/tool.sh', /folder on PATH.*through the link .*mytool/],
  ])('a write to %s asks on an exec card that says why; denied, nothing is written', async (_name, file, why) => {
    n++;
    await writeDeniedAsExec(companion, { path: join(ws.root, file), content: '#!/bin/sh\necho PWNED\n', mode: 'append' }, context('conv-linked', `m${n}`), why);
    expect(readFileSync(join(ws.root, 'dotfiles', 'bashrc'), 'utf8')).toBe(BASHRC);
    expect(readFileSync(join(ws.root, 'tools', 'lib', 'tool.sh'), 'utf8')).toBe(TOOL);
  });

  it('the allow-listed program still runs its own script, without a card', async () => {
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock('run', 'process.run', { command: 'mytool' }), context('conv-linked', 'run'));
    expect(mcpResultText(run.resultText)).toContain('the real tool');
    expect(mcpResultText(run.resultText)).not.toContain('PWNED');
  });

  it('a link whose own name runs nothing is an ordinary write, auto as the person set it', async () => {
    const run = await postBlock(
      companion,
      'mcp-request',
      mcpRequestBlock('notes', 'fs.write', { path: join(ws.root, 'notes.md'), content: 'hello\n', mode: 'overwrite' }),
      context('conv-linked', 'notes'),
    );
    expect(parseMcpResponse(run.resultText).result?.content[0]?.text).toBe('WRITE_SUCCESS');
  });
});
