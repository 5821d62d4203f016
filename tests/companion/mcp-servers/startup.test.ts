import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerProblem } from '../../../shared/api';
import { fixture, makeMcpWorld, MEMORY, mcpCall, mcpJson, waitUntil, type McpWorld } from './world';

/*
 * Servers that do not come up, as a person meets them: a program that exits at once saying why on stderr, a hosted
 * server that turns the token down (or wants one), a URL where nothing listens. `chatbridge status`, the popup and a
 * call from the chat must say what went wrong, not "Connection closed" or an error of a transport nobody chose.
 */
let world: McpWorld;
let http: ChildProcess;
/** answers every request with a redirect to the same path with a slash after it, as many web servers do */
let redirecting: Server;
/** redirects every request elsewhere: to another host (308), and to its path with a slash after it as nginx does (301) */
let movedAway: Server;
let movedSlash: Server;
/** a hosted server that signs people in with OAuth only: every request without its session is 401 naming its metadata */
let oauthOnly: Server;
const PATH_KEY = 'ZjA3NzE2YmItMjQ4ZS00NTk5LWI1ODUtZTQ3NzFmMDQ5ZDk2';
const QUERY_KEY = 'qk-8d9e0f1a2b3c4d5e';
/** a token given as the URL's user name (https://<token>@host/…), as some hosted servers and git hosts take it */
const USER_KEY = 'u7Kq2Xz9Lm4Np8Rt';

interface Health {
  name: string;
  state: string;
  lastError?: string;
  problem?: McpServerProblem;
  tools: number;
  restarts: number;
  notes: string[];
}

async function healthOf(name: string): Promise<Health> {
  const { servers } = (await (await world.request('/v1/mcp-servers')).json()) as { servers: Health[] };
  const found = servers.find((s) => s.name === name);
  if (!found) throw new Error(`no server ${name}`);
  return found;
}

/** a program whose #! line names an interpreter that is gone, as a Python tool's removed virtual environment leaves it */
const scripts = realpathSync(mkdtempSync(join(tmpdir(), 'cb-mcp-orphaned-')));
const ORPHANED = join(scripts, 'mcp-server-notes');
writeFileSync(ORPHANED, '#!/nonexistent/venv/bin/python3\nprint("notes")\n', { mode: 0o755 });
/** a server that answers initialize and never tools/list, as one that loads its tools from a slow service */
const NEVER_LISTS =
  'require("readline").createInterface({ input: process.stdin }).on("line", (line) => { const m = JSON.parse(line); if (m.method === "initialize") process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "slowlist", version: "1" } } }) + "\\n") })';
/** a server that cannot start until this file is there, as one whose database is not up yet */
const DATABASE_UP = join(scripts, 'database-up');
const UNTIL_UP = 'if (!require("fs").existsSync(process.argv[1])) { process.stderr.write("error: the database is not up\\n"); process.exit(1) } import(process.argv[2])';

