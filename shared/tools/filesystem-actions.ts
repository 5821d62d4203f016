/** The actions of the PromptX manual (seed 004): by themselves, for what names them without the tool's schema. */
export const FILESYSTEM_ACTIONS = ['read', 'write', 'list', 'list_with_sizes', 'search', 'edit', 'move'] as const;
export type FilesystemAction = (typeof FILESYSTEM_ACTIONS)[number];
