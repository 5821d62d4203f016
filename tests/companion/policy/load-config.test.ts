import { mkdtempSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicy, parseConfig } from '../../../companion/policy/load-config';
import { deniedBy } from '../../../companion/policy/path-guard';
import { readConfigObject } from '../../../companion/mcp-servers/config-file';
import { DEFAULT_DENY } from '../../../companion/policy/schema';
import { ToolError } from '../../../shared/errors';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cb-config-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configFile(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function errorOf(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected a ToolError');
}

describe('loadPolicy', () => {
  it('runs on embedded defaults with cwd as the root', () => {
    const policy = loadPolicy({ cwd: dir });
    expect(policy.roots).toEqual([dir]);
    expect(policy.modes).toEqual({ read: 'auto', write: 'confirm', delete: 'confirm', exec: 'confirm' });
    expect(policy.deny).toContain('**/.env');
    expect(policy.redact.length).toBeGreaterThan(0);
  });

  it('realpaths roots (a symlinked root becomes its target) and drops duplicates', () => {
    const real = join(dir, 'real-root');
    mkdirSync(real);
    symlinkSync(real, join(dir, 'link-root'));
    const policy = loadPolicy({ cwd: dir, roots: ['link-root', real] });
    expect(policy.roots).toEqual([real]);
  });

  it('command-line roots replace config roots; config roots are relative to the config file', () => {
    mkdirSync(join(dir, 'cfgroot'));
    const file = configFile('roots.json', { roots: ['cfgroot'] });
    expect(loadPolicy({ cwd: '/', configFile: file }).roots).toEqual([join(dir, 'cfgroot')]);
    expect(loadPolicy({ cwd: dir, configFile: file, roots: [dir] }).roots).toEqual([dir]);
  });

  it('the default timeout is a minute, or the maximum when only a lower maximum is set; one written above the maximum is refused', () => {
    expect(parseConfig({}).limits).toMatchObject({ defaultTimeoutMs: 60_000, maxTimeoutMs: 600_000 });
    expect(parseConfig({ limits: { maxTimeoutMs: 400 } }).limits).toMatchObject({ defaultTimeoutMs: 400, maxTimeoutMs: 400 });
    expect(parseConfig({ limits: { defaultTimeoutMs: 300, maxTimeoutMs: 400 } }).limits.defaultTimeoutMs).toBe(300);
    expect(() => parseConfig({ limits: { defaultTimeoutMs: 500, maxTimeoutMs: 400 } })).toThrow(/limits\.defaultTimeoutMs: value 500 — must be ≤ limits\.maxTimeoutMs \(400\)/);
  });

  it('a missing root is a clear error naming it', () => {
    const error = errorOf(() => loadPolicy({ cwd: dir, roots: [join(dir, 'nope')] }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain(`root ${join(dir, 'nope')} does not exist`);
  });

  it('a file as root is refused', () => {
    const file = configFile('plain.txt', 'x');
    expect(errorOf(() => loadPolicy({ cwd: dir, roots: [file] })).message).toContain('a root must be a directory');
  });

  it('applies overrides from the file and keeps the other defaults', () => {
    const file = configFile('ok.json', { modes: { write: 'auto' }, allowCommands: ['npm test'], limits: { maxResultChars: 100 } });
    const policy = loadPolicy({ cwd: dir, configFile: file });
    expect(policy.modes.write).toBe('auto');
    expect(policy.modes.exec).toBe('confirm');
    expect(policy.limits.maxResultChars).toBe(100);
    expect(policy.limits.maxMatches).toBe(500);
    expect(policy.allowCommands).toEqual(['npm test']);
  });

  // [name, config, expected substrings of the message: key path, value, rule]
  const errors: Array<[string, unknown, string[]]> = [
    ['bad mode enum', { modes: { write: 'sometimes' } }, ['modes.write', '"sometimes"', 'must be one of "auto", "confirm", "deny"']],
    ['negative limit', { limits: { maxResultChars: -5 } }, ['limits.maxResultChars', '-5', 'must be > 0']],
    ['wrong type', { approvalWaitMs: 'soon' }, ['approvalWaitMs', '"soon"', 'must be number']],
    ['unknown key', { mode: {} }, ['top level', 'unknown key "mode"']],
    ['unknown nested key', { modes: { run: 'auto' } }, ['modes', 'unknown key "run"']],
    ['array element type', { allowCommands: ['npm test', 7] }, ['allowCommands[1]', '7', 'must be string']],
    ['site override mode', { sites: { chatgpt: { modes: { exec: 'yes' } } } }, ['sites.chatgpt.modes.exec', '"yes"', 'must be one of']],
    ['misspelt site id', { sites: { deepsek: { modes: { exec: 'deny' } } } }, ['sites.deepsek', 'key "deepsek"', 'must be a site id', '"deepseek"', '"generic"', '"mcp"']],
    ['empty root string', { roots: [''] }, ['roots[0]', '""', '≥ 1 characters long']],
  ];
  it.each(errors)('config error names key, value and rule: %s', (_name, config, expected) => {
    const error = errorOf(() => loadPolicy({ cwd: dir, configFile: configFile('bad.json', config) }));
    expect(error.code).toBe('INVALID_INPUT');
    for (const part of expected) expect(error.message).toContain(part);
  });

  it('reports every issue at once, one line each', () => {
    const error = errorOf(() => loadPolicy({ cwd: dir, configFile: configFile('many.json', { modes: { write: 'x', exec: 'y' }, approvalWaitMs: -1 }) }));
    expect(error.message.split('\n').filter((l) => l.startsWith('  - '))).toHaveLength(3);
  });

  it('a bad redact regex is an error naming it', () => {
    const error = errorOf(() => loadPolicy({ cwd: dir, configFile: configFile('re.json', { redact: ['ok-[0-9]+', 'broken(['] }) }));
    expect(error.message).toContain('redact[1]');
    expect(error.message).toContain('"broken(["');
    expect(error.message).toContain('not a valid regular expression');
  });

  it('invalid JSON names the file', () => {
    const file = configFile('notjson.json', '{ modes: ');
    expect(errorOf(() => loadPolicy({ cwd: dir, configFile: file })).message).toContain(`config file ${file} is not valid JSON`);
  });

  it('a config file saved with a byte order mark (Windows Notepad) loads; a second mark is still refused naming the file', () => {
    const file = configFile('notepad.json', '\uFEFF{ "modes": { "write": "auto" } }\r\n');
    expect(loadPolicy({ cwd: dir, configFile: file }).modes.write).toBe('auto');
    const twice = configFile('twice.json', '\uFEFF\uFEFF{}');
    expect(errorOf(() => loadPolicy({ cwd: dir, configFile: twice })).message).toContain(`config file ${twice} is not valid JSON`);
  });

  it('a config that is not JSON names the line and column, and a comma after the last entry, a comment or an empty file as such', () => {
    const cases: Array<[string, string]> = [
      ['{\n  "roots": ["/tmp"],\n  "modes": { "write": "auto" },\n}\n', 'line 3, column 31: a comma before }: JSON takes none after the last entry'],
      // V8 gives no position for this one
      ['{\n  "roots": ["/tmp",]\n}', 'line 2, column 19: a comma before ]: JSON takes none after the last entry'],
      ['{\n  "redact": ["a//b", "c\\",]"],\n  // my roots\n  "roots": []\n}', 'line 3, column 3: a comment, which JSON does not take: remove it'],
      ['{"roots": [] "deny": [],}', "line 1, column 14: Expected ',' or '}' after property value"],
      [' \n', 'the file is empty (write {} for the defaults)'],
    ];
    for (const [text, where] of cases) {
      const file = configFile('hand-edited.json', text);
      expect(errorOf(() => loadPolicy({ cwd: dir, configFile: file })).message).toContain(`config file ${file} is not valid JSON: ${where}`);
      // chatbridge mcp add, remove and import read the same file the same way, and change nothing
      expect(errorOf(() => readConfigObject(file)).message).toContain(`config file ${file} is not valid JSON: ${where}`);
    }
  });

  it('a missing config file names it', () => {
    expect(errorOf(() => loadPolicy({ cwd: dir, configFile: join(dir, 'missing.json') })).message).toContain(
      `config file ${join(dir, 'missing.json')} cannot be read: there is no such file (ENOENT)`,
    );
    // a folder named by mistake, and a path through a file, say so too, to chatbridge mcp as to start
    const notAFolder = configFile('plain-file', '{}');
    for (const [file, why] of [
      [dir, 'it is a folder, not a file (EISDIR)'],
      [join(notAFolder, 'config.json'), 'a part of its path is a file, not a folder (ENOTDIR)'],
    ] as const) {
      expect(errorOf(() => loadPolicy({ cwd: dir, configFile: file })).message).toContain(`config file ${file} cannot be read: ${why}`);
      expect(errorOf(() => readConfigObject(file)).message).toContain(`config file ${file} cannot be read: ${why}`);
    }
  });
});

describe('a key "__proto__"', () => {
  it('is refused wherever it is, naming its path, where the config dropped what it named without a word', () => {
    const raw = JSON.parse('{"sites":{"__proto__":{"autoRun":true}},"mcpServers":{"__proto__":{"command":"x"}},"limits":{"__proto__":1}}');
    const message = errorOf(() => parseConfig(raw)).message;
    for (const path of ['limits.__proto__', 'mcpServers.__proto__', 'sites.__proto__']) {
      expect(message).toContain(`  - ${path}: key "__proto__" — a key JavaScript takes for an object's prototype, so chatbridge cannot keep what it names; rename it`);
    }
    // written in code (not JSON), the same object literal sets the prototype and holds no such key: nothing to refuse
    expect(parseConfig({ sites: { __proto__: {} } }).sites).toEqual({});
  });
});

describe('deny globs in a config add to the built-in list', () => {
  it('a config that lists its own deny globs (an older example) still gets every built-in one', () => {
    const config = parseConfig({ deny: ['**/.git/**', '**/private/**'] });
    for (const glob of DEFAULT_DENY) expect(config.deny).toContain(glob);
    expect(config.deny).toContain('**/private/**');
    expect(config.deny.filter((g) => g === '**/.git/**')).toHaveLength(1);
  });

  it('a deny glob written as a whole path or ending in "/" is refused naming it, since it would match nothing', () => {
    const root = join(dir, 'glob-root');
    mkdirSync(join(root, 'secret'), { recursive: true });
    const file = (deny: string[]) => configFile('deny-globs.json', { roots: [root], deny });
    // the relative forms the README gives keep the folder from every tool
    const relative = loadPolicy({ cwd: dir, configFile: file(['secret/**']) });
    expect(deniedBy(join(root, 'secret', 'a.txt'), relative)).toBe('secret/**');
    for (const [glob, rule] of [
      [`${root}/secret/**`, 'a whole path matches nothing'],
      ['~/notes/**', 'a whole path matches nothing'],
      ['C:\\work\\secret\\**', 'a whole path matches nothing'],
      ['secret/', '"secret/**" names the folder'],
      ['', 'an empty deny glob'],
    ] as const) {
      const error = errorOf(() => loadPolicy({ cwd: dir, configFile: file(['**/ok/**', glob]) }));
      expect(error.message).toContain(`deny[1]: value ${JSON.stringify(glob)}`);
      expect(error.message).toContain(rule);
    }
  });
});
