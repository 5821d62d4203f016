import type { Block, BlockKind } from './types';
import type { Protocol } from './define-protocol';
import { scanFences } from './markdown';
import { mcpRequest } from './mcp-request';
import { flycodeCall } from './flycode-call';
import { autocoder } from './autocoder';
import { axon } from './axon';
import { functionCalls } from './function-calls';

export type {
  Block,
  BlockKind,
  McpRequestPayload,
  FlycodeCallPayload,
  AutocoderPlan,
  AxonPayload,
  FunctionCall,
  FunctionCallsPayload,
} from './types';
export { BLOCK_KINDS } from './types';
export { blockKey, hashText, normalizeRaw } from './key';
export type { BlockKeyParts } from './key';
export { validateMcpRequest, MCP_METHODS } from './mcp-request';
export type { McpRequestCheck } from './mcp-request';
export { validateFlycodeCall } from './flycode-call';
export type { FlycodeCallCheck } from './flycode-call';
export { AUTOCODER_FILE_ACTIONS, PLAN_TYPES } from './autocoder';
export { AXON_ARITY } from './axon';
export type { AxonAct } from './axon';
export { scanFences } from './markdown';
export type { Fence } from './markdown';

/** The block protocols, one module each (DESIGN §3). Adding one is a new file and a line here. */
export const PROTOCOLS: readonly Protocol[] = [mcpRequest, flycodeCall, autocoder, axon, functionCalls];

/** Every protocol's hints together: no block without a fence carrying one of `labels` or one of `markers` in the text. */
export const BLOCK_HINTS: { labels: ReadonlySet<string>; markers: readonly string[] } = {
  labels: new Set(PROTOCOLS.flatMap((p) => p.hints.labels)),
  markers: PROTOCOLS.flatMap((p) => p.hints.markers),
};

/**
 * Every tool block in one assistant message's markdown, in order of position (then of end); with `kind`, only the
 * blocks of that kind (each protocol finds its own kind alone, so that is the same as filtering all of them). Never
 * throws: a protocol that fails on some input loses its blocks for that input, the others still report theirs.
 */
export function findBlocks(markdown: string, kind?: BlockKind): Block[] {
  if (typeof markdown !== 'string') return [];
  const fences = scanFences(markdown);
  const blocks: Block[] = [];
  for (const protocol of PROTOCOLS) {
    if (kind !== undefined && protocol.kind !== kind) continue;
    try {
      blocks.push(...protocol.find(markdown, fences));
    } catch {
      // Defensive only: the property tests run every protocol's `find` directly and require it not to throw.
    }
  }
  return blocks.sort((a, b) => a.start - b.start || a.end - b.end);
}

/**
 * The blocks of a message still being written, as far as telling them needs no parsing: kind, place and
 * completeness, never a payload or an error for the JSON kinds (Protocol.outline). A scanner re-reads a streaming
 * reply on every few tokens; the reply's blocks are read with `findBlocks` once it has finished. Reports a block
 * wherever `findBlocks` does. Never throws.
 */
export function outlineBlocks(markdown: string): Block[] {
  if (typeof markdown !== 'string') return [];
  const fences = scanFences(markdown);
  const blocks: Block[] = [];
  for (const protocol of PROTOCOLS) {
    try {
      blocks.push(...(protocol.outline ?? protocol.find)(markdown, fences));
    } catch {
      // Defensive only, as in findBlocks.
    }
  }
  return blocks.sort((a, b) => a.start - b.start || a.end - b.end);
}
