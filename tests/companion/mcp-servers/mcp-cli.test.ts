import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../companion/cli';
import { desktopConfigSources } from '../../../companion/mcp-servers/import';
import { MEMORY } from './world';

/*
 * `chatbridge mcp list | add | remove | import`, run as the CLI runs them, against a fake HOME holding the desktop
 * clients' config files where they keep them, and a fake CHATBRIDGE_HOME. No companion is running, so `list`
 * reads the config file.
 */
let base: string;
let fakeHome: string;
let dataHome: string;
let configFile: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-mcp-cli-')));
  fakeHome = join(base, 'home-of-person');
  dataHome = join(fakeHome, '.chatbridge');
  configFile = join(dataHome, 'config.json');
  mkdirSync(fakeHome, { recursive: true });
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: { HOME: fakeHome, CHATBRIDGE_HOME: dataHome, PATH: process.env.PATH ?? '' },
    cwd: base,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

function config(): Record<string, unknown> {
  return JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
}

describe('chatbridge mcp add / list / remove', () => {
  it('with no config yet, list says so', async () => {
    const { code, out } = await cli('mcp', 'list');
    expect(code).toBe(0);
    expect(out).toBe(`no MCP servers in ${configFile} (add one with \`npx chatbridge mcp add\` in the chatbridge folder, or \`npx chatbridge mcp import\` in the chatbridge folder)`);
  });

  it('add NAME -- CMD ARGS writes <home>/config.json (0600), keeping other keys; list shows it', async () => {
    writeJson(configFile, { roots: ['/somewhere'], approvalWaitMs: 5000 });
    const added = await cli('mcp', 'add', 'memory', '--env', 'MEMORY_FILE_PATH=/tmp/m.jsonl', '--', process.execPath, MEMORY);
    expect(added.code).toBe(0);
    expect(added.out).toContain(`added memory to ${configFile}: ${process.execPath} ${MEMORY}  (env: MEMORY_FILE_PATH)`);
    expect(config()).toEqual({
      roots: ['/somewhere'],
      approvalWaitMs: 5000,
      mcpServers: { memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: '/tmp/m.jsonl' } } },
    });
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    const listed = await cli('mcp', 'list');
    expect(listed.out).toContain(`memory  configured  ${process.execPath} ${MEMORY}  (env: MEMORY_FILE_PATH)`);
    expect(listed.out).not.toContain('/tmp/m.jsonl');
  });

  it('add NAME --url with headers; list never shows header values or a query string', async () => {
    const added = await cli('mcp', 'add', 'remote', '--url', 'https://mcp.example.test/mcp?key=secret123', '--header', 'Authorization: Bearer tok-abc');
    expect(added.code).toBe(0);
    expect(config().mcpServers).toEqual({ remote: { url: 'https://mcp.example.test/mcp?key=secret123', headers: { Authorization: 'Bearer tok-abc' } } });
    const listed = await cli('mcp', 'list');
    expect(listed.out).toContain('remote  configured  https://mcp.example.test/mcp?…  (headers: Authorization)');
    expect(listed.out).not.toMatch(/secret123|tok-abc/);
    const sse = await cli('mcp', 'add', 'old', '--url', 'http://127.0.0.1:9/sse', '--sse');
    expect(sse.code).toBe(0);
    expect((config().mcpServers as Record<string, unknown>).old).toEqual({ url: 'http://127.0.0.1:9/sse', type: 'sse' });
  });

  it('a key in a URL path is not shown by add, list or import, nor by the error of a URL refused; it is kept as written', async () => {
    const key = 'ZjA3NzE2YmItMjQ4ZS00NTk5LWI1ODUtZTQ3NzFmMDQ5ZDk2';
    const uuid = '9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0';
    const added = await cli('mcp', 'add', 'zap', '--url', `https://mcp.zapier.test/api/mcp/s/${key}/mcp`);
    expect(added.out).toContain('added zap to');
    expect(added.out).toContain(': https://mcp.zapier.test/api/mcp/s/…/mcp');
    expect((config().mcpServers as Record<string, { url: string }>).zap?.url).toBe(`https://mcp.zapier.test/api/mcp/s/${key}/mcp`);
    writeJson(join(fakeHome, '.cursor', 'mcp.json'), { mcpServers: { copilot: { url: `https://api.copilot.test/mcp/${uuid}?api_key=k-123456` } } });
    const imported = await cli('mcp', 'import');
    expect(imported.out).toContain('+ copilot  from Cursor  https://api.copilot.test/mcp/…?…');
    writeJson(configFile, { mcpServers: { zap: { url: `https://mcp.zapier.test/api/mcp/s/${key}/mcp` }, ftp: { url: `ftp://files.test/mcp/${uuid}` } } });
    const listed = await cli('mcp', 'list');
    expect(listed.out).toContain('zap  configured  https://mcp.zapier.test/api/mcp/s/…/mcp');
    expect(listed.out).toContain('ftp  invalid  mcpServers.ftp.url: value "ftp://files.test/mcp/…" — must be an http:// or https:// URL');
    for (const shown of [added.out, imported.out, listed.out]) expect(shown).not.toMatch(new RegExp(`${key}|${uuid}|k-123456`));
  });

  it("add NAME COMMAND ARGS without \"--\": the line it says to type keeps the command's own options (npx -y), and nothing is written", async () => {
    const memory = await cli('mcp', 'add', 'memory', 'npx', '-y', '@modelcontextprotocol/server-memory');
    expect(memory.code).toBe(2);
    expect(memory.err).toMatch(/; run npx chatbridge mcp add memory -- npx -y @modelcontextprotocol\/server-memory$/);
    // our options before the command stay ours; the command's after it (one named like ours too) stay its, quoted as typed
    const git = await cli('mcp', 'add', 'git', '--env', 'GIT_AUTHOR_NAME=Ann Lee', 'uvx', 'mcp-server-git', '--repository', '/home/ann/my repo', '--env', 'x', '-h');
    expect(git.err).toMatch(/; run npx chatbridge mcp add git --env 'GIT_AUTHOR_NAME=Ann Lee' -- uvx mcp-server-git --repository '\/home\/ann\/my repo' --env x -h$/);
    expect(statSync(configFile, { throwIfNoEntry: false })).toBeUndefined();
  });

  it.each([
    [['mcp', 'add', 'filesystem', '--', 'npx', 'x'], 2, /"filesystem" is reserved/],
    [['mcp', 'add', 'a.b', '--', 'npx', 'x'], 2, /"a\.b" is not a valid server name/],
    [['mcp', 'add', '__proto__', '--', 'npx', 'x'], 2, /"__proto__" is not a server name chatbridge can keep/],
    [['mcp', 'add', 'x'], 2, /say how to start x: npx chatbridge mcp add x -- COMMAND/],
    [['mcp', 'add', 'x', 'npx', 'pkg'], 2, /put the command after "--", so that its own options \(such as -y\) are its and not chatbridge's; run npx chatbridge mcp add x -- npx pkg$/],
    [['mcp', 'add', 'x', '--url', 'https://a.example/mcp', 'extra'], 2, /unexpected "extra" after the server's URL/],
    [['mcp', 'add', 'x', '--url', 'ftp://a'], 2, /must be an http:\/\/ or https:\/\/ URL/],
    [['mcp', 'add', 'x', '--env', 'NOEQUALS', '--', 'npx'], 2, /--env "NOEQUALS" must look like KEY=value/],
    [['mcp', 'add', 'x', '--start-timeout-ms', '10', '--', 'npx'], 2, /mcpServers\.x\.startTimeoutMs: value 10 — must be ≥ 1000/],
    [['mcp', 'add', 'x', '--start-timeout-ms', '3600000', '--url', 'https://a.example/mcp'], 2, /mcpServers\.x\.startTimeoutMs: value 3600000 — must be ≤ 600000/],
    [['mcp', 'add', 'x', '--start-timeout-ms', '2m', '--', 'npx'], 2, /mcpServers\.x\.startTimeoutMs: value "2m" — must be number/],
    [['mcp', 'add', 'x', '--start-timeout-ms', '1500.5', '--', 'npx'], 2, /mcpServers\.x\.startTimeoutMs: value 1500\.5 — must be int/],
    [['mcp', 'add', 'x', '--', 'npx', '--start-timeout-ms'], 0, /^$/],
    [['mcp', 'add', 'x', '--start-timeout-ms'], 2, /--start-timeout-ms needs a value/],
    [['mcp', 'frobnicate'], 2, /unknown mcp command "frobnicate"/],
  ])('%j exits %i with a message naming the rule', async (argv, code, message) => {
    const result = await cli(...argv);
    expect(result.code).toBe(code);
    expect(result.err).toMatch(message);
  });

  it('add --start-timeout-ms sets the server\'s own start timeout, for a program or a URL; list shows it', async () => {
    const program = await cli('mcp', 'add', 'docker', '--start-timeout-ms', '180000', '--', 'docker', 'run', '-i', 'mcp/git');
    expect(program.code).toBe(0);
    expect(program.out).toContain(`added docker to ${configFile}: docker run -i mcp/git  (start timeout: 180000 ms)`);
    const hosted = await cli('mcp', 'add', 'hosted', '--url', 'https://mcp.example.com/mcp', '--start-timeout-ms', '5000');
    expect(hosted.code).toBe(0);
    expect(config().mcpServers).toEqual({
      docker: { command: 'docker', args: ['run', '-i', 'mcp/git'], startTimeoutMs: 180_000 },
      hosted: { url: 'https://mcp.example.com/mcp', startTimeoutMs: 5_000 },
    });
    expect((await cli('mcp', 'list')).out).toContain('hosted  configured  https://mcp.example.com/mcp  (start timeout: 5000 ms)');
    // refused: nothing is written
    expect((await cli('mcp', 'add', 'slow', '--start-timeout-ms', '999', '--', 'npx')).code).toBe(2);
    expect(Object.keys(config().mcpServers as object)).toEqual(['docker', 'hosted']);
  });

  it('adding a name twice is refused; remove takes it out; removing it again names the servers left', async () => {
    expect((await cli('mcp', 'add', 'one', '--', 'a')).code).toBe(0);
    expect((await cli('mcp', 'add', 'two', '--', 'b')).code).toBe(0);
    const again = await cli('mcp', 'add', 'one', '--', 'c');
    expect(again.code).toBe(1);
    expect(again.err).toContain(`one is already configured in ${configFile}; remove it first (\`npx chatbridge mcp remove one\` in the chatbridge folder)`);
    const removed = await cli('mcp', 'remove', 'one');
    expect(removed.out).toBe(`removed one from ${configFile}. Restart chatbridge to stop it.`);
    expect(Object.keys(config().mcpServers as object)).toEqual(['two']);
    const missing = await cli('mcp', 'remove', 'one');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(`no MCP server "one" in ${configFile}; the servers are two`);
  });

  it('--config FILE edits that file instead', async () => {
    const other = join(base, 'elsewhere.json');
    expect((await cli('mcp', 'add', 'x', '--config', other, '--', 'run-me')).code).toBe(0);
    expect(JSON.parse(readFileSync(other, 'utf8'))).toEqual({ mcpServers: { x: { command: 'run-me', args: [] } } });
  });

  it('a config file that is not JSON is left alone', async () => {
    writeJson(configFile, '{ "roots": [ ');
    const result = await cli('mcp', 'add', 'x', '--', 'y');
    expect(result.code).toBe(2);
    expect(result.err).toContain('is not valid JSON');
    expect(readFileSync(configFile, 'utf8')).toBe('{ "roots": [ ');
  });

  it('a config file saved with a byte order mark (Windows Notepad) is listed and edited, keeping its other keys', async () => {
    const memory = { command: process.execPath, args: [MEMORY] };
    writeJson(configFile, `\uFEFF${JSON.stringify({ approvalWaitMs: 5000, mcpServers: { memory } }, null, 2)}`);
    const listed = await cli('mcp', 'list');
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(`memory  configured  ${process.execPath} ${MEMORY}`);
    const added = await cli('mcp', 'add', 'second', '--', 'node', 'server.js');
    expect(added.err).toBe('');
    expect(added.code).toBe(0);
    expect(config()).toMatchObject({ approvalWaitMs: 5000, mcpServers: { memory, second: { command: 'node', args: ['server.js'] } } });
  });

  it('add with a --cwd that is not an existing directory is refused naming it, and writes nothing', async () => {
    writeFileSync(join(base, 'a-file'), '');
    for (const cwd of [join(base, 'no-such-folder'), join(base, 'a-file')]) {
      const result = await cli('mcp', 'add', 'x', '--cwd', cwd, '--', 'run-me');
      expect(result.code).toBe(2);
      expect(result.err).toContain(`--cwd ${JSON.stringify(cwd)} must be an existing directory`);
    }
    expect(() => statSync(configFile)).toThrow(/ENOENT/);
    expect((await cli('mcp', 'add', 'x', '--cwd', base, '--', 'run-me')).code).toBe(0);
    expect(config()).toEqual({ mcpServers: { x: { command: 'run-me', args: [], cwd: base } } });
  });

  it("list shows a server's own start timeout, and a start timeout out of range as the problem it is", async () => {
    writeJson(configFile, {
      mcpServers: {
        docker: { command: 'docker', args: ['run', '-i', 'mcp/git'], startTimeoutMs: 180_000 },
        hosted: { url: 'https://mcp.example.com/mcp', startTimeoutMs: 5_000 },
        hurried: { command: 'npx', startTimeoutMs: 10 },
      },
    });
    const { out } = await cli('mcp', 'list');
    expect(out).toContain('docker  configured  docker run -i mcp/git  (start timeout: 180000 ms)');
    expect(out).toContain('hosted  configured  https://mcp.example.com/mcp  (start timeout: 5000 ms)');
    expect(out).toContain('hurried  invalid  mcpServers.hurried.startTimeoutMs: value 10 — must be ≥ 1000');
  });

  it('list shows a broken entry with its problem', async () => {
    writeJson(configFile, { mcpServers: { bad: { command: 'x', args: 'y' } } });
    const { out } = await cli('mcp', 'list');
    expect(out).toContain('bad  invalid  mcpServers.bad.args: value "y" — must be array');
  });

  // Once a gap: a headers or env value of the wrong type was quoted back as the problem, so an Authorization header
  // written as one string, or an API key given as a number, was printed to the terminal
  it('list and import show a wrongly-typed headers or env value by its kind, never what it holds', async () => {
    const entries = {
      whole: { url: 'https://mcp.example.com/mcp', headers: 'Authorization: Bearer tok-7Hq2xWk9' },
      listed: { url: 'https://mcp.example.com/mcp', headers: { Authorization: ['Bearer tok-3Pz8mRv1'] } },
      numeric: { command: 'x', env: { API_KEY: 4417883190 } },
      line: { command: 'x', env: 'API_KEY=tok-5Lc0nYd4' },
    };
    writeJson(configFile, { mcpServers: entries });
    writeJson(join(fakeHome, '.cursor', 'mcp.json'), { mcpServers: entries });
    const listed = await cli('mcp', 'list');
    const imported = await cli('mcp', 'import');
    for (const { out } of [listed, imported]) {
      expect(out).not.toMatch(/tok-|4417883190/);
      expect(out).toContain('mcpServers.whole.headers: a string (not shown: headers and env hold credentials) — must be an object of strings');
      expect(out).toContain('mcpServers.listed.headers.Authorization: an array (not shown: headers and env hold credentials) — must be string');
      expect(out).toContain('mcpServers.numeric.env.API_KEY: a number (not shown: headers and env hold credentials) — must be string');
      expect(out).toContain('mcpServers.line.env: a string (not shown: headers and env hold credentials) — must be an object of strings');
    }
  });
});

