import { builtinModules } from 'node:module';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BLOCK_KINDS } from '../../shared/protocols';
import { TOOL_CONTRACTS, type AnyToolContract } from '../../shared/tools';
import { TOOL_NAMES } from '../../shared/tools/names';

/*
 * CONVENTIONS.md §8: the folders themselves are checked. Every tool has a schema, a handler and tests; every
 * site has saved DOM; every block protocol has fixtures; shared/ stays pure; only the entry points serve or
 * exit. Adding a unit without its other halves fails here, naming the file that is missing.
 */

const ROOT = join(import.meta.dirname, '..', '..');

function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

function exists(path: string): boolean {
  return existsSync(join(ROOT, path));
}

/** Every file under `dir` (relative to the repository), skipping dependencies and build output. */
function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const base = join(ROOT, dir);
  if (!existsSync(base)) return [];
  return readdirSync(base, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && keep(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !/(^|\/)(node_modules|\.output|\.wxt|dist)\//.test(path))
    .sort();
}

const isSource = (name: string) => /\.(ts|tsx|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts');

/**
 * Source text without comments, so a comment that names `window.` or `process.exit` is not a use of it. Strings
 * are kept (an import specifier is a string); `//` right after a `:` is a URL, not a comment.
 */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' ')).replace(/(^|[^:\\])\/\/.*$/gm, '$1');
}

/** 1-based line of each match of `pattern` in the code of `path`. */
function linesMatching(path: string, pattern: RegExp): number[] {
  const code = withoutComments(read(path));
  const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
  return [...code.matchAll(new RegExp(pattern.source, flags))].map((match) => code.slice(0, match.index).split('\n').length);
}

/** `fs.writeBatch` → `fs-write-batch`: the file a tool lives in (CONVENTIONS §1). */
function toolFileName(tool: string): string {
  return tool.replace(/\./g, '-').replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/** `import { a, b as c } from './x'` → a → ./x, c → ./x. */
function importedNames(source: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const match of source.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g)) {
    for (const part of (match[1] as string).split(',')) {
      const local = part.trim().split(/\s+as\s+/).pop()?.replace(/^type\s+/, '').trim();
      if (local) names.set(local, match[2] as string);
    }
  }
  return names;
}

describe('every tool has a contract, a handler and tests', () => {
  const handlerIndex = exists('companion/tools/index.ts') ? withoutComments(read('companion/tools/index.ts')) : '';
  const handlerImports = importedNames(handlerIndex);
  const handlerMap = /toolHandlers\b[^=]*=\s*\{([\s\S]*?)\n\}/.exec(handlerIndex)?.[1] ?? '';
  const companionTests = filesUnder('tests/companion', (name) => name.endsWith('.test.ts')).map((path) => read(path));

  it.each(TOOL_NAMES.map((name) => [name]))('%s', (name) => {
    const file = toolFileName(name);
    const contracts: Record<string, AnyToolContract | undefined> = TOOL_CONTRACTS;
    const contract = contracts[name];
    expect(contract, `TOOL_CONTRACTS in shared/tools/index.ts has no entry for ${name}`).toBeDefined();
    expect(contract?.name, `the contract registered as ${name} names itself ${contract?.name}`).toBe(name);
    expect(typeof contract?.input.safeParse, `${name} has no zod input schema`).toBe('function');
    expect(contract?.description.trim(), `${name} has no description`).not.toBe('');
    expect(exists(`shared/tools/${file}.ts`), `the contract of ${name} belongs in shared/tools/${file}.ts`).toBe(true);

    expect(exists(`companion/tools/${file}.ts`), `no handler file companion/tools/${file}.ts for ${name}`).toBe(true);
    const key = name.includes('.') ? `['"]${name.replace(/\./g, '\\.')}['"]` : `(?:['"]${name}['"]|${name})`;
    const entry = new RegExp(`(?:^|[\\s,{])${key}\\s*:\\s*([A-Za-z_$][\\w$]*)`).exec(handlerMap);
    expect(entry, `toolHandlers in companion/tools/index.ts has no entry for ${name}`).not.toBeNull();
    const handler = entry?.[1] as string;
    expect(handlerImports.get(handler), `toolHandlers maps ${name} to ${handler}, which is not imported from './${file}'`).toBe(`./${file}`);
    expect(read(`companion/tools/${file}.ts`), `companion/tools/${file}.ts does not export ${handler}`).toMatch(
      new RegExp(`export\\s+(?:const|function|let)\\s+${handler.replace(/\$/g, '\\$')}\\b`),
    );

    const quoted = new RegExp(`['"\`]${name.replace(/\./g, '\\.')}['"\`]`);
    expect(companionTests.some((source) => quoted.test(source)), `no test under tests/companion mentions '${name}'`).toBe(true);
  });
});

