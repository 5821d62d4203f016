/**
 * Program output that is not UTF-8, against the real companion process over POST /v1/run, with real programs printing
 * real bytes: GBK as a Chinese locale prints it, Latin-1 from a program whose encoding is not known, a binary printed
 * by mistake, and a GBK stream the output cap cuts. The model is told what it reads, never handed U+FFFD in silence.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_AUTO,
  context,
  makeWorkspace,
  mcpRequestBlock,
  mcpResultText,
  postBlock,
  startCompanionProcess,
  type CompanionProcess,
  type Workspace,
} from '../load/live-companion';

/** 中文目录 (Chinese for "Chinese directory") in GBK, as `dir` prints a folder's name on a Chinese Windows. */
const GBK_NAME = Buffer.from([0xd6, 0xd0, 0xce, 0xc4, 0xc4, 0xbf, 0xc2, 0xbc]);

describe('program output that is not UTF-8', () => {
  let ws: Workspace;
  let companion: CompanionProcess;
  let n = 0;

  async function run(name: string, args: Record<string, unknown>): Promise<string> {
    n++;
    const result = await postBlock(companion, 'mcp-request', mcpRequestBlock(n, name, args), context('conv-enc', `m${n}`));
    return mcpResultText(result.resultText);
  }

  /** process.run of node printing the bytes `script` builds, with `env` over the program's environment. */
  function printBytes(script: string, env: Record<string, string> = {}, stream = 'stdout'): Promise<string> {
    return run('process.run', { command: process.execPath, args: ['-e', `process.${stream}.write(${script})`], env });
  }

  beforeAll(async () => {
    ws = makeWorkspace('cb-enc-');
    companion = await startCompanionProcess({ root: ws.root, home: ws.home, config: { ...ALL_AUTO, limits: { maxOutputBytes: 8192, maxResultChars: 6000 } } });
  }, 60_000);

  afterAll(async () => {
    await companion?.stop();
    rmSync(ws.base, { recursive: true, force: true });
  });

  it('GBK output of a program in a GBK locale is decoded as GBK and says so', async () => {
    const text = await printBytes(`Buffer.from('${GBK_NAME.toString('hex')}0a', 'hex')`, { LANG: 'zh_CN.GBK' });
    expect(text).toContain('中文目录');
    expect(text).not.toContain('\uFFFD');
    expect(text).toMatch(/not UTF-8.*decoded as gbk.*LANG=zh_CN\.GBK/);
  });

  it('a secret in GBK output is still redacted', async () => {
    const script = `Buffer.concat([Buffer.from('${GBK_NAME.toString('hex')}', 'hex'), Buffer.from(' DB_PASSWORD=hunter2hunter2\\n')])`;
    const text = await printBytes(script, { LC_ALL: 'zh_CN.GBK' }, 'stderr');
    expect(text).toContain('中文目录 DB_PASSWORD=[REDACTED]');
    expect(text).not.toContain('hunter2');
  });

  it('output not UTF-8 in a UTF-8 locale says how many bytes were replaced', async () => {
    // café and naïve in Latin-1: two bytes that are no UTF-8
    const text = await printBytes(`Buffer.from('636166e920616e64206e61ef76650a', 'hex')`, { LANG: 'en_US.UTF-8' });
    expect(text).toContain('caf\uFFFD and na\uFFFDve');
    expect(text).toMatch(/2 bytes .*not UTF-8.*U\+FFFD/);
  });

  it('binary output is a note with its size and how to see it, not garbage', async () => {
    const script = `Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256))`;
    const text = await printBytes(script);
    expect(text).toMatch(/binary output \(3000 bytes\), not shown/);
    expect(text).toContain('xxd');
    expect(text).not.toContain('\uFFFD');
    expect(text.length).toBeLessThan(600);
  });

  it('GBK output cut by the output cap is never cut inside a character', async () => {
    // lines of GBK with no break byte inside them: the cap (8192 bytes) falls inside one of them
    const line = `${GBK_NAME.toString('hex').repeat(50)}0a`;
    const text = await printBytes(`Buffer.from('${line}'.repeat(40), 'hex')`, { LANG: 'zh_CN.GB18030' });
    // 16 040 bytes against the cap's 8 192 (the result's own cut may take out the cap's marker with the middle)
    expect(text).toMatch(/omitted/);
    expect(text).not.toContain('\uFFFD');
    const shown = text.split('\n').filter((l) => /[^\x00-\x7f]/.test(l) && !l.startsWith('['));
    expect(shown.length).toBeGreaterThan(2);
    // a cut inside a character would read the bytes after it shifted by one: other characters than these
    for (const l of shown) expect('中文目录'.repeat(50)).toContain(l);
  });

  it('a result too long for the chat is not cut inside a character UTF-16 holds as two (an emoji)', async () => {
    // one ASCII letter first, so the cut at half the stream's budget falls between an emoji's two halves
    const text = await printBytes(`'x' + '\u{1F600}'.repeat(1900) + '\\n'`);
    expect(text).toMatch(/characters omitted/);
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});
