import path from 'node:path';
import { ToolError } from '../../shared/errors';
import { escapedControlsIn, resolveInsideRoots, unexpandedStart, type ResolveOptions } from '../policy/path-guard';
import type { Policy } from '../policy/schema';

export interface PlanPath {
  /** as the plan wrote it, for the reply */
  relative: string;
  /** resolved through the path guard: what is read and written */
  absolute: string;
}

/** The workspace root plans are relative to; a policy without roots cannot run a plan. */
export function workspaceRoot(policy: Pick<Policy, 'roots'>): string {
  const root = policy.roots[0];
  if (root === undefined) throw new ToolError('POLICY_BLOCKED', 'no workspace root is configured, so a plan has nowhere to run');
  return root;
}

/**
 * Plans (auto_coder, Axon) name files relative to the workspace root. The path is joined to the root and then
 * goes through the same guard as every tool path (symlinks, roots, deny globs).
 *
 * A `..` that climbs above the root is refused here even when it would land back inside (`../ws/a`), because a
 * plan has no reason to leave its workspace and the reply would otherwise name a different path than it touched.
 * An absolute path is accepted when the guard finds it inside the roots (models often echo the absolute path
 * they were shown). `~` and a variable such as `$HOME` at the start are refused: nothing here is a shell, so they
 * would silently mean a directory named `~` or `$HOME`.
 */
export async function resolvePlanPath(
  input: unknown,
  policy: Pick<Policy, 'roots' | 'deny'>,
  options: ResolveOptions & { allowRoot?: boolean } = {},
): Promise<PlanPath> {
  if (typeof input !== 'string') {
    throw new ToolError('INVALID_INPUT', `path must be a string relative to the workspace root, got ${JSON.stringify(input) ?? 'nothing'}`);
  }
  const relative = input.trim();
  const root = workspaceRoot(policy);
  if (relative === '' || relative === '.' || relative === './') {
    if (!options.allowRoot) {
      throw new ToolError('INVALID_INPUT', `path ${JSON.stringify(input)} names the workspace root itself; give a file or directory inside it`);
    }
    return { relative: '.', absolute: root };
  }
  if (relative.includes('\0')) {
    throw new ToolError('INVALID_INPUT', `path ${JSON.stringify(input)} contains a NUL byte, which no file name may hold`);
  }
  const control = escapedControlsIn(relative);
  if (control !== undefined) throw new ToolError('INVALID_INPUT', control);
  const unexpanded = unexpandedStart(relative);
  if (unexpanded !== undefined) {
    throw new ToolError('INVALID_INPUT', `path ${JSON.stringify(input)} starts with ${JSON.stringify(unexpanded)}, which is not expanded; give a path relative to the workspace root ${root}`);
  }
  if (process.platform !== 'win32') refuseWindowsForm(relative, root);
  let joined: string;
  if (path.isAbsolute(relative)) {
    joined = relative;
  } else {
    joined = path.resolve(root, relative);
    if (climbsAboveStart(relative)) {
      throw new ToolError('FORBIDDEN', `path ${JSON.stringify(input)} climbs out of the workspace root ${root} with ".."; plan paths must stay inside it`, {
        path: input,
      });
    }
  }
  const absolute = await resolveInsideRoots(joined, policy, options);
  return { relative, absolute };
}

/** A drive (`C:\`, `C:/`, `C:`) or a UNC share (`\\server`) at the start. */
const WINDOWS_START = /^(?:[a-zA-Z]:[\\/]|[a-zA-Z]:$|\\\\)/;

/**
 * On POSIX, a path in Windows form (models answering a person on Windows write `tetris\game.py`, `C:\proj\main.py`) is
 * refused, naming it: a backslash there is part of a file's name, so the plan created `tetris\game.py` as one file in
 * the workspace root, next to the `tetris/` its other actions made, and answered success. The tools refuse such a path
 * the same way (policy/path-guard.ts).
 */
function refuseWindowsForm(relative: string, root: string): void {
  if (WINDOWS_START.test(relative)) {
    throw new ToolError('INVALID_INPUT', `path ${JSON.stringify(relative)} is a Windows path, but this machine uses POSIX paths; give a path relative to the workspace root ${root}`);
  }
  if (relative.includes('\\')) {
    throw new ToolError(
      'INVALID_INPUT',
      `path ${JSON.stringify(relative)} is written with backslashes, as on Windows, but this machine uses POSIX paths, where a backslash is part of a file's name: write it with / (${relative.replaceAll('\\', '/')})`,
    );
  }
}

/** Whether a relative path goes above its starting directory at any point, e.g. `../x` or `a/../../ws/x`. */
function climbsAboveStart(relative: string): boolean {
  let depth = 0;
  for (const part of relative.split(/[\\/]+/)) {
    if (part === '..') depth--;
    else if (part !== '' && part !== '.') depth++;
    if (depth < 0) return true;
  }
  return false;
}
