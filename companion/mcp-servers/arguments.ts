import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { formatPath, showValue } from '../../shared/tools/describe-issues';
import { suggestArgumentName } from '../../shared/tools/suggest';
import { runWithin } from '../watchdog';

/**
 * Arguments of a call to the person's MCP server, checked against the tool's own JSON Schema before anything is
 * decided or sent (issue 11 §3), with the same kind of one-line INVALID_INPUT the built-ins give: the field, the
 * value and the rule (`memory.create_entities argument "entities[0].name" is missing (a string)`).
 *
 * Ajv, as the MCP SDK itself uses it: draft-07 unless the schema names 2019-09 or 2020-12 (which is what zod 4
 * and newer servers emit). Formats are not checked (the server does; an unknown format must not make a tool
 * uncallable), unknown keywords are ignored, and the arguments are never changed (no defaults filled in).
 */
export type ArgumentCheck = (args: Record<string, unknown>) => { ok: true } | { ok: false; message: string };

/**
 * `verbose` gives each error the schema object it was found in (`parentSchema`), reached through `$ref`, `$defs`,
 * `anyOf` and `allOf` as the check itself went: a message naming the fields an object takes reads them there.
 */
const OPTIONS = { strict: false, allErrors: true, validateFormats: false, validateSchema: false, verbose: true } as const;
let engines: { draft07: Ajv; draft2019: Ajv2019; draft2020: Ajv2020 } | undefined;

function engineFor(schema: Record<string, unknown>): Ajv | Ajv2019 | Ajv2020 {
  engines ??= { draft07: new Ajv(OPTIONS), draft2019: new Ajv2019(OPTIONS), draft2020: new Ajv2020(OPTIONS) };
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('2020-12')) return engines.draft2020;
  if (declared.includes('2019-09')) return engines.draft2019;
  return engines.draft07;
}

const MAX_PARTS = 3;

/**
 * A schema's `pattern` (and `patternProperties` key) is the server's regular expression, run by Ajv with V8's
 * backtracking engine on the companion's own thread, against an argument a model chose. A pattern with nested
 * repetition — `^([a-z]+\s?)+$`, as hand-written validation patterns often are — took 0.9 s on 27 characters
 * and doubles with each one more: a model that writes 40 would hold every run, approval and request of the
 * companion for hours. So a schema with a pattern is checked under the watchdog, and a check that takes longer
 * than CHECK_MS refuses the call.
 */
export const CHECK_MS = 250;

/** task(), interrupted after CHECK_MS; undefined when it was. */
export function withinCheckTime<T>(task: () => T): T | undefined {
  return runWithin(CHECK_MS, task);
}

/** Whether a schema holds a pattern, whose check must then run under the watchdog. */
export function hasPattern(schema: unknown): boolean {
  return JSON.stringify(schema).includes('"pattern');
}

/**
 * Compiles a tool's input schema once. A schema Ajv cannot compile does not make the tool unusable: the server
 * still checks its own arguments; `problem` says why this side could not, for the server's health.
 */
export function compileArgumentCheck(tool: string, schema: Record<string, unknown>): { check: ArgumentCheck; problem?: string } {
  let validate: ValidateFunction;
  try {
    validate = compile(schema);
  } catch (error) {
    return {
      check: () => ({ ok: true }),
      problem: `the input schema of ${tool} cannot be compiled (${error instanceof Error ? error.message : String(error)}); its arguments are checked by the server only`,
    };
  }
  const watched = hasPattern(schema);
  return {
    check(args) {
      const valid = watched ? withinCheckTime(() => validate(args) as boolean) : validate(args);
      if (valid === undefined) {
        return {
          ok: false,
          message: `${tool}: checking the arguments against the tool's input schema took more than ${CHECK_MS} ms (a "pattern" in the schema backtracks on this value); the call was not made — use a shorter or simpler value`,
        };
      }
      if (valid) return { ok: true };
      return { ok: false, message: describeErrors(tool, schema, args, validate.errors ?? []) };
    },
  };
}

function compile(schema: Record<string, unknown>): ValidateFunction {
  // $id would register the schema in the shared engine: a second server (or a refreshed list) reusing an $id
  // would then fail to compile. Every tool's schema stands alone.
  const { $id: _id, ...own } = schema;
  try {
    return compileOnce(own);
  } catch (error) {
    // a meta-schema Ajv does not carry (draft-04, a vendor's own): the keywords themselves are still worth checking
    if (typeof own.$schema !== 'string') throw error;
    const { $schema: _schema, ...bare } = own;
    return compileOnce(bare);
  }
}

