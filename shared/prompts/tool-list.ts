import type { PromptLanguage, ToolInfo } from './types';

/**
 * The tool list of a prompt, generated from the live tools' JSON Schemas (`GET /v1/tools`): each tool's name,
 * its description on one line, and every argument with its type and whether it is required. Argument texts are
 * the contracts' `.describe()` strings, so the prompt says what the companion actually accepts.
 */

type Schema = Record<string, unknown>;

const WORDS = {
  en: { required: 'required', optional: 'optional', none: 'no arguments', arrayOf: 'array of', objectOf: 'object of', values: 'values', objects: 'objects', any: 'any JSON value' },
  zh: { required: '必填', optional: '可选', none: '无参数', arrayOf: 'array of', objectOf: 'object of', values: 'values', objects: 'objects', any: '任意 JSON 值' },
} as const;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collapses a description to one line; a runaway text is cut so one tool cannot flood the prompt. */
export function oneLineText(text: unknown, max = 240): string {
  const line = typeof text === 'string' ? text.replace(/\s+/g, ' ').trim() : '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The largest integer bound zod writes when the schema sets none; not worth showing. */
const UNBOUNDED = 1e12;

function typeText(schema: Schema, lang: PromptLanguage): string {
  const words = WORDS[lang];
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (alternatives) return alternatives.filter(isSchema).map((s) => typeText(s, lang)).join(' | ') || words.any;
  switch (schema.type) {
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
      const max = typeof schema.maximum === 'number' && schema.maximum < UNBOUNDED ? schema.maximum : undefined;
      if (min !== undefined && max !== undefined) return `${schema.type} ${min}–${max}`;
      if (min !== undefined) return `${schema.type} ≥ ${min}`;
      return schema.type;
    }
    case 'array': {
      const items = isSchema(schema.items) ? schema.items : undefined;
      if (items === undefined) return `${words.arrayOf} ${words.any}`;
      if (items.type === 'object' && isSchema(items.properties)) return `${words.arrayOf} ${words.objects}`;
      return `${words.arrayOf} ${typeText(items, lang)}`;
    }
    case 'object': {
      if (isSchema(schema.additionalProperties)) return `${words.objectOf} ${typeText(schema.additionalProperties, lang)} ${words.values}`;
      return 'object';
    }
    case 'string':
    case 'boolean':
    case 'null':
      return schema.type;
    default:
      return Array.isArray(schema.type) ? schema.type.map(String).join(' | ') : words.any;
  }
}

/** One line per argument, nested one level deeper for the fields of an array's objects. */
function argumentLines(schema: Schema, lang: PromptLanguage, indent: string): string[] {
  const words = WORDS[lang];
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : []);
  const lines: string[] = [];
  for (const [name, value] of Object.entries(properties)) {
    const property = isSchema(value) ? value : {};
    const need = required.has(name) ? words.required : words.optional;
    const description = oneLineText(property.description);
    const head = lang === 'en' ? `\`${name}\` (${typeText(property, lang)}, ${need})` : `\`${name}\`（${typeText(property, lang)}，${need}）`;
    const separator = lang === 'en' ? ': ' : '：';
    lines.push(`${indent}- ${head}${description === '' ? '' : `${separator}${description}`}`);
    const items = property.type === 'array' && isSchema(property.items) ? property.items : undefined;
    if (items?.type === 'object' && isSchema(items.properties)) lines.push(...argumentLines(items, lang, `${indent}  `));
  }
  return lines;
}

/** One tool: `- \`fs.read\` — description` and its arguments under it. */
export function describeTool(tool: ToolInfo, lang: PromptLanguage): string {
  const description = oneLineText(tool.description);
  const head = `- \`${oneLineText(tool.name, 80)}\`${description === '' ? '' : ` — ${description}`}`;
  const args = argumentLines(isSchema(tool.inputSchema) ? tool.inputSchema : {}, lang, '  ');
  return [head, ...(args.length > 0 ? args : [`  - ${WORDS[lang].none}`])].join('\n');
}

/** The longest compact argument schema shown for one of the person's MCP tools; past it the rest is elided. */
const COMPACT_MAX = 200;

/**
 * An argument schema on one line, TypeScript-like: `{path: string, depth?: integer, mode: "a" | "b"}`. Nested
 * objects are only named `object`, arrays `type[]`; so a server with large schemas cannot flood the prompt.
 */
export function compactArguments(schema: unknown, lang: PromptLanguage): string {
  if (!isSchema(schema) || !isSchema(schema.properties) || Object.keys(schema.properties).length === 0) return '{}';
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : []);
  const shortType = (property: Schema): string => {
    if (property.type === 'array') return isSchema(property.items) && typeof property.items.type === 'string' && property.items.type !== 'object' ? `${property.items.type}[]` : 'array';
    if (property.type === 'object') return 'object';
    return typeText(property, lang);
  };
  const parts = Object.entries(schema.properties).map(([name, value]) => `${name}${required.has(name) ? '' : '?'}: ${shortType(isSchema(value) ? value : {})}`);
  const text = `{${parts.join(', ')}}`;
  return text.length > COMPACT_MAX ? `${text.slice(0, COMPACT_MAX - 2)}…}` : text;
}

/**
 * The longest name the companion gives a tool of the person's MCP server (companion/mcp-servers/names.ts): a server
 * name of up to 32 characters, a dot and a tool name of up to 64. Such a name is written whole: the model calls it
 * as it reads it, and a cut name is one no tool has.
 */
const EXTERNAL_NAME_MAX = 32 + 1 + 64;

/** One of the person's MCP tools on one line: name, a short description, the compact arguments. */
export function describeExternalTool(tool: ToolInfo, lang: PromptLanguage): string {
  const description = oneLineText(tool.description, 120);
  const args = lang === 'en' ? `arguments ${compactArguments(tool.inputSchema, lang)}` : `参数 ${compactArguments(tool.inputSchema, lang)}`;
  return `- \`${oneLineText(tool.name, EXTERNAL_NAME_MAX)}\`${description === '' ? '' : ` — ${description}`} (${args})`;
}

const SERVER_HEADING = {
  en: (server: string) => `Tools of my own MCP server "${server}" (called like the others, by their full name \`${server}.<tool>\`):`,
  zh: (server: string) => `我自己的 MCP 服务器“${server}”提供的工具（和其他工具一样调用，名称为完整的 \`${server}.<工具名>\`）：`,
} as const;

/**
 * chatbridge's own tools in full (every argument on its line), then the tools of each of the person's MCP servers,
 * one compact line each under the server's name.
 */
export function describeToolList(tools: readonly ToolInfo[], lang: PromptLanguage): string {
  const own = tools.filter((tool) => tool.server === undefined);
  const servers = new Map<string, ToolInfo[]>();
  for (const tool of tools) if (tool.server !== undefined) servers.set(tool.server, [...(servers.get(tool.server) ?? []), tool]);
  return [
    ...own.map((tool) => describeTool(tool, lang)),
    ...[...servers].map(([server, list]) => [SERVER_HEADING[lang](oneLineText(server, 60)), ...list.map((tool) => describeExternalTool(tool, lang))].join('\n')),
  ].join('\n');
}
