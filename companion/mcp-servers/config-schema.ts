import { z } from 'zod';

/**
 * `mcpServers` as the config schema takes it: an object of anything. Each entry is checked on its own by
 * parseMcpServers (config.ts), so a mistake in one server is reported for that server while the companion still
 * starts (issue 11 §1). Kept apart from config.ts, which needs the policy's mode schema, so the two never import
 * each other.
 */
export const mcpServersConfigSchema = z
  .record(z.string(), z.unknown())
  .default({})
  .describe("the person's own MCP servers: { name: { command, args, env, cwd } } or { name: { url, headers } }");
