import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { signalTree, trackStrays, treeAlive, type ProgramRecords, type Strays } from '../processes';
import { readIncoming } from './incoming-message';
import type { ServerLog } from './server-log';
import { ServerProblemError } from './server-problem';

/**
 * The stdio transport for the person's MCP servers. The SDK has one; this one differs where a daemon that runs
 * other people's programs for a long time needs it to:
 *
 * - the server leads its own process group (POSIX), so closing it — shutdown, a timeout, a restart — ends the
 *   whole tree it started (`npx` → node → its helpers), not just the direct child; where records are kept, a
 *   companion that was killed stops them at its next start like any program (processes/program-records.ts);
 * - the environment is exactly what the caller built (the policy's envAllow plus the server's `env`), nothing
 *   merged in;
 * - stderr goes to the server's bounded log, never to the companion's terminal;
 * - a stdout line that is not JSON-RPC (a banner, a stray console.log) is logged and skipped, never fatal; a message
 *   that ends a line of such text (printed without its newline) is read, the text skipped;
 * - a message larger than `maxMessageBytes` is not buffered without end: the connection is reset (the caller
 *   restarts the server) and the calls waiting on it fail as LIMIT_EXCEEDED; nor is what is sent to a server that
 *   stops reading its input.
 */
export interface ChildTransportOptions {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  log: ServerLog;
  maxMessageBytes: number;
  /** how long the tree has between SIGTERM and SIGKILL when closed */
  killGraceMs: number;
  records?: ProgramRecords;
}

/** How many `{` of a line that is not JSON are tried as the start of a message written after text. */
const MESSAGE_STARTS_TRIED = 64;

/**
 * A message written on the line of text before it: a banner or a log line printed without its newline
 * (`process.stdout.write('Starting…')`, Python's `print(…, end='')`), so the server's first message, its answer to
 * initialize, ended that line. Read as a whole, the line was no JSON and was skipped with the answer in it: the server
 * "did not answer" and was stopped at its start timeout, said to need longer. The message is the JSON object from the
 * first `{` that parses to the line's end; a few are tried, so a long line of braces costs no more than a few parses.
 */
function messageAfterText(line: string): { text: string; value: unknown } | undefined {
  if (!line.trimEnd().endsWith('}')) return undefined;
  let at = line.indexOf('{', 1);
  for (let tried = 0; at !== -1 && tried < MESSAGE_STARTS_TRIED; tried++) {
    try {
      return { text: line.slice(0, at), value: JSON.parse(line.slice(at)) };
    } catch {
      at = line.indexOf('{', at + 1);
    }
  }
  return undefined;
}

