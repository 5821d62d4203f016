import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileArgumentCheck } from '../../../companion/mcp-servers/arguments';
import { configuredCredentials, parseMcpServers } from '../../../companion/mcp-servers/config';
import { convertEntry } from '../../../companion/mcp-servers/import';
import { serverNameProblem, splitExternalName, suggestServerName } from '../../../companion/mcp-servers/names';
import { toolResultText } from '../../../companion/mcp-servers/results';
import { externalToolRule, unmatchedPolicyKeys } from '../../../companion/mcp-servers/tool-policy';
import { decide } from '../../../companion/policy/decide';
import { parseConfig, policyFromConfig } from '../../../companion/policy/load-config';
import { redact, withOwnSecrets } from '../../../companion/policy/redact';
import { TOOL_NAMES } from '../../../shared/tools/names';
import { fixtureServer, makeMcpWorld, mcpCall, mcpJson, waitUntil, type McpWorld } from './world';

describe('the naming rule', () => {
  it.each(['fs', 'FS', 'process', 'shell', 'filesystem', 'Filesystem'])('%s is reserved: a built-in tool starts with it', (name) => {
    expect(serverNameProblem(name)).toMatch(/reserved/);
  });

  it.each(['git.hub', 'my server', 'ü', '', 'x'.repeat(33)])('%j is not a server name', (name) => {
    expect(serverNameProblem(name)).toMatch(/is not a valid server name/);
  });

  it.each(['git', 'github-enterprise', 'db_2', 'FS2'])('%s is a server name', (name) => {
    expect(serverNameProblem(name)).toBeUndefined();
  });

  it('no external name can equal a built-in one, whatever a server is called', () => {
    for (const builtin of TOOL_NAMES) {
      const parts = splitExternalName(builtin);
      // `filesystem` has no dot; the others' server part is reserved
      if (parts) expect(serverNameProblem(parts.server)).toBeDefined();
    }
  });

  it('the server part ends at the first dot', () => {
    expect(splitExternalName('git.log.short')).toEqual({ server: 'git', tool: 'log.short' });
  });

  it('an imported name that breaks the rule gets one that keeps it', () => {
    expect(suggestServerName('filesystem')).toBe('filesystem-mcp');
    expect(suggestServerName('my server.v2')).toBe('my-server-v2');
    expect(suggestServerName('fs')).toBe('fs-mcp');
  });
});

