import type { BlockKind } from '../protocols/types';

/** The languages a prompt is written in (the UI's languages). */
export const PROMPT_LANGUAGES = ['zh', 'en'] as const;
export type PromptLanguage = (typeof PROMPT_LANGUAGES)[number];

/**
 * One tool as `GET /v1/tools` lists it (shared/api.ts `toolInfoSchema`): the companion's catalogue with each
 * contract's input as JSON Schema. Only what a prompt needs is required here.
 */
export interface ToolInfo {
  name: string;
  description: string;
  risk?: string;
  inputSchema: Record<string, unknown>;
  /** the person's MCP server the tool comes from (named `<server>.<tool>`); absent for chatbridge's own tools */
  server?: string;
}

export interface PromptOptions {
  protocol: BlockKind;
  lang: PromptLanguage;
  /** The live tool list; the JSON protocols (mcp-request, flycode-call) teach exactly these tools. */
  tools: readonly ToolInfo[];
  /** The companion's workspace root when known: named in the prompt and used in the examples' paths. */
  workspaceRoot?: string;
}

/** What a protocol's prompt writer gets: options already checked by `buildPrompt`. */
export interface PromptInput {
  lang: PromptLanguage;
  tools: readonly ToolInfo[];
  workspaceRoot: string | undefined;
}

/** One worked example: what the person asked, and the whole reply the model should write. */
export interface PromptExample {
  title: Record<PromptLanguage, string>;
  reply: string;
}

/** Text in both prompt languages. */
export type Bilingual = Record<PromptLanguage, string>;