/** Compiles without keeping the schema in the engine's cache: tool lists are refreshed for as long as it runs. */
function compileOnce(schema: Record<string, unknown>): ValidateFunction {
  const engine = engineFor(schema);
  try {
    return engine.compile(schema);
  } finally {
    engine.removeSchema(schema);
  }
}

/** `/entities/0/name` → ['entities', 0, 'name'] */
function pathOf(pointer: string): Array<string | number> {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

function valueAt(value: unknown, path: ReadonlyArray<string | number>): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/**
 * A property's schema as the message describes it: a local `$ref` (`#/$defs/Kind`, `#/properties/a` as zod writes a
 * schema used twice) followed to what it names in the tool's schema, a few steps at most.
 */
function resolved(root: Record<string, unknown>, schema: unknown): Record<string, unknown> | undefined {
  let current = schema;
  for (let step = 0; step < 8; step++) {
    if (current === null || typeof current !== 'object') return undefined;
    const ref = (current as Record<string, unknown>).$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#')) return current as Record<string, unknown>;
    let pointer = ref.slice(1);
    try {
      pointer = decodeURIComponent(pointer);
    } catch {
      // not percent-encoded: the pointer as written
    }
    current = valueAt(root, pathOf(pointer));
  }
  return undefined;
}

/** The properties the object schema an error was found in declares (the schema Ajv reports with `verbose`). */
function propertiesOf(error: ErrorObject): Record<string, unknown> {
  const properties = error.parentSchema?.properties;
  return properties !== null && typeof properties === 'object' ? (properties as Record<string, unknown>) : {};
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function expected(schema: Record<string, unknown> | undefined): string | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const type = schema.type;
  if (typeof type === 'string') return ARTICLE[type] ?? type;
  if (Array.isArray(type)) return type.map((t) => ARTICLE[String(t)] ?? String(t)).join(' or ');
  return undefined;
}

function describeError(tool: string, schema: Record<string, unknown>, args: unknown, error: ErrorObject): string {
  const path = pathOf(error.instancePath);
  const field = formatPath(path);
  const subject = field === '' ? tool : `${tool} argument "${field}"`;
  const got = `, got ${showValue(valueAt(args, path))}`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      const full = formatPath([...path, missing]);
      const what = expected(resolved(schema, propertiesOf(error)[missing]));
      return `${tool} is missing "${full}"${what ? ` (${what})` : ''}`;
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      // read where the check found them: a field's schema behind a $ref or in an anyOf branch has its own properties,
      // and reading them from the tool's schema by the path said 'it takes none' of an object that takes several
      const properties = Object.keys(propertiesOf(error));
      const suggestion = suggestArgumentName(extra, properties);
      const where = field === '' ? tool : `${tool} "${field}"`;
      return `${where} has no ${field === '' ? 'argument' : 'field'} "${extra}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; ${
        properties.length > 0 ? `its ${field === '' ? 'arguments' : 'fields'} are ${properties.join(', ')}` : 'it takes none'
      }`;
    }
    case 'type':
      return `${subject} must be ${String(params.type)
        .split(',')
        .map((t) => ARTICLE[t] ?? t)
        .join(' or ')}${got}`;
    case 'enum':
      return `${subject} must be one of ${((params.allowedValues as unknown[]) ?? []).map((v) => JSON.stringify(v)).join(', ')}${got}`;
    case 'const':
      return `${subject} must be ${JSON.stringify(params.allowedValue)}${got}`;
    default:
      return `${subject} ${error.message ?? 'is not valid'}${got}`;
  }
}

function describeErrors(tool: string, schema: Record<string, unknown>, args: unknown, errors: readonly ErrorObject[]): string {
  // anyOf/oneOf report each branch and then themselves; the branches say more, the summary only when alone
  const specific = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  const parts = [...new Set((specific.length > 0 ? specific : errors).map((e) => describeError(tool, schema, args, e)))];
  const shown = parts.slice(0, MAX_PARTS);
  if (parts.length > shown.length) shown.push(`and ${parts.length - shown.length} more`);
  return shown.join('; ');
}