beforeAll(async () => {
  http = spawn(process.execPath, [fixture('auth-http.mjs')], { env: { ...process.env, AUTH_TOKEN: 'right-token' }, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  http.stdout?.on('data', (d) => (output += String(d)));
  await waitUntil('the HTTP server listens', () => /listening on port \d+/.test(output));
  const url = `http://127.0.0.1:${/listening on port (\d+)/.exec(output)?.[1]}/mcp`;
  redirecting = createServer((req, res) => res.writeHead(307, { location: `${req.url?.replace(/\?.*/, '')}/` }).end());
  await new Promise<void>((done) => redirecting.listen(0, '127.0.0.1', done));
  const keyed = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/api/mcp/s/${PATH_KEY}/mcp?key=${QUERY_KEY}`;
  oauthOnly = createServer((req, res) => {
    const metadata = `http://${req.headers.host}/.well-known/oauth-protected-resource/mcp`;
    res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${metadata}"` });
    res.end(JSON.stringify({ error: 'invalid_token', error_description: 'Missing or invalid access token' }));
  });
  await new Promise<void>((done) => oauthOnly.listen(0, '127.0.0.1', done));
  const oauthUrl = `http://127.0.0.1:${(oauthOnly.address() as AddressInfo).port}/mcp`;
  movedAway = createServer((_req, res) => res.writeHead(308, { location: `http://localhost:${(movedAway.address() as AddressInfo).port}/mcp` }).end());
  // what is at /mcp/ answers a GET with 405, as a Streamable HTTP server does
  movedSlash = createServer((req, res) => (req.url === '/mcp' ? res.writeHead(301, { location: '/mcp/' }).end() : res.writeHead(405).end()));
  await Promise.all([movedAway, movedSlash].map((s) => new Promise<void>((done) => s.listen(0, '127.0.0.1', done))));
  world = await makeMcpWorld(
    {
      mcpServers: {
        signedin: { url, headers: { Authorization: 'Bearer right-token' }, policy: { default: 'auto' } },
        wrongtoken: { url, headers: { Authorization: 'Bearer wrong-token' } },
        notoken: { url },
        ssewrong: { url, type: 'sse', headers: { Authorization: 'Bearer wrong-token' } },
        nobody: { url: 'http://127.0.0.1:9/mcp' },
        oauthonly: { url: oauthUrl },
        movedaway: { url: `http://127.0.0.1:${(movedAway.address() as AddressInfo).port}/mcp` },
        movedslash: { url: `http://127.0.0.1:${(movedSlash.address() as AddressInfo).port}/mcp` },
        // a token copied from a browser session's request, as people try
        'oauth-copied-browser-token': { url: oauthUrl, headers: { Authorization: 'Bearer copied-from-browser' } },
        keyed: { url: keyed },
        userkeyed: { url: `http://${USER_KEY}@127.0.0.1:9/mcp` },
        // what it prints holds a secret the person's redact patterns name
        leaks: { command: process.execPath, args: ['-e', 'process.stderr.write("error: the key hunter2-notes was refused\\n"); process.exit(1)'] },
        exits: { command: process.execPath, args: ['-e', 'process.stderr.write("starting\\nerror: set NOTES_DIR to the folder of your notes\\n"); process.exit(2)'] },
        silent: { command: process.execPath, args: ['-e', 'process.stderr.write("loading…\\n"); setTimeout(() => {}, 60_000)'] },
        // its own start timeouts: shorter than the 2 s every other server gets, and longer for one that needs 3 s
        quick: { command: process.execPath, args: ['-e', 'setTimeout(() => {}, 60_000)'], startTimeoutMs: 1_000 },
        // a program that is not installed (or not on the PATH the companion was started with)
        missing: { command: 'uvx-not-installed-here', args: ['mcp-server-time'], env: { PATH: '/usr/local/bin:/usr/bin:/bin' } },
        // a whole command line in "command", as a one-field form takes it, and a config written for Windows
        oneline: { command: 'node -e setTimeout(()=>{},60000) --api-key=sk-one-line-secret', env: { PATH: dirname(process.execPath) } },
        windows: { command: 'cmd', args: ['/c', 'npx', '-y', '@modelcontextprotocol/server-memory'], env: { PATH: dirname(process.execPath) } },
        orphaned: { command: ORPHANED },
        orphanedonpath: { command: 'mcp-server-notes', env: { PATH: `${scripts}:/usr/bin:/bin` } },
        // resources only: it declares no tools and answers tools/list with Method not found
        docs: { command: process.execPath, args: [fixture('no-tools.mjs')] },
        neverlists: { command: process.execPath, args: ['-e', NEVER_LISTS] },
        waitsfordb: { command: process.execPath, args: ['-e', UNTIL_UP, DATABASE_UP, MEMORY], policy: { default: 'auto' } },
        slowstart: { command: process.execPath, args: ['-e', 'setTimeout(() => import(process.argv[1]), 3_000)', MEMORY], startTimeoutMs: 20_000, policy: { default: 'auto' } },
      },
      redact: ['hunter2-[a-z]+'],
    },
    { backoffBaseMs: 20, backoffMaxMs: 40, maxFailures: 2, startTimeoutMs: 2_000 },
  );
  await waitUntil('every failing server gave up', async () => {
    for (const name of ['wrongtoken', 'notoken', 'oauthonly', 'oauth-copied-browser-token', 'movedaway', 'movedslash', 'ssewrong', 'nobody', 'exits', 'silent', 'quick', 'keyed', 'userkeyed', 'waitsfordb', 'neverlists', 'oneline', 'windows']) if ((await healthOf(name)).state !== 'error') return false;
    return true;
  }, 30_000);
}, 60_000);

afterAll(async () => {
  await world?.close();
  http?.kill();
  redirecting?.close();
  oauthOnly?.close();
  movedAway?.close();
  movedSlash?.close();
  rmSync(scripts, { recursive: true, force: true });
});

