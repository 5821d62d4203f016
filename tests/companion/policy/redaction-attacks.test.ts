/**
 * Issue 9, finding 3: redaction that runs on the window a call asked for, not on the file, can be sidestepped —
 * a range that starts inside a secret, a line that holds only part of a key block, an encoding that hides the
 * text from the patterns, a cut that leaves a secret too short to match. Every attack goes through the real
 * pipeline (callTool: validate → plan → authorize → run → redact and cap) on a real temp workspace with the
 * built-in redactions, and checks that no piece of the secret reaches what a model reads.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Outcome } from '../../../shared/results/outcome';
import { BUILTIN_REDACTIONS, redact } from '../../../companion/policy/redact';
import { toolResultText } from '../../../companion/mcp-servers/results';
import { callTool } from '../../../companion/runs/tool-call';
import { setSearchBackend, toolHandlers } from '../../../companion/tools';
import { createWorld, DEFAULT_LIMITS, type World } from '../tools/world';

const TOKEN = 'ghp_R7xQ2mV9kL4pW8zT3nB6yH1cF5gJ0dS2aE4u';
const PASSWORD = 'correct-horse-battery';
const KEY_LINES = [
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
  'QUxQaWVjZVNlY3JldEJvZHlMaW5lVHdvRm9yVGhlS2V5QmxvY2s',
  'ThirdKeyBodyLineZmFrZUtleU1hdGVyaWFsRm9yVGVzdGluZw',
];
/** A deploy file with a private key pasted into it; lines 3–7 are the key block. */
const DEPLOY = ['name: deploy', 'key: |', '  -----BEGIN PRIVATE KEY-----', ...KEY_LINES.map((l) => `  ${l}`), '  -----END PRIVATE KEY-----', 'after: done', ''].join('\n');

/** Every 6-character piece of each secret: none may appear anywhere in what the call answered. */
function expectNoPieceOf(outcome: Outcome, ...secrets: string[]): void {
  const seen = JSON.stringify(outcome);
  for (const secret of secrets) {
    for (let i = 0; i + 6 <= secret.length; i++) expect(seen, `a piece of the secret: ${secret.slice(i, i + 6)}`).not.toContain(secret.slice(i, i + 6));
  }
}

