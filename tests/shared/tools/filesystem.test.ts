import { describe, expect, it } from 'vitest';
import { filesystemActionOf, validateToolArgs, type FilesystemArgs } from '../../../shared/tools';
import { filesystem, filesystemIssueCode } from '../../../shared/tools/filesystem';

/** The parameter examples of the PromptX manual (seed 004), comments removed. */
const manualExamples: Array<[string, Record<string, unknown>]> = [
  ['write', { action: 'write', path: 'resource/role/assistant/assistant.role.md', content: '<role>...</role>' }],
  ['read', { action: 'read', path: 'resource/tool/calculator/calculator.tool.js' }],
  ['search', { action: 'search', path: 'resource/', pattern: '*.md', excludePatterns: ['test/*', 'backup/*'] }],
  ['edit', { action: 'edit', path: 'resource/role/existing.md', edits: [{ oldText: '旧内容', newText: '新内容' }], dryRun: true }],
];

const moreValid: Array<[string, Record<string, unknown>]> = [
  ['write', { action: 'write', path: 'a.md', content: '' }],
  ['list', { action: 'list', path: 'resource/role/' }],
  ['list_with_sizes', { action: 'list_with_sizes', path: '.', sortBy: 'size' }],
  ['move', { action: 'move', source: 'resource/old.md', destination: 'resource/new.md' }],
  ['read', { action: 'read', path: 'a.md', head: 10, encoding: 'utf8' }],
  ['read', { action: 'read_file', path: 'a.md', tail: 3 }],
  ['read', { method: 'read_text_file', path: 'a.md' }],
  ['write', { method: 'write_file', path: 'a.md', content: 'x' }],
  ['list', { method: 'list_directory', path: '.' }],
  ['list_with_sizes', { method: 'list_directory_with_sizes', path: '.' }],
  ['search', { method: 'search_files', path: '.', pattern: '*.ts' }],
  ['edit', { method: 'edit_file', path: 'a.md', edits: [{ oldText: 'a', newText: '' }] }],
  ['move', { method: 'move_file', source: 'a', destination: 'b' }],
  ['move', { action: 'move', method: 'move_file', source: 'a', destination: 'b' }],
];

const refused: Array<[Record<string, unknown>, string, string]> = [
  [{ path: 'a.md' }, 'filesystem needs "action", which must be one of read, write, list, list_with_sizes, search, edit, move (or the MCP names read_file, read_text_file, write_file, list_directory, list_directory_with_sizes, search_files, edit_file, move_file)', 'MISSING_PARAMETER'],
  [{ action: 'delete', path: 'a.md' }, 'filesystem argument "action" must be one of read, write, list, list_with_sizes, search, edit, move (or the MCP names read_file, read_text_file, write_file, list_directory, list_directory_with_sizes, search_files, edit_file, move_file), got "delete" (a string)', 'INVALID_ACTION'],
  [{ action: 'write', path: 'a.md' }, 'filesystem action "write" needs "path", "content"; missing "content"', 'MISSING_PARAMETER'],
  [{ action: 'search', path: '.' }, 'filesystem action "search" needs "path", "pattern"; missing "pattern"', 'MISSING_PARAMETER'],
  [{ action: 'edit', path: 'a.md' }, 'filesystem action "edit" needs "path", "edits"; missing "edits"', 'MISSING_PARAMETER'],
  [{ action: 'move', source: 'a' }, 'filesystem action "move" needs "source", "destination"; missing "destination"', 'MISSING_PARAMETER'],
  [{ action: 'read' }, 'filesystem action "read" needs "path"; missing "path"', 'MISSING_PARAMETER'],
  [{ action: 'read', method: 'write_file', path: 'a' }, 'filesystem got action "read" and method "write_file", which disagree; give one of them', 'INVALID_ACTION'],
  [{ action: 'read', path: 'a', head: 1, tail: 1 }, 'filesystem takes at most one of head/tail, got both', 'INVALID_INPUT'],
  [{ action: 'edit', path: 'a', edits: [{ old_string: 'a', new_string: 'b' }] }, 'filesystem edits[0] takes oldText/newText, not old_string/new_string; its fields are oldText, newText', 'INVALID_INPUT'],
  [{ action: 'edit', path: 'a', edits: [{ oldText: '', newText: 'b' }] }, 'filesystem argument "edits[0].oldText" must not be empty', 'INVALID_INPUT'],
  [{ action: 'edit', path: 'a', edits: [] }, 'filesystem argument "edits" must hold at least 1 item(s)', 'INVALID_INPUT'],
  [{ action: 'list_with_sizes', path: '.', sortBy: 'date' }, 'filesystem argument "sortBy" must be one of name, size, got "date" (a string)', 'INVALID_INPUT'],
  [{ action: 'move', src: 'a', dest: 'b' }, 'filesystem takes source/destination, not src/dest; its arguments are action, method, path, content, pattern, edits, source, destination, head, tail, dryRun, excludePatterns, sortBy, encoding', 'MISSING_PARAMETER'],
];

describe('the filesystem tool (seed 004)', () => {
  it.each([...manualExamples, ...moreValid])('%s: %j is valid', (action, args) => {
    const result = validateToolArgs('filesystem', args);
    if (!result.ok) throw new Error(result.message);
    expect(result.args).toEqual(args);
    expect(filesystemActionOf(result.args as FilesystemArgs)).toBe(action);
  });

  it.each(refused)('%j → %s', (args, message) => {
    expect(validateToolArgs('filesystem', args)).toEqual({ ok: false, code: 'INVALID_INPUT', message });
  });

  // the manual (常见错误代码) promises these codes for the same refusals, in its own JSON (companion/tools/filesystem.ts)
  it.each(refused)('%j → %s: the manual\'s %s', (args, _message, code) => {
    const result = filesystem.input.safeParse(args);
    if (result.success) throw new Error('expected a refusal by the schema');
    expect(filesystemIssueCode(result.error.issues)).toBe(code);
  });
  it('an encoding the tool does not have is ENCODING_ERROR', () => {
    const result = filesystem.input.safeParse({ action: 'read', path: 'a.md', encoding: 'gbk' });
    if (result.success) throw new Error('expected a refusal by the schema');
    expect(filesystemIssueCode(result.error.issues)).toBe('ENCODING_ERROR');
  });
});