describe('a server that does not come up says why', () => {
  it('a program that exits at once: its exit and the last line of its stderr, in the health and in a call', async () => {
    const health = await healthOf('exits');
    expect(health.lastError).toMatch(/^could not start: the server exited \(code 2\); its stderr ended with: error: set NOTES_DIR to the folder of your notes \(gave up/);
    // asked first (its tools are exec, confirm by default): a server is started for a call only once the call may run
    const asked = await world.run('mcp-request', mcpCall('e1', 'exits.anything', {}));
    const run = await world.decide(asked.runId, 'approve');
    expect(mcpJson(run.resultText).error?.message).toContain('the server exited (code 2); its stderr ended with: error: set NOTES_DIR');
  });

  it('a program that is not there: named, with the PATH it was looked for on, instead of "spawn … ENOENT"', async () => {
    await waitUntil('missing gave up', async () => (await healthOf('missing')).state === 'error');
    expect((await healthOf('missing')).lastError).toMatch(
      /^could not start: the program "uvx-not-installed-here" was not found on the PATH it was given \(\/usr\/local\/bin:\/usr\/bin:\/bin\): install it, or give its full path as "command" \(gave up/,
    );
  });

  it('a whole command line as "command", and a config written for Windows: what to write instead, not "install it"', async () => {
    await waitUntil('both gave up', async () => (await healthOf('oneline')).state === 'error' && (await healthOf('windows')).state === 'error');
    const oneLine = (await healthOf('oneline')).lastError;
    expect(oneLine).toMatch(
      /^could not start: "command" holds the program and its arguments in one string \("node" and 3 more words\): write the program alone in "command" and each word after it as an item of "args"/,
    );
    expect(oneLine).not.toContain('sk-one-line-secret');
    expect((await healthOf('windows')).lastError).toMatch(
      /^could not start: "cmd" is the Windows command interpreter, which this system does not have: the entry is written for Windows \("command": "cmd", "args": \["\/c", "npx", …\]\); here write "command": "npx" and the words after it as "args"/,
    );
  });

  it('a program that is there but whose #! interpreter is not: named as such, not as a program that does not exist', async () => {
    await waitUntil('orphaned gave up', async () => (await healthOf('orphaned')).state === 'error' && (await healthOf('orphanedonpath')).state === 'error');
    const said = `is there, but the interpreter its first line names is not: #!/nonexistent/venv/bin/python3; reinstall the program (gave up after 2 failures in a row; the next call to one of its tools tries it again; restart chatbridge after changing its entry)`;
    expect((await healthOf('orphaned')).lastError).toBe(
      `could not start: the program ${JSON.stringify(ORPHANED)} (${ORPHANED}) ${said}`,
    );
    expect((await healthOf('orphanedonpath')).lastError).toContain(`could not start: the program "mcp-server-notes" (${ORPHANED}) ${said}`);
  });

  it('the health gives the facts of each as a code the extension words in the person\'s language, not English alone', async () => {
    const given = { starting: true, failures: 2 };
    expect((await healthOf('exits')).problem).toEqual({
      code: 'exited',
      program: process.execPath,
      exitCode: 2,
      stderr: 'error: set NOTES_DIR to the folder of your notes',
      ...given,
    });
    expect((await healthOf('missing')).problem).toEqual({ code: 'program-not-found', program: 'uvx-not-installed-here', path: '/usr/local/bin:/usr/bin:/bin', ...given });
    expect((await healthOf('orphaned')).problem).toEqual({
      code: 'interpreter-missing',
      program: ORPHANED,
      file: ORPHANED,
      interpreter: '/nonexistent/venv/bin/python3',
      ...given,
    });
    expect((await healthOf('silent')).problem).toEqual({ code: 'start-timeout', timeoutMs: 2_000, ...given });
    expect((await healthOf('neverlists')).problem).toEqual({ code: 'list-timeout', timeoutMs: 2_000, ...given });
    expect((await healthOf('wrongtoken')).problem).toEqual({ code: 'auth-refused', httpStatus: 401, headers: ['Authorization'], ...given });
    expect((await healthOf('notoken')).problem).toEqual({ code: 'auth-refused', httpStatus: 401, headers: [], ...given });
    const nobody = (await healthOf('nobody')).problem;
    expect(nobody).toMatchObject({ code: 'other', ...given });
    expect(`could not start: ${nobody?.detail} (gave up`).toBe((await healthOf('nobody')).lastError?.slice(0, `could not start: ${nobody?.detail} (gave up`.length));
  });

  it("the facts are redacted as lastError is: a server's last stderr line may quote a secret", async () => {
    await waitUntil('leaks gave up', async () => (await healthOf('leaks')).state === 'error');
    const health = await healthOf('leaks');
    expect(health.lastError).toContain('its stderr ended with: error: the key [REDACTED] was refused');
    expect(health.problem?.stderr).toBe('error: the key [REDACTED] was refused');
  });

  it('one that never answers: how long it was given, not the exit its stop caused', async () => {
    const health = await healthOf('silent');
    expect(health.lastError).toMatch(
      /^could not start: it did not answer within 2000 ms of being started, and was stopped; one that downloads itself first \(npx -y, uvx, docker run\) may need longer: raise its "startTimeoutMs" \(up to 600000\) \(gave up/,
    );
  });

  it('one that starts but does not list its tools in time: said so, not only "Request timed out"', async () => {
    expect((await healthOf('neverlists')).lastError).toMatch(
      /^could not start: it started but did not list its tools within 2000 ms, and was stopped; one that downloads/,
    );
  });

  it("a server's own startTimeoutMs: a broken one fails sooner, a slow one is given the time it needs", async () => {
    expect((await healthOf('quick')).lastError).toMatch(/^could not start: it did not answer within 1000 ms of being started, and was stopped; one that downloads/);
    const run = await world.run('mcp-request', mcpCall('s2', 'slowstart.read_graph', {}));
    expect(mcpJson(run.resultText).error).toBeUndefined();
    expect((await healthOf('slowstart')).state).toBe('ready');
  });

  it('a token the server turns down is named as such, not as an error of the older transport', async () => {
    const health = await healthOf('wrongtoken');
    expect(health.lastError).toMatch(/^could not start: the server answered HTTP 401 \(not signed in\): it did not accept the credentials in its "headers" \(Authorization\)/);
    expect(health.lastError).not.toContain('SSE');
    expect(health.lastError).not.toContain('wrong-token');
    expect((await healthOf('ssewrong')).lastError).toMatch(/^could not start: the server answered HTTP 401 \(not signed in\): it did not accept the credentials/);
  });

  it('a server that wants a token and has none is told how to give one', async () => {
    expect((await healthOf('notoken')).lastError).toMatch(/^could not start: the server answered HTTP 401 \(not signed in\): it wants credentials; put a token in its "headers"/);
  });

  it('a server that signs people in with OAuth only is not told to take a token it would refuse: what works instead', async () => {
    const health = await healthOf('oauthonly');
    expect(health.lastError).toMatch(
      /^could not start: the server answered HTTP 401 \(not signed in\): it signs people in with OAuth in a browser, which chatbridge does not do\. Give it a token its service issues for programs \(an API key\) in "headers", or put a proxy that signs in for it in its place, in the chatbridge folder: `npx chatbridge mcp remove oauthonly`, then /,
    );
    expect(health.lastError).toContain(`then \`npx chatbridge mcp add oauthonly --start-timeout-ms 300000 -- npx -y mcp-remote http://127.0.0.1:${(oauthOnly.address() as AddressInfo).port}/mcp\` (gave up`);
    expect(health.lastError).not.toContain('not supported');
    expect(health.problem).toMatchObject({ code: 'auth-refused', httpStatus: 401, headers: [], signIn: 'oauth' });
    // with a token that is not one the service issues for programs: that it was refused, then the same
    const copied = await healthOf('oauth-copied-browser-token');
    expect(copied.lastError).toMatch(/it did not accept the credentials in its "headers" \(Authorization\), and it signs people in with OAuth in a browser/);
    // said whole, to the command line it ends in, however long the server's name
    expect(copied.lastError).toContain(`add oauth-copied-browser-token --start-timeout-ms 300000 -- npx -y mcp-remote http://127.0.0.1:${(oauthOnly.address() as AddressInfo).port}/mcp\` (gave up`);
    expect(copied.problem).toMatchObject({ code: 'auth-refused', headers: ['Authorization'], signIn: 'oauth' });
    // a server whose 401 names no OAuth metadata still wants a token in its headers
    expect((await healthOf('notoken')).problem?.signIn).toBeUndefined();
  });

  it("a redirect that is not followed says where it leads and what to write, once, not as an option of the SDK's", async () => {
    const away = (await healthOf('movedaway')).lastError;
    expect(away).toMatch(
      new RegExp(
        `^could not start: its URL redirects to http://localhost:${(movedAway.address() as AddressInfo).port}/mcp, which chatbridge does not follow \\(it follows one to the same scheme, host and port only, and for a POST only a 307 or 308\\): if that is where the server is, write that URL as its "url" \\(gave up`,
      ),
    );
    expect(away).not.toMatch(/redirectPolicy|HTTP\+SSE/);
    // a POST redirected by a 301 to the path with a slash, as nginx answers a folder's path: where, and what to write
    const slash = (await healthOf('movedslash')).lastError;
    expect(slash).toMatch(/^could not start: Streamable HTTP: its URL redirects to http:\/\/127\.0\.0\.1:\d+\/mcp\/, which chatbridge does not follow .*: if that is where the server is, write that URL as its "url"; then HTTP\+SSE: /);
    expect(slash).not.toMatch(/redirectPolicy/);
  });

  it('where nothing listens, both transports are named with what each met', async () => {
    expect((await healthOf('nobody')).lastError).toMatch(/^could not start: Streamable HTTP: .*fetch failed.*; then HTTP\+SSE: .*fetch failed/);
  });

  it("a key in the server's URL path or query is not shown by the health, the log or a call's answer", async () => {
    const health = await healthOf('keyed');
    expect(health.lastError).toMatch(/^could not start: its URL redirects again and again \(the last time to http:\/\/127\.0\.0\.1:\d+\/api\/mcp\/s\/…\/mcp\/+\), and chatbridge stopped following/);
    const run = await world.decide((await world.run('mcp-request', mcpCall('k1', 'keyed.anything', {}))).runId, 'approve');
    const log = readFileSync(join(world.home, 'mcp-logs', 'keyed.log'), 'utf8');
    for (const shown of [health.lastError, JSON.stringify(health.problem), run.resultText, log]) {
      expect(shown).not.toContain(PATH_KEY);
      expect(shown).not.toContain(QUERY_KEY);
    }
  });

  it("a key given as the URL's user name is not shown by the health, the log or a call's answer either", async () => {
    const health = await healthOf('userkeyed');
    expect(health.lastError).toContain('includes credentials: http://…@127.0.0.1:9/mcp');
    const run = await world.decide((await world.run('mcp-request', mcpCall('k2', 'userkeyed.anything', {}))).runId, 'approve');
    const log = readFileSync(join(world.home, 'mcp-logs', 'userkeyed.log'), 'utf8');
    for (const shown of [health.lastError, run.resultText, log]) expect(shown).not.toContain(USER_KEY);
  });

  it('one given up is started again by the next call to one of its tools, and the call is answered once it is up', async () => {
    const health = await healthOf('waitsfordb');
    expect(health.lastError).toBe(
      'could not start: the server exited (code 1); its stderr ended with: error: the database is not up (gave up after 2 failures in a row; the next call to one of its tools tries it again; restart chatbridge after changing its entry)',
    );
    // still broken: the call says why, at once, and the server is given up again
    const still = await world.run('mcp-request', mcpCall('w1', 'waitsfordb.read_graph', {}), { waitMs: 10_000 });
    expect(mcpJson(still.resultText).error?.message).toContain('MCP server waitsfordb is not running: could not start: the server exited (code 1); its stderr ended with: error: the database is not up');
    expect((await healthOf('waitsfordb')).state).toBe('error');
    writeFileSync(DATABASE_UP, '');
    const run = await world.run('mcp-request', mcpCall('w2', 'waitsfordb.read_graph', {}), { waitMs: 10_000 });
    expect(mcpJson(run.resultText).error).toBeUndefined();
    expect(mcpJson(run.resultText).result?.content[0]?.text).toContain('"entities"');
    expect(await healthOf('waitsfordb')).toMatchObject({ state: 'ready', restarts: 3 });
  });

  it('the right token works', async () => {
    // started with the companion, in the background: on a busy machine it may still be starting
    await waitUntil('signedin has settled', async () => (await healthOf('signedin')).state !== 'starting');
    expect((await healthOf('signedin')).state).toBe('ready');
    const run = await world.run('mcp-request', mcpCall('s1', 'signedin.whoami', {}));
    expect(mcpJson(run.resultText).result?.content[0]?.text).toBe('signed in');
  });
});

describe('a server that offers no tools', () => {
  it('is up with none, and says so, instead of being restarted until given up over "Method not found"', async () => {
    await waitUntil('docs has settled', async () => (await healthOf('docs')).state !== 'starting');
    const health = await healthOf('docs');
    expect(health).toMatchObject({ state: 'ready', tools: 0, restarts: 0 });
    expect(health.lastError).toBeUndefined();
    expect(health.notes).toEqual(["the server offers no tools (its capabilities name none); chatbridge calls a server's tools only"]);
    const run = await world.run('mcp-request', mcpCall('d1', 'docs.readme', {}));
    expect(mcpJson(run.resultText).error?.message).toContain('MCP server docs has no tool "readme"');
  });
});
