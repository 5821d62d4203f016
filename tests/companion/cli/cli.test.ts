import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The real companion started as a child process, the way a person starts it. */
const repo = resolve(__dirname, '../../..');
const bin = join(repo, 'bin', 'chatbridge.js');
const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-cli-')));
const root = join(base, 'workspace');
const home = join(base, 'home');
mkdirSync(root);
const env = { ...process.env, CHATBRIDGE_HOME: home, CHATBRIDGE_TOKEN: '' };
delete (env as Record<string, string | undefined>).CHATBRIDGE_TOKEN;

function runCli(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...env, ...extraEnv }, cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('exit', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  port: number;
  code: string;
}

function start(args: string[], extraEnv: Record<string, string> = {}): Promise<Started> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [bin, 'start', '--port', '0', '--no-build', ...args], { env: { ...env, ...extraEnv }, cwd: root });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`companion did not start:\n${stdout}\n${stderr}`)), 60_000);
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.stdout.on('data', (d) => {
      stdout += String(d);
      const port = /^port: (\d+)$/m.exec(stdout)?.[1];
      const code = /^pairing code: ([A-Z0-9]+)/m.exec(stdout)?.[1];
      if (port && code) {
        clearTimeout(timer);
        resolvePromise({ child, stdout: () => stdout, stderr: () => stderr, port: Number(port), code });
      }
    });
    child.on('exit', (code) => reject(new Error(`companion exited ${String(code)}:\n${stdout}\n${stderr}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((r) => child.on('exit', (code) => r(code)));
}

let companion: Started;
beforeAll(async () => {
  companion = await start(['--root', root]);
}, 90_000);
afterAll(async () => {
  // SIGTERM, as a service manager stops it: the companion stops its programs and removes its runtime file
  if (companion.child.exitCode === null) {
    const done = exited(companion.child);
    companion.child.kill('SIGTERM');
    await done;
  }
  rmSync(base, { recursive: true, force: true });
});

// every command is a fresh node + tsx start: generous timeouts for a loaded machine
describe('chatbridge start', { timeout: 90_000 }, () => {
  it('prints the extension folder, the port and a pairing code, and serves /v1/status', async () => {
    const out = companion.stdout();
    expect(out).toContain(`workspace root: ${root}`);
    // where the extension was never built, start says that instead (unbuilt-extension.test.ts)
    if (existsSync(join(repo, 'dist', 'chrome-mv3', 'manifest.json'))) expect(out).toMatch(/load the extension from: .*dist\/chrome-mv3/);
    else expect(companion.stderr()).toContain('the extension is not built');
    expect(companion.port).toBeGreaterThan(0);
    // started on a port of its own: the popup, which pairs with the default address, must be told this one first
    expect(out).toContain(`the popup looks for the companion at http://127.0.0.1:17890: before Pair, open its "Companion URL" and type http://127.0.0.1:${companion.port}\npairing code: `);
    expect(companion.code).toMatch(/^[A-Z2-9]{8}$/);
    const res = await fetch(`http://127.0.0.1:${companion.port}/v1/status`);
    expect(await res.json()).toEqual({ name: 'chatbridge', version: expect.any(String), paired: false });
  });

  it('the printed code pairs; the token then works', async () => {
    const res = await fetch(`http://127.0.0.1:${companion.port}/v1/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: companion.code }) });
    const { token } = (await res.json()) as { token: string };
    const tools = await fetch(`http://127.0.0.1:${companion.port}/v1/tools`, { headers: { authorization: `Bearer ${token}` } });
    expect(tools.status).toBe(200);
  });

  it('status, pair and audit talk to the running companion', async () => {
    const [status, pair, audit] = await Promise.all([runCli(['status']), runCli(['pair']), runCli(['audit'])]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`running on http://127.0.0.1:${companion.port}`);
    expect(pair.code).toBe(0);
    expect(pair.stdout).toMatch(/pairing code: [A-Z2-9]{8}/);
    expect(audit.code).toBe(0);
  });

  it('undo with nothing to undo says so', async () => {
    const undo = await runCli(['undo']);
    expect(undo.code).toBe(0);
    expect(undo.stdout).toContain('nothing to undo');
  });

  it('a second start on the port in use says how to see what runs there, with a command that exists in the chatbridge folder', async () => {
    const second = await runCli(['start', '--port', String(companion.port), '--no-build'], { CHATBRIDGE_HOME: join(base, 'home-second') });
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(`port ${companion.port} is in use — is chatbridge already running (\`npx chatbridge status\` in the chatbridge folder)?`);
  });

  it('SIGTERM exits cleanly (code 0) and removes the runtime file', async () => {
    expect(existsSync(join(home, 'companion.json'))).toBe(true);
    const done = exited(companion.child);
    companion.child.kill('SIGTERM');
    expect(await done).toBe(0);
    expect(existsSync(join(home, 'companion.json'))).toBe(false);
    const status = await runCli(['status']);
    expect(status.stdout).toContain('not running');
    // a clone puts no `chatbridge` on the PATH: the way to start it is one a shell can run
    expect(status.stdout).toContain('start it with `npm start` in the chatbridge folder');
    expect(status.stdout).not.toContain('`chatbridge start`');
  });
});

