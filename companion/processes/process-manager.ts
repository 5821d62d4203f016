import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { quote } from 'shell-quote';
import { ToolError } from '../../shared/errors';
import type {
  ProcessManager,
  ProgramHandle,
  ProgramInfo,
  ProgramOutputEvent,
  ProgramResult,
  ProgramSpec,
  ProgramStatus,
} from '../types';
import { gatherStrays, newRunMarker, RUN_MARKER_VAR, signalTree, trackStrays, treeAlive, type Strays } from './kill-tree';
import { createOutputBuffer, type OutputBuffer } from './output-buffer';
import { createLiveDecoder, streamDecoding } from './output-text';
import { createProgramRecords } from './program-records';

export interface ProcessManagerOptions {
  /** how long a tree has between SIGTERM and SIGKILL */
  killGraceMs?: number;
  /** finished programs still answered by get()/list() */
  keepFinished?: number;
  now?: () => number;
  /**
   * Where each running program is recorded (`<home>/programs`), so the next start can stop the ones a crashed
   * companion left running (see program-records.ts). Unset: nothing is recorded.
   */
  recordDir?: string;
}

type Stream = 'stdout' | 'stderr';

/** setTimeout fires at once for delays above 2^31-1 ms; longer timeouts are clamped to that (about 24 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Running {
  handle: ProgramHandle;
  /** why it is ending, when we ended it */
  endReason?: 'timeout' | 'terminated';
  kill(): void;
}

/**
 * Starts, watches and stops the programs the tools and plans run.
 *
 * - Every program leads its own process group, so a stop or a timeout kills the whole tree, grandchildren included;
 *   stragglers still alive when the program itself ends are killed too — nothing a chat started outlives its run.
 *   On Linux a kill also reaches descendants that left the group (setsid) while /proc still links them to the
 *   program, and every process carrying the program's marker (`CHATBRIDGE_RUN`, random per program, set over the
 *   call's own env) — a double-forked daemon reparented to init included. One that also cleans its environment
 *   still escapes (see kill-tree.ts).
 * - With `recordDir`, each running program has a record on disk, so a start after a crash stops what was left
 *   running (see program-records.ts).
 * - stdin is /dev/null: a program waiting for input sees end-of-file instead of hanging until the timeout.
 * - The environment is exactly `spec.env` (the caller builds a minimal one) plus the marker and git's
 *   `safe.bareRepository=explicit` (see withGitGuard); nothing of the companion's leaks in.
 * - Every chunk of output goes to the onOutput listeners with its offset, so a client can prove nothing was lost;
 *   what is kept for the result is capped per stream (see output-buffer.ts) and decoded at the end: output that is
 *   not UTF-8 is read in the program's locale charset or said to be replaced, a binary is a note (output-text.ts).
 * - Offsets count UTF-8 bytes of the decoded text: `offset + Buffer.byteLength(chunk)` is the next chunk's offset.
 */
