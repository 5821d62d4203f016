import { existsSync } from 'node:fs';
import { givenAndReal } from './given-and-real';
import type { Policy } from './schema';

/**
 * The policy with the companion's data directory reserved (DESIGN §5.3): its token, journal, approvals, audit and
 * logs are denied to every tool, whatever the config says — a person who runs `chatbridge start` in their home
 * folder has the data directory inside the workspace root. Both the path as given and its realpath are kept, so
 * neither a symlink to it nor the link's own name gets through.
 *
 * The config file given with `--config` is reserved the same way (the default one is in the data directory): it is
 * the policy itself. A model that could write it would give itself `exec: auto`, wider roots, or an MCP server whose
 * command the next start runs; a file kept beside the project it configures is inside the root.
 *
 * So is the companion's own process in /proc (Linux), which a root of `/` holds: its environment (a token given in
 * CHATBRIDGE_TOKEN, the keys of the shell it was started from), its memory and its open files (the journal's); with
 * it, its threads' entries and those of the programs it started (path-guard.ts ownProcessEntry).
 */
export function protectDataDir(policy: Policy, home: string, configFile?: string): Policy {
  const own = [home, ...(configFile === undefined ? [] : [configFile]), ...ownProcess()].flatMap(givenAndReal);
  const reserved = [...new Set([...policy.reserved, ...own])];
  return reserved.length === policy.reserved.length ? policy : { ...policy, reserved };
}

/** `/proc/<pid>` and the names that lead to it (`/proc/self`, `/proc/thread-self`), where the system has them. */
function ownProcess(): string[] {
  const dir = `/proc/${process.pid}`;
  return existsSync(dir) ? [dir, '/proc/self', '/proc/thread-self'] : [];
}
