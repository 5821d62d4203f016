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
/** How many unions' branches a message is narrowed to (withoutOtherBranches). */
const MAX_UNIONS = 16;

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

/**
 * A property's schema with the local `$ref`s that say its type followed (its own, its `anyOf`/`oneOf` members' and
 * those of an `allOf` it has in place of a type, as Pydantic writes `{"allOf": [{"$ref": …}], "description": …}`),
 * and a `const` without a type read as an enum of one. A `<function_calls>` XML parameter is text typed by what its
 * property allows (companion/runs/function-calls-job.ts), and a property behind a `$ref` (`#/$defs/IssueId`, an enum
 * class, zod's `#/properties/…` for a schema used twice) allowed nothing it could see: "42" for a string id reached
 * the server as the number 42, which it refused.
 */
export function typingSchema(root: Record<string, unknown>, schema: unknown, depth = 0): unknown {
  const own = resolved(root, schema);
  if (own === undefined || depth >= 8) return own;
  const out: Record<string, unknown> = { ...own };
  // a const alone says its type by its value, as an enum of one does (`{"const": "2"}`, a Literal["2"] of older Pydantic)
  if (own.const !== undefined && own.type === undefined && own.enum === undefined) out.enum = [own.const];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = own[key];
    if (Array.isArray(members)) out[key] = members.map((member) => typingSchema(root, member, depth + 1));
  }
  const all = own.allOf;
  if (Array.isArray(all) && own.type === undefined && own.enum === undefined) {
    for (const member of all) {
      const typed = typingSchema(root, member, depth + 1);
      if (typed !== null && typeof typed === 'object') Object.assign(out, typed);
    }
  }
  return out;
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
  const relevant = withoutOtherBranches(errors);
  // anyOf/oneOf report each branch and then themselves; the branches say more, the summary only when alone
  const specific = relevant.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  const parts = [...new Set(mergedConsts(specific.length > 0 ? specific : relevant).map((e) => describeError(tool, schema, args, e)))];
  const shown = parts.slice(0, MAX_PARTS);
  if (parts.length > shown.length) shown.push(`and ${parts.length - shown.length} more`);
  return shown.join('; ');
}

/**
 * The errors of a union of objects told apart by a field (`kind: "file"` or `kind: "url"`, as zod's discriminated
 * unions and Pydantic's tagged ones are written) that concern the branch the arguments chose. Ajv reports every
 * branch, so `{"kind": "url", "url": "x", "depht": 1}` was answered 'is missing "target.path"; "target" has no field
 * "url"; its fields are kind, path; … and 2 more': the first things said were about the other branch, and the
 * misspelt field was not among them. A branch whose field of a single value (const, or an enum) the arguments do not
 * match is left out when another branch's does match; when none does, only those fields are said.
 */
function withoutOtherBranches(errors: readonly ErrorObject[]): ErrorObject[] {
  let kept = [...errors];
  // the first unions only: a message says MAX_PARTS things, and a list of thousands of items each failing one would
  // make this walk of every error per union hold the companion's thread
  const unions = errors.filter((e) => (e.keyword === 'oneOf' || e.keyword === 'anyOf') && Array.isArray(e.schema)).slice(0, MAX_UNIONS);
  for (const union of unions) {
    const branches = (union.schema as unknown[]).map((branch, index) => {
      const prefixes = [`${union.schemaPath}/${index}/`];
      const ref = (branch as { $ref?: unknown } | null)?.$ref;
      if (typeof ref === 'string' && ref.startsWith('#')) prefixes.push(`${ref}/`);
      const own = kept.filter((e) => e.instancePath.startsWith(union.instancePath) && prefixes.some((prefix) => e.schemaPath.startsWith(prefix)));
      const tag = own.filter((e) => isTagError(e, union.instancePath));
      return { own, tag };
    });
    const failing = branches.filter((b) => b.own.length > 0);
    const mismatched = failing.filter((b) => b.tag.length > 0);
    if (mismatched.length === 0 || failing.length < 2) continue;
    const dropped = new Set<ErrorObject>(
      mismatched.length < failing.length ? mismatched.flatMap((b) => b.own) : mismatched.flatMap((b) => b.own.filter((e) => !b.tag.includes(e))),
    );
    kept = kept.filter((e) => !dropped.has(e));
  }
  return kept;
}

/** A const or enum refused on a field right inside the union's value: the field that tells its branches apart. */
function isTagError(error: ErrorObject, unionPath: string): boolean {
  if (error.keyword !== 'const' && error.keyword !== 'enum') return false;
  return /^\/[^/]+$/.test(error.instancePath.slice(unionPath.length)) && error.instancePath.startsWith(unionPath) && /\/properties\/[^/]+\/(?:const|enum)$/.test(error.schemaPath);
}

/** Consts refused on one field, one per branch of a union: said once, as the values the field may take. */
function mergedConsts(errors: readonly ErrorObject[]): ErrorObject[] {
  const byPath = new Map<string, unknown[]>();
  for (const e of errors) if (e.keyword === 'const') byPath.set(e.instancePath, [...(byPath.get(e.instancePath) ?? []), (e.params as { allowedValue?: unknown }).allowedValue]);
  const said = new Set<string>();
  return errors.flatMap((e) => {
    const values = byPath.get(e.instancePath);
    if (e.keyword !== 'const' || values === undefined || values.length < 2) return [e];
    if (said.has(e.instancePath)) return [];
    said.add(e.instancePath);
    return [{ ...e, keyword: 'enum', params: { allowedValues: values } }];
  });
}
