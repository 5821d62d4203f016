import { realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { ToolError } from '../../shared/errors';
import { jsonErrorWhere, PROTOTYPE_KEY_RULE, prototypeKeyPaths, readHandEditedText, whyUnreadable } from '../hand-edited-file';
import { fromHomeFolder } from '../home';
import { BUILTIN_REDACTIONS } from './redact';
import { configSchema, type Config, type Policy } from './schema';

export interface LoadPolicyOptions {
  /** a JSON config file; without it the embedded defaults apply */
  configFile?: string;
  /** roots from the command line; they replace the config file's roots */
  roots?: string[];
  /** the default root, and what relative command-line roots are resolved against */
  cwd: string;
}

/**
 * Builds the policy the companion runs with. Every problem is reported at once, one line each, naming the key
 * path, the value and the rule, so a person fixes their config in one pass. Throws ToolError INVALID_INPUT.
 */
export function loadPolicy(options: LoadPolicyOptions): Policy {
  let raw: unknown = {};
  let configDir = options.cwd;
  if (options.configFile) {
    const file = resolve(options.cwd, options.configFile);
    configDir = dirname(file);
    let text: string;
    try {
      text = readHandEditedText(file);
    } catch (error) {
      throw new ToolError('INVALID_INPUT', `config file ${file} cannot be read: ${whyUnreadable(error)}`);
    }
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new ToolError('INVALID_INPUT', `config file ${file} is not valid JSON: ${jsonErrorWhere(text, error)}`);
    }
  }
  const source = options.configFile ? resolve(options.cwd, options.configFile) : 'config';
  const config = parseConfig(raw, source);
  const rootInputs =
    options.roots && options.roots.length > 0
      ? options.roots.map((root) => ({ root, base: options.cwd, key: '--root' }))
      : config.roots.length > 0
        ? config.roots.map((root, i) => ({ root, base: configDir, key: `roots[${i}]` }))
        : [{ root: options.cwd, base: options.cwd, key: 'cwd' }];
  return policyFromConfig(config, rootInputs, source);
}

