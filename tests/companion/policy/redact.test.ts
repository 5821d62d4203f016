import { describe, expect, it } from 'vitest';
import { parseConfig, policyFromConfig } from '../../../companion/policy/load-config';
import { bytesHoldSecret, capResult, mapSecrets, redact, redactFromNowOn, withOwnSecrets } from '../../../companion/policy/redact';

const policy = policyFromConfig(parseConfig({ redact: ['internal-[0-9]{4}'] }), [{ root: process.cwd(), base: process.cwd(), key: 'cwd' }]);

// [name, input, must not contain, must contain]
const table: Array<[string, string, string, string]> = [
  ['OpenAI key', 'key: sk-proj-Abcdefghijklmnopqrstuvwxyz012345', 'bcdefghijklmnop', 'key: [REDACTED]'],
  ['env file password', 'DB_HOST=x\nDB_PASSWORD=hunter2\n', 'hunter2', 'DB_PASSWORD=[REDACTED]\n'],
  ['url query key', 'https://x.example/?api_key=abc123&x=1', 'abc123', 'api_key=[REDACTED]&x=1'],
  ['yaml quoted secret', "client_secret: 'abc123'", 'abc123', "client_secret: '[REDACTED]'"],
  ['GitHub token', 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB here', 'ghp_abc', 'token [REDACTED] here'],
  ['AWS key id', 'aws AKIAABCDEFGHIJKLMNOP end', 'AKIAABCD', 'aws [REDACTED] end'],
  ['private key block', 'a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\nxyz\n-----END RSA PRIVATE KEY-----\nb', 'MIIEabc', 'a\n[REDACTED]\nb'],
  ['password=', 'DB_URL=x password=hunter2 next', 'hunter2', 'password=[REDACTED] next'],
  ['ODBC Pwd=', 'Driver={SQL};Uid=sa;Pwd=hunter2;', 'hunter2', 'Pwd=[REDACTED];'],
  ['a password-named variable holding a path', 'DB_PWD=/hunter2 next', '/hunter2', 'DB_PWD=[REDACTED] next'],
  ['quoted json secret', '{"api_key": "abc123secret"}', 'abc123secret', '"api_key": "[REDACTED]"'],
  ['settings SECRET_KEY', "SECRET_KEY = 'django-insecure-abc123'", 'abc123', "SECRET_KEY = '[REDACTED]'"],
  ['JWT_SECRET_KEY=', 'JWT_SECRET_KEY=abc123secret', 'abc123secret', 'JWT_SECRET_KEY=[REDACTED]'],
  ['secret_key_base', 'secret_key_base: "abc123secret"', 'abc123secret', 'secret_key_base: "[REDACTED]"'],
  ['refresh_token=', 'refresh_token=abc123secret&x=1', 'abc123secret', 'refresh_token=[REDACTED]&x=1'],
  ['user pattern', 'ticket internal-1234 open', 'internal-1234', 'ticket [REDACTED] open'],
];

describe('redact', () => {
  it("the companion's own tokens, as the literal they are: special characters, anywhere in a line, in bytes", () => {
    const cli = 'Zq3-_x9'.repeat(6) + 'Q';
    const preset = 'my.token+(v2)*[ok]$^|\\dev';
    const own = withOwnSecrets(policy, [cli, preset, undefined, '']);
    expect(own.redact).toHaveLength(policy.redact.length + 2);
    expect(redact(`a${cli}b and ${preset}.`, own)).toBe('a[REDACTED]b and [REDACTED].');
    // nothing else is taken for them: the same text short of a character, or another with the same characters
    expect(redact(`${cli.slice(0, -1)} my.token+(v2)*[ok]$^|\\de my-token`, own)).toBe(`${cli.slice(0, -1)} my.token+(v2)*[ok]$^|\\de my-token`);
    expect(bytesHoldSecret(Buffer.from(`prefix ${cli}\n`), own)).toBe(true);
    expect(bytesHoldSecret(Buffer.from('prefix only\n'), own)).toBe(false);
    // its list is its own: the policy it came from is untouched, and a second call adds to the same list
    expect(redact(cli, policy)).toBe(cli);
    expect(withOwnSecrets(own, [cli])).toBe(own);
    expect(own.redact).toHaveLength(policy.redact.length + 2);
  });

  it('a token learned later (a paired extension presents it) is redacted from then on, in the list every holder shares', () => {
    const own = withOwnSecrets(policy, []);
    const paired = 'Ab0-_'.repeat(8) + 'xyz';
    expect(redact(`token ${paired}`, own)).toBe(`token ${paired}`);
    redactFromNowOn(own.redact, paired);
    redactFromNowOn(own.redact, paired);
    expect(own.redact).toHaveLength(policy.redact.length + 1);
    const site = { ...own, roots: [] };
    expect(redact(`token ${paired}`, site)).toBe('token [REDACTED]');
    // a list no withOwnSecrets made is never changed from afar
    const before = policy.redact.length;
    redactFromNowOn(policy.redact, paired);
    expect(policy.redact).toHaveLength(before);
  });

  it.each(table)('%s', (_name, input, secret, expected) => {
    const out = redact(input, policy);
    expect(out).not.toContain(secret);
    expect(out).toContain(expected);
  });

  it("leaves the shell's working directory alone: PWD and OLDPWD in a program's env output are paths", () => {
    const env = 'HOME=/home/me\nOLDPWD=/home/me\nPWD=/home/me/app\nSHLVL=1\n';
    expect(redact(env, policy)).toBe(env);
    expect(redact('cd done; PWD=/srv/x OLDPWD=/srv', policy)).toBe('cd done; PWD=/srv/x OLDPWD=/srv');
  });

  it('leaves ordinary text alone', () => {
    const text = [
      'const skip = task-list; password reset flow; AKIA is a prefix',
      '<div class="sk-spinner-wave-container-large">',
      'interface Login { password: string }',
      'const password = req.body.password;',
    ].join('\n');
    expect(redact(text, policy)).toBe(text);
  });

  it('applies a user pattern without the g flag to every match', () => {
    expect(redact('a1 a2 a3', { redact: [/a\d/] })).toBe('[REDACTED] [REDACTED] [REDACTED]');
  });
});

describe('capResult', () => {
  it('keeps short text as is', () => {
    expect(capResult('hello', 10, 'hint')).toEqual({ text: 'hello', truncated: false });
  });

  it('cuts long text and says how to read more', () => {
    const text = 'line\n'.repeat(100);
    const capped = capResult(text, 50, 'read the rest with fs.read range');
    expect(capped.truncated).toBe(true);
    expect(capped.text.startsWith(text.slice(0, 50))).toBe(true);
    expect(capped.text).toContain('truncated: showed 50 of 500 characters');
    expect(capped.text).toContain('read the rest with fs.read range');
  });

  it('never splits a surrogate pair', () => {
    const capped = capResult('ab😀cd', 3, 'h');
    expect(capped.text.startsWith('ab\n')).toBe(true);
  });
});

describe('findSecrets within a window', () => {
  const builtin = policyFromConfig(parseConfig({}), [{ root: process.cwd(), base: process.cwd(), key: 'cwd' }]);
  const text = [
    'name: deploy',
    'token: ghp_R7xQ2mV9kL4pW8zT3nB6yH1cF5gJ0dS2aE4u and more',
    'key: |',
    '  -----BEGIN PRIVATE KEY-----',
    '  MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
    '  QUxQaWVjZVNlY3JldEJvZHlMaW5lVHdvRm9yVGhlS2V5QmxvY2s',
    '  -----END PRIVATE KEY-----',
    'machine api.example.com',
    '  login me',
    '  password s3cr3t-netrc',
    'db: postgres://app:hunter2@db/app?api_key=abc123&x=1',
    '-----BEGIN EC PRIVATE KEY-----',
    'unterminated key body',
    '',
  ].join('\n');
  const whole = mapSecrets(text, builtin);

  it('shows every window exactly as a scan of the whole text does', () => {
    for (let start = 0; start < text.length; start += 7) {
      for (const length of [0, 1, 5, 23, 80, 400]) {
        const end = Math.min(text.length, start + length);
        expect(mapSecrets(text, builtin, [{ start, end }]).window(start, end), `${start}:${end}`).toBe(whole.window(start, end));
      }
    }
  });

  it('shows a window line for line: one marker per line a secret covers', () => {
    expect(whole.shown().split('\n')).toHaveLength(text.split('\n').length);
    expect(whole.shown()).toContain('  [REDACTED]\n[REDACTED]\n[REDACTED]\n[REDACTED]\n');
    expect(whole.shown()).toContain('  password [REDACTED]\n');
    expect(whole.shown().endsWith('[REDACTED]\n[REDACTED]\n')).toBe(true);
  });
});
