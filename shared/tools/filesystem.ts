import { z } from 'zod';
import { defineTool, type Risk } from './define-tool';
import { FILESYSTEM_ACTIONS, type FilesystemAction } from './filesystem-actions';

export { FILESYSTEM_ACTIONS, type FilesystemAction };

/**
 * The same operations under the method names of MCP filesystem servers, which models trained on those write
 * just as often. Methods without a manual action (create_directory, directory_tree, …) are refused by the enum.
 */
export const FILESYSTEM_METHOD_ALIASES = {
  read_file: 'read',
  read_text_file: 'read',
  write_file: 'write',
  list_directory: 'list',
  list_directory_with_sizes: 'list_with_sizes',
  search_files: 'search',
  edit_file: 'edit',
  move_file: 'move',
} as const satisfies Record<string, FilesystemAction>;

const ACTION_NAMES = [...FILESYSTEM_ACTIONS, ...(Object.keys(FILESYSTEM_METHOD_ALIASES) as Array<keyof typeof FILESYSTEM_METHOD_ALIASES>)] as const;

const ACTION_RULE =
  `must be one of ${FILESYSTEM_ACTIONS.join(', ')} ` + `(or the MCP names ${Object.keys(FILESYSTEM_METHOD_ALIASES).join(', ')})`;

const actionField = (description: string) =>
  z.enum(ACTION_NAMES, { error: ACTION_RULE }).optional().describe(description);

/**
 * What each action needs beyond itself; `content` may be an empty string. Optional arguments that belong to
 * another action (head on a write) are accepted and left unused, as the manual's own examples mix them freely.
 */
const REQUIRED: Record<FilesystemAction, ReadonlyArray<keyof FilesystemArgs>> = {
  read: ['path'],
  write: ['path', 'content'],
  list: ['path'],
  list_with_sizes: ['path'],
  search: ['path', 'pattern'],
  edit: ['path', 'edits'],
  move: ['source', 'destination'],
};

const READ_ONLY: ReadonlySet<FilesystemAction> = new Set(['read', 'list', 'list_with_sizes', 'search']);

export const FILESYSTEM_ENCODINGS = ['utf8', 'utf-8', 'ascii', 'latin1', 'base64', 'hex'] as const;

const input = z
  .strictObject({
    action: actionField('What to do: read, write, list, list_with_sizes, search, edit or move.'),
    method: actionField('The same as action, under MCP filesystem method names (read_file, write_file, …).'),
    path: z.string().min(1).optional().describe('File or directory path, relative to the workspace root.'),
    content: z.string().optional().describe('write: the whole new file content; an empty string is valid.'),
    pattern: z.string().min(1).optional().describe('search: glob of file names to find, e.g. "*.md".'),
    edits: z
      .array(
        z.strictObject({
          oldText: z.string().min(1).describe('Text to find; must match exactly one place.'),
          newText: z.string().describe('Text to put in its place (literal).'),
        }),
      )
      .min(1)
      .optional()
      .describe('edit: replacements applied in order, all or nothing.'),
    source: z.string().min(1).optional().describe('move: the path to move.'),
    destination: z.string().min(1).optional().describe('move: where to move it.'),
    head: z.int().min(0).optional().describe('read: only the first N lines.'),
    tail: z.int().min(0).optional().describe('read: only the last N lines.'),
    dryRun: z.boolean().optional().describe('edit: return the unified diff and write nothing.'),
    excludePatterns: z.array(z.string()).optional().describe('search: globs of paths to leave out, at most 16.'),
    sortBy: z.enum(['name', 'size']).optional().describe('list_with_sizes: sort by name (default) or size.'),
    encoding: z.enum(FILESYSTEM_ENCODINGS).optional().describe('read/write: text encoding (default utf8).'),
  })
  .superRefine((args, ctx) => {
    const fromAction = args.action === undefined ? undefined : canonicalAction(args.action);
    const fromMethod = args.method === undefined ? undefined : canonicalAction(args.method);
    if (fromAction === undefined && fromMethod === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: `needs "action", which ${ACTION_RULE}`, params: { manualCode: 'MISSING_PARAMETER' } });
      return;
    }
    if (fromAction !== undefined && fromMethod !== undefined && fromAction !== fromMethod) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `got action "${args.action}" and method "${args.method}", which disagree; give one of them`,
        params: { manualCode: 'INVALID_ACTION' },
      });
      return;
    }
    const action = (fromAction ?? fromMethod) as FilesystemAction;
    const missing = REQUIRED[action].filter((key) => args[key] === undefined);
    if (missing.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `action "${action}" needs ${REQUIRED[action].map((key) => `"${key}"`).join(', ')}; missing ${missing.map((key) => `"${key}"`).join(', ')}`,
        params: { manualCode: 'MISSING_PARAMETER' },
      });
    }
    if (args.head !== undefined && args.tail !== undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'takes at most one of head/tail, got both' });
    }
  });

export type FilesystemArgs = z.infer<typeof input>;

/**
 * The manual's error code for arguments the schema refused (seed 004, 常见错误代码): an action that is not one
 * of the manual's is INVALID_ACTION, a required one left out MISSING_PARAMETER, an encoding the tool does not
 * have ENCODING_ERROR; anything else (an unknown or mistyped argument) INVALID_INPUT.
 */
export function filesystemIssueCode(issues: readonly z.core.$ZodIssue[]): string {
  const codes = issues.map((issue) => {
    const named = (issue as { params?: { manualCode?: unknown } }).params?.manualCode;
    if (typeof named === 'string') return named;
    const field = issue.path[0];
    if (field === 'action' || field === 'method') return 'INVALID_ACTION';
    if (field === 'encoding') return 'ENCODING_ERROR';
    return 'INVALID_INPUT';
  });
  return ['INVALID_ACTION', 'MISSING_PARAMETER', 'ENCODING_ERROR'].find((code) => codes.includes(code)) ?? 'INVALID_INPUT';
}

export function canonicalAction(name: (typeof ACTION_NAMES)[number]): FilesystemAction {
  return (FILESYSTEM_METHOD_ALIASES as Record<string, FilesystemAction>)[name] ?? (name as FilesystemAction);
}

/** The manual's action a validated call asks for, whichever of action/method it used. */
export function filesystemActionOf(args: FilesystemArgs): FilesystemAction {
  const name = args.action ?? args.method;
  if (name === undefined) throw new Error('filesystemActionOf needs validated arguments (action or method is set)');
  return canonicalAction(name);
}

export const filesystem = defineTool({
  name: 'filesystem',
  description: 'Action-based file tool (PromptX manual): read, write, list, list_with_sizes, search, edit, move.',
  input,
  risk: (args): Risk => (READ_ONLY.has(filesystemActionOf(args)) ? 'read' : 'write'),
});