export class MessageTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the server sent a message larger than ${limit} bytes; the connection was reset`);
    this.name = 'MessageTooLargeError';
  }
}

const DETACHED = process.platform !== 'win32';

/** How much of the end of a server's stderr is kept, and how much of its last line is shown. */
const STDERR_TAIL = 4096;
const STDERR_LINE = 300;

/**
 * How long a server whose output ended may take to exit before it is stopped: a server that exits ends its output
 * first, and is then told by its exit.
 */
const OUTPUT_END_GRACE_MS = 1_000;

/** Messages left unread by a server before it counts as not reading (see send). */
const MAX_UNFLUSHED = 10_000;

export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** how the process ended, once it has */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** the connection was reset because a message went over maxMessageBytes */
  overflowed = false;
  /** the end of what the server wrote on stderr (bounded), for why it stopped */
  private stderrTail = '';
  /** the connection was reset because the server left its input unread (more than maxMessageBytes, or MAX_UNFLUSHED messages) */
  stalled = false;
  /** the server closed its output and went on running, and was stopped: it could answer nothing more */
  outputClosed = false;
  /** messages written to the server's stdin and not yet handed to the pipe */
  private unflushed = 0;
  /** resolves when the server's stdin drains; shared by every send waiting for it */
  private drained: Promise<void> | undefined;
  private child: ChildProcess | undefined;
  private strays: Strays | undefined;
  private recordId: string | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** skipping the rest of a line that went over the limit */
  private discarding = false;
  private exited: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: ChildTransportOptions) {}

  /** the last line the server wrote on stderr, cut to a short line; what a server that will not start says why */
  get lastStderrLine(): string | undefined {
    const line = this.stderrTail
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .pop();
    if (line === undefined) return undefined;
    return line.length > STDERR_LINE ? `${line.slice(0, STDERR_LINE - 1)}…` : line;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) throw new Error(`${this.options.name}: transport already started`);
    const { command, args, env, cwd, log } = this.options;
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        env,
        ...(cwd !== undefined ? { cwd } : {}),
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: DETACHED,
        windowsHide: true,
        shell: false,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once('close', () => done()));
      child.once('error', (spawnError) => {
        const error = spawnProblem(spawnError, command, args, env, cwd);
        log.note(`could not start ${command}: ${error.message}`);
        reject(error);
      });
      child.once('spawn', () => {
        this.strays = trackStrays(child.pid);
        if (this.options.records && child.pid !== undefined) {
          this.recordId = `prog-${randomUUID()}`;
          this.options.records.add({
            id: this.recordId,
            pid: child.pid,
            pgid: child.pid,
            command: `mcp server ${this.options.name}: ${[command, ...args].join(' ')}`,
            startedAt: new Date().toISOString(),
          });
        }
        log.note(`started ${[command, ...args].join(' ')} (pid ${child.pid})`);
        resolve();
      });
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        log.write(chunk);
        this.stderrTail = chunk.length >= STDERR_TAIL ? chunk.slice(-STDERR_TAIL) : (this.stderrTail + chunk).slice(-STDERR_TAIL);
      });
      child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
      // a server that closes its output and lives on (its writer failed) answered nothing more, while it counted as up:
      // every call waited out its whole timeout, and it was never restarted
      child.stdout?.once('end', () => {
        setTimeout(() => {
          if (this.child !== child) return;
          this.outputClosed = true;
          log.note('the server closed its output and went on running, so it can answer nothing more; it is stopped');
          void this.close();
        }, OUTPUT_END_GRACE_MS).unref();
      });
      // EPIPE after the server died: the close below reports it
      child.stdin?.on('error', () => {});
      child.once('close', (code, signal) => {
        this.exit = { code, signal };
        log.note(`exited (${signal ? `signal ${signal}` : `code ${String(code)}`})`);
        // what the server left behind in its group goes with it
        if (child.pid !== undefined && DETACHED) signalTree(child.pid, 'SIGKILL', this.strays);
        if (this.recordId) this.options.records?.remove(this.recordId);
        this.child = undefined;
        this.onclose?.();
      });
    });
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      this.pendingBytes = 0;
      if (line.length > this.options.maxMessageBytes) {
        this.tooLarge();
        continue;
      }
      this.handleLine(line.toString('utf8'));
    }
    if (start < chunk.length && !this.discarding) {
      const rest = chunk.subarray(start);
      this.pending.push(rest);
      this.pendingBytes += rest.length;
      if (this.pendingBytes > this.options.maxMessageBytes) {
        this.pending = [];
        this.pendingBytes = 0;
        this.discarding = true;
        this.tooLarge();
      }
    }
  }

  private tooLarge(): void {
    this.overflowed = true;
    const error = new MessageTooLargeError(this.options.maxMessageBytes);
    this.options.log.note(error.message);
    this.onerror?.(error);
    void this.close();
  }

  private handleLine(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const after = messageAfterText(line);
      if (after === undefined) {
        this.options.log.note(`stdout line that is not JSON-RPC, skipped: ${line.slice(0, 200)}`);
        return;
      }
      this.options.log.note(`stdout text before a message on its line, skipped: ${after.text.slice(0, 200)}`);
      value = after.value;
    }
    const incoming = readIncoming(value, line.slice(0, 200));
    if (incoming === undefined) {
      this.options.log.note(`stdout JSON that is not a JSON-RPC message, skipped: ${line.slice(0, 200)}`);
      return;
    }
    if (incoming.problem !== undefined) this.options.log.note(incoming.problem);
    this.onmessage?.(incoming.message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable) return Promise.reject(new Error(`${this.options.name}: not connected`));
    // The SDK answers every request a server sends (roots/list, sampling, a ping: "method not found" or an empty
    // result) without waiting for the pipe to drain. A server that sends requests and never reads its stdin had the
    // answers queued in the companion without end (~85 MB a second). More than a message's bound left unread: the
    // server is not reading, and the connection is reset like one that sends too much.
    if (stdin.writableLength > this.options.maxMessageBytes || this.unflushed > MAX_UNFLUSHED) {
      if (!this.stalled) {
        this.stalled = true;
        this.options.log.note(`the server left ${this.unflushed} messages (${stdin.writableLength} bytes) sent to it unread; the connection was reset`);
        void this.close();
      }
      return Promise.reject(new Error(`${this.options.name}: the server is not reading its input`));
    }
    this.unflushed++;
    const done = () => {
      this.unflushed--;
    };
    if (stdin.write(JSON.stringify(message) + '\n', done)) return Promise.resolve();
    // one listener for every send waiting on the pipe, not one each (thousands of them, each holding its promise)
    this.drained ??= new Promise<void>((resolve) => {
      stdin.once('drain', () => {
        this.drained = undefined;
        resolve();
      });
    });
    return this.drained;
  }

  /** Ends stdin, then SIGTERM to the tree, then SIGKILL after the grace period; resolves once the process is gone. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const child = this.child;
      if (!child || child.pid === undefined) return;
      const pid = child.pid;
      try {
        child.stdin?.end();
      } catch {
        // already closed
      }
      signalTree(pid, 'SIGTERM', this.strays);
      const deadline = Date.now() + this.options.killGraceMs;
      while (Date.now() < deadline && (this.child !== undefined || (DETACHED && treeAlive(pid, this.strays)))) {
        await new Promise((r) => setTimeout(r, 20));
      }
      if (this.child !== undefined || (DETACHED && treeAlive(pid, this.strays))) signalTree(pid, 'SIGKILL', this.strays);
      await this.exited;
    })();
    return this.closing;
  }
}

/**
 * Why a server's program could not be started, in the person's terms: `spawn uvx ENOENT` says neither that the
 * program is missing nor where it was looked for (a companion started from a desktop session often has a shorter
 * PATH than a terminal).
 */
function spawnProblem(error: Error, command: string, args: readonly string[], env: Record<string, string>, cwd: string | undefined): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const program = JSON.stringify(command);
  const path = env.PATH ?? env.Path;
  const hasDirectory = namesDirectory(command);
  // a missing folder to start in fails with the same ENOENT as a missing command: the answer names the folder
  if (code === 'ENOENT' && cwd !== undefined && !statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    return new ServerProblemError(`its folder (cwd) ${JSON.stringify(cwd)} is not an existing directory`, { code: 'cwd-missing', program: command, cwd });
  }
  const misread = code === 'ENOENT' ? misreadCommand(command, args, path, cwd) : undefined;
  if (misread !== undefined) return misread;
  // the program is there, but what runs it is not: a script whose #! line names an interpreter that is gone (a
  // Python tool's virtual environment removed by an upgrade) fails with the same ENOENT as a missing program
  const found = code === 'ENOENT' ? programFile(command, hasDirectory, path, cwd) : undefined;
  if (found !== undefined) {
    const interpreter = /^#!([^\n]*)/.exec(firstLine(found))?.[1]?.trim();
    return interpreter !== undefined
      ? new ServerProblemError(
          `the program ${program} (${found}) is there, but the interpreter its first line names is not: #!${interpreter.slice(0, 200)}; reinstall the program`,
          { code: 'interpreter-missing', program: command, file: found, interpreter: interpreter.slice(0, 200) },
        )
      : new ServerProblemError(
          `the program ${program} (${found}) is there, but the system could not run it (built for another system, or a loader it needs is missing)`,
          { code: 'program-not-runnable', program: command, file: found },
        );
  }
  if (code === 'ENOENT' && hasDirectory) return new ServerProblemError(`the program ${program} does not exist`, { code: 'program-not-found', program: command });
  if (code === 'ENOENT') {
    const shown = path === undefined ? 'none: PATH is not in its environment' : path.length > 300 ? `${path.slice(0, 299)}…` : path;
    return new ServerProblemError(`the program ${program} was not found on the PATH it was given (${shown}): install it, or give its full path as "command"`, {
      code: 'program-not-found',
      program: command,
      path: shown,
    });
  }
  if (code === 'EACCES') return new ServerProblemError(`the program ${program} cannot be run (permission denied): it is not executable`, { code: 'not-executable', program: command });
  return error;
}

