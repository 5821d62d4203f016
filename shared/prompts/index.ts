import { ToolError } from '../errors';
import { BLOCK_KINDS, type BlockKind } from '../protocols/types';
import { autocoderPrompt } from './autocoder';
import { axonPrompt } from './axon';
import { flycodeCallPrompt } from './flycode-call';
import { functionCallsPrompt } from './function-calls';
import { mcpRequestPrompt } from './mcp-request';
import { PROMPT_LANGUAGES, type PromptInput, type PromptOptions, type ToolInfo } from './types';

export { PROMPT_LANGUAGES, type PromptLanguage, type PromptOptions, type ToolInfo, type PromptExample } from './types';
export { EXAMPLE_HEADING, REPLY_LABEL, PLACEHOLDER_ROOT, workspacePath } from './common';
export { describeToolList } from './tool-list';
export { AUTOCODER_FILE_ACTIONS } from '../protocols/autocoder';

/**
 * The prompt library (DESIGN §6.4): the instructions that teach a chat model one block protocol, generated from
 * the live tool list. One writer per protocol; adding a protocol adds a file and a line here.
 */
export const PROMPT_WRITERS: Record<BlockKind, (input: PromptInput) => string> = {
  'mcp-request': mcpRequestPrompt,
  'flycode-call': flycodeCallPrompt,
  autocoder: autocoderPrompt,
  axon: axonPrompt,
  'function-calls': functionCallsPrompt,
};

function describe(value: unknown): string {
  return value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
}

/** The tools as given, each checked: a malformed entry is refused by position and field, never skipped silently. */
function checkTools(tools: unknown): ToolInfo[] {
  if (!Array.isArray(tools)) {
    throw new ToolError('INVALID_INPUT', `tools must be the list from GET /v1/tools (an array), got ${describe(tools)}`);
  }
  const seen = new Set<string>();
  return tools.map((tool: unknown, index) => {
    const entry = (tool ?? {}) as Partial<ToolInfo>;
    if (typeof tool !== 'object' || tool === null || typeof entry.name !== 'string' || entry.name.trim() === '') {
      throw new ToolError('INVALID_INPUT', `tools[${index}] must have a non-empty string name, got ${describe(tool)}`);
    }
    if (seen.has(entry.name)) throw new ToolError('INVALID_INPUT', `tools[${index}]: the tool ${describe(entry.name)} is listed twice`);
    seen.add(entry.name);
    const inputSchema = entry.inputSchema;
    if (typeof inputSchema !== 'object' || inputSchema === null || Array.isArray(inputSchema)) {
      throw new ToolError('INVALID_INPUT', `tools[${index}] (${entry.name}).inputSchema must be a JSON Schema object, got ${describe(inputSchema)}`);
    }
    if (entry.server !== undefined && (typeof entry.server !== 'string' || !entry.name.startsWith(`${entry.server}.`))) {
      throw new ToolError('INVALID_INPUT', `tools[${index}] (${entry.name}).server must be the name before the tool's first dot, got ${describe(entry.server)}`);
    }
    return {
      name: entry.name,
      description: typeof entry.description === 'string' ? entry.description : '',
      inputSchema,
      ...(entry.server !== undefined ? { server: entry.server } : {}),
    };
  });
}

/**
 * The prompt text for one protocol in one language. Throws ToolError INVALID_INPUT naming the value for an unknown
 * protocol or language, malformed tools, an empty or multi-line workspace root, or a JSON protocol given no tools
 * (it could teach no call the companion would run).
 */
export function buildPrompt(options: PromptOptions): string {
  const { protocol, lang, tools, workspaceRoot } = (options ?? {}) as Partial<PromptOptions>;
  if (!(BLOCK_KINDS as readonly unknown[]).includes(protocol)) {
    throw new ToolError('INVALID_INPUT', `protocol ${describe(protocol)} is not one of ${BLOCK_KINDS.join(', ')}`);
  }
  if (!(PROMPT_LANGUAGES as readonly unknown[]).includes(lang)) {
    throw new ToolError('INVALID_INPUT', `lang ${describe(lang)} is not one of ${PROMPT_LANGUAGES.join(', ')}`);
  }
  const checked = checkTools(tools);
  let root: string | undefined;
  if (workspaceRoot !== undefined) {
    if (typeof workspaceRoot !== 'string' || workspaceRoot.trim() === '' || /[\r\n\0]/.test(workspaceRoot)) {
      throw new ToolError('INVALID_INPUT', `workspaceRoot ${describe(workspaceRoot)} must be a non-empty path on one line`);
    }
    root = workspaceRoot.trim();
  }
  const kind = protocol as BlockKind;
  if ((kind === 'mcp-request' || kind === 'flycode-call' || kind === 'function-calls') && checked.length === 0) {
    throw new ToolError('INVALID_INPUT', `the ${kind} prompt needs the tool list, got no tools; is the companion connected?`);
  }
  return PROMPT_WRITERS[kind]({ lang: lang as PromptInput['lang'], tools: checked, workspaceRoot: root });
}
