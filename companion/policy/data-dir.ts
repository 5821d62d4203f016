import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Policy } from './schema';

/**
 * The policy with the companion's data directory reserved (DESIGN §5.3): its token, journal, approvals, audit and
 * logs are denied to every tool, whatever the config says — a person who runs `chatbridge start` in their home
 * folder has the data directory inside the workspace root. Both the path as given and its realpath are kept, so
 * neither a symlink to it nor the link's own name gets through.
 */
export function protectDataDir(policy: Policy, home: string): Policy {
  const given = path.resolve(home);
  let real = given;
  try {
    real = realpathSync(given);
  } catch {
    // not created yet: the path as given is where it will be
  }
  const reserved = [...new Set([...policy.reserved, given, real])];
  return reserved.length === policy.reserved.length ? policy : { ...policy, reserved };
}