describe('every site has saved DOM fixtures', () => {
  const index = exists('extension/sites/index.ts') ? withoutComments(read('extension/sites/index.ts')) : '';
  const listed = (/\bSITES\b[^=]*=\s*\[([^\]]*)\]/.exec(index)?.[1] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const imports = importedNames(index);

  it('extension/sites/index.ts lists the first-class sites in SITES', () => {
    expect(listed.length, 'no SITES list found in extension/sites/index.ts').toBeGreaterThan(0);
  });

  it.each(listed.map((name) => [name]))('%s', (name) => {
    const from = imports.get(name);
    expect(from, `${name} in SITES is not imported from a site file`).toMatch(/^\.\/[a-z0-9-]+$/);
    const id = (from as string).slice(2);
    // CONVENTIONS §1: the file name is the site's id.
    expect(read(`extension/sites/${id}.ts`), `extension/sites/${id}.ts does not define the site id '${id}'`).toMatch(
      new RegExp(`\\bid:\\s*['"]${id}['"]`),
    );
    const folder = `tests/fixtures/sites/${id}`;
    expect(exists(folder) && statSync(join(ROOT, folder)).isDirectory(), `no fixture folder ${folder}/`).toBe(true);
    expect(filesUnder(folder, (file) => file.endsWith('.html')), `no saved page (.html) in ${folder}/`).not.toEqual([]);
  });
});

describe('every block protocol has fixtures', () => {
  const protocolFiles = filesUnder('shared/protocols', isSource).filter((path) => /\bdefineProtocol\s*\(/.test(withoutComments(read(path))) && !path.endsWith('define-protocol.ts'));
  const kindOf = (path: string) => /\bkind:\s*['"]([\w-]+)['"]/.exec(withoutComments(read(path)))?.[1];

  it('each block kind has exactly one protocol file, named after the kind', () => {
    const byKind = protocolFiles.map((path) => [kindOf(path), path.replace(/^shared\/protocols\/|\.ts$/g, '')]);
    expect(byKind.map(([kind]) => kind).sort()).toEqual([...BLOCK_KINDS].sort());
    for (const [kind, file] of byKind) expect(file, `the ${kind} protocol lives in shared/protocols/${file}.ts`).toBe(kind);
  });

  it.each(protocolFiles.map((path) => [path]))('%s', (path) => {
    const kind = kindOf(path);
    expect(kind, `${path} calls defineProtocol without a literal kind`).toBeDefined();
    const folder = `tests/fixtures/blocks/${kind}`;
    const cases = filesUnder(folder, (name) => name.endsWith('.md'));
    expect(cases, `no fixtures in ${folder}/`).not.toEqual([]);
    for (const markdown of cases) {
      expect(exists(markdown.replace(/\.md$/, '.expected.json')), `${markdown} has no .expected.json beside it`).toBe(true);
    }
  });
});

describe('shared/ is pure: no Node modules, no DOM', () => {
  const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
  const specifiers = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  const files = filesUnder('shared', isSource);

  it('shared/ holds source files', () => {
    expect(files).not.toEqual([]);
  });

  it.each(files.map((path) => [path]))('%s', (path) => {
    const code = withoutComments(read(path));
    const imported = specifiers.flatMap((pattern) => [...code.matchAll(pattern)].map((match) => match[1] as string));
    const fromNode = imported.filter((specifier) => specifier.startsWith('node:') || builtins.has(specifier) || builtins.has(specifier.split('/')[0] as string));
    expect(fromNode, `${path} imports Node modules`).toEqual([]);
    const dom = linesMatching(path, /(?<![\w$.])(?:document|window|navigator|localStorage|sessionStorage)\s*\.|\bglobalThis\s*\.\s*(?:document|window)\b/);
    expect(dom, `${path} uses DOM globals on these lines`).toEqual([]);
  });
});

describe('only the entry points serve or exit', () => {
  /**
   * main.ts and cli.ts are the companion's shell (DESIGN §2: listen, signals, argv), with start-companion.ts, the part
   * of cli.ts that `start` alone loads; bin/ is the launcher.
   */
  const ENTRY_POINTS = new Set(['companion/main.ts', 'companion/cli.ts', 'companion/start-companion.ts']);
  const files = ['companion', 'extension', 'shared'].flatMap((dir) => filesUnder(dir, isSource)).filter((path) => !ENTRY_POINTS.has(path));

  it.each(files.map((path) => [path]))('%s', (path) => {
    const calls = {
      'process.exit(': linesMatching(path, /\bprocess\s*\.\s*exit\s*\(/),
      '.listen(': linesMatching(path, /\.listen\s*\(/),
      'serve(': linesMatching(path, /(?<![\w$.]|function\s)serve\s*\(/),
    };
    expect(calls, `${path} serves or exits (lines listed); only companion/main.ts, companion/cli.ts, companion/start-companion.ts and bin/ may`).toEqual({
      'process.exit(': [],
      '.listen(': [],
      'serve(': [],
    });
  });
});