/** What a model reads: a success's text, or the tool's own answer to a failure (the PromptX filesystem tool's JSON). */
function textOf(outcome: Outcome): string {
  if (!outcome.ok && outcome.answer !== undefined) return outcome.answer;
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.code}: ${outcome.message}`);
  return outcome.text;
}

describe('redaction attacks (issue 9, finding 3)', () => {
  let world: World;
  const call = (tool: string, args: Record<string, unknown>) => callTool(tool, args, world.ctx, toolHandlers);
  const file = (relative: string) => `${world.root}/${relative}`;
  const promptx = async (args: Record<string, unknown>) =>
    JSON.parse(textOf(await call('filesystem', args))) as { success: boolean; data?: unknown; error?: { code: string; message: string } };

  beforeEach(async () => {
    world = await createWorld({ redact: [...BUILTIN_REDACTIONS] });
    await world.write('config.ts', `export const token = "${TOKEN}";\n`);
    await world.write('settings.ini', `db_password=${PASSWORD}\nport=5432\n`);
    await world.write('deploy.yml', DEPLOY);
  });
  afterEach(() => world.cleanup());

  describe('fs.read windows', () => {
    it('a range that starts inside a token shows the marker, never the token’s tail', async () => {
      const at = (await world.read('config.ts')).indexOf(TOKEN);
      const out = await call('fs.read', { path: file('config.ts'), range: `${at + 6}:` });
      expectNoPieceOf(out, TOKEN);
      expect(textOf(out)).toBe('[REDACTED]";\n');
    });

    it('a range that ends inside a token shows the marker, never the token’s head', async () => {
      const at = (await world.read('config.ts')).indexOf(TOKEN);
      const out = await call('fs.read', { path: file('config.ts'), range: `0:${at + 12}` });
      expectNoPieceOf(out, TOKEN);
      expect(textOf(out)).toBe('export const token = "[REDACTED]');
    });

    it('a range that starts after `password=` shows the marker, never the value', async () => {
      const out = await call('fs.read', { path: file('settings.ini'), range: `${'db_password='.length + 3}:` });
      expectNoPieceOf(out, PASSWORD);
      expect(textOf(out)).toBe('[REDACTED]\nport=5432\n');
    });

    it('tail and head in characters that cut a secret show the marker', async () => {
      const tail = await call('fs.read', { path: file('settings.ini'), tail: 20 });
      expectNoPieceOf(tail, PASSWORD);
      expect(textOf(tail)).toBe('[REDACTED]\nport=5432\n');
      const head = await call('fs.read', { path: file('config.ts'), head: 30 });
      expectNoPieceOf(head, TOKEN);
      expect(textOf(head)).toBe('export const token = "[REDACTED]');
    });

    it('lines inside a private key block show one marker per line, so line numbers still hold', async () => {
      const out = await call('fs.read', { path: file('deploy.yml'), lines: '4-5' });
      expectNoPieceOf(out, ...KEY_LINES);
      expect(textOf(out)).toBe('[REDACTED]\n[REDACTED]\n');
      const last = await call('fs.read', { path: file('deploy.yml'), line: 6 });
      expectNoPieceOf(last, ...KEY_LINES);
      expect(textOf(last)).toBe('[REDACTED]\n');
      const whole = await call('fs.read', { path: file('deploy.yml') });
      expect(textOf(whole).split('\n')).toEqual(['name: deploy', 'key: |', '  [REDACTED]', '[REDACTED]', '[REDACTED]', '[REDACTED]', '[REDACTED]', 'after: done', '']);
    });

    it('a long line cut by the result limit inside a token shows the marker', async () => {
      await world.cleanup();
      world = await createWorld({ redact: [...BUILTIN_REDACTIONS], limits: { ...DEFAULT_LIMITS, maxResultChars: 300 } });
      await world.write('min.js', `a\n${'m'.repeat(290)} ${TOKEN} tail\n`);
      const out = await call('fs.read', { path: file('min.js'), line: 2 });
      expectNoPieceOf(out, TOKEN);
      const ranged = await call('fs.read', { path: file('min.js'), range: '200:300' });
      expectNoPieceOf(ranged, TOKEN);
    });
  });

  describe('encodings that hide text from the patterns', () => {
    it.each(['base64', 'hex'] as const)('fs.read encoding %s of a file holding a token is POLICY_BLOCKED, saying why and what to do instead', async (encoding) => {
      const out = await call('fs.read', { path: file('config.ts'), encoding });
      expect(out.ok).toBe(false);
      expect(out.ok ? '' : out.code).toBe('POLICY_BLOCKED');
      expect(out.ok ? '' : out.message).toMatch(/secret/);
      expect(out.ok ? '' : out.message).toMatch(/utf-8/);
      expectNoPieceOf(out, TOKEN);
      expectNoPieceOf(out, Buffer.from(TOKEN).toString(encoding));
    });

    it('fs.read base64 with a range away from the secret is refused too (the file holds a secret)', async () => {
      const out = await call('fs.read', { path: file('settings.ini'), encoding: 'base64', range: '0:3' });
      expect(out.ok ? 'ok' : out.code).toBe('POLICY_BLOCKED');
    });

    it('fs.read base64 of a UTF-16 file holding a password is refused', async () => {
      await world.write('utf16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`db_password=${PASSWORD}\n`, 'utf16le')]));
      const out = await call('fs.read', { path: file('utf16.txt'), encoding: 'base64' });
      expect(out.ok ? 'ok' : out.code).toBe('POLICY_BLOCKED');
      const be = Buffer.from(`db_password=${PASSWORD}\n`, 'utf16le').swap16();
      await world.write('utf16be.txt', Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
      expect((await call('fs.read', { path: file('utf16be.txt'), encoding: 'hex' })).ok).toBe(false);
    });

    it('a file without secrets still reads as base64 and hex', async () => {
      await world.write('plain.txt', 'nothing to hide\n');
      expect(textOf(await call('fs.read', { path: file('plain.txt'), encoding: 'base64' }))).toBe(Buffer.from('nothing to hide\n').toString('base64'));
      expect(textOf(await call('fs.read', { path: file('plain.txt'), encoding: 'hex', range: '0:4' }))).toBe(Buffer.from('noth').toString('hex'));
    });

    it.each(['base64', 'hex', 'latin1', 'ascii'] as const)('filesystem read encoding %s of a file holding a token is refused in the manual’s form', async (encoding) => {
      const out = await call('filesystem', { action: 'read', path: 'config.ts', encoding });
      expectNoPieceOf(out, TOKEN);
      if (encoding === 'base64' || encoding === 'hex') expectNoPieceOf(out, Buffer.from(TOKEN).toString(encoding));
      const reply = JSON.parse(textOf(out)) as { success: boolean; error?: { code: string; message: string } };
      expect(reply.success).toBe(false);
      expect(reply.error?.code).toBe('PERMISSION_DENIED');
      expect(reply.error?.message).toMatch(/secret/);
    });
  });

  describe('PromptX filesystem read', () => {
    it('tail lines inside a key block show markers', async () => {
      const reply = await promptx({ action: 'read', path: 'deploy.yml', tail: 3 });
      expect(reply.data).toBe('[REDACTED]\n[REDACTED]\nafter: done');
      expectNoPieceOf({ ok: true, text: JSON.stringify(reply) }, ...KEY_LINES);
    });

    it('a read cut at the result limit inside a token shows no piece of it', async () => {
      await world.cleanup();
      world = await createWorld({ redact: [...BUILTIN_REDACTIONS], limits: { ...DEFAULT_LIMITS, maxResultChars: 560 } });
      await world.write('long.txt', `${'x'.repeat(50)} ${TOKEN}\n`);
      const out = await call('filesystem', { action: 'read', path: 'long.txt' });
      expectNoPieceOf(out, TOKEN);
    });
  });

  describe.each(['auto', 'js'] as const)('fs.search (%s backend)', (backend) => {
    beforeEach(() => setSearchBackend(backend));
    afterAll(() => setSearchBackend(undefined));

    it('context lines next to a key block show markers, never key lines', async () => {
      const out = await call('fs.search', { path: world.root, query: 'after: done', contextLines: 3 });
      expectNoPieceOf(out, ...KEY_LINES);
      const f = file('deploy.yml');
      expect(textOf(out).split('\n')).toEqual([`${f}-5- [REDACTED]`, `${f}-6- [REDACTED]`, `${f}-7- [REDACTED]`, `${f}:8:1: after: done`]);
    });

    it('a plain query that matches only inside a secret finds nothing (the hit would confirm a guess)', async () => {
      const guess = KEY_LINES[1]!.slice(0, 12);
      const inKey = await call('fs.search', { path: world.root, query: guess });
      // the answer names the query (the model's own text) and nothing else
      expect(textOf(inKey)).toBe(`No matches for ${JSON.stringify(guess)} under ${world.root}`);
      const right = await call('fs.search', { path: world.root, query: 'password=correct' });
      const wrong = await call('fs.search', { path: world.root, query: 'password=wrong' });
      expect(textOf(right)).toMatch(/^No matches/);
      expect(textOf(right).replace('correct', 'wrong')).toBe(textOf(wrong));
    });

    it('a hit line holding a token, in a file no secret spans lines of, shows the marker; a query inside the token finds nothing', async () => {
      const byName = await call('fs.search', { path: world.root, query: 'const token' });
      expect(textOf(byName)).toBe(`${file('config.ts')}:1:8: export const token = "[REDACTED]";`);
      const inside = await call('fs.search', { path: world.root, query: TOKEN.slice(4, 16) });
      expect(textOf(inside)).toBe(`No matches for ${JSON.stringify(TOKEN.slice(4, 16))} under ${world.root}`);
    });

    it('a person’s own pattern is honoured on hit lines too', async () => {
      world.policy.redact.push(/corp-[0-9a-f]{8}/g);
      await world.write('notes.md', 'ticket corp-0badc0de is open\n');
      const out = await call('fs.search', { path: world.root, query: 'ticket' });
      expect(textOf(out)).toBe(`${file('notes.md')}:1:1: ticket [REDACTED] is open`);
      expect(textOf(await call('fs.search', { path: world.root, query: 'corp-0bad' }))).toMatch(/^No matches/);
    });

    it('a regex that peeks into a secret finds nothing; the key’s name is still found, its value redacted', async () => {
      const right = await call('fs.search', { path: world.root, query: 'password=(?=corr)', regex: true });
      expect(textOf(right)).toMatch(/^No matches/);
      const alternation = await call('fs.search', { path: world.root, query: 'password=(?=corr)|port=', regex: true });
      expect(textOf(alternation)).toBe(`${file('settings.ini')}:2:1: port=5432`);
      const byName = await call('fs.search', { path: world.root, query: 'db_password' });
      expect(textOf(byName)).toBe(`${file('settings.ini')}:1:1: db_password=[REDACTED]`);
    });
  });

  describe('fs.diff', () => {
    it('rightContent that guesses a secret cannot tell a right guess from a wrong one', async () => {
      const right = await call('fs.diff', { leftPath: file('settings.ini'), rightContent: `db_password=${PASSWORD}\nport=5432\n` });
      const wrong = await call('fs.diff', { leftPath: file('settings.ini'), rightContent: 'db_password=hunter2\nport=5432\n' });
      expectNoPieceOf(right, PASSWORD);
      expect(textOf(right)).toBe(textOf(wrong));
    });

    it('hunk context inside a key block shows markers', async () => {
      const out = await call('fs.diff', { leftPath: file('deploy.yml'), rightContent: DEPLOY.replace('after: done', 'after: changed') });
      expectNoPieceOf(out, ...KEY_LINES);
      expect(textOf(out)).toContain('@@ -5,4 +5,4 @@\n [REDACTED]\n [REDACTED]\n [REDACTED]\n-after: done\n+after: changed\n');
    });
  });

  describe('PromptX filesystem edit', () => {
    it('the diff of a dry run shows markers for key lines in its context', async () => {
      const reply = await promptx({ action: 'edit', path: 'deploy.yml', dryRun: true, edits: [{ oldText: 'after: done', newText: 'after: changed' }] });
      expect(reply.success).toBe(true);
      expect(reply.data).toContain(' [REDACTED]\n [REDACTED]\n [REDACTED]\n-after: done\n+after: changed');
      expectNoPieceOf({ ok: true, text: JSON.stringify(reply) }, ...KEY_LINES);
    });

    it('a mismatch never quotes a key line as the closest match', async () => {
      const guess = `${KEY_LINES[1]!.slice(0, -1)}X`;
      const out = await call('filesystem', { action: 'edit', path: 'deploy.yml', dryRun: true, edits: [{ oldText: guess, newText: 'x' }] });
      const reply = JSON.parse(textOf(out)) as { success: boolean; error?: { code: string; message: string } };
      expect(reply.success).toBe(false);
      expect(reply.error?.code).toBe('MISMATCH');
      const seen = JSON.stringify(reply);
      for (const line of KEY_LINES) expect(seen).not.toContain(line.slice(0, 20));
    });
  });

  describe('UTF-16 output: a NUL next to every letter, which a chat drops as it shows the text', () => {
    const ENV = `DB_HOST=db\nDB_PASSWORD=${PASSWORD}\nAPI_TOKEN=${TOKEN}\n`;
    /** What a model reads once the chat dropped the NULs. */
    const readable = (outcome: Outcome) => JSON.stringify(outcome).replaceAll('\\u0000', '');

    it('process.run printing a .env as UTF-16LE shows the marker, never the password or the token', async () => {
      const script = `process.stdout.write(Buffer.from(${JSON.stringify(ENV)}, 'utf16le'))`;
      const out = await call('process.run', { command: process.execPath, args: ['-e', script] });
      expect(readable(out)).not.toContain(PASSWORD.slice(0, 8));
      expect(readable(out)).not.toContain(TOKEN.slice(4, 12));
      expect(readable(out)).toContain('DB_PASSWORD=[REDACTED]');
      expect(readable(out)).toContain('DB_HOST=db');
    });

    it('fs.read of a file whose UTF-16 part starts past the 8 KiB a binary file is told by shows the marker', async () => {
      await world.write('notes.txt', Buffer.concat([Buffer.from(`${'notes\n'.repeat(1500)}`), Buffer.from(ENV, 'utf16le')]));
      for (const args of [{}, { tail: 200 }, { lines: '1501-' }]) {
        const out = await call('fs.read', { path: file('notes.txt'), ...args });
        expect(readable(out)).not.toContain(PASSWORD.slice(0, 8));
        expect(readable(out)).toContain('DB_PASSWORD=[REDACTED]');
      }
    });

    it('an MCP server’s text part holding a UTF-16 .env is redacted in the last pass every result goes through', () => {
      const text = toolResultText({ content: [{ type: 'text', text: Buffer.from(ENV, 'utf16le').toString('utf8') }] });
      const shown = redact(text, world.ctx.policy).replaceAll('\0', '');
      expect(shown).not.toContain(PASSWORD.slice(0, 8));
      expect(shown).not.toContain(TOKEN.slice(4, 12));
      expect(shown).toBe('DB_HOST=db\nDB_PASSWORD=[REDACTED]\nAPI_TOKEN=[REDACTED]\n');
    });

    it('shell.exec of iconv -t UTF-16LE and of a UTF-16BE file on stderr shows the marker', async () => {
      await world.write('.env.utf16be', Buffer.from(ENV, 'utf16le').swap16());
      await world.write('plain.env', ENV);
      const out = await call('shell.exec', { command: `iconv -f UTF-8 -t UTF-16LE plain.env; cat .env.utf16be >&2`, cwd: world.root });
      expect(textOf(out)).toContain('stderr:');
      expect(readable(out)).not.toContain(PASSWORD.slice(0, 8));
      expect(readable(out)).not.toContain(TOKEN.slice(4, 12));
      expect(readable(out).match(/DB_PASSWORD=\[REDACTED\]/g)).toHaveLength(2);
    });
  });

  it('process.run output cut in the middle of a token shows no piece of it', async () => {
    // the head of stdout is kept up to 4 900 characters (maxResultChars 20 000); the token straddles that cut
    const script = `process.stdout.write('a'.repeat(4890) + ' ${TOKEN} ' + 'b'.repeat(12000))`;
    const out = await call('process.run', { command: process.execPath, args: ['-e', script] });
    expectNoPieceOf(out, TOKEN);
    expect(textOf(out)).toContain('characters omitted');
  });

  it.each([
    ["Django's settings.py", 'app/settings.py', (secret: string) => `DEBUG = True\nSECRET_KEY = '${secret}'\n`, "SECRET_KEY = '[REDACTED]'"],
    ["Rails' secrets.yml", 'config/secrets.yml', (secret: string) => `production:\n  secret_key_base: "${secret}"\n`, 'secret_key_base: "[REDACTED]"'],
    ['a JWT signing key in an env file of another name', 'deploy/app.env.sample', (secret: string) => `JWT_SECRET_KEY=${secret}\n`, 'JWT_SECRET_KEY=[REDACTED]'],
    ['an OAuth refresh token', 'oauth.ini', (secret: string) => `refresh_token=${secret}\n`, 'refresh_token=[REDACTED]'],
  ])('fs.read of %s: a value named for a secret key or token shows the marker', async (_name, relative, content, shown) => {
    const secret = 'django-insecure-k3y9vj2x9b8z0qLm4Rt';
    await world.write(relative, content(secret));
    const out = await call('fs.read', { path: file(relative) });
    expectNoPieceOf(out, secret);
    expect(textOf(out)).toContain(shown);
  });
});
