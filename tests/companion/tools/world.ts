/**
 * A real ToolContext for tool tests: a temp directory with a workspace root and an `outside` sibling, a real
 * journal, a hand-built policy whose only root is the realpath'd workspace, an authorize that allows, and the
 * real process manager.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { ToolError, type ErrorCode } from '../../../shared/errors';
import type { ToolName } from '../../../shared/tools/names';
import { createJournal } from '../../../companion/journal';
import { configSchema, type Policy } from '../../../companion/policy/schema';
import { createProcessManager } from '../../../companion/processes';
import { toolHandlers } from '../../../companion/tools';
import type { Journal, ToolContext, ToolOutput } from '../../../companion/types';

export const DEFAULT_LIMITS = configSchema.parse({}).limits;

export interface World {
  tmp: string;
  root: string;
  outside: string;
  journalDir: string;
  policy: Policy;
  journal: Journal;
  ctx: ToolContext;
  /** validates with the tool's contract, plans, then runs — the order the server uses */
  call(tool: ToolName, args: unknown): Promise<ToolOutput>;
  /** the call must fail with this code; returns the error */
  fails(tool: ToolName, args: unknown, code: ErrorCode, message?: RegExp): Promise<ToolError>;
  write(relative: string, content: string | Uint8Array): Promise<string>;
  read(relative: string): Promise<string>;
  exists(absolute: string): Promise<boolean>;
  cleanup(): Promise<void>;
}

export async function createWorld(policyOverrides: Partial<Policy> = {}): Promise<World> {
  const tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'chatbridge-tools-')));
  const root = path.join(tmp, 'root');
  const outside = path.join(tmp, 'outside');
  const journalDir = path.join(tmp, 'journal');
  await fs.mkdir(root);
  await fs.mkdir(outside);
  const policy: Policy = { ...configSchema.parse({}), roots: [await fs.realpath(root)], redact: [], reserved: [], ...policyOverrides };
  const journal = createJournal({ dir: journalDir, policy });
  const processes = createProcessManager({ killGraceMs: 200 });
  const ctx: ToolContext = {
    policy,
    journal,
    processes,
    origin: { runId: 'run-test', site: 'test', conversationId: 'conv-test' },
    signal: new AbortController().signal,
    authorize: async () => {},
  };

  async function call(tool: ToolName, raw: unknown): Promise<ToolOutput> {
    const handler = toolHandlers[tool];
    const parsed = handler.contract.input.safeParse(raw);
    if (!parsed.success) throw new ToolError('INVALID_INPUT', parsed.error.issues.map((issue: { message: string }) => issue.message).join('; '));
    const args = parsed.data;
    await handler.plan(args, ctx);
    await handler.preview(args, ctx);
    return handler.run(args, ctx);
  }

  return {
    tmp,
    root,
    outside,
    journalDir,
    policy,
    journal,
    ctx,
    call,
    async fails(tool, args, code, message) {
      const error = await call(tool, args).then(
        (output) => {
          throw new Error(`expected ${tool} to fail with ${code}, got: ${output.text.slice(0, 300)}`);
        },
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).code, (error as ToolError).message).toBe(code);
      if (message) expect((error as ToolError).message).toMatch(message);
      return error as ToolError;
    },
    async write(relative, content) {
      const target = path.join(root, relative);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, content);
      return target;
    },
    read: (relative) => fs.readFile(path.join(root, relative), 'utf8'),
    exists: (absolute) =>
      fs.lstat(absolute).then(
        () => true,
        () => false,
      ),
    async cleanup() {
      await processes.stopAll();
      await fs.rm(tmp, { recursive: true, force: true });
    },
  };
}