describe('mcpServers entries are checked one by one', () => {
  it('valid stdio and HTTP entries become specs', () => {
    const { servers, broken } = parseMcpServers({
      git: { command: 'uvx', args: ['mcp-server-git'], env: { A: 'b' }, cwd: '/tmp', policy: { default: 'auto', tools: { git_push: 'deny' } } },
      remote: { url: 'https://example.test/mcp', headers: { Authorization: 'Bearer x' } },
      legacy: { url: 'http://127.0.0.1:9/sse', type: 'sse', timeoutMs: 5000, startTimeoutMs: 120_000 },
      off: { command: 'x', disabled: true },
    });
    expect(broken).toEqual([]);
    expect(servers.map((s) => [s.name, s.transport, s.disabled])).toEqual([
      ['git', 'stdio', false],
      ['remote', 'http', false],
      ['legacy', 'sse', false],
      ['off', 'stdio', true],
    ]);
  });

  it.each([
    ['fs', { command: 'x' }, 'mcpServers.fs: "fs" is reserved'],
    ['a.b', { command: 'x' }, 'mcpServers.a.b: "a.b" is not a valid server name'],
    ['both', { command: 'x', url: 'http://a' }, 'mcpServers.both: has both "command" and "url"'],
    ['neither', { args: [] }, 'mcpServers.neither: has neither "command" nor "url"'],
    ['notobject', 'npx foo', 'mcpServers.notobject: value "npx foo" — must be an object with "command"'],
    ['args', { command: 'x', args: 'a b' }, 'mcpServers.args.args: value "a b" — must be array'],
    ['env', { command: 'x', env: { A: 1 } }, 'mcpServers.env.env.A: a number (not shown: headers and env hold credentials) — must be string'],
    ['unknown', { command: 'x', autoApprove: ['y'] }, 'mcpServers.unknown: unknown key "autoApprove"'],
    ['url', { url: 'ftp://x/y' }, 'mcpServers.url.url: value "ftp://x/y" — must be an http:// or https:// URL'],
    ['mode', { command: 'x', policy: { tools: { t: 'always' } } }, 'mcpServers.mode.policy.tools.t: value "always" — must be one of "auto", "confirm", "deny"'],
    ['cwd', { command: 'x', cwd: 'relative/dir' }, 'mcpServers.cwd.cwd: value "relative/dir" — must be an absolute directory'],
    ['starttype', { command: 'x', startTimeoutMs: '2 minutes' }, 'mcpServers.starttype.startTimeoutMs: value "2 minutes" — must be number'],
    ['startlow', { command: 'x', startTimeoutMs: 50 }, 'mcpServers.startlow.startTimeoutMs: value 50 — must be ≥ 1000'],
    ['starthigh', { url: 'https://a.example/mcp', startTimeoutMs: 3_600_000 }, 'mcpServers.starthigh.startTimeoutMs: value 3600000 — must be ≤ 600000'],
    ['calltimeout', { command: 'x', timeoutMs: 0 }, 'mcpServers.calltimeout.timeoutMs: value 0 — must be > 0'],
    ['envvar', { command: 'x', env: { TOKEN: '${env:GITHUB_TOKEN}' } }, 'mcpServers.envvar.env.TOKEN: holds "${env:GITHUB_TOKEN}", a variable chatbridge does not fill in — write the value itself'],
    [
      'headervar',
      { url: 'https://a.example/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } },
      'mcpServers.headervar.headers.Authorization: holds "${GITHUB_TOKEN}", a variable chatbridge does not fill in — write the value itself',
    ],
    [
      'headerquote',
      { url: 'https://a.example/mcp', headers: { Authorization: 'Bearer \u201cabc123def456\u201d' } },
      'mcpServers.headerquote.headers.Authorization: character 8 of its value (not shown: headers hold credentials) is U+201C, which an HTTP header cannot carry: only Latin-1 characters and no line breaks (a quote or dash pasted from a document?)',
    ],
    [
      'headername',
      { url: 'https://a.example/mcp', headers: { 'Authorization: Bearer': 'abc123def456' } },
      'mcpServers.headername.headers: "Authorization: Bearer" is not an HTTP header name: letters, digits and !#$%&\'*+-.^_`|~ only, no spaces or colons',
    ],
    [
      'session',
      { url: 'https://a.example/mcp', headers: { 'Mcp-Session-Id': 'copied-from-a-curl-example' } },
      'mcpServers.session.headers.Mcp-Session-Id: chatbridge sets this header itself (the session and protocol version the server gives it), and a fixed value in its place makes the server refuse every message; remove it',
    ],
  ])('%s: the error names the server, the key and the rule', (name, entry, message) => {
    const { servers, broken } = parseMcpServers({ [name]: entry });
    expect(servers).toEqual([]);
    expect(broken[0]?.problems.join('\n')).toContain(message);
  });

  it("a header value's line break at its end is dropped by fetch, so it is taken; one inside it is not", () => {
    expect(parseMcpServers({ ok: { url: 'https://a.example/mcp', headers: { Authorization: 'Bearer abc123def456\n' } } }).servers).toHaveLength(1);
    const { broken } = parseMcpServers({ split: { url: 'https://a.example/mcp', headers: { Authorization: 'Bearer abc\r\nX-Injected: 1' } } });
    expect(broken[0]?.problems).toEqual([
      'mcpServers.split.headers.Authorization: character 11 of its value (not shown: headers hold credentials) is U+000D, which an HTTP header cannot carry: only Latin-1 characters and no line breaks (a quote or dash pasted from a document?)',
    ]);
  });

  it('a key "__proto__" in a server\'s entry makes that server broken, naming where: the deny or variable it holds is never dropped unsaid', () => {
    // JSON.parse keeps the key; the schemas' objects took it for their prototype, so the entry lost it without a word
    const config = parseConfig(JSON.parse('{"mcpServers":{"git":{"command":"x","policy":{"tools":{"__proto__":"deny"}}},"ok":{"command":"y","env":{"__proto__":"1"}},"fine":{"command":"z"}}}'));
    const { servers, broken } = parseMcpServers(config.mcpServers);
    expect(servers.map((server) => server.name)).toEqual(['fine']);
    expect(broken).toEqual([
      { name: 'git', problems: [`mcpServers.git.policy.tools.__proto__: key "__proto__" — a key JavaScript takes for an object's prototype, so chatbridge cannot keep what it names; rename it`] },
      { name: 'ok', problems: [`mcpServers.ok.env.__proto__: key "__proto__" — a key JavaScript takes for an object's prototype, so chatbridge cannot keep what it names; rename it`] },
    ]);
    expect(serverNameProblem('__proto__')).toMatch(/^"__proto__" is not a server name chatbridge can keep/);
  });

  it('a config with a broken server still loads (the policy keeps the entry for the registry to report)', () => {
    const config = parseConfig({ mcpServers: { bad: { command: 3 }, good: { command: 'x' } } });
    expect(Object.keys(config.mcpServers)).toEqual(['bad', 'good']);
  });
});

describe("the credentials in servers' entries", () => {
  it('are the values of credential-named env variables and headers, and the token after an Authorization scheme', () => {
    expect(
      configuredCredentials({
        github: { command: 'npx', env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp-like-but-not-quite-1', GITHUB_HOST: 'github.example.com', GIT_AUTHOR_NAME: 'Jane Developer', DEBUG: 'true' } },
        db: { command: 'pg', env: { DB_PASSWORD: 'short', PWD: '/home/you/project' } },
        remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc123def456', Accept: 'application/json', 'X-Api-Key': 'k-9f8e7d6c5b' } },
        broken: { command: 'x', env: { API_KEY: 7 } },
        flags: { command: 'x', args: ['--api-key', 'ak-1234567890', '--token=tk-0987654321', '--port', '80801234', '--secret', '--verbose'] },
      }),
    ).toEqual(['ghp-like-but-not-quite-1', 'Bearer abc123def456', 'abc123def456', 'k-9f8e7d6c5b', 'ak-1234567890', 'tk-0987654321']);
  });
});

describe("the credentials in servers' entries, beyond their names", () => {
  it('are those of an entry that is broken too: it does not start, but its keys are the person\'s', () => {
    const raw = {
      misspelt: { command: 'npx', args: ['-y', 'brave-search', '--api-key', 'ak-1234567890'], env: { BRAVE_API_KEY: 'BSAx9f8e7d6c5b4a' }, timout: 5000 },
      variable: { url: 'https://mcp.example.com/mcp?api_key=Qz7wLk2Pv9Rt', headers: { Authorization: 'Bearer abc123def456', 'X-Team': '${env:TEAM}' } },
      twice: { command: 'x', url: 'https://mcp.example.com/s/3f9c2a7b1d4e4f60a8b2c9d7e5f1a3b4/mcp', env: { NOTES_TOKEN: 'nt8Hz3Vq1Kd6', COUNT: 3 } },
      'bad name': { command: 'pg', env: { DB_PASSWORD: 'Hx9vQ2pLm4' } },
      empty: 'npx notes-mcp',
    };
    expect(parseMcpServers(raw).broken.map((server) => server.name)).toEqual(['misspelt', 'variable', 'twice', 'bad name', 'empty']);
    expect(configuredCredentials(raw).sort()).toEqual(
      ['ak-1234567890', 'BSAx9f8e7d6c5b4a', 'Qz7wLk2Pv9Rt', 'Bearer abc123def456', 'abc123def456', '3f9c2a7b1d4e4f60a8b2c9d7e5f1a3b4', 'nt8Hz3Vq1Kd6', 'Hx9vQ2pLm4'].sort(),
    );
  });

  it("are the key in a server's URL and in a URL, a NAME=value or a header given on its command line", () => {
    expect(
      configuredCredentials({
        remote: { url: 'https://mcp.example.com/mcp?api_key=Qz7wLk2Pv9Rt&format=json' },
        path: { url: 'https://mcp.example.com/s/3f9c2a7b1d4e4f60a8b2c9d7e5f1a3b4/mcp' },
        bridge: { command: 'npx', args: ['mcp-remote', 'https://mcp.example.com/sse?token=Tk5vRp8Qw2Zx', '--header', 'Authorization:Bearer abc123def456'] },
        docker: { command: 'docker', args: ['run', '-i', '--rm', '-e', 'NOTES_TOKEN=nt8Hz3Vq1Kd6', '-e', 'NOTES_REGION=eu-west-3a', 'notes/mcp'] },
        pg: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://app:hunter2pass@localhost/db'] },
      }),
    ).toEqual(['Qz7wLk2Pv9Rt', '3f9c2a7b1d4e4f60a8b2c9d7e5f1a3b4', 'Tk5vRp8Qw2Zx', 'Bearer abc123def456', 'abc123def456', 'nt8Hz3Vq1Kd6', 'hunter2pass']);
  });

  it('are a password or access token under a short name (MYSQL_PASS, AZURE_DEVOPS_PAT) and the key in a URL in env', () => {
    expect(
      configuredCredentials({
        db: {
          command: 'mysql-mcp',
          env: {
            MYSQL_PASS: 'Vb7xQ2mLp9',
            AZURE_DEVOPS_PAT: 'q3w4e5r6t7y8u9i0o1p2a3s4d5f6g7h8j9k0l1z2x3c4v5b6n7m8',
            DATABASE_URL: 'postgresql://app:Hx9vQ2pLm4@db.internal/notes',
            BYPASS_CACHE: 'sometimes',
            NOTES_PATH: '/home/you/notes',
          },
        },
      }),
    ).toEqual(['Vb7xQ2mLp9', 'q3w4e5r6t7y8u9i0o1p2a3s4d5f6g7h8j9k0l1z2x3c4v5b6n7m8', 'Hx9vQ2pLm4']);
  });

  it('are not a word or a path a credential-named setting holds (--auth-mode readonly, --session-dir, TOKEN_FILE)', () => {
    expect(
      configuredCredentials({
        settings: {
          command: 'notes-mcp',
          args: ['--auth-mode', 'readonly', '--auth-method=password', '--session-dir', '/tmp/sessions', '--api-key', 'ak-1234567890'],
          env: { NOTES_TOKEN_FILE: '/home/you/.notes/token', NOTES_AUTH_TYPE: 'personal', sessionTimeout: '3600000', NOTES_TOKEN: 'nt-0987654321' },
        },
      }),
    ).toEqual(['nt-0987654321', 'ak-1234567890']);
  });
});

describe('a default password that is a plain word', () => {
  const credentials = configuredCredentials({
    db: {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://postgres:postgres@localhost/postgres'],
      env: { POSTGRES_PASSWORD: 'postgres', ADMIN_PASSWORD: 'Changeme', DB_PASSWORD: 'password', APP_PASSWORD: 'hunter2pass' },
    },
  });
  const policy = withOwnSecrets(policyFromConfig(parseConfig({}), [{ root: '/tmp', base: '/tmp', key: 't' }]), credentials);

  it('is not hidden wherever the word appears in an answer; one with more than letters is', () => {
    expect(credentials).toEqual(['hunter2pass']);
    const compose = 'services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: postgres\n<label>Password</label> <a>Forgot your password? Changeme later</a>\nlogin hunter2pass';
    expect(redact(compose, policy)).toBe(compose.replace('hunter2pass', '[REDACTED]'));
  });

  it('is still hidden where it stands as a credential: after a password key, in a URL', () => {
    expect(redact('POSTGRES_PASSWORD=postgres', policy)).toBe('POSTGRES_PASSWORD=[REDACTED]');
    expect(redact('{"password": "postgres"}', policy)).toBe('{"password": "[REDACTED]"}');
    expect(redact('postgresql://postgres:postgres@localhost/postgres', policy)).toBe('postgresql://postgres:[REDACTED]@localhost/postgres');
  });

  it('one that is no default is a credential like any other, hidden wherever it appears', () => {
    const own = configuredCredentials({
      mysql: { command: 'node', args: ['mysql-mcp.js', '--user', 'app', '--password', 'sunflowerfield'], env: { ADMIN_PASSWORD: 'Marigolds' } },
    });
    expect(own).toEqual(['Marigolds', 'sunflowerfield']);
    const mine = withOwnSecrets(policyFromConfig(parseConfig({}), [{ root: '/tmp', base: '/tmp', key: 't' }]), own);
    // the server's own command line as `ps aux` lists it, and a compose file's unquoted YAML, which no built-in pattern takes
    const shown = 'you  4242  node mysql-mcp.js --user app --password sunflowerfield\n    environment:\n      ADMIN_PASSWORD: Marigolds';
    expect(redact(shown, mine)).toBe(shown.replace('sunflowerfield', '[REDACTED]').replace('Marigolds', '[REDACTED]'));
  });
});

describe('how an external tool is decided', () => {
  const policy = policyFromConfig(parseConfig({ sites: { deepseek: { modes: { exec: 'deny', read: 'confirm' } } } }), [{ root: '/tmp', base: '/tmp', key: 't' }]);
  const request = (rule: { risk: 'read' | 'exec'; mode?: 'auto' | 'confirm' | 'deny' }) => ({
    tool: 's.t',
    args: {},
    actions: [{ risk: rule.risk, label: 's.t', paths: [], ...(rule.mode ? { mode: rule.mode } : {}) }],
    preview: { title: 's.t', paths: [] },
  });

  it.each([
    ['no policy', {}, undefined, { risk: 'exec', mode: 'confirm' }],
    ['server default auto', { default: 'auto' as const }, undefined, { risk: 'exec', mode: 'auto' }],
    ['per-tool entry beats the default', { default: 'auto' as const, tools: { t: 'deny' as const } }, undefined, { risk: 'exec', mode: 'deny' }],
    ['readOnlyHint is not believed by default', {}, { readOnlyHint: true }, { risk: 'exec', mode: 'confirm' }],
    ['readOnlyHint with trustAnnotations: a read, left to modes.read', { trustAnnotations: true }, { readOnlyHint: true }, { risk: 'read' }],
    ['trusted read-only with its own entry keeps it', { trustAnnotations: true, tools: { t: 'confirm' as const } }, { readOnlyHint: true }, { risk: 'read', mode: 'confirm' }],
    ['trusted but not read-only', { trustAnnotations: true }, { readOnlyHint: false }, { risk: 'exec', mode: 'confirm' }],
    ["trusted read-only, the server's default deny: denied", { trustAnnotations: true, default: 'deny' as const }, { readOnlyHint: true }, { risk: 'read', mode: 'deny' }],
    ["trusted read-only, the server's default confirm: a read still", { trustAnnotations: true, default: 'confirm' as const }, { readOnlyHint: true }, { risk: 'read' }],
  ])('%s', (_name, serverPolicy, annotations, expected) => {
    expect(externalToolRule(serverPolicy, 's', 't', annotations)).toEqual(expected);
  });

  it("a tool's entry may be keyed <server>.<tool>; a key naming two tools holds for both, the stricter of two keys for one", () => {
    const serverPolicy = { default: 'auto' as const, tools: { 's.t': 'deny' as const } };
    expect(externalToolRule(serverPolicy, 's', 't', undefined)).toEqual({ risk: 'exec', mode: 'deny' });
    // the server has a tool named "s.t" itself: the key is that tool's own name and t's name as people write it
    expect(externalToolRule(serverPolicy, 's', 's.t', undefined)).toEqual({ risk: 'exec', mode: 'deny' });
    // a second key for the same tool does not take the deny away, whichever of the two it is
    expect(externalToolRule({ tools: { t: 'auto', 's.t': 'deny' } }, 's', 't', undefined)).toEqual({ risk: 'exec', mode: 'deny' });
    expect(externalToolRule({ tools: { t: 'deny', 's.t': 'auto' } }, 's', 't', undefined)).toEqual({ risk: 'exec', mode: 'deny' });
    expect(externalToolRule({ tools: { t: 'auto', 's.t': 'confirm' } }, 's', 't', undefined)).toEqual({ risk: 'exec', mode: 'confirm' });
    expect(unmatchedPolicyKeys({ tools: { 's.t': 'deny', t: 'auto', tt: 'deny', 'x.t': 'deny' } }, 's', new Set(['t']))).toEqual({ none: ['tt', 'x.t'], loose: [] });
  });

  it.each(['Delete_Entities', 'memory.DELETE_ENTITIES', 'Memory.delete_entities', 'ｄｅｌｅｔｅ＿ｅｎｔｉｔｉｅｓ', 'delete_\u200Bentities', ' delete_entities'])(
    'a deny keyed %j, the tool delete_entities in another case or form, holds for it; an auto so keyed lifts nothing',
    (key) => {
      const auto = { default: 'auto' as const, tools: { [key]: 'deny' as const } };
      expect(externalToolRule(auto, 'memory', 'delete_entities', undefined)).toEqual({ risk: 'exec', mode: 'deny' });
      expect(externalToolRule({ ...auto, trustAnnotations: true }, 'memory', 'delete_entities', { readOnlyHint: true })).toEqual({ risk: 'read', mode: 'deny' });
      expect(externalToolRule({ default: 'auto', tools: { [key]: 'confirm' } }, 'memory', 'delete_entities', undefined)).toEqual({ risk: 'exec', mode: 'confirm' });
      // an exact key's deny is not lifted by a loose key's auto, nor the default by it
      expect(externalToolRule({ tools: { [key]: 'auto' } }, 'memory', 'delete_entities', undefined)).toEqual({ risk: 'exec', mode: 'confirm' });
      expect(externalToolRule({ tools: { [key]: 'auto', delete_entities: 'deny' } }, 'memory', 'delete_entities', undefined)).toEqual({ risk: 'exec', mode: 'deny' });
      expect(unmatchedPolicyKeys(auto, 'memory', new Set(['delete_entities', 'read_graph']))).toEqual({ none: [], loose: [{ key, tool: 'delete_entities' }] });
    },
  );

  it('a site override only makes it stricter', () => {
    expect(decide(request({ risk: 'exec', mode: 'auto' }), policy, 'chatgpt')).toBe('auto');
    expect(decide(request({ risk: 'exec', mode: 'auto' }), policy, 'deepseek')).toEqual({ deny: 'the policy mode for exec is deny on site deepseek' });
    expect(decide(request({ risk: 'read' }), policy, 'chatgpt')).toBe('auto');
    expect(decide(request({ risk: 'read' }), policy, 'deepseek')).toBe('confirm');
    expect(decide(request({ risk: 'exec', mode: 'deny' }), policy, 'chatgpt')).toEqual({ deny: "s.t is set to deny in its server's policy" });
  });

  it('the global modes do not loosen or tighten a tool with its own mode', () => {
    const loose = policyFromConfig(parseConfig({ modes: { exec: 'auto' } }), [{ root: '/tmp', base: '/tmp', key: 't' }]);
    expect(decide(request({ risk: 'exec', mode: 'confirm' }), loose, 'chatgpt')).toBe('confirm');
  });
});

describe("a desktop client's entry, imported", () => {
  // mcp-remote's README form, which hosted servers' pages copy for Claude Desktop: mcp-remote fills in the header itself
  const bridge = {
    command: 'npx',
    args: ['-y', 'mcp-remote', 'https://mcp.example.test/mcp', '--header', 'Authorization:${AUTH_HEADER}'],
    env: { AUTH_HEADER: 'Bearer k-bridge-123456' },
  };

  it('keeps a ${NAME} in args that names a variable of its own env: the program fills it in from the env it is given', () => {
    expect(convertEntry(bridge)).toEqual({ entry: { ...bridge, startTimeoutMs: 300_000 }, notes: [] });
  });

  it.each([
    ['a variable its env does not hold', { ...bridge, env: { OTHER: 'x' } }, '${AUTH_HEADER}'],
    ['a variable of the client in its env', { ...bridge, env: { AUTH_HEADER: 'Bearer ${input:token}' } }, '${input:token}'],
    ["the client's own form in args", { ...bridge, args: ['-y', 'mcp-remote', '${env:URL}'] }, '${env:URL}'],
  ])('still refuses %s', (_what, entry, variable) => {
    expect(convertEntry(entry)).toEqual({ problem: expect.stringContaining(`it uses ${variable}, a variable its client fills in`) });
  });
});

describe('arguments against the tool schema', () => {
  const draft2020 = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { path: { type: 'string' }, depth: { type: 'integer', minimum: 0 }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['path'],
    additionalProperties: false,
  };
  const { check, problem } = compileArgumentCheck('git.log', draft2020);

  it('compiles 2020-12 schemas as well as draft-07 ones', () => {
    expect(problem).toBeUndefined();
    expect(check({ path: '/r', depth: 2 })).toEqual({ ok: true });
  });

  it.each([
    [{}, 'git.log is missing "path" (a string)'],
    [{ path: 1 }, 'git.log argument "path" must be a string, got 1 (a number)'],
    [{ path: '/r', depth: -1 }, 'git.log argument "depth" must be >= 0, got -1 (a number)'],
    [{ path: '/r', tags: ['a', 2] }, 'git.log argument "tags[1]" must be a string, got 2 (a number)'],
    [{ path: '/r', dpeth: 1 }, 'git.log has no argument "dpeth" (did you mean "depth"?); its arguments are path, depth, tags'],
  ])('%j → %s', (args, message) => {
    expect(check(args)).toEqual({ ok: false, message });
  });

  // as Pydantic writes a model's fields ($defs), zod a schema used twice (#/properties/…), and an optional object
  const referenced = {
    type: 'object',
    properties: {
      issue: { $ref: '#/$defs/Issue' },
      copy: { $ref: '#/properties/issue' },
      filter: { anyOf: [{ type: 'object', properties: { state: { type: 'string' } }, additionalProperties: false }, { type: 'null' }] },
    },
    required: ['issue'],
    additionalProperties: false,
    $defs: { Issue: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } }, required: ['title'], additionalProperties: false } },
  };
  it.each([
    [{ issue: { title: 't', titel: 'x' } }, 'gh.create "issue" has no field "titel" (did you mean "title"?); its fields are title, body'],
    [{ issue: { title: 't' }, copy: { title: 't', tags: [] } }, 'gh.create "copy" has no field "tags"; its fields are title, body'],
    [{ issue: {} }, 'gh.create is missing "issue.title" (a string)'],
    [{ issue: { title: 't' }, filter: { state: 'open', sate: 'x' } }, 'gh.create "filter" has no field "sate" (did you mean "state"?); its fields are state'],
  ])('a field behind a reference or anyOf is described by its own schema: %j → %s', (args, message) => {
    expect(compileArgumentCheck('gh.create', referenced).check(args)).toMatchObject({ ok: false, message: expect.stringContaining(message) });
  });

  // a union told apart by a field, as zod writes a discriminated union (inline) and Pydantic a tagged one ($defs)
  const union = {
    type: 'object',
    properties: {
      target: {
        oneOf: [
          { type: 'object', properties: { kind: { const: 'file' }, path: { type: 'string' } }, required: ['kind', 'path'], additionalProperties: false },
          { type: 'object', properties: { kind: { const: 'url' }, url: { type: 'string' }, depth: { type: 'number' } }, required: ['kind', 'url'], additionalProperties: false },
        ],
      },
      pet: { oneOf: [{ $ref: '#/$defs/Cat' }, { $ref: '#/$defs/Dog' }], discriminator: { propertyName: 'pet_type' } },
    },
    $defs: {
      Cat: { type: 'object', properties: { pet_type: { const: 'cat' }, meows: { type: 'integer' } }, required: ['pet_type', 'meows'] },
      Dog: { type: 'object', properties: { pet_type: { const: 'dog' }, barks: { type: 'number' } }, required: ['pet_type', 'barks'] },
    },
  };
  it.each([
    [{ target: { kind: 'url', url: 'x', depht: 1 } }, 'fetch.get "target" has no field "depht" (did you mean "depth"?); its fields are kind, url, depth'],
    [{ target: { kind: 'file', path: 5 } }, 'fetch.get argument "target.path" must be a string, got 5 (a number)'],
    [{ target: { kind: 'ftp' } }, 'fetch.get argument "target.kind" must be one of "file", "url", got "ftp" (a string)'],
    [{ pet: { pet_type: 'dog', barks: '3' } }, 'fetch.get argument "pet.barks" must be a number, got "3" (a string)'],
    [{ pet: { pet_type: 'cat' } }, 'fetch.get is missing "pet.meows" (an integer)'],
  ])('a union told apart by a field is described by the branch the arguments chose: %j → %s', (args, message) => {
    expect(compileArgumentCheck('fetch.get', union).check(args)).toEqual({ ok: false, message });
  });

  it('a schema that cannot be compiled leaves the check to the server and says so', () => {
    const broken = compileArgumentCheck('x.y', { type: 'object', properties: { a: { $ref: '#/nowhere' } } });
    expect(broken.problem).toMatch(/^the input schema of x\.y cannot be compiled/);
    expect(broken.check({ a: 1 })).toEqual({ ok: true });
  });
});

