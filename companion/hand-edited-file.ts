import { readFileSync } from 'node:fs';

/**
 * The text of a JSON file a person edits by hand — the config file, a desktop client's list of MCP servers — without
 * the byte order mark an editor may put first: Windows Notepad saves UTF-8 with one, and JSON.parse refused the
 * whole file for it ("Unexpected token"). Only that one leading mark goes; anything else broken stays for the
 * caller's parser to refuse. Read errors are thrown as they come, for the caller to name the file.
 */
export function readHandEditedText(file: string): string {
  const text = readFileSync(file, 'utf8');
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}
