import { z } from 'zod';
import { defineTool } from './define-tool';
import { flagField, pathField } from './fields';

export const fsLs = defineTool({
  name: 'fs.ls',
  description:
    'List a directory: one entry per line, directories marked with a trailing slash, symlinks with their target. ' +
    'Names only, like ls; pass sizes: true to get each file\'s size in bytes too.',
  risk: 'read',
  input: z.strictObject({
    path: pathField('Absolute path of the directory to list.'),
    depth: z.int().min(1).optional().describe('How many levels to descend (1 = only the directory itself; default 1).'),
    glob: z.string().min(1).optional().describe('Only list entries whose relative path matches this glob, e.g. "**/*.ts".'),
    sizes: flagField('Also give each file\'s size in bytes, as "name  123 B" (default false: names only).'),
  }),
});
