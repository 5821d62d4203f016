import { validateFlycodeCall, validateMcpRequest } from '../../shared/protocols';
import type { Block, BlockKind } from '../../shared/protocols/types';
import { isPlainObject } from '../../shared/protocols/describe-value';
import type { ExternalTools } from '../types';

/**
 * The block parser (shared/protocols), which also runs in the page, knows only chatbridge's own tool names and
 * refuses any other — it cannot know the person's MCP servers. The companion can: once a server is configured, a
 * single mcp-request or flycode-call block refused for nothing but its tool name goes on to the registry, which
 * runs `<server>.<tool>` or answers NOT_FOUND naming chatbridge's own tools and the servers' (or UNAVAILABLE when
 * the server is down) — a model that guessed a name learns the real ones.
 */
export function refusedOnlyForExternalTool(kind: BlockKind, block: Block | undefined, external: ExternalTools | undefined): boolean {
  if (!external || !block || block.error === undefined || !isPlainObject(block.payload)) return false;
  const payload = block.payload;
  if (kind === 'mcp-request') {
    const params = payload.params;
    if (payload.method !== 'tools/call' || !isPlainObject(params) || typeof params.name !== 'string' || !external.answers(params.name)) return false;
    // the same block with a built-in's name: if that passes, the name was the only thing the parser minded
    return validateMcpRequest({ ...payload, params: { ...params, name: 'fs.ls' } }).ok;
  }
  if (kind === 'flycode-call') {
    if (typeof payload.tool !== 'string' || !external.answers(payload.tool)) return false;
    return validateFlycodeCall({ ...payload, tool: 'fs.ls' }).ok;
  }
  return false;
}