describe('what a model reads of a result', () => {
  // 150 KB of an image's bytes as base64, and a cursor as APIs encode their paging state
  const SCREENSHOT = Buffer.from(Array.from({ length: 150 * 1024 }, (_, i) => (i * 7919) % 251)).toString('base64');
  const CURSOR = Buffer.from(JSON.stringify({ after: 'issue-1234', sort: 'updated', direction: 'desc', filters: { state: 'open', labels: ['bug', 'p1'] } }).repeat(8)).toString('base64');
  it.each([
    ['text as is', { content: [{ type: 'text', text: 'a\nb' }] }, 'a\nb'],
    ['an image as a placeholder', { content: [{ type: 'image', data: 'A'.repeat(4096), mimeType: 'image/png' }] }, '[image image/png, 3.0 KB — not shown in the chat]'],
    ['audio as a placeholder', { content: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] }, '[audio audio/wav, 3 B — not shown in the chat]'],
    ['a resource link', { content: [{ type: 'resource_link', uri: 'file:///a.md', name: 'a.md', mimeType: 'text/markdown' }] }, '[resource link] a.md — file:///a.md (text/markdown)'],
    ['an embedded text resource', { content: [{ type: 'resource', resource: { uri: 'mem://x', mimeType: 'text/plain', text: 'hello' } }] }, '[resource mem://x (text/plain)]\nhello'],
    ['an embedded binary resource', { content: [{ type: 'resource', resource: { uri: 'mem://b', mimeType: 'application/pdf', blob: 'AAAA' } }] }, '[resource mem://b: application/pdf, 3 B — not shown in the chat]'],
    [
      'an embedded text file sent as a blob, as its text',
      { content: [{ type: 'resource', resource: { uri: 'file:///notes.md', mimeType: 'text/markdown; charset=utf-8', blob: Buffer.from('# Notes\nbuy milk — 2 €').toString('base64') } }] },
      '[resource file:///notes.md (text/markdown; charset=utf-8)]\n# Notes\nbuy milk — 2 €',
    ],
    [
      'a blob said to be JSON whose bytes are not UTF-8 stays a placeholder',
      { content: [{ type: 'resource', resource: { uri: 'mem://j', mimeType: 'application/json', blob: Buffer.from([0xff, 0xfe, 0x7b]).toString('base64') } }] },
      '[resource mem://j: application/json, 3 B — not shown in the chat]',
    ],
    ['structured content alone, compact', { content: [], structuredContent: { a: 1, b: [true] } }, '{"a":1,"b":[true]}'],
    ['structured content beside its text, once', { content: [{ type: 'text', text: '{\n  "a": 1\n}' }], structuredContent: { a: 1 } }, '{\n  "a": 1\n}'],
    [
      'structured content beside a text giving the data inside it (the memory server), once',
      { content: [{ type: 'text', text: '[\n  {"name": "a"}\n]' }], structuredContent: { entities: [{ name: 'a' }] } },
      '[\n  {"name": "a"}\n]',
    ],
    ['structured content after JSON that is not its data', { content: [{ type: 'text', text: '{"status":"created"}' }], structuredContent: { n: 12 } }, '{"status":"created"}\n{"n":12}'],
    ['structured content after a text that only speaks of it', { content: [{ type: 'text', text: 'Created issue #12.' }], structuredContent: { n: 12 } }, 'Created issue #12.\n{"n":12}'],
    ['an unknown kind', { content: [{ type: 'hologram' }] }, '[hologram content — not shown in the chat]'],
    [
      'a data URL in a text part as a placeholder, the words around it kept',
      { content: [{ type: 'text', text: `here is your chart: data:image/png;base64,${'B'.repeat(4096)} (made with matplotlib)` }] },
      'here is your chart: [data URL image/png, 3.0 KB — not shown in the chat] (made with matplotlib)',
    ],
    [
      'a data URL inside JSON text',
      {
        content: [{ type: 'resource', resource: { uri: 'mem://j', text: JSON.stringify({ shot: `data:image/jpeg;base64,${'C'.repeat(800)}==` }) } }],
        structuredContent: { shot: `data:image/jpeg;base64,${'C'.repeat(800)}==` },
      },
      '[resource mem://j]\n{"shot":"[data URL image/jpeg, 599 B — not shown in the chat]"}',
    ],
    ['structured content holding a data URL', { content: [], structuredContent: { png: `data:;base64,${'D'.repeat(400)}` } }, '{"png":"[data URL of unknown type, 300 B — not shown in the chat]"}'],
    ['a short data URL (an icon, a tiny example) as it is', { content: [{ type: 'text', text: 'data:text/plain;base64,aGk=' }] }, 'data:text/plain;base64,aGk='],
    [
      'base64 in structured content (a screenshot field) as a placeholder, the fields after it kept',
      { content: [], structuredContent: { screenshot: SCREENSHOT, title: 'Example Domain', url: 'https://example.com/' } },
      '{"screenshot":"[base64 data, 150.0 KB — not shown in the chat]","title":"Example Domain","url":"https://example.com/"}',
    ],
    [
      'base64 in a text part as a placeholder, the words around it kept',
      { content: [{ type: 'text', text: `Encoded report.pdf:\n${SCREENSHOT}\nPass it to mail.send as attachment.` }] },
      'Encoded report.pdf:\n[base64 data, 150.0 KB — not shown in the chat]\nPass it to mail.send as attachment.',
    ],
    ['a pagination cursor (short base64 the model passes on) as it is', { content: [{ type: 'text', text: `next: ${CURSOR}` }] }, `next: ${CURSOR}`],
    ['a long sequence of letters alone (DNA, a hash in hex) as it is', { content: [{ type: 'text', text: 'ACGT'.repeat(5000) }] }, 'ACGT'.repeat(5000)],
    [
      // the tool has run: its text is kept, and the structure it cannot show is named (it threw a stack overflow)
      'structured content nested too deep to write out, named beside the text',
      { content: [{ type: 'text', text: 'Indexed the tree.' }], structuredContent: { tree: JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`) as unknown } },
      'Indexed the tree.\n[structured content nested deeper than 256 levels of arrays and objects — not shown in the chat]',
    ],
  ])('%s', (_name, result, text) => {
    expect(toolResultText(result)).toBe(text);
  });

  it('a blob said to be text whose bytes hold NULs (UTF-16 without its mark) stays a placeholder: no pattern finds a secret between NULs', () => {
    const blob = Buffer.from('DB_PASSWORD=hunter2secret\n', 'utf16le').toString('base64');
    const text = toolResultText({ content: [{ type: 'resource', resource: { uri: 'file:///C:/app/.env', mimeType: 'text/plain', blob } }] });
    const policy = policyFromConfig(parseConfig({}), [{ root: '/tmp', base: '/tmp', key: 't' }]);
    // a chat drops the NULs as it shows the text
    expect(redact(text, policy).replaceAll('\0', '')).not.toContain('hunter2secret');
    expect(text).toBe('[resource file:///C:/app/.env: text/plain, 52 B — not shown in the chat]');
  });
});

describe('a broken or failing server does not stop the companion', () => {
  let world: McpWorld;
  const configDir = mkdtempSync(join(tmpdir(), 'cb-mcp-config-'));
  const configFile = join(configDir, 'config.json');
  const config = {
    mcpServers: {
      typo: { command: process.execPath, args: 'not-an-array' },
      missing: { command: '/nonexistent/chatbridge-test-server' },
      nowhere: { command: process.execPath, args: ['-e', ''], cwd: '/nonexistent/chatbridge-test-folder' },
      exits: { command: process.execPath, args: ['-e', 'process.exit(7)'] },
      fine: fixtureServer('crash.mjs', { policy: { default: 'auto' } }),
      off: fixtureServer('crash.mjs', { disabled: true }),
    },
  };

  beforeAll(async () => {
    writeFileSync(configFile, JSON.stringify(config));
    world = await makeMcpWorld(config, { maxFailures: 3, backoffBaseMs: 50, backoffMaxMs: 100, configFile });
  }, 60_000);

  afterAll(async () => {
    await world?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('the broken entry is reported with its server, key and rule; the rest works', async () => {
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string; transport: string; lastError?: string }> };
    expect(servers.find((s) => s.name === 'typo')).toMatchObject({ state: 'error', transport: 'invalid', lastError: expect.stringContaining('mcpServers.typo.args: value "not-an-array" — must be array') });
    expect(servers.find((s) => s.name === 'off')).toMatchObject({ state: 'disabled' });
    const run = await world.run('mcp-request', mcpCall('ok', 'fine.ok', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toMatch(/^alive/);
    const broken = await world.run('mcp-request', mcpCall('bad', 'typo.anything', {}));
    expect(mcpJson(broken.resultText).error?.message).toMatch(/^UNAVAILABLE: MCP server typo is not usable: mcpServers\.typo\.args/);
    const disabled = await world.run('mcp-request', mcpCall('off', 'off.ok', {}));
    expect(mcpJson(disabled.resultText).error?.message).toBe('UNAVAILABLE: MCP server off is disabled in the config');
  });

  it('a server that cannot start is retried with backoff, then given up, and says why', async () => {
    await waitUntil('both failing servers are given up', async () => {
      const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string }> };
      return servers.filter((s) => ['missing', 'exits', 'nowhere'].includes(s.name) && s.state === 'error').length === 3;
    });
    const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; restarts: number; lastError?: string }> };
    const missing = servers.find((s) => s.name === 'missing');
    expect(missing?.restarts).toBe(2);
    expect(missing?.lastError).toMatch(/^could not start: the program "\/nonexistent\/chatbridge-test-server" does not exist \(gave up after 3 failures in a row; the next call to one of its tools tries it again; restart chatbridge after changing its entry\)$/);
    expect(servers.find((s) => s.name === 'exits')?.lastError).toMatch(/gave up after 3 failures/);
    // a folder to start in that is not there: named, not taken for a missing command
    expect(servers.find((s) => s.name === 'nowhere')?.lastError).toMatch(/^could not start: its folder \(cwd\) "\/nonexistent\/chatbridge-test-folder" is not an existing directory/);
    // asked first (its tools are exec, confirm by default): a server is started for a call only once the call may run
    const asked = await world.run('mcp-request', mcpCall('gone', 'missing.tool', {}));
    expect(asked.status).toBe('pending');
    const call = await world.decide(asked.runId, 'approve');
    expect(mcpJson(call.resultText).error?.message).toMatch(/^UNAVAILABLE: MCP server missing is not running: could not start/);
    const status = (await (await fetch(`http://127.0.0.1:${world.port}/v1/status`)).json()) as { mcp: Record<string, number> };
    expect(status.mcp).toMatchObject({ servers: 6, ready: 1, failing: 4 });
  });

  it('a given-up server whose entry the person removed or changed since the start is not started again by a call', async () => {
    await waitUntil('exits and nowhere are given up', async () => {
      const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; state: string }> };
      return servers.filter((s) => ['exits', 'nowhere'].includes(s.name) && s.state === 'error').length === 2;
    });
    const restarts = async (name: string) =>
      ((await (await world.request('/v1/mcp-servers')).json()) as { servers: Array<{ name: string; restarts: number }> }).servers.find((s) => s.name === name)?.restarts;
    const before = { exits: await restarts('exits'), nowhere: await restarts('nowhere') };
    // chatbridge mcp remove exits; and nowhere turned off while chatbridge runs
    const { exits: _removed, ...kept } = config.mcpServers;
    writeFileSync(configFile, JSON.stringify({ mcpServers: { ...kept, nowhere: { ...kept.nowhere, disabled: true } } }));
    const removed = await world.run('mcp-request', mcpCall('rm', 'exits.tool', {}));
    expect(mcpJson(removed.resultText).error?.message).toBe(
      `UNAVAILABLE: MCP server exits was given up after failing to start, and its entry was removed from ${configFile} since chatbridge started: the entry it started with is not started again; restart chatbridge to use the config as it is now`,
    );
    const changed = await world.run('mcp-request', mcpCall('ch', 'nowhere.tool', {}));
    expect(mcpJson(changed.resultText).error?.message).toMatch(/^UNAVAILABLE: MCP server nowhere was given up after failing to start, and its entry was changed in .*config\.json since chatbridge started/);
    expect({ exits: await restarts('exits'), nowhere: await restarts('nowhere') }).toEqual(before);
  });
});
