import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createJournal } from '../../../companion/journal';
import { configSchema, type Policy } from '../../../companion/policy/schema';
import { createProcessManager } from '../../../companion/processes';
import type { AuthorizationRequest, CallOrigin, Journal, ProcessManager, ToolContext } from '../../../companion/types';
import { ToolError } from '../../../shared/errors';

/**
 * A real little world for plan tests: a temp workspace, a real journal in a temp data dir, the real process
 * manager, and an `authorize` that records each request and answers as the test says (a test harness standing in
 * for the person, not a mock of what is tested).
 */
export interface World {
  root: string;
  policy: Policy;
  journal: Journal;
  processes: ProcessManager;
  requests: AuthorizationRequest[];
  /** what authorize does: resolve, or throw DENIED / POLICY_BLOCKED */
  answer: 'approve' | 'deny' | 'block';
  ctx(origin?: Partial<CallOrigin>, signal?: AbortSignal): ToolContext;
  write(relative: string, content: string): Promise<void>;
  read(relative: string): Promise<string>;
  exists(relative: string): Promise<boolean>;
  dispose(): Promise<void>;
}

export async function createWorld(config: Record<string, unknown> = {}): Promise<World> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'chatbridge-plans-')));
  const root = join(base, 'workspace');
  await mkdir(root);
  const parsed = configSchema.parse({ ...config, roots: [root] });
  const policy: Policy = { ...parsed, roots: [root], redact: [], reserved: [] };
  const journal = createJournal({ dir: join(base, 'data', 'journal'), policy });
  const processes = createProcessManager({ killGraceMs: 300 });
  const requests: AuthorizationRequest[] = [];
  const world: World = {
    root,
    policy,
    journal,
    processes,
    requests,
    answer: 'approve',
    ctx(origin = {}, signal = new AbortController().signal) {
      return {
        policy,
        journal,
        processes,
        origin: { runId: `run-${requests.length}`, site: 'chatgpt', conversationId: 'conv-1', ...origin },
        signal,
        async authorize(request) {
          requests.push(request);
          if (world.answer === 'deny') throw new ToolError('DENIED', 'the person denied this plan');
          if (world.answer === 'block') throw new ToolError('POLICY_BLOCKED', 'policy denies exec');
        },
      };
    },
    async write(relative, content) {
      await mkdir(dirname(join(root, relative)), { recursive: true });
      await writeFile(join(root, relative), content);
    },
    read(relative) {
      return readFile(join(root, relative), 'utf8');
    },
    async exists(relative) {
      try {
        await readFile(join(root, relative));
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EISDIR') return true;
        return false;
      }
    },
    async dispose() {
      await processes.stopAll();
      await rm(base, { recursive: true, force: true });
    },
  };
  return world;
}

/** Reads an executor response the way the seed's own executor reads a plan: the first `#####--…--#####`. */
export function parseExecutorResponse(text: string | null): Record<string, any> {
  if (text === null) throw new Error('expected an executor response, got null');
  const match = /#####--\s*([\s\S]*?)\s*--#####/.exec(text);
  if (!match) throw new Error(`no #####-- block in ${text}`);
  return JSON.parse(match[1]!);
}