describe('chatbridge without a running companion', { timeout: 90_000 }, () => {
  it('npm start with options before "--" (npm keeps them) is refused, saying where they go, instead of "unknown option" for their values', async () => {
    for (const [args, kept] of [
      [['--port', '8000'], '--port'],
      [['--root', root, '--no-build'], '--root, --no-build'],
    ] as const) {
      const npm = await new Promise<{ code: number | null; stderr: string }>((resolvePromise) => {
        const child = spawn('npm', ['start', ...args], { env: { ...env, CHATBRIDGE_HOME: join(base, 'home-npm') }, cwd: repo });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += String(d)));
        // a start that went ahead anyway is not left running
        const timer = setTimeout(() => child.kill('SIGTERM'), 30_000);
        child.on('exit', (code) => {
          clearTimeout(timer);
          resolvePromise({ code, stderr });
        });
      });
      expect(npm.code).not.toBe(0);
      expect(npm.stderr).toContain(`chatbridge: npm kept ${kept} for itself (an option before "--" is npm's): write the options for start after "--", as in npm start -- --port 8000`);
    }
  });

  it('npm run chatbridge -- mcp add reads --config and --cwd from the folder it was typed in, as npm start reads its options', async () => {
    const typedHere = join(base, 'typed-here');
    mkdirSync(typedHere);
    const name = 'cb-typed-here-config.json';
    try {
      const npm = await new Promise<{ code: number | null; stderr: string }>((resolvePromise) => {
        // --prefix: the person's own folder is the one typed in, the script runs in the package folder
        const child = spawn('npm', ['--prefix', repo, 'run', 'chatbridge', '--', 'mcp', 'add', 'notes', '--config', name, '--cwd', '.', '--', 'echo', 'hi'], {
          env: { ...env, CHATBRIDGE_HOME: join(base, 'home-typed-here') },
          cwd: typedHere,
        });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += String(d)));
        child.on('exit', (code) => resolvePromise({ code, stderr }));
      });
      expect(npm.code, npm.stderr).toBe(0);
      expect(existsSync(join(repo, name))).toBe(false);
      const written = JSON.parse(readFileSync(join(typedHere, name), 'utf8')) as { mcpServers: { notes: { cwd: string } } };
      expect(written.mcpServers.notes.cwd).toBe(typedHere);
    } finally {
      rmSync(join(repo, name), { force: true });
    }
  });

  it('a relative CHATBRIDGE_HOME is read from the folder the command was typed in, by npm run chatbridge as by npx chatbridge', async () => {
    const typedHere = join(base, 'typed-here-home');
    mkdirSync(typedHere);
    const status = await new Promise<{ code: number | null; stdout: string }>((resolvePromise) => {
      const child = spawn('npm', ['--prefix', repo, 'run', 'chatbridge', '--', 'status'], { env: { ...env, CHATBRIDGE_HOME: 'cb-data' }, cwd: typedHere });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += String(d)));
      child.on('exit', (code) => resolvePromise({ code, stdout }));
    });
    expect(status.code).toBe(1);
    expect(status.stdout).toContain(`chatbridge is not running (no ${join(typedHere, 'cb-data', 'companion.json')})`);
  });

  it('--help prints the commands', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const word of ['start', 'pair', 'status', 'undo', 'audit', '--root', '--port', '--config', '--token', 'CHATBRIDGE_HOME']) expect(help.stdout).toContain(word);
  });

  it('--help or -h after a command prints the help and exits 0 (start does not start); after "--" it is the server\'s', async () => {
    const asked = await Promise.all(
      [['start', '--help'], ['start', '--port', '0', '-h'], ['status', '--help'], ['pair', '-h'], ['undo', '--help'], ['audit', '--limit', '3', '--help']].map((args) => runCli(args, { CHATBRIDGE_HOME: join(base, 'home-help') })),
    );
    for (const res of asked) {
      expect(res.code).toBe(0);
      expect(res.stdout).toContain('chatbridge start [--root DIR]... [--port N]');
      expect(res.stdout).not.toContain('listening on');
    }
    expect(existsSync(join(base, 'home-help', 'companion.json'))).toBe(false);
    const mcpHelp = await runCli(['mcp', 'list', '--help']);
    expect(mcpHelp.code).toBe(0);
    expect(mcpHelp.stdout).toContain('chatbridge mcp add NAME');
    // a server's own --help, after "--", is part of its command line
    const config = join(base, 'help-servers.json');
    const added = await runCli(['mcp', 'add', 'tool', '--config', config, '--', 'some-server', '--help']);
    expect(added.code).toBe(0);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({ mcpServers: { tool: { command: 'some-server', args: ['--help'] } } });
  });

  it('an unknown command exits 2 with help', async () => {
    const res = await runCli(['launch']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('unknown command "launch"');
  });

  it('stop, which is no command, says how the companion stops; the help says it too', async () => {
    const [stop, help] = await Promise.all([runCli(['stop']), runCli(['--help'])]);
    expect(stop.code).toBe(2);
    expect(stop.stderr).toContain('chatbridge has no stop command: press Ctrl-C in the terminal the companion runs in');
    expect(help.stdout).toContain('Ctrl-C in its terminal (or a SIGTERM) stops it');
  });

  it('a bad config exits 2 naming the key, the value and the rule', async () => {
    const config = join(base, 'bad.json');
    writeFileSync(config, JSON.stringify({ modes: { exec: 'always' } }));
    const res = await runCli(['start', '--port', '0', '--no-build', '--config', config]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('modes.exec');
    expect(res.stderr).toContain('"always"');
    expect(res.stderr).toContain('must be one of');
  });

  it('a broken MCP server entry is named with its problem, not among the servers starting; the rest starts', async () => {
    const config = join(base, 'broken-server.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { bad: { command: '' }, off: { command: 'x', disabled: true } } }));
    const started = await start(['--config', config], { CHATBRIDGE_HOME: join(base, 'home-broken-server') });
    const done = exited(started.child);
    started.child.kill('SIGTERM');
    await done;
    expect(started.stdout()).toContain('MCP server bad cannot start: mcpServers.bad.command: value "" — must not be empty');
    expect(started.stdout()).not.toContain('MCP servers: ');
    expect(started.stdout()).not.toContain('starting in the background');
  });

  it('a missing root exits 2 naming it', async () => {
    const res = await runCli(['start', '--port', '0', '--no-build', '--root', join(base, 'nope')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('does not exist');
  });

  it('a bad port exits 2', async () => {
    const res = await runCli(['start', '--port', '99999', '--no-build']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--port 99999');
  });

  it('a port that is not written in digits exits 2 instead of being read as another number', async () => {
    const results = await Promise.all(['0x1f90', '8e3', ' 8080'].map((port) => runCli(['start', '--port', port, '--no-build'])));
    for (const [i, port] of ['0x1f90', '8e3', ' 8080'].entries()) {
      expect(results[i]!.code).toBe(2);
      expect(results[i]!.stderr).toContain(`--port ${port} must be an integer from 0 to 65535`);
    }
  });

  it('unknown options and extra arguments of status, pair, undo and audit exit 2 naming them', async () => {
    const cases: Array<[string[], string]> = [
      [['status', '--json'], 'unknown option "--json" for status'],
      [['pair', 'now'], 'pair takes no arguments; "now" is one too many'],
      [['undo', 'a', 'b'], 'undo takes at most 1 argument; "b" is one too many'],
      [['undo', '--all'], 'unknown option "--all" for undo'],
      [['audit', '--limt', '5'], 'unknown option "--limt" for audit'],
      [['audit', '--limit', '5', 'extra'], 'unknown option "extra" for audit'],
      [['audit', '--limit', '2x'], '--limit 2x must be a positive integer'],
      [['audit', '--limit'], '--limit needs a value'],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    for (const [i, [args, message]] of cases.entries()) {
      expect({ args, code: results[i]!.code }).toEqual({ args, code: 2 });
      expect(results[i]!.stderr).toContain(message);
      expect(results[i]!.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('CHATBRIDGE_HOME starting with an unexpanded ~ is under the home folder, not a folder named ~ where the command runs', async () => {
    const person = join(base, 'person');
    mkdirSync(person);
    const res = await runCli(['status'], { CHATBRIDGE_HOME: '~/.chatbridge-elsewhere', HOME: person });
    expect(res.code).toBe(1);
    expect(res.stdout).toContain(`no ${join(person, '.chatbridge-elsewhere', 'companion.json')}`);
    expect(existsSync(join(root, '~'))).toBe(false);
  });

  it('CHATBRIDGE_HOME naming a file, or a folder under one, exits 2 naming the data directory, the file in the way and the variable', async () => {
    const file = join(base, 'home-is-a-file');
    writeFileSync(file, '');
    const results = await Promise.all([file, join(file, 'sub')].map((dataDir) => runCli(['start', '--port', '0', '--no-build'], { CHATBRIDGE_HOME: dataDir })));
    for (const [i, dataDir] of [file, join(file, 'sub')].entries()) {
      expect(results[i]!.code).toBe(2);
      expect(results[i]!.stderr).toContain(`the data directory ${dataDir} cannot be made: ${file} is a file, not a folder. Set CHATBRIDGE_HOME`);
      expect(results[i]!.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('--config=~/FILE (a ~ the shell leaves as it is after "=") is the home folder\'s file, as a root written so is', async () => {
    const person = join(base, 'person-config');
    mkdirSync(person);
    writeFileSync(join(person, 'cb.json'), JSON.stringify({ modes: { exec: 'always' } }));
    const res = await runCli(['start', '--port', '0', '--no-build', '--config=~/cb.json'], { HOME: person, CHATBRIDGE_HOME: join(person, '.chatbridge') });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${join(person, 'cb.json')} is invalid:\n  - modes.exec: value "always"`);
  });

  it('a damaged runtime file: status, pair and undo name it and exit non-zero, without a stack trace', async () => {
    const damagedHome = join(base, 'damaged-runtime');
    mkdirSync(damagedHome);
    for (const content of ['{"port":', '{"port": "7878"}', 'null']) {
      writeFileSync(join(damagedHome, 'companion.json'), content);
      const results = await Promise.all(['status', 'pair', 'undo'].map((command) => runCli([command], { CHATBRIDGE_HOME: damagedHome })));
      for (const res of results) {
        expect(res.code).not.toBe(0);
        expect(res.stdout + res.stderr).toContain(join(damagedHome, 'companion.json'));
        expect(res.stdout + res.stderr).toContain('start the companion again (`npm start` in the chatbridge folder)');
        expect(res.stderr).not.toMatch(/\n\s+at |TypeError|SyntaxError/);
      }
    }
  });

  it('a torn tokens.json: the companion starts with nobody paired, and the printed code pairs', async () => {
    const tornHome = join(base, 'torn-tokens');
    mkdirSync(tornHome);
    writeFileSync(join(tornHome, 'tokens.json'), '{"tokens":[{"sha256":"ab');
    const started = await start(['--root', root], { CHATBRIDGE_HOME: tornHome });
    try {
      expect(await (await fetch(`http://127.0.0.1:${started.port}/v1/status`)).json()).toMatchObject({ paired: false });
      const res = await fetch(`http://127.0.0.1:${started.port}/v1/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: started.code }) });
      const { token } = (await res.json()) as { token: string };
      expect((await fetch(`http://127.0.0.1:${started.port}/v1/tools`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      expect((JSON.parse(readFileSync(join(tornHome, 'tokens.json'), 'utf8')) as { tokens: unknown[] }).tokens).toHaveLength(1);
    } finally {
      const done = exited(started.child);
      started.child.kill('SIGTERM');
      expect(await done).toBe(0);
    }
  });

  it('undo through the CLI restores what a run wrote', async () => {
    const config = join(base, 'auto-write.json');
    writeFileSync(config, JSON.stringify({ modes: { write: 'auto' } }));
    const token = 'preset-token-for-undo-0123456789';
    const started = await start(['--root', root, '--token', token, '--config', config]);
    try {
      const target = join(root, 'made-by-a-run.txt');
      const text = '```mcp-request\n' + JSON.stringify({ jsonrpc: '2.0', id: 'u1', method: 'tools/call', params: { name: 'fs.write', arguments: { path: target, mode: 'overwrite', content: 'x' } } }) + '\n```';
      const res = await fetch(`http://127.0.0.1:${started.port}/v1/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'mcp-request', text, context: { site: 'cli-test', conversationId: 'c', messageKey: 'm' } }),
      });
      expect(((await res.json()) as { status: string }).status).toBe('done');
      expect(existsSync(target)).toBe(true);
      const undo = await runCli(['undo']);
      expect(undo.code).toBe(0);
      expect(undo.stdout).toContain('undone');
      expect(existsSync(target)).toBe(false);
      const audit = await runCli(['audit']);
      expect(audit.stdout).toContain('fs.write');
      expect(audit.stdout).toContain('decision=auto');
    } finally {
      const done = exited(started.child);
      started.child.kill('SIGTERM');
      expect(await done).toBe(0);
    }
  });

  it('--token presets a token the companion accepts (scripted use), and warns that every user can read it', async () => {
    const token = 'preset-token-for-tests-0123456789';
    const started = await start(['--root', root, '--token', token]);
    try {
      const ok = await fetch(`http://127.0.0.1:${started.port}/v1/tools`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(started.stderr()).toContain('warning: --token shows in the process list to every user of this machine');
      expect(started.stderr()).toContain('set CHATBRIDGE_TOKEN in the environment instead');
      // what the warning says, on a system that has /proc
      if (process.platform === 'linux') expect(readFileSync(`/proc/${started.child.pid}/cmdline`, 'utf8')).toContain(token);
    } finally {
      const done = exited(started.child);
      started.child.kill('SIGINT');
      expect(await done).toBe(0);
    }
  });

  it('CHATBRIDGE_TOKEN presets a token with no warning', async () => {
    const token = 'preset-token-from-env-0123456789';
    const started = await start(['--root', root], { CHATBRIDGE_TOKEN: token });
    try {
      const ok = await fetch(`http://127.0.0.1:${started.port}/v1/tools`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(started.stderr()).not.toContain('warning');
    } finally {
      const done = exited(started.child);
      started.child.kill('SIGINT');
      expect(await done).toBe(0);
    }
  });
});
