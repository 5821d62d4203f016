/**
 * attack: a secret printed by a program reaches the chat through live output (auto_coder runtime feedback is
 * typed in from the ws program-output events). The real process manager, a real shell, the real redaction.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig, policyFromConfig } from '../../../companion/policy/load-config';
import { redact } from '../../../companion/policy/redact';
import { createProcessManager } from '../../../companion/processes';
import { createOutputRedactor } from '../../../companion/processes/redacted-output';
import type { ProgramOutputEvent } from '../../../companion/types';

const policy = policyFromConfig(parseConfig({}), [{ root: process.cwd(), base: process.cwd(), key: 'cwd' }]);
const TOKEN = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
const processes = createProcessManager({ killGraceMs: 200 });

afterEach(async () => {
  await processes.stopAll();
});

async function run(shell: string, options: { flushMs?: number } = {}): Promise<ProgramOutputEvent[]> {
  const published: ProgramOutputEvent[] = [];
  const redactor = createOutputRedactor(policy, (event) => published.push(event), options);
  const stopOutput = processes.onOutput((event) => redactor.push(event));
  const stopExit = processes.onExit((info) => redactor.end(info.id));
  try {
    const handle = processes.start({
      name: 'leak',
      shell,
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      timeoutMs: 10_000,
      maxOutputBytes: 1024 * 1024,
      origin: { runId: 'r', site: 'chatgpt', conversationId: 'c' },
    });
    await handle.done;
    return published;
  } finally {
    stopOutput();
    stopExit();
    redactor.close();
  }
}

function text(events: ProgramOutputEvent[], stream: 'stdout' | 'stderr' = 'stdout'): string {
  return events
    .filter((e) => e.stream === stream)
    .map((e) => e.chunk)
    .join('');
}

describe('attack: a secret in live program output', () => {
  it('a token printed in two writes, split in the middle, never goes out whole or in part', async () => {
    const events = await run(`printf 'token=${TOKEN.slice(0, 10)}'; sleep 0.05; printf '${TOKEN.slice(10)} done\\n'; echo next line`, { flushMs: 5000 });
    const out = text(events);
    expect(out).not.toContain(TOKEN.slice(0, 10));
    expect(out).not.toContain(TOKEN.slice(10));
    expect(out).toContain('[REDACTED]');
    expect(out).toContain('next line\n');
  });

  it('colour codes are taken out of live output, and a secret they split is still redacted', async () => {
    const out = text(await run("printf '\\033[32mPASS\\033[0mWORD=hunter2\\n\\033[1;31mFAIL\\033[0m one test\\n'"));
    expect(out).not.toContain('\x1b');
    expect(out).not.toContain('hunter2');
    expect(out).toBe('PASSWORD=[REDACTED]\nFAIL one test\n');
  });

  it('on stderr too', async () => {
    const events = await run(`echo "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" >&2`);
    expect(text(events, 'stderr')).not.toContain('wJalrXUtnFEMI');
  });

  it('offsets count the bytes the client receives, with no gap when nothing was lost', async () => {
    const events = await run(`for i in 1 2 3; do echo "line $i ${TOKEN}"; sleep 0.02; done`);
    let next = 0;
    for (const event of events) {
      expect(event.offset).toBe(next);
      next += Buffer.byteLength(event.chunk);
    }
    expect(text(events)).toBe('line 1 [REDACTED]\nline 2 [REDACTED]\nline 3 [REDACTED]\n');
  });

  it('a line without a newline (a progress bar) still goes out after the hold time', async () => {
    // the line up to its last blank after one hold time, the word being written after eight
    const events = await run(`printf 'progress 10%%'; sleep 1.2; printf '\\rprogress 100%%\\n'`, { flushMs: 100 });
    const done = events.findIndex((e) => e.chunk.includes('100%'));
    expect(text(events.slice(0, done))).toBe('progress 10%');
    expect(text(events)).toBe('progress 10%\rprogress 100%\n');
  });

  it('a token printed in two writes with a pause longer than the hold time: neither part goes out', async () => {
    const events = await run(`printf 'token=${TOKEN.slice(0, 12)}'; sleep 0.5; printf '${TOKEN.slice(12)} done\\n'`, { flushMs: 100 });
    const out = text(events);
    expect(out).not.toContain(TOKEN.slice(0, 12));
    expect(out).not.toContain(TOKEN.slice(12));
    expect(out).toBe('token=[REDACTED] done\n');
  });

  it('a secret known by what precedes it, printed after a pause: "Bearer " then the token', async () => {
    const bearer = 'q8Zr2LmX0vTy7Np4Kd9Wc1Hs6Jb3Gf5A';
    const events = await run(`printf 'Authorization: Bearer '; sleep 0.5; printf '${bearer}'; sleep 0.5; printf ' sent\\n'`, { flushMs: 100 });
    const out = text(events);
    expect(out).not.toContain(bearer.slice(0, 8));
    expect(out).toBe('Authorization: Bearer [REDACTED] sent\n');
  });

  it('a private key printed a line at a time: no line of it goes out, and what follows its end does', async () => {
    const body = ['b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW', 'QyNTUxOQAAACDxX2vQ7Yp0Lm3Nk8Rt5Wq1Zs4Hc9Jf2Ab6Gd0Ke7PuIwAAAJjZ8x1g2fMd'];
    const events = await run(
      `echo '-----BEGIN OPENSSH PRIVATE KEY-----'; sleep 0.1; echo '${body[0]}'; sleep 0.1; echo '${body[1]}'; sleep 0.1; echo '-----END OPENSSH PRIVATE KEY-----'; sleep 0.1; echo after`,
    );
    expect(events.length).toBeGreaterThan(2);
    const out = text(events);
    for (const line of body) expect(out).not.toContain(line.slice(0, 12));
    expect(out).toBe('[REDACTED]\nafter\n');
  });

  it('a .netrc printed a line at a time: the password alone on its write is still known by the machine line above', async () => {
    const events = await run(`echo 'machine api.example.com'; sleep 0.1; echo '  login me'; sleep 0.1; echo '  password s3cr3t-netrc'; sleep 0.1; echo done`);
    expect(events.length).toBeGreaterThan(2);
    const out = text(events);
    expect(out).not.toContain('s3cr3t');
    expect(out).toBe(redact('machine api.example.com\n  login me\n  password s3cr3t-netrc\ndone\n', policy));
    expect(out).toBe('machine api.example.com\n  login me\n  password [REDACTED]\ndone\n');
  });

  it('a .env printed as UTF-16 (a NUL next to every letter, which the chat drops): the password never goes out', async () => {
    const events = await run(`printf 'DB_PASSWORD=s3cr3t-utf16\\n' | iconv -f UTF-8 -t UTF-16LE; sleep 0.1; echo done`);
    const out = text(events).replaceAll('\0', '');
    expect(out).not.toContain('s3cr3t');
    expect(out).toBe('DB_PASSWORD=[REDACTED]\ndone\n');
  });
});
