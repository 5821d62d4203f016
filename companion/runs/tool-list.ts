import { z } from 'zod';
import { TOOL_CONTRACTS } from '../../shared/tools';
import type { ExternalTools } from '../types';

export interface ToolListing {
  name: string;
  description: string;
  risk: string;
  inputSchema: Record<string, unknown>;
  /** the person's MCP server a `<server>.<tool>` comes from; absent for chatbridge's own tools */
  server?: string;
}

let cached: ToolListing[] | undefined;

/** The tool catalogue as models and MCP clients see it: JSON Schema made from the zod contracts. */
export function listTools(): ToolListing[] {
  cached ??= Object.values(TOOL_CONTRACTS).map((contract) => ({
    name: contract.name,
    description: contract.description,
    risk: typeof contract.risk === 'function' ? 'depends' : contract.risk,
    inputSchema: z.toJSONSchema(contract.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
  }));
  return cached;
}

/** The built-ins, then the tools of the person's MCP servers that are up right now (issue 11 §3). */
export function listAllTools(external?: ExternalTools): ToolListing[] {
  return external ? [...listTools(), ...external.listings()] : listTools();
}