/** Validates a parsed config object; the message lists every issue. */
export function parseConfig(raw: unknown, source = 'config'): Config {
  const parsed = configSchema.safeParse(raw);
  // one inside a server's entry makes that server broken (parseMcpServer), not the whole config
  const prototypeKeys = prototypeKeyPaths(raw, '')
    .filter((path) => !/^mcpServers\.[^.[]+[.[]/.test(path))
    .map((path) => `${path}: key "__proto__" — ${PROTOTYPE_KEY_RULE}`);
  if (parsed.success && prototypeKeys.length === 0) return parsed.data;
  const lines = [...prototypeKeys, ...(parsed.success ? [] : parsed.error.issues.map((issue) => describeIssue(issue, raw)))];
  throw new ToolError('INVALID_INPUT', `${source} is invalid:\n${lines.map((l) => `  - ${l}`).join('\n')}`, {
    issues: lines,
  });
}

function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const path = issue.path.length > 0 ? issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') : '(top level)';
  const value = valueAt(raw, issue.path);
  let rule: string;
  switch (issue.code) {
    case 'unrecognized_keys': {
      // a misspelt key ("maxFileSize", "mode") is most often one of these: naming them saves a trip to the README
      const known = knownKeysAt(configSchema, issue.path);
      return `${path === '(top level)' ? 'top level' : path}: unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys
        .map((k) => `"${k}"`)
        .join(', ')} — not a setting here${known.length > 0 ? `; the settings here are ${known.join(', ')}` : ''}`;
    }
    case 'invalid_key':
      // a record's key (a site id under `sites`): the key is the value the rule is about
      return `${path}: key ${JSON.stringify(String(issue.path.at(-1)))} — ${issue.issues.map((inner) => inner.message).join('; ')}`;
    case 'invalid_value':
      rule = `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
      break;
    case 'invalid_type':
      // zod's names for two of them are no words a person reads in JSON: "must be record", "must be int"
      rule = `must be ${issue.expected === 'record' ? 'an object' : issue.expected === 'int' ? 'an integer' : issue.expected}`;
      break;
    case 'too_small':
      rule = `must be ${issue.inclusive === false ? '>' : '≥'} ${String(issue.minimum)}${issue.origin === 'string' ? ' characters long' : ''}`;
      break;
    case 'too_big':
      rule = `must be ${issue.inclusive === false ? '<' : '≤'} ${String(issue.maximum)}`;
      break;
    default:
      rule = issue.message;
  }
  return `${path}: value ${describeValue(value)} — ${rule}`;
}

/** The keys the object schema at `path` takes (through defaults, optionals, pipes and records); [] where none is known. */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.core.$ZodType | undefined = schema;
  let rest = [...path];
  while (current !== undefined) {
    const def = current._zod.def as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType; valueType?: z.core.$ZodType; element?: z.core.$ZodType; shape?: Record<string, z.core.$ZodType> };
    if (def.type === 'default' || def.type === 'optional' || def.type === 'nullable') current = def.innerType;
    else if (def.type === 'pipe') current = def.in;
    else if (rest.length === 0) return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
    else if (def.type === 'object' && def.shape) [current, rest] = [def.shape[String(rest[0])], rest.slice(1)];
    else if (def.type === 'record') [current, rest] = [def.valueType, rest.slice(1)];
    else if (def.type === 'array') [current, rest] = [def.element, rest.slice(1)];
    else return [];
  }
  return [];
}

/** The value a zod issue points at, for messages that name the value. */
export function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = raw;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

export function describeValue(value: unknown): string {
  if (value === undefined) return '(missing)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

interface RootInput {
  root: string;
  base: string;
  key: string;
}

/**
 * Realpaths the roots and compiles the redaction patterns; the config must already be valid. `source` names the
 * config file the problems are in, as parseConfig's message does; a root given with --root (or the folder the
 * command was typed in) is no part of it, and its problem says so: "config is invalid: --root: …" sent a person
 * to look for a mistake in a config file they may not have.
 */
export function policyFromConfig(config: Config, roots: RootInput[], source = 'config'): Policy {
  const problems: Array<{ line: string; from: string }> = [];
  const fromWhere = (key: string): string => (key === '--root' ? '--root' : key === 'cwd' ? 'the folder the command was typed in' : source);
  const resolvedRoots: string[] = [];
  for (const { root, base, key } of roots) {
    const expanded = fromHomeFolder(root);
    const absolute = isAbsolute(expanded) ? expanded : resolve(base, expanded);
    try {
      const real = realpathSync(absolute);
      if (!statSync(real).isDirectory()) {
        problems.push({ line: `${key}: value ${JSON.stringify(root)} — a root must be a directory`, from: fromWhere(key) });
        continue;
      }
      if (!resolvedRoots.includes(real)) resolvedRoots.push(real);
    } catch {
      problems.push({ line: `${key}: value ${JSON.stringify(root)} — root ${absolute} does not exist`, from: fromWhere(key) });
    }
  }
  const redact: RegExp[] = [...BUILTIN_REDACTIONS];
  config.redact.forEach((pattern, i) => {
    try {
      redact.push(new RegExp(pattern, 'g'));
    } catch (error) {
      problems.push({ line: `redact[${i}]: value ${JSON.stringify(pattern)} — not a valid regular expression (${(error as Error).message})`, from: source });
    }
  });
  if (problems.length > 0) {
    const sections = [...new Set(problems.map((p) => p.from))].map(
      (from) => `${from} is invalid:\n${problems.filter((p) => p.from === from).map((p) => `  - ${p.line}`).join('\n')}`,
    );
    throw new ToolError('INVALID_INPUT', sections.join('\n'), { issues: problems.map((p) => p.line) });
  }
  return { ...config, roots: resolvedRoots, redact, reserved: [] };
}
