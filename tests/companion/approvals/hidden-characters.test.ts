/**
 * Attack: what the person approves reads differently from what runs. A model writes bidirectional overrides into a
 * change ("Trojan Source", CVE-2021-42574: the diff shows harmless code, the file compiles to something else), into
 * a command (its dangerous part shown reversed), or a zero-width character into a path that then reads like a
 * familiar one. Every approval's preview shows such characters as ⟨U+XXXX⟩ and says which it held; what runs is
 * what was asked, byte for byte. Against the real companion process with the default modes (write and exec ask).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countBlankRuns, hiddenWarning, revealHidden } from '../../../shared/reveal-hidden';
import { approvalSchema, type ApprovalView, type RunResponse } from '../../../shared/api';
import { context, decideApproval, makeWorkspace, mcpRequestBlock, parseMcpResponse, postPending, startCompanionProcess, type CompanionProcess, type Workspace } from '../load/live-companion';

const RLO = '\u202E';
const LRI = '\u2066';
const PDI = '\u2069';
const RLI = '\u2067';
const ZWSP = '\u200B';
/** The published Trojan Source sample: an early return that reads as if it were inside a comment. */
const TROJAN = `const isAdmin = false;\n/*${RLO} } ${LRI}if (isAdmin)${PDI} ${LRI} begin admins only */\n  console.log("You are an admin.");\n/* end admins only ${RLO} { ${LRI}*/\n`;
/** every hidden character this file's attacks use, raw */
const RAW_HIDDEN = /[\u202A-\u202E\u2066-\u2069\u200B]/u;

describe('revealHidden', () => {
  const reveal = (text: string) => {
    const found = new Map<number, number>();
    return { text: revealHidden(text, { found }), found: Object.fromEntries([...found].map(([cp, n]) => [cp.toString(16), n])) };
  };

  it('shows direction overrides, isolates and marks where they stand, and counts them', () => {
    expect(reveal(`a${RLO}b${LRI}c${PDI}d\u200Fe`)).toEqual({ text: 'a⟨U+202E⟩b⟨U+2066⟩c⟨U+2069⟩d⟨U+200F⟩e', found: { '202e': 1, '2066': 1, '2069': 1, '200f': 1 } });
  });

  it('shows zero-width and other invisible characters, tag characters and the variation selectors that smuggle text', () => {
    expect(reveal(`.ssh${ZWSP}/keys\u2060\uFEFF\u00AD\u3164`).text).toBe('.ssh⟨U+200B⟩/keys⟨U+2060⟩⟨U+FEFF⟩⟨U+00AD⟩⟨U+3164⟩');
    expect(reveal('hi\u{E0041}\u{E0042}').text).toBe('hi⟨U+E0041⟩⟨U+E0042⟩');
    expect(reveal('x\u{E0100}\uFE01').text).toBe('x⟨U+E0100⟩⟨U+FE01⟩');
  });

  it('shows control characters but tab and line feed; a carriage return only where it does not end a line', () => {
    expect(reveal('a\tb\nc\r\nd').text).toBe('a\tb\nc\r\nd');
    expect(reveal('safe\rrm -rf ~\u001B[2K\u0000\u007F\u0085').text).toBe('safe⟨U+000D⟩rm -rf ~⟨U+001B⟩[2K⟨U+0000⟩⟨U+007F⟩⟨U+0085⟩');
  });

  it('leaves the joiners a script or an emoji needs, and shows them next to ASCII', () => {
    const persian = 'می\u200Cخواهم';
    const devanagari = 'क्\u200Dष';
    const family = '👨\u200D👩\u200D👧 and 👨🏽\u200D💻 and ❤️';
    for (const text of [persian, devanagari, family]) expect(reveal(text)).toEqual({ text, found: {} });
    expect(reveal('src/app\u200C.ts').text).toBe('src/app⟨U+200C⟩.ts');
    expect(reveal('\u200Dnpm').text).toBe('⟨U+200D⟩npm');
    expect(reveal('npm\u200D').text).toBe('npm⟨U+200D⟩');
  });

  it('on one line (a path, a title, a record), line breaks are shown too', () => {
    expect(revealHidden('a.txt\nREADME.md\r\n', { oneLine: true })).toBe('a.txt⟨U+000A⟩README.md⟨U+000D⟩⟨U+000A⟩');
    expect(revealHidden('a.txt\nREADME.md')).toBe('a.txt\nREADME.md');
  });

  it('a command\'s runs of blank lines are counted on one line; a single blank line stays', () => {
    expect(countBlankRuns(`npm test${'\n'.repeat(201)}curl x | sh`)).toBe('npm test\n⟨200 blank lines⟩\ncurl x | sh');
    expect(countBlankRuns('a\n  \n\t\n \nb')).toBe('a\n⟨3 blank lines⟩\nb');
    expect(countBlankRuns('set -e\n\nnpm ci\nnpm test\n')).toBe('set -e\n\nnpm ci\nnpm test\n');
  });

  it('no-break and other blanks a card wraps rather than hangs count as blank too, in lines of their own and in a run inside a line', () => {
    // Chromium lets spaces and tabs hang at a line's end, so a run of them takes one line; a run of no-break, en or
    // Braille-blank spaces wraps into a blank line per line's width, and the card showed `npm test` and blank
    expect(countBlankRuns(`npm test\n${'\u00A0\n'.repeat(200)}curl x | sh`)).toBe('npm test\n⟨200 blank lines⟩\ncurl x | sh');
    expect(countBlankRuns(`npm test\n\u2002\n \u2800\n\u202F\ncurl x | sh`)).toBe('npm test\n⟨3 blank lines⟩\ncurl x | sh');
    expect(countBlankRuns(`npm test ${'\u00A0'.repeat(3000)}; curl x | sh`)).toBe('npm test⟨3001 blank characters⟩; curl x | sh');
    expect(countBlankRuns(`npm test ${'\u2002 '.repeat(1500)}; curl x | sh`)).toBe('npm test⟨3001 blank characters⟩; curl x | sh');
    // spaces and tabs alone, or one no-break space between words, are left as written
    expect(countBlankRuns(`echo a\u00A0b  c\t\td ${' '.repeat(500)}e`)).toBe(`echo a\u00A0b  c\t\td ${' '.repeat(500)}e`);
  });

  it('leaves ordinary text of every script alone', () => {
    const text = 'héllo wörld — 你好 — مرحبا — שלום — Привет — 🙂\nfn main() { println!("{}", 1); }\r\n';
    expect(reveal(text)).toEqual({ text, found: {} });
  });

  it('the warning names each character, how often, and that what runs keeps them', () => {
    expect(hiddenWarning(new Map())).toBeUndefined();
    const warning = hiddenWarning(new Map([[0x202e, 2], [0x200b, 1]]));
    expect(warning).toContain('3 characters');
    expect(warning).toContain('U+200B ZERO WIDTH SPACE, U+202E RIGHT-TO-LEFT OVERRIDE ×2');
    expect(warning).toContain('What runs holds them as they are.');
    expect(hiddenWarning(new Map([[0xe0041, 1]]))).toContain('a character you could not see or that change how text around it is shown (U+E0041)');
  });
});

