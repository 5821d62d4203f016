// @vitest-environment node
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SITES, STATIC_SITE_IDS } from '../../extension/sites';

/**
 * The Firefox build, made into a temp folder (dist/ stays the end-to-end tests' own), must pass `web-ext lint` with no
 * error. Warnings are listed in the output; the known ones are zod's Function constructor (never called: the
 * extension sets zod's jitless mode) and innerHTML in the UI's rendering libraries.
 */

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin');

interface LintMessage {
  code: string;
  message: string;
  file?: string;
}
interface LintReport {
  summary: { errors: number; warnings: number; notices: number };
  errors: LintMessage[];
  warnings: LintMessage[];
}

describe('Firefox build', () => {
  let out = '';
  let extension = '';
  let report: LintReport;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'chatbridge-firefox-'));
    const quiet = '{ debug(){}, info(){}, log(){}, success(){}, warn: console.warn, error: console.error, fatal: console.error, level: 0 }';
    await run(process.execPath, ['--input-type=module', '-e', `import { build } from 'wxt'; await build({ browser: 'firefox', outDir: process.argv[1], logger: ${quiet} });`, out], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    extension = join(out, 'firefox-mv2');
    // web-ext exits non-zero when it finds errors; the report is on stdout either way.
    const lint = await run(join(BIN, 'web-ext'), ['lint', '--source-dir', extension, '--self-hosted', '--output', 'json', '--no-config-discovery'], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    report = JSON.parse(lint.stdout) as LintReport;
  }, 120_000);

  afterAll(() => {
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('passes web-ext lint without errors', () => {
    expect(report.errors, JSON.stringify(report.errors, null, 2)).toEqual([]);
    expect(report.summary.errors).toBe(0);
    // Firefox's data collection declaration is present.
    expect(report.warnings.map((w) => w.code)).not.toContain('MISSING_DATA_COLLECTION_PERMISSIONS');
  });

  it('declares the optional host patterns the opt-in sites ask for, and only the default sites statically', () => {
    const manifest = JSON.parse(readFileSync(join(extension, 'manifest.json'), 'utf8')) as {
      optional_permissions?: string[];
      content_scripts: Array<{ matches: string[] }>;
      browser_specific_settings: { gecko: { id: string; data_collection_permissions?: unknown } };
    };
    expect(manifest.optional_permissions).toEqual(['https://*/*', 'http://*/*']);
    const staticHosts = SITES.filter((s) => STATIC_SITE_IDS.includes(s.id)).flatMap((s) => s.matches);
    expect(manifest.content_scripts.flatMap((c) => c.matches).sort()).toEqual([...staticHosts].sort());
    expect(manifest.browser_specific_settings.gecko.data_collection_permissions).toEqual({ required: ['none'] });
  });
});