export function createProcessManager(options: ProcessManagerOptions = {}): ProcessManager {
  const killGraceMs = options.killGraceMs ?? 2_000;
  const keepFinished = options.keepFinished ?? 100;
  const now = options.now ?? Date.now;
  const records = options.recordDir === undefined ? undefined : createProgramRecords(options.recordDir);
  const running = new Map<string, Running>();
  const finished = new Map<string, ProgramHandle>();
  const outputListeners = new Set<(event: ProgramOutputEvent) => void>();
  const exitListeners = new Set<(info: ProgramInfo, result: ProgramResult) => void>();
  /** leftovers of finished programs still being killed; stopAll (shutdown) waits for them */
  const sweeps = new Set<Promise<void>>();

  function emitOutput(event: ProgramOutputEvent): void {
    for (const listener of outputListeners) {
      try {
        listener(event);
      } catch {
        // a broken listener (e.g. a closed socket) must not stop the program or the other listeners
      }
    }
  }

  function emitExit(info: ProgramInfo, result: ProgramResult): void {
    for (const listener of exitListeners) {
      try {
        listener(info, result);
      } catch {
        // as above
      }
    }
  }

  function retire(id: string, handle: ProgramHandle): void {
    running.delete(id);
    finished.set(id, handle);
    while (finished.size > keepFinished) {
      const oldest = finished.keys().next().value as string;
      finished.delete(oldest);
    }
  }

  function start(spec: ProgramSpec): ProgramHandle {
    validateSpec(spec);
    const id = `prog-${randomUUID()}`;
    const startedAt = now();
    const info: ProgramInfo = {
      id,
      name: spec.name,
      command: spec.shell ?? quote(spec.argv ?? []),
      cwd: spec.cwd,
      origin: spec.origin,
      status: 'running',
      startedAt: new Date(startedAt).toISOString(),
    };
    const buffers: Record<Stream, OutputBuffer> = {
      stdout: createOutputBuffer(spec.maxOutputBytes),
      stderr: createOutputBuffer(spec.maxOutputBytes),
    };
    const offsets: Record<Stream, number> = { stdout: 0, stderr: 0 };
    let resolveDone!: (result: ProgramResult) => void;
    const done = new Promise<ProgramResult>((resolve) => {
      resolveDone = resolve;
    });
    const handle: ProgramHandle = { info, done };
    const entry: Running = { handle, kill: () => {} };
    running.set(id, entry);

    let child: ChildProcess | undefined;
    let settled = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let startError: string | undefined;
    const timers: NodeJS.Timeout[] = [];
    const marker = newRunMarker();
    let strays: Strays = trackStrays(undefined);

    /** live listeners get UTF-8 text as it comes; the result keeps the bytes, read as a whole at the end */
    function emit(stream: Stream, text: string): void {
      if (text.length === 0) return;
      const event: ProgramOutputEvent = { programId: id, name: spec.name, stream, chunk: text, offset: offsets[stream] };
      offsets[stream] += Buffer.byteLength(text, 'utf8');
      emitOutput(event);
    }

    /** a stream's kept text, decoded as output-text.ts tells, its note (not UTF-8, binary) on a line of its own first */
    function streamText(stream: Stream): { text: string; truncated: boolean } {
      const buffer = buffers[stream];
      const decoding = streamDecoding(buffer.parts(), buffer.totalBytes, spec.env, stream);
      const kept = buffer.result(decoding.decode);
      if (decoding.note === undefined) return kept;
      return { text: decoding.binary === true ? `${decoding.note}\n` : `${decoding.note}\n${kept.text}`, truncated: kept.truncated };
    }

    function finish(): void {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      const pid = child?.pid;
      if (pid !== undefined) gatherStrays(pid, strays);
      if (pid !== undefined && treeAlive(pid, strays)) {
        // the program ended but left descendants behind (daemonized or holding no pipe): end them too
        signalTree(pid, 'SIGTERM', strays);
        const sweep = new Promise<void>((resolve) =>
          setTimeout(() => {
            if (treeAlive(pid, strays)) signalTree(pid, 'SIGKILL', strays);
            records?.remove(id);
            resolve();
            // not unref'd: a companion shutting down must live until this SIGKILL is sent
          }, killGraceMs),
        );
        sweeps.add(sweep);
        void sweep.then(() => sweeps.delete(sweep));
      } else {
        records?.remove(id);
      }
      const status: Exclude<ProgramStatus, 'running'> =
        entry.endReason ?? (startError !== undefined ? 'failure' : exitCode === 0 ? 'completed' : 'failure');
      const stdout = streamText('stdout');
      const stderr = streamText('stderr');
      let stderrText = stderr.text;
      if (startError !== undefined) stderrText = appendLine(stderrText, startError);
      else if (entry.endReason === undefined && exitSignal !== null) {
        stderrText = appendLine(stderrText, `[killed by signal ${exitSignal}]`);
      }
      const result: ProgramResult = {
        status,
        returncode: exitCode,
        stdout: stdout.text,
        stderr: stderrText,
        runtime: Math.round(now() - startedAt) / 1000,
        truncated: stdout.truncated || stderr.truncated,
      };
      info.status = status;
      retire(id, handle);
      resolveDone(result);
      emitExit(info, result);
    }

    function failToStart(reason: string): void {
      startError = reason;
      finish();
    }

    const commandLine = toCommandLine(spec);
    const cwdProblem = checkCwd(spec.cwd);
    if (cwdProblem !== undefined) {
      queueMicrotask(() => failToStart(`could not start ${JSON.stringify(info.command)}: ${cwdProblem}`));
      return handle;
    }
    try {
      child = spawn(commandLine.file, commandLine.args, {
        cwd: spec.cwd,
        // set last: the call's env cannot choose the value (or drop it) to hide from the sweep
        env: { ...withGitGuard(spec.env), [RUN_MARKER_VAR]: marker },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
        windowsVerbatimArguments: commandLine.verbatim,
      });
    } catch (error) {
      // spawn throws synchronously for arguments it cannot pass at all (e.g. a NUL byte)
      queueMicrotask(() => failToStart(`could not start ${JSON.stringify(info.command)}: ${(error as Error).message}`));
      return handle;
    }
    const proc = child;
    strays = trackStrays(proc.pid, marker);
    if (proc.pid !== undefined) {
      records?.add({ id, pid: proc.pid, pgid: proc.pid, command: info.command, startedAt: info.startedAt, marker });
    }

    for (const stream of ['stdout', 'stderr'] as const) {
      const decoder = createLiveDecoder(spec.env);
      const readable = proc[stream];
      readable?.on('data', (bytes: Buffer) => {
        buffers[stream].push(bytes);
        emit(stream, decoder.write(bytes));
      });
      readable?.on('end', () => emit(stream, decoder.end()));
      readable?.on('error', () => {});
    }

    proc.on('error', (error: NodeJS.ErrnoException) => {
      if (proc.pid === undefined) {
        const hint = error.code === 'ENOENT' ? ' (command not found)' : error.code === 'EACCES' ? ' (not executable)' : '';
        failToStart(`could not start ${JSON.stringify(info.command)}: ${error.message}${hint}`);
      }
    });
    proc.on('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
    });
    proc.on('close', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      finish();
    });

    entry.kill = () => {
      const pid = proc.pid;
      if (pid === undefined || settled) return;
      signalTree(pid, 'SIGTERM', strays);
      timers.push(
        setTimeout(() => {
          if (settled) return;
          signalTree(pid, 'SIGKILL', strays);
          // a descendant that left our process group can still hold the pipes open: stop waiting for it
          timers.push(
            setTimeout(() => {
              if (settled) return;
              // processes forked while the first SIGKILL was being delivered get a second one
              signalTree(pid, 'SIGKILL', strays);
              proc.stdout?.destroy();
              proc.stderr?.destroy();
              finish();
            }, killGraceMs),
          );
        }, killGraceMs),
      );
    };

    timers.push(
      setTimeout(() => {
        if (settled || entry.endReason !== undefined) return;
        entry.endReason = 'timeout';
        entry.kill();
      }, Math.min(spec.timeoutMs, MAX_TIMER_MS)),
    );

    return handle;
  }

  async function stop(id: string): Promise<void> {
    const entry = running.get(id);
    if (entry === undefined) {
      if (finished.has(id)) return;
      throw new ToolError('NOT_FOUND', `no program with id ${JSON.stringify(id)}`);
    }
    if (entry.endReason === undefined) entry.endReason = 'terminated';
    entry.kill();
    await entry.handle.done;
  }

  return {
    start,
    stop,
    get(id) {
      return running.get(id)?.handle ?? finished.get(id);
    },
    list() {
      // oldest first, running and finished alike (ISO times sort as text)
      return [...finished.values(), ...[...running.values()].map((r) => r.handle)]
        .map((h) => ({ ...h.info }))
        .sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
    },
    async stopAll() {
      await Promise.all([...running.keys()].map((id) => stop(id).catch(() => {})));
      // a shutdown must not exit before the SIGKILL meant for what a finished program left behind
      await Promise.all([...sweeps]);
    },
    onOutput(listener) {
      outputListeners.add(listener);
      return () => outputListeners.delete(listener);
    },
    onExit(listener) {
      exitListeners.add(listener);
      return () => exitListeners.delete(listener);
    },
  };
}