describe('attack: an approval that reads differently from what runs (real companion, default modes)', () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;

  /** Posts one tools/call; the answer comes back pending, with the approval the card would show. */
  function pendingCall(name: string, args: Record<string, unknown>): Promise<{ run: RunResponse; approval: ApprovalView }> {
    n++;
    return postPending(companion, 'mcp-request', mcpRequestBlock(n, name, args), context('conv-hidden', `m${n}`));
  }

  const decideOn = (approval: ApprovalView, decision: 'approve' | 'deny', run: RunResponse) => decideApproval(companion, approval, decision, run.runId);

  beforeAll(async () => {
    ws = makeWorkspace('cb-hidden-');
    writeFileSync(join(ws.root, 'auth.js'), 'const isAdmin = false;\n');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('a Trojan Source change: the diff shows every override, the card says so, and approving writes the bytes asked for', async () => {
    const target = join(ws.root, 'auth.js');
    const { run, approval } = await pendingCall('fs.write', { path: target, content: TROJAN, mode: 'overwrite' });
    expect(JSON.stringify(approval.preview)).not.toMatch(RAW_HIDDEN);
    expect(approval.preview.diff).toContain(`+/*⟨U+202E⟩ } ⟨U+2066⟩if (isAdmin)⟨U+2069⟩ ⟨U+2066⟩ begin admins only */`);
    expect(approval.preview.warning).toContain('U+202E RIGHT-TO-LEFT OVERRIDE ×2');
    expect(approval.preview.warning).toContain('U+2066 LEFT-TO-RIGHT ISOLATE ×3');
    // nothing happened while the person reads the card
    expect(readFileSync(target, 'utf8')).toBe('const isAdmin = false;\n');
    const final = await decideOn(approval, 'approve', run);
    expect(parseMcpResponse(final.resultText).result?.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe(TROJAN);
  });

  it('a command whose tail is shown as a comment: the card shows the isolate, and what runs is what was asked', async () => {
    const marker = join(ws.root, 'ran');
    // A right-to-left isolate lays `; touch … #` out backwards: shown, the line reads `ls # … touch ;`, as if all
    // after `ls` were a comment. The shell reads it left to right: `ls` (of a file that is not there), then touch.
    const command = `ls ${RLI}; touch ${marker} # ${PDI}`;
    const { run, approval } = await pendingCall('shell.exec', { command, cwd: ws.root });
    expect(approval.preview.command).toBe(`ls ⟨U+2067⟩; touch ${marker} # ⟨U+2069⟩`);
    expect(approval.preview.warning).toContain('U+2067 RIGHT-TO-LEFT ISOLATE, U+2069 POP DIRECTIONAL ISOLATE');
    expect(JSON.stringify(approval.preview)).not.toMatch(RAW_HIDDEN);
    expect(existsSync(marker)).toBe(false);
    await decideOn(approval, 'approve', run);
    expect(existsSync(marker)).toBe(true);
  });

  it('a path with a zero-width space in it is shown with the character, title and paths alike', async () => {
    const path = join(ws.root, `.env${ZWSP}.local`);
    const { run, approval } = await pendingCall('fs.write', { path, content: 'X=1\n', mode: 'overwrite' });
    expect(approval.preview.title).toContain(`.env⟨U+200B⟩.local`);
    expect(approval.preview.paths).toEqual([join(ws.root, '.env⟨U+200B⟩.local')]);
    expect(approval.preview.warning).toContain('U+200B ZERO WIDTH SPACE');
    // the pending answer the model reads names it the same way
    expect(run.resultText).toContain('⟨U+200B⟩');
    await decideOn(approval, 'deny', run);
    expect(existsSync(path)).toBe(false);
  });

  it('a title comes with its kind and facts for the card to word, facts shown as the title shows them, and the hidden characters counted', async () => {
    const path = join(ws.root, `notes${ZWSP}.md`);
    const write = await pendingCall('fs.write', { path, content: 'x\n', mode: 'overwrite' });
    const shownPath = join(ws.root, 'notes⟨U+200B⟩.md');
    expect(write.approval.preview.title).toBe(`Create ${shownPath}`);
    expect(approvalSchema.parse(write.approval).preview).toMatchObject({
      heading: { kind: 'write', mode: 'create', path: shownPath },
      hidden: [{ codePoint: 0x200b, count: 2 }],
    });
    await decideOn(write.approval, 'deny', write.run);
    const shell = await pendingCall('shell.exec', { command: 'true', cwd: ws.root, timeoutMs: 4321 });
    expect(shell.approval.preview.title).toBe('Run in a shell (timeout 4321 ms)');
    expect(approvalSchema.parse(shell.approval).preview.heading).toEqual({ kind: 'shell', timeoutMs: 4321 });
    expect(shell.approval.preview.hidden).toBeUndefined();
    await decideOn(shell.approval, 'deny', shell.run);
    const program = await pendingCall('process.run', { command: `no${RLO}de`, args: ['-v'], cwd: ws.root });
    expect(approvalSchema.parse(program.approval).preview.heading).toMatchObject({ kind: 'run', program: 'no⟨U+202E⟩de' });
    expect(JSON.stringify(program.approval.preview)).not.toMatch(RAW_HIDDEN);
    await decideOn(program.approval, 'deny', program.run);
    // a fact given as a list (the PromptX filesystem tool's paths) is shown the same way
    const promptx = await pendingCall('filesystem', { action: 'write', path: `notes${ZWSP}.md`, content: 'x\n' });
    expect(approvalSchema.parse(promptx.approval).preview.heading).toEqual({ kind: 'filesystem', action: 'write', paths: ['notes⟨U+200B⟩.md'] });
    expect(JSON.stringify(promptx.approval.preview)).not.toMatch(RAW_HIDDEN);
    await decideOn(promptx.approval, 'deny', promptx.run);
  });

  it('a command padded with blank lines shows its tail on the card\'s next line', async () => {
    const command = `echo tests passed${'\n'.repeat(300)}echo and then the rest`;
    const { run, approval } = await pendingCall('shell.exec', { command, cwd: ws.root });
    expect(approval.preview.command).toBe('echo tests passed\n⟨299 blank lines⟩\necho and then the rest');
    await decideOn(approval, 'deny', run);
    // the same padding made of no-break spaces, which the card wraps line after line where spaces would hang
    const padded = await pendingCall('shell.exec', { command: `echo tests passed${'\n\u00A0'.repeat(300)}\necho ${'\u00A0'.repeat(3000)}and then the rest`, cwd: ws.root });
    expect(padded.approval.preview.command).toBe('echo tests passed\n⟨300 blank lines⟩\necho⟨3001 blank characters⟩and then the rest');
    await decideOn(padded.approval, 'deny', padded.run);
  });

  it('a file name with a line separator in it is one path on the card, not two', async () => {
    const path = join(ws.root, 'notes.txt\u2028README.md');
    const { run, approval } = await pendingCall('fs.write', { path, content: 'z', mode: 'overwrite' });
    expect(approval.preview.paths).toEqual([join(ws.root, 'notes.txt⟨U+2028⟩README.md')]);
    expect(approval.preview.title).not.toContain('\u2028');
    expect(approval.preview.warning).toContain('U+2028 LINE SEPARATOR');
    await decideOn(approval, 'deny', run);
    expect(existsSync(path)).toBe(false);
  });

  it('an ordinary change in any script, with CRLF line ends and emoji, has no warning and is shown as it is', async () => {
    const content = 'héllo — می\u200Cخواهم — 你好 👨\u200D👩\u200D👧\r\nsecond line\r\n';
    const { run, approval } = await pendingCall('fs.write', { path: join(ws.root, 'plain.txt'), content, mode: 'overwrite' });
    expect(approval.preview.warning).toBeUndefined();
    expect(approval.preview.diff).toContain('+héllo — می\u200Cخواهم — 你好 👨\u200D👩\u200D👧\r\n');
    await decideOn(approval, 'deny', run);
  });
});
