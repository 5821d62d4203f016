import type { Block, BlockKind } from './types';
import { isPlainObject } from './describe-value';
import { validateFlycodeCall } from './flycode-call';
import { validateMcpRequest } from './mcp-request';

/**
 * The block parser knows only chatbridge's own tool names and refuses any other — it cannot know the person's MCP
 * servers. Whoever does (the companion, from its registry; the page, from the companion's tool list) asks this:
 * whether a single mcp-request or flycode-call block was refused for nothing but its tool name, a name `isKnown`
 * accepts. Such a block goes on to the companion, which runs `<server>.<tool>` or answers NOT_FOUND naming the real
 * tools (UNAVAILABLE when the server is down).
 */
export function refusedOnlyForToolName(kind: BlockKind, block: Block | undefined, isKnown: (name: string) => boolean): boolean {
  if (!block || block.error === undefined || !isPlainObject(block.payload)) return false;
  const payload = block.payload;
  if (kind === 'mcp-request') {
    const params = payload.params;
    if (payload.method !== 'tools/call' || !isPlainObject(params) || typeof params.name !== 'string' || !isKnown(params.name)) return false;
    // the same block with a built-in's name: if that passes, the name was the only thing the parser minded
    return validateMcpRequest({ ...payload, params: { ...params, name: 'fs.ls' } }).ok;
  }
  if (kind === 'flycode-call') {
    if (typeof payload.tool !== 'string' || !isKnown(payload.tool)) return false;
    return validateFlycodeCall({ ...payload, tool: 'fs.ls' }).ok;
  }
  return false;
}
