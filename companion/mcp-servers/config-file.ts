import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ToolError } from '../../shared/errors';
import { jsonErrorWhere, readHandEditedText, whyUnreadable } from '../hand-edited-file';
import { writeFileAtomic } from '../home';

/**
 * The companion config file as `chatbridge mcp add / remove / import` edit it: read as a plain JSON object, one key
 * changed, written back whole (temp file + rename, mode 0600 — it may hold tokens in a server's env or headers).
 * Every other key is kept exactly as it was. Without `--config` it is `<home>/config.json`, which
 * `chatbridge start` (and so `npm start`) loads when it is given no --config.
 */
export function readConfigObject(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readHandEditedText(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ToolError('INVALID_INPUT', `config file ${file} cannot be read: ${whyUnreadable(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ToolError('INVALID_INPUT', `config file ${file} is not valid JSON: ${jsonErrorWhere(text, error)}; fix it first, nothing was changed`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ToolError('INVALID_INPUT', `config file ${file} must hold a JSON object; nothing was changed`);
  }
  return value as Record<string, unknown>;
}

export function serversOf(config: Record<string, unknown>, file: string): Record<string, unknown> {
  const servers = config.mcpServers;
  if (servers === undefined) return {};
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
    throw new ToolError('INVALID_INPUT', `mcpServers in ${file} must be an object of servers; nothing was changed`);
  }
  return servers as Record<string, unknown>;
}

export function writeConfigObject(file: string, config: Record<string, unknown>): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, `${JSON.stringify(config, null, 2)}\n`, 0o600);
}
