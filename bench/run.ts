/**
 * `npm run bench` — measures the figures of DESIGN §9, prints a table (median, spread, budget, within/over), keeps
 * them in bench/results.json with the machine and versions they were measured on (per group: `--only` replaces
 * those groups and keeps the others) and writes the README's table from that file (bench/results-file.ts).
 *
 *   npm run bench                         every group, 5 runs each
 *   npm run bench -- --only search        one group (companion, reference, search, scanner, mcp; comma-separated)
 *   npm run bench -- --runs 7             more runs per figure (at least 5)
 *   npm run bench -- --readme             measures nothing: writes the README's table from bench/results.json
 *
 * Speed is measured here and never asserted in the test suite.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { cpus, arch, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rgPath } from '@vscode/ripgrep';
import { DEFAULT_COMPANION_BENCH, runCompanionBench } from './companion';
import { withinBudget, type Figure } from './figure';
import { formatTable } from './run-table';
import { DEFAULT_MCP_SERVERS_BENCH, runMcpServersBench } from './mcp-servers';
import { DEFAULT_REFERENCE_FS_BENCH, runReferenceFsBench } from './reference-fs';
import { mergeResults, readResults, writeReadmeTable } from './results-file';
import { runSearchBench } from './search';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const MIN_RUNS = 5;
const GROUPS = ['companion', 'reference', 'search', 'scanner', 'mcp'] as const;
type Group = (typeof GROUPS)[number];

interface Args {
  only: Set<Group>;
  runs: number;
  readmeOnly: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { only: new Set(GROUPS), runs: MIN_RUNS, readmeOnly: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag === '--only' && value) {
      const picked = value.split(',').map((g) => g.trim());
      for (const g of picked) if (!(GROUPS as readonly string[]).includes(g)) throw new Error(`--only ${g}: not a group; the groups are ${GROUPS.join(', ')}`);
      args.only = new Set(picked as Group[]);
      i++;
    } else if (flag === '--readme') {
      args.readmeOnly = true;
    } else if (flag === '--runs' && value) {
      const runs = Number(value);
      if (!Number.isInteger(runs) || runs < MIN_RUNS) throw new Error(`--runs ${value}: must be an integer ≥ ${MIN_RUNS} (a median of fewer runs is noise)`);
      args.runs = runs;
      i++;
    } else {
      throw new Error(`unknown argument ${JSON.stringify(flag)}; use --only ${GROUPS.join(',')}, --runs N or --readme`);
    }
  }
  return args;
}

function versionOf(file: string, args: string[]): string | null {
  try {
    return execFileSync(file, args, { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')[0]?.trim() || null;
  } catch {
    return null;
  }
}

async function chromiumVersion(): Promise<string | null> {
  // the same Chromium the e2e tests and the scanner figures use
  const candidates = [process.env.CHATBRIDGE_CHROMIUM, '/usr/bin/chromium'];
  try {
    const { chromium } = await import('playwright-core');
    candidates.push(chromium.executablePath());
  } catch {
    // playwright-core has no browser registry entry here; only the environment can name one
  }
  for (const file of candidates) if (file && existsSync(file)) return versionOf(file, ['--version']);
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// SCANNER HOOK — the Chromium scanner figures live in bench/scanner.ts, written separately. When that file exists
// it must export `runScannerBench(): Promise<Figure[]>`; it is then run as the `scanner` group. Nothing else here
// needs to change when it lands.
// ---------------------------------------------------------------------------------------------------------------
interface ScannerModule {
  runScannerBench(): Promise<Figure[]>;
}

async function runScannerGroup(log: (line: string) => void): Promise<Figure[] | undefined> {
  if (!existsSync(join(BENCH_DIR, 'scanner.ts'))) {
    log('  bench/scanner.ts is not there yet: no scanner figures');
    return undefined;
  }
  const specifier = './scanner';
  const scanner = (await import(specifier)) as Partial<ScannerModule>;
  if (typeof scanner.runScannerBench !== 'function') throw new Error('bench/scanner.ts must export runScannerBench(): Promise<Figure[]>');
  return scanner.runScannerBench();
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const log = (line: string) => console.log(line);
  const resultsFile = join(BENCH_DIR, 'results.json');
  const readme = join(BENCH_DIR, '..', 'README.md');
  if (args.readmeOnly) {
    const notWritten = writeReadmeTable(readme, readResults(resultsFile), GROUPS, formatTable, resultsFile);
    if (notWritten) console.error(`nothing written: ${notWritten}`);
    else log(`written: the table in ${readme}, from ${resultsFile}`);
    return notWritten ? 1 : 0;
  }
  const figures: Figure[] = [];
  const byGroup = new Map<Group, Figure[]>();
  const failed: string[] = [];
  const groups: Array<[Group, () => Promise<Figure[] | undefined>]> = [
    ['companion', () => runCompanionBench({ ...DEFAULT_COMPANION_BENCH, runs: args.runs, log })],
    ['reference', () => runReferenceFsBench({ ...DEFAULT_REFERENCE_FS_BENCH, runs: args.runs, log })],
    ['search', () => runSearchBench({ runs: args.runs, log })],
    ['scanner', () => runScannerGroup(log)],
    ['mcp', () => runMcpServersBench({ ...DEFAULT_MCP_SERVERS_BENCH, runs: args.runs, log })],
  ];
  for (const [name, run] of groups) {
    if (!args.only.has(name)) continue;
    log(`${name}…`);
    try {
      const measured = (await run()) ?? [];
      figures.push(...measured);
      if (measured.length > 0) byGroup.set(name, measured);
    } catch (error) {
      failed.push(name);
      console.error(`\n!!! bench group ${name} FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
  }

  const cpuList = cpus();
  const measured = {
    machine: { os: `${type()} ${release()} ${arch()}`, cpus: `${cpuList.length} × ${cpuList[0]?.model.trim() ?? 'unknown'}`, memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB` },
    versions: { node: process.version, chromium: await chromiumVersion(), rg: versionOf(rgPath, ['--version']) },
    date: new Date().toISOString(),
  };
  // a run where every group failed leaves both files as they were
  const wrote = byGroup.size > 0;
  let wroteReadme = false;
  if (wrote) {
    const results = mergeResults(readResults(resultsFile), measured, byGroup);
    writeFileSync(resultsFile, JSON.stringify(results, null, 2) + '\n');
    const notWritten = writeReadmeTable(readme, results, GROUPS, formatTable, resultsFile);
    if (notWritten) console.error(`README not written: ${notWritten}`);
    wroteReadme = notWritten === undefined;
  }

  log('');
  log(`${measured.machine.os}; ${measured.machine.cpus}; ${measured.machine.memory}; node ${measured.versions.node}; ${measured.versions.rg ?? 'rg ?'}; chromium ${measured.versions.chromium ?? 'not found'}`);
  log(formatTable(figures));
  log(wrote ? `\nwritten: ${resultsFile}${wroteReadme ? `; the table in ${readme}` : ''}` : '\nnothing measured: results.json and the README are left as they were');
  const over = figures.filter((f) => withinBudget(f) === false);
  if (over.length > 0) log(`over budget: ${over.map((f) => f.name).join('; ')}`);
  if (failed.length > 0) {
    console.error(`bench groups that failed: ${failed.join(', ')}`);
    return 1;
  }
  return 0;
}

process.exitCode = await main();
