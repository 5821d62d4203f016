/**
 * How the person's own MCP servers and their tools are named in chat blocks, /mcp and `tools/list` — the one
 * place the rule is written (issue 11 §3).
 *
 *   An external tool is `<server>.<tool>`: the server's name from the config, a dot, the tool's own name.
 *   A server name is 1–32 letters, digits, `_` or `-` (no dot), and not one of the names chatbridge's own tools
 *   start with (`fs`, `process`, `shell`, `filesystem`; compared without case).
 *   A tool name is 1–64 letters, digits, `_`, `-` or `.`; a tool whose name is anything else (spaces, slashes,
 *   non-ASCII a model cannot type reliably, or longer) is not offered, and the server's health says so.
 *
 * Built-in tools are `filesystem` (no dot) or `fs.*`, `process.*`, `shell.*`, so an external name — which always
 * holds a dot after a server name that is none of those — can never equal a built-in one. The server part ends at
 * the first dot, so `git.log.short` is the tool `log.short` of the server `git`.
 */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** What a built-in tool's name starts with: no server may be called this. */
export const RESERVED_SERVER_NAMES: readonly string[] = ['fs', 'process', 'shell', 'filesystem'];

export const SERVER_NAME_RULE =
  'a server name is 1–32 letters, digits, "_" or "-" (no dot), and not fs, process, shell or filesystem (the names of chatbridge\'s own tools)';
export const TOOL_NAME_RULE = 'a tool name is 1–64 letters, digits, "_", "-" or "."';

/** Why `name` cannot name a server, or undefined when it can. */
export function serverNameProblem(name: string): string | undefined {
  if (!SERVER_NAME_PATTERN.test(name)) return `${JSON.stringify(name)} is not a valid server name: ${SERVER_NAME_RULE}`;
  // `mcpServers.__proto__` would set the servers' object's prototype, not add a server: it was lost on the next start
  if (name === '__proto__') return `"__proto__" is not a server name chatbridge can keep (JavaScript takes it for an object's prototype): ${SERVER_NAME_RULE}`;
  if (RESERVED_SERVER_NAMES.includes(name.toLowerCase())) {
    return `${JSON.stringify(name)} is reserved (chatbridge's own tools are named ${name.toLowerCase()}…): ${SERVER_NAME_RULE}`;
  }
  return undefined;
}

export function isOfferedToolName(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name);
}

export function externalToolName(server: string, tool: string): string {
  return `${server}.${tool}`;
}

/** `git.log` → {server: git, tool: log}; undefined when there is no dot. */
export function splitExternalName(name: string): { server: string; tool: string } | undefined {
  const dot = name.indexOf('.');
  if (dot <= 0) return undefined;
  return { server: name.slice(0, dot), tool: name.slice(dot + 1) };
}

/**
 * A name the rule accepts, made from one that it does not (for `chatbridge mcp import`, whose sources allow any
 * key): other characters become `-`, a reserved name gets `-mcp` appended (`filesystem` → `filesystem-mcp`).
 */
export function suggestServerName(name: string): string {
  let candidate = name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32) || 'server';
  if (RESERVED_SERVER_NAMES.includes(candidate.toLowerCase())) candidate = `${candidate}-mcp`;
  return candidate;
}