/**
 * A command written as for another place, whose program is there under another name; told as 'not found on the PATH:
 * install it', which the person had done. A whole command line as "command" (`npx -y @modelcontextprotocol/server-memory`,
 * as a form with one field takes it), whose first word is the program; and, off Windows, `cmd /c npx …`, the form
 * READMEs give for Windows, whose `cmd` no other system has. Only the program's name is quoted: the words after it may
 * hold a key.
 */
function misreadCommand(command: string, args: readonly string[], path: string | undefined, cwd: string | undefined): Error | undefined {
  const words = command.trim().split(/\s+/);
  const first = words[0] ?? '';
  const runnable = (name: string) => programFile(name, namesDirectory(name), path, cwd) !== undefined;
  if (words.length > 1 && programFile(command, true, path, cwd) === undefined && runnable(first)) {
    return new Error(
      `"command" holds the program and its arguments in one string (${JSON.stringify(first)} and ${words.length - 1} more word${words.length > 2 ? 's' : ''}): ` +
        `write the program alone in "command" and each word after it as an item of "args", e.g. "command": ${JSON.stringify(first)}, "args": ["…", "…"]`,
    );
  }
  const windowsShell = /^cmd(?:\.exe)?$/i.test(command) && /^\/c$/i.test(args[0] ?? '');
  const program = args[1];
  if (process.platform !== 'win32' && windowsShell && program !== undefined && runnable(program)) {
    return new Error(
      `"cmd" is the Windows command interpreter, which this system does not have: the entry is written for Windows ("command": "cmd", "args": ["/c", ${JSON.stringify(program)}, …]); ` +
        `here write "command": ${JSON.stringify(program)} and the words after it as "args"`,
    );
  }
  return undefined;
}

/** A command given with a folder (`./run`, `/usr/bin/node`, `bin\tool`): it is not looked up on PATH. */
function namesDirectory(command: string): boolean {
  return isAbsolute(command) || command.includes('/') || command.includes('\\');
}

/** The file a command names: its path (from `cwd`), or the first on `path` — undefined when there is none. */
function programFile(command: string, hasDirectory: boolean, path: string | undefined, cwd: string | undefined): string | undefined {
  const candidates = hasDirectory ? [resolve(cwd ?? process.cwd(), command)] : (path ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, command));
  return candidates.find((file) => statSync(file, { throwIfNoEntry: false })?.isFile() === true);
}

/** The start of a file's first line (a #! line is short), or '' when it cannot be read. */
function firstLine(file: string): string {
  try {
    const fd = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(256);
      return buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0)).split('\n')[0] ?? '';
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}