/**
 * git finds a repository by walking up from its working directory, and a folder holding `HEAD`, `objects/`, `refs/`
 * and a `config` is one (a "bare" repository) whatever its name: a model that may write files plants such a folder,
 * outside `.git` so no deny glob or runs-code rule names it, with `core.fsmonitor` (or `core.pager`, an alias, …)
 * in its `config`, and an allow-listed `git status` run there runs that command with no card. Every program this
 * companion starts gets `safe.bareRepository=explicit` as command-line configuration (which a repository's own
 * config cannot override), so git uses a bare repository only when told to (`--git-dir`, `GIT_DIR`). Appended after
 * any the environment already sets.
 */
export function withGitGuard(env: Record<string, string>): Record<string, string> {
  const given = Number(env.GIT_CONFIG_COUNT ?? '0');
  const count = Number.isSafeInteger(given) && given >= 0 ? given : 0;
  return { ...env, GIT_CONFIG_COUNT: String(count + 1), [`GIT_CONFIG_KEY_${count}`]: 'safe.bareRepository', [`GIT_CONFIG_VALUE_${count}`]: 'explicit' };
}

function validateSpec(spec: ProgramSpec): void {
  const hasArgv = spec.argv !== undefined;
  const hasShell = spec.shell !== undefined;
  if (hasArgv === hasShell) {
    throw new ToolError('INVALID_INPUT', `program ${JSON.stringify(spec.name)} needs exactly one of argv or shell`);
  }
  if (hasArgv && (spec.argv!.length === 0 || spec.argv!.some((arg) => typeof arg !== 'string'))) {
    throw new ToolError('INVALID_INPUT', `program ${JSON.stringify(spec.name)}: argv must be a non-empty list of strings`);
  }
  if (hasShell && (typeof spec.shell !== 'string' || spec.shell.trim() === '')) {
    throw new ToolError('INVALID_INPUT', `program ${JSON.stringify(spec.name)}: shell must be a non-empty command string`);
  }
  if (!Number.isFinite(spec.timeoutMs) || spec.timeoutMs <= 0) {
    throw new ToolError('INVALID_INPUT', `program ${JSON.stringify(spec.name)}: timeoutMs ${spec.timeoutMs} must be a positive number`);
  }
  if (!Number.isInteger(spec.maxOutputBytes) || spec.maxOutputBytes <= 0) {
    throw new ToolError(
      'INVALID_INPUT',
      `program ${JSON.stringify(spec.name)}: maxOutputBytes ${spec.maxOutputBytes} must be a positive integer`,
    );
  }
}

function toCommandLine(spec: ProgramSpec): { file: string; args: string[]; verbatim: boolean } {
  if (spec.argv !== undefined) return { file: spec.argv[0]!, args: spec.argv.slice(1), verbatim: false };
  if (process.platform === 'win32') {
    return { file: process.env.ComSpec ?? 'cmd.exe', args: ['/d', '/s', '/c', `"${spec.shell}"`], verbatim: true };
  }
  return { file: '/bin/sh', args: ['-c', spec.shell!], verbatim: false };
}

function checkCwd(cwd: string): string | undefined {
  try {
    if (!statSync(cwd).isDirectory()) return `working directory ${cwd} is not a directory`;
    return undefined;
  } catch {
    return `working directory ${cwd} does not exist`;
  }
}

function appendLine(text: string, line: string): string {
  if (text === '') return line;
  return text.endsWith('\n') ? text + line : `${text}\n${line}`;
}
