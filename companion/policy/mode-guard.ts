/**
 * What a mode change may do (issue 9, finding 5). Pure: the callers stat, these judge.
 *
 * - A file with more than one hard link is never chmod-ed. A hard link is a second name for the same inode and
 *   cannot be told from the original: the other name may be outside the roots or under a deny glob, and a mode
 *   change (unlike a write, which replaces the inode) changes them all. Directories cannot be hard-linked; their
 *   link count (2 + subdirectories) says nothing, so they are judged by their subtree instead (subtree-guard).
 * - setuid and setgid (04000, 02000) are never set. On a file a model can write, they would make its content
 *   run with the owner's or group's rights for whoever executes it; nothing a chat needs (scripts need 755), and a
 *   person who wants them sets them by hand. The sticky bit (01000) is allowed.
 */
import { ToolError } from '../../shared/errors';

/** setuid | setgid */
export const PRIVILEGE_BITS = 0o6000;

export interface LinkStat {
  nlink: number;
  isDirectory(): boolean;
}

function octal(mode: number): string {
  return mode.toString(8).padStart(4, '0');
}

export function assertNoPrivilegeBits(path: string, mode: number): void {
  if ((mode & PRIVILEGE_BITS) === 0) return;
  const bits = [mode & 0o4000 ? 'setuid (4000)' : '', mode & 0o2000 ? 'setgid (2000)' : ''].filter(Boolean).join(' and ');
  throw new ToolError(
    'FORBIDDEN',
    `mode ${octal(mode)} for ${JSON.stringify(path)} sets ${bits}: a tool never sets setuid or setgid, since whatever the file holds would run with its owner's or group's rights; use ${octal(mode & ~PRIVILEGE_BITS)}, or set it yourself`,
    { path, mode: octal(mode), rule: 'no-setuid-setgid' },
  );
}

/** `done` names the change in the message: its mode is not `changed`, not `restored`. */
export function assertSingleLink(path: string, stat: LinkStat, done = 'changed'): void {
  if (stat.isDirectory() || stat.nlink <= 1) return;
  throw new ToolError(
    'FORBIDDEN',
    `${JSON.stringify(path)} has ${stat.nlink} hard links: it is one file under ${stat.nlink} names, and another name may be outside the roots or under a deny glob, so its mode is not ${done} (a mode applies to every name at once)`,
    { path, links: stat.nlink, rule: 'single-link' },
  );
}
