import { ToolError } from '../../shared/errors';

export function errnoOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

export function isMissing(error: unknown): boolean {
  const code = errnoOf(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** NAME_MAX and PATH_MAX of Linux (macOS allows names as long, paths of 1023 bytes): what ENAMETOOLONG means. */
export const NAME_MAX_BYTES = 255;
export const PATH_MAX_BYTES = 4095;
export const NAME_LIMITS = `a name in it may hold at most ${NAME_MAX_BYTES} bytes, the whole path ${PATH_MAX_BYTES}`;

/** Errnos that mean the disk (or the process's file size limit, or the quota) has no room for what was written. */
const NO_ROOM: Readonly<Record<string, string>> = {
  EFBIG: 'the file is too large for the file system or for the process file size limit',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
};

const NO_PERMISSION: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * Turns an errno from the file system into the protocol's codes; a ToolError passes through unchanged.
 * `subject` is the path the caller was changing: Node's own message names only the syscall for a failed write
 * (`EFBIG: file too large, write`) and a temp file's name for a failed create, so the caller's path is what tells
 * the person which file it was. The errno text is always kept so the cause stays visible.
 */
export function asToolError(error: unknown, subject?: string): ToolError {
  if (error instanceof ToolError) return error;
  const code = errnoOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const where = subject === undefined ? '' : ` ${JSON.stringify(subject)}`;
  const data: Record<string, unknown> = { ...(subject === undefined ? {} : { path: subject }), ...(code === undefined ? {} : { errno: code }) };
  if (code !== undefined && NO_ROOM[code] !== undefined) {
    return new ToolError('LIMIT_EXCEEDED', `cannot write${where}: ${NO_ROOM[code]} (${message})`, data);
  }
  if (code !== undefined && NO_PERMISSION.has(code)) {
    const which = code === 'EROFS' ? ' (a read-only file system)' : '';
    return new ToolError('FORBIDDEN', `permission denied by the operating system${which} for${where || ' this change'} (${message})`, data);
  }
  if (code === 'ENOENT' || code === 'ENOTDIR') return new ToolError('NOT_FOUND', subject === undefined ? message : `${message} (while changing${where})`, data);
  if (code === 'EEXIST' || code === 'ENOTEMPTY') return new ToolError('CONFLICT', message, data);
  if (code === 'EISDIR') return new ToolError('INVALID_INPUT', message, data);
  if (code === 'ENAMETOOLONG') return new ToolError('INVALID_INPUT', `path${where} is longer than the file system allows: ${NAME_LIMITS} (${message})`, data);
  if (code === 'ELOOP') return new ToolError('FORBIDDEN', `a symlink appeared where a file or directory was checked: ${message}`, data);
  return new ToolError('INTERNAL', subject === undefined ? message : `${message} (while changing${where})`, data);
}