describe('chatbridge mcp import', () => {
  function desktopConfigs(): void {
    writeJson(join(fakeHome, '.config', 'Claude', 'claude_desktop_config.json'), {
      mcpServers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/home/x/memory.jsonl' } },
        filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/x'] },
      },
    });
    writeJson(join(fakeHome, '.cursor', 'mcp.json'), {
      mcpServers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/home/x/memory.jsonl' } },
        linear: { url: 'https://mcp.linear.example/sse', type: 'sse', autoApprove: ['list_issues'] },
      },
    });
    writeJson(join(fakeHome, '.codeium', 'windsurf', 'mcp_config.json'), { mcpServers: { remote: { serverUrl: 'https://remote.example/mcp' } } });
    // VS Code: JSON with comments, servers under "servers", and one entry using the editor's own variables
    writeJson(
      join(fakeHome, '.config', 'Code', 'User', 'mcp.json'),
      `{
  // my servers
  "servers": {
    "github": { "type": "http", "url": "https://api.githubcopilot.example/mcp/", },
    "withInput": { "type": "stdio", "command": "npx", "args": ["x"], "env": { "TOKEN": "\${input:token}" } },
  },
}`,
    );
    writeJson(join(fakeHome, '.claude.json'), { numStartups: 3, mcpServers: { memory: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-other'] } } });
  }

  it('shows what it would add, from each client, renaming a reserved name, and writes nothing', async () => {
    desktopConfigs();
    const { code, out } = await cli('mcp', 'import');
    expect(code).toBe(0);
    expect(out).toContain(`Claude Desktop: ${join(fakeHome, '.config', 'Claude', 'claude_desktop_config.json')} — 2 servers`);
    expect(out).toContain(`Cursor: ${join(fakeHome, '.cursor', 'mcp.json')} — 2 servers`);
    expect(out).toContain('VS Code: ');
    expect(out).toContain('+ memory  from Claude Desktop  npx -y @modelcontextprotocol/server-memory  (env: MEMORY_FILE_PATH)');
    expect(out).toContain('+ filesystem-mcp (was "filesystem")  from Claude Desktop  npx -y @modelcontextprotocol/server-filesystem /home/x');
    expect(out).toContain('+ linear  from Cursor  sse https://mcp.linear.example/sse');
    expect(out).toContain(`left out "autoApprove": approvals come from chatbridge's policy (its "policy" key)`);
    expect(out).toContain('+ remote  from Windsurf  https://remote.example/mcp');
    expect(out).toContain('+ github  from VS Code  https://api.githubcopilot.example/mcp/');
    expect(out).toMatch(/! withInput {2}from VS Code\n\s+it uses \$\{input:token\}, a variable its client fills in when it starts the server; chatbridge does not/);
    // the same server in two clients is one server; a different one under a taken name is not merged
    expect(out).toContain('= memory  from Cursor');
    expect(out).toMatch(/= memory {2}from Cursor\n\s+already imported from Claude Desktop\n/);
    expect(out).toMatch(/! memory {2}from Claude Code\n\s+a different server is imported from Claude Desktop as memory; add this one by hand under another name \(`npx chatbridge mcp add` in the chatbridge folder\)/);
    expect(out).not.toContain('/home/x/memory.jsonl');
    expect(out).toContain(`nothing was written; run \`npx chatbridge mcp import --yes\` in the chatbridge folder to add these 5 to ${configFile}`);
    expect(() => readFileSync(configFile)).toThrow();
  });

  it('--yes adds them; a second import finds them all configured', async () => {
    desktopConfigs();
    writeJson(configFile, { approvalWaitMs: 1000, mcpServers: { mine: { command: 'keep-me' } } });
    const { code, out } = await cli('mcp', 'import', '--yes');
    expect(code).toBe(0);
    expect(out).toContain(`added 5 servers to ${configFile}`);
    const written = config();
    expect(written.approvalWaitMs).toBe(1000);
    expect(Object.keys(written.mcpServers as object).sort()).toEqual(['filesystem-mcp', 'github', 'linear', 'memory', 'mine', 'remote']);
    expect((written.mcpServers as Record<string, unknown>).remote).toEqual({ url: 'https://remote.example/mcp' });
    expect((written.mcpServers as Record<string, unknown>).github).toEqual({ url: 'https://api.githubcopilot.example/mcp/', type: 'http' });
    const again = await cli('mcp', 'import', '--yes');
    expect(again.out).toContain('nothing to add');
    expect(again.out).toContain('= memory  from Claude Desktop');
  });

  it('a file cut short or missing a comma is refused whole, naming the file; its servers are not half-imported', async () => {
    const claude = join(fakeHome, '.config', 'Claude', 'claude_desktop_config.json');
    const cursor = join(fakeHome, '.cursor', 'mcp.json');
    writeJson(claude, '{"mcpServers": {"first": {"command": "npx", "args": ["one"]}, "second": {"comm');
    writeJson(cursor, '{"mcpServers": {"a": {"command": "npx", "args": ["x"]} "b": {"command": "y"}}}');
    writeJson(join(fakeHome, '.codeium', 'windsurf', 'mcp_config.json'), { mcpServers: { ok: { command: 'ok-server' } } });
    const { code, out } = await cli('mcp', 'import', '--yes');
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`Claude Desktop: ${claude} — is not valid JSON \\(.+\\); none of its servers were imported`));
    expect(out).toMatch(new RegExp(`Cursor: ${cursor} — is not valid JSON \\(.+\\); none of its servers were imported`));
    expect(out).not.toMatch(/[+!] (first|second|a|b) /);
    expect(Object.keys(config().mcpServers as object)).toEqual(['ok']);
  });

  it('servers that are not an object of servers are named with the key and the rule, not counted as none', async () => {
    const cursor = join(fakeHome, '.cursor', 'mcp.json');
    writeJson(cursor, { mcpServers: [{ command: 'npx', env: { TOKEN: 'tok-123' } }] });
    writeJson(join(fakeHome, '.config', 'Code', 'User', 'mcp.json'), '[]');
    const { out } = await cli('mcp', 'import');
    expect(out).toContain(`Cursor: ${cursor} — "mcpServers" is an array — must be an object of servers by name; none were imported`);
    expect(out).toContain('mcp.json — holds an array, not a JSON object; none of its servers were imported');
    expect(out).not.toContain('tok-123');
  });

  it('comments, trailing commas and a byte order mark are read as the clients read them', async () => {
    writeJson(
      join(fakeHome, '.config', 'Code', 'User', 'mcp.json'),
      '\uFEFF{\n  /* mine */ "servers": {\n    // a comment\n    "web": { "url": "https://x.example/a//b,}", },\n  },\n}',
    );
    const { out } = await cli('mcp', 'import');
    expect(out).toContain('+ web  from VS Code  https://x.example/a//b,%7D');
  });

  it.each([
    ['Claude Code', '.claude.json', { type: 'http', url: 'https://api.example/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } }, '${GITHUB_TOKEN}'],
    ['Claude Code', '.claude.json', { command: 'npx', args: ['x'], env: { KEY: '${API_KEY:-none}' } }, '${API_KEY:-none}'],
    ['Cursor', '.cursor/mcp.json', { command: 'node', args: ['a${pathSeparator}b.js'] }, '${pathSeparator}'],
    ['Cursor', '.cursor/mcp.json', { command: 'node', args: ['${/}srv.js'] }, '${/}'],
  ])("%s: a client's variable (%#) is not imported as literal text", async (client, file, entry, variable) => {
    writeJson(join(fakeHome, file), { mcpServers: { withVariable: entry } });
    const { out } = await cli('mcp', 'import', '--yes');
    expect(out).toContain(`! withVariable  from ${client}\n      it uses ${variable}, a variable its client fills in`);
    expect(out).toContain('nothing to add');
    expect(() => readFileSync(configFile)).toThrow();
  });

  it("shows a server's directory and that it is disabled; Windsurf's disabled tools stay off (denied)", async () => {
    writeJson(join(fakeHome, '.claude.json'), { mcpServers: { inrepo: { command: 'node', args: ['srv.js'], cwd: '/opt/srv', env: { TOKEN: 'tok-secret-1' } } } });
    writeJson(join(fakeHome, '.codeium', 'windsurf', 'mcp_config.json'), {
      mcpServers: { off: { command: 'off-server', disabled: true }, git: { command: 'git-mcp', disabledTools: ['push', 'reset'] } },
    });
    const { out } = await cli('mcp', 'import', '--yes');
    expect(out).toContain('+ inrepo  from Claude Code  node srv.js  (in /opt/srv)  (env: TOKEN)');
    expect(out).not.toContain('tok-secret-1');
    expect(out).toContain('+ off  from Windsurf  off-server  (disabled: kept, not started)');
    expect(out).toMatch(/\+ git {2}from Windsurf {2}git-mcp\n\s+its disabled tools are denied: push, reset/);
    expect(out).not.toContain('left out "disabledTools"');
    const servers = config().mcpServers as Record<string, unknown>;
    expect(servers.git).toEqual({ command: 'git-mcp', policy: { tools: { push: 'deny', reset: 'deny' } } });
    expect(servers.off).toEqual({ command: 'off-server', disabled: true });
  });

  it('a taken name is told apart: configured already, or from another client in this import (also after a rename)', async () => {
    writeJson(configFile, { mcpServers: { notes: { command: 'notes-mcp' } } });
    writeJson(join(fakeHome, '.cursor', 'mcp.json'), { mcpServers: { notes: { command: 'other-notes' }, 'my server': { command: 'a' } } });
    writeJson(join(fakeHome, '.codeium', 'windsurf', 'mcp_config.json'), { mcpServers: { 'my-server': { command: 'b' } } });
    const { out } = await cli('mcp', 'import');
    expect(out).toMatch(/! notes {2}from Cursor\n\s+a different server is configured as notes; add this one by hand/);
    expect(out).toContain('+ my-server (was "my server")  from Cursor  a');
    expect(out).toMatch(/! my-server {2}from Windsurf\n\s+a different server is imported from Cursor as my-server; add this one by hand/);
  });

  it('a server added with chatbridge mcp add is the same server as a client writes it (empty env and args, a type that is the default)', async () => {
    expect((await cli('mcp', 'add', 'memory', '--', 'npx', '-y', '@modelcontextprotocol/server-memory')).code).toBe(0);
    expect((await cli('mcp', 'add', 'github', '--url', 'https://api.githubcopilot.example/mcp/')).code).toBe(0);
    expect((await cli('mcp', 'add', 'time', '--', 'uvx', 'mcp-server-time')).code).toBe(0);
    // as Claude Code and VS Code write them
    writeJson(join(fakeHome, '.claude.json'), { mcpServers: { memory: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: {} } } });
    writeJson(join(fakeHome, '.config', 'Code', 'User', 'mcp.json'), {
      servers: { github: { type: 'http', url: 'https://api.githubcopilot.example/mcp/', headers: {} }, time: { type: 'stdio', command: 'uvx', args: ['mcp-server-time'] } },
    });
    const { out } = await cli('mcp', 'import');
    expect(out).toMatch(/= memory {2}from Claude Code\n\s+already configured\n/);
    expect(out).toMatch(/= github {2}from VS Code\n\s+already configured\n/);
    expect(out).toMatch(/= time {2}from VS Code\n\s+already configured/);
    expect(out).toContain('nothing to add');
    // a server that differs in what reaches it is still another server
    writeJson(join(fakeHome, '.claude.json'), { mcpServers: { memory: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/x' } } } });
    expect((await cli('mcp', 'import')).out).toMatch(/! memory {2}from Claude Code\n\s+a different server is configured as memory/);
  });

  it('add --header with a character HTTP cannot carry (a curly quote pasted with the token) is refused naming the header, not the token; nothing is written', async () => {
    const refused = await cli('mcp', 'add', 'remote', '--url', 'https://mcp.example.com/mcp', '--header', 'Authorization: Bearer \u201ctk-77aa88bb99cc\u201d');
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('mcpServers.remote.headers.Authorization: character 8 of its value (not shown: headers hold credentials) is U+201C');
    expect(refused.err).not.toContain('tk-77aa88bb99cc');
    expect(() => readFileSync(configFile)).toThrow();
  });

  it('a key of any shape after an option named for it (--api-key K, --token=K) is not shown by add, list or import', async () => {
    const added = await cli('mcp', 'add', 'notes', '--', 'notes-mcp', '--api-key', 'nk7Q2x9WpL4m', '--region', 'eu-west-3');
    expect(added.code).toBe(0);
    writeJson(join(fakeHome, '.cursor', 'mcp.json'), { mcpServers: { tracker: { command: 'tracker-mcp', args: ['--token=tr8Hz3Vq1Kd6', '--verbose'] } } });
    const imported = await cli('mcp', 'import');
    const listed = await cli('mcp', 'list');
    for (const out of [added.out, imported.out, listed.out]) {
      expect(out).not.toContain('nk7Q2x9WpL4m');
      expect(out).not.toContain('tr8Hz3Vq1Kd6');
    }
    expect(listed.out).toContain('notes-mcp --api-key [REDACTED] --region eu-west-3');
    expect(imported.out).toContain('tracker-mcp --token=[REDACTED] --verbose');
    expect((config().mcpServers as Record<string, { args: string[] }>).notes?.args).toEqual(['--api-key', 'nk7Q2x9WpL4m', '--region', 'eu-west-3']);
  });

  it('a key set on the command line (docker -e NAME=K, a bridge\'s --header and URL) is not shown by list', async () => {
    writeJson(join(fakeHome, '.cursor', 'mcp.json'), {
      mcpServers: {
        notes: { command: 'docker', args: ['run', '-i', '--rm', '-e', 'NOTES_TOKEN=nt8Hz3Vq1Kd6', 'notes/mcp'] },
        bridge: { command: 'npx', args: ['mcp-remote', 'https://mcp.example.com/sse?token=Tk5vRp8Qw2Zx', '--header', 'Authorization:Bearer abc123def456'] },
      },
    });
    const imported = await cli('mcp', 'import', '--yes');
    expect(imported.code).toBe(0);
    const listed = await cli('mcp', 'list');
    for (const secret of ['nt8Hz3Vq1Kd6', 'Tk5vRp8Qw2Zx', 'abc123def456']) expect(imported.out).not.toContain(secret);
    for (const secret of ['nt8Hz3Vq1Kd6', 'Tk5vRp8Qw2Zx', 'abc123def456']) expect(listed.out).not.toContain(secret);
    expect(listed.out).toContain('docker run -i --rm -e NOTES_TOKEN=[REDACTED] notes/mcp');
    expect(listed.out).toContain('npx mcp-remote https://mcp.example.com/sse?token=[REDACTED] --header Authorization:[REDACTED]');
  });

  it('a server reached through mcp-remote is given a start timeout long enough to sign in, and told so', async () => {
    writeJson(join(fakeHome, '.config', 'Claude', 'claude_desktop_config.json'), {
      mcpServers: {
        linear: { command: 'npx', args: ['-y', 'mcp-remote', 'https://mcp.linear.example/sse'] },
        notion: { command: 'npx', args: ['-y', 'mcp-remote@latest', 'https://mcp.notion.example/mcp'] },
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
      },
    });
    const { code, out } = await cli('mcp', 'import', '--yes');
    expect(code).toBe(0);
    const why =
      'its start timeout is 300000 ms ("startTimeoutMs"): mcp-remote opens a browser to sign in on its first start, and the default 30000 would stop it while you sign in';
    expect(out).toContain(`+ linear  from Claude Desktop  npx -y mcp-remote https://mcp.linear.example/sse  (start timeout: 300000 ms)\n      ${why}\n`);
    expect(out).toContain(`+ notion  from Claude Desktop  npx -y mcp-remote@latest https://mcp.notion.example/mcp  (start timeout: 300000 ms)\n      ${why}\n`);
    expect(out).toContain('+ memory  from Claude Desktop  npx -y @modelcontextprotocol/server-memory\n');
    const servers = config().mcpServers as Record<string, { startTimeoutMs?: number }>;
    expect([servers.linear?.startTimeoutMs, servers.notion?.startTimeoutMs, servers.memory?.startTimeoutMs]).toEqual([300_000, 300_000, undefined]);
    // imported again, it is the same server: the start timeout chatbridge chose makes no other one
    expect((await cli('mcp', 'import')).out).toMatch(/= linear {2}from Claude Desktop\n\s+already configured\n {2}=/);
  });

  it('a server reached through mcp-remote that is configured already with the default start timeout is said to need a longer one', async () => {
    expect((await cli('mcp', 'add', 'linear', '--', 'npx', '-y', 'mcp-remote', 'https://mcp.linear.example/sse')).code).toBe(0);
    writeJson(join(fakeHome, '.cursor', 'mcp.json'), { mcpServers: { linear: { command: 'npx', args: ['-y', 'mcp-remote', 'https://mcp.linear.example/sse'] } } });
    expect((await cli('mcp', 'import')).out).toContain(
      '= linear  from Cursor\n      already configured\n      its entry has no "startTimeoutMs", so the default 30000 ms would stop mcp-remote while you sign in on its first start: set it to 300000',
    );
  });

  it.skipIf(process.platform === 'win32')('an entry written for Windows: cmd /c is imported as the program it runs; a Windows path or .exe is refused naming what to write', async () => {
    writeJson(join(fakeHome, '.cursor', 'mcp.json'), {
      mcpServers: {
        memory: { command: 'cmd', args: ['/c', 'npx', '-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/home/x/memory.jsonl' } },
        files: { command: 'C:\\Program Files\\nodejs\\npx.cmd', args: ['-y', '@modelcontextprotocol/server-filesystem', 'C:\\Users\\p'] },
        git: { command: 'uvx.exe', args: ['mcp-server-git'] },
      },
    });
    const { code, out } = await cli('mcp', 'import', '--yes');
    expect(code).toBe(0);
    expect(out).toContain(
      '+ memory  from Cursor  npx -y @modelcontextprotocol/server-memory  (env: MEMORY_FILE_PATH)\n      written for Windows ("cmd /c npx …"): imported as "npx" with the words after it, which runs it on this system\n',
    );
    expect(out).toContain(
      '! files  from Cursor\n      its command "C:\\\\Program Files\\\\nodejs\\\\npx.cmd" is a Windows path, which names no program on this system: add it by hand (`npx chatbridge mcp add` in the chatbridge folder) with the program as it is here (e.g. "npx", when it is on the PATH)\n',
    );
    expect(out).toContain(
      '! git  from Cursor\n      its command "uvx.exe" is a Windows program\'s file name, which names no program on this system: add it by hand (`npx chatbridge mcp add` in the chatbridge folder) with the program as it is here (e.g. "uvx", when it is on the PATH)',
    );
    expect(config().mcpServers).toEqual({ memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/home/x/memory.jsonl' } } });
  });

  it("Claude Code's servers of single projects are counted and named as not imported", async () => {
    writeJson(join(fakeHome, '.claude.json'), {
      mcpServers: {},
      projects: { '/home/p/app': { mcpServers: { db: { command: 'db-mcp' }, web: { command: 'web-mcp' } } }, '/home/p/other': { allowedTools: [] } },
    });
    const { out } = await cli('mcp', 'import');
    expect(out).toContain(`Claude Code: ${join(fakeHome, '.claude.json')} — 0 servers\n      2 more set up for single projects (under "projects", e.g. by \`claude mcp add\` without --scope user) are not imported; add those by hand`);
    expect(out).toContain('nothing to add');
  });

  it('a password or key in a server\'s arguments is not shown, by import or list; it is imported as written', async () => {
    const args = ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://app:hunter2-db-pass@db.example/prod'];
    const keyArgs = ['-y', 'some-mcp', '--api-key', 'sk-ant-api03-CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC'];
    writeJson(join(fakeHome, '.config', 'Claude', 'claude_desktop_config.json'), { mcpServers: { postgres: { command: 'npx', args }, keyed: { command: 'npx', args: keyArgs } } });
    const imported = await cli('mcp', 'import', '--yes');
    expect(imported.out).toMatch(/\+ postgres {2}from Claude Desktop {2}npx -y @modelcontextprotocol\/server-postgres postgresql:\/\/app:.*REDACTED.*@db\.example\/prod/);
    const listed = await cli('mcp', 'list');
    for (const out of [imported.out, listed.out]) {
      expect(out).not.toContain('hunter2-db-pass');
      expect(out).not.toContain('sk-ant-api03-CCCC');
    }
    expect((config().mcpServers as Record<string, { args: string[] }>).postgres?.args).toEqual(args);
    expect((config().mcpServers as Record<string, { args: string[] }>).keyed?.args).toEqual(keyArgs);
  });

  it('a default password that is a plain word is hidden where it stands as one, not inside the words that name the server', async () => {
    const pg = ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://postgres:postgres@localhost/postgres'];
    const docker = ['run', '-i', '--rm', '-e', 'POSTGRES_PASSWORD=postgres', 'mcp/postgres', '--password', 'postgres'];
    writeJson(join(fakeHome, '.cursor', 'mcp.json'), { mcpServers: { pg: { command: 'npx', args: pg }, docker: { command: 'docker', args: docker } } });
    const { out } = await cli('mcp', 'import');
    expect(out).toContain('+ pg  from Cursor  npx -y @modelcontextprotocol/server-postgres postgresql://postgres:[REDACTED]@localhost/postgres\n');
    expect(out).toContain('+ docker  from Cursor  docker run -i --rm -e POSTGRES_PASSWORD=[REDACTED] mcp/postgres --password [REDACTED]\n');
  });

  it("an env file the server reads its keys from is named, with what to do instead", async () => {
    writeJson(join(fakeHome, '.config', 'Code', 'User', 'mcp.json'), { servers: { notes: { type: 'stdio', command: 'notes-mcp', envFile: '/home/p/.notes.env', dev: { watch: 'src/**' } } } });
    const { out } = await cli('mcp', 'import');
    expect(out).toMatch(/\+ notes {2}from VS Code {2}notes-mcp\n\s+left out "envFile" \(\/home\/p\/\.notes\.env\): chatbridge does not read env files; put what the server needs in its "env"\n\s+left out "dev" \(not a chatbridge setting\)/);
  });

  it('with no desktop client set up it says where it looked', async () => {
    const { out } = await cli('mcp', 'import');
    expect(out).toContain('no desktop client config found; looked at:');
    expect(out).toContain(join(fakeHome, '.cursor', 'mcp.json'));
  });

  it.each([
    ['darwin', { home: '/Users/p' }, '/Users/p/Library/Application Support/Claude/claude_desktop_config.json', '/Users/p/Library/Application Support/Code/User/mcp.json'],
    ['win32', { home: 'C:/Users/p', appData: 'C:/Users/p/AppData/Roaming' }, 'C:/Users/p/AppData/Roaming/Claude/claude_desktop_config.json', 'C:/Users/p/AppData/Roaming/Code/User/mcp.json'],
    ['linux', { home: '/home/p', xdgConfigHome: '/home/p/.xdg' }, '/home/p/.xdg/Claude/claude_desktop_config.json', '/home/p/.xdg/Code/User/mcp.json'],
  ] as const)('%s: the usual places', (platform, env, claude, vscode) => {
    const files = desktopConfigSources({ ...env, platform }).map((s) => s.file.replace(/\\/g, '/'));
    expect(files).toContain(claude);
    expect(files).toContain(vscode);
    expect(files).toContain(`${env.home}/.cursor/mcp.json`);
    expect(files).toContain(`${env.home}/.codeium/windsurf/mcp_config.json`);
    expect(files).toContain(`${env.home}/.claude.json`);
  });
});
