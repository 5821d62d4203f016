import { mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { extensionBuildIsCurrent } from '../../../companion/extension-build';

/*
 * `npm start` builds the extension again when its build is older than what the build is made from. An update that
 * changed only public/ (the icons and other files copied as they are) or package.json (the version the manifest
 * says) left the old build in place, and the person loaded an extension that was not the one they had pulled.
 */
const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-build-current-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const BUILT = new Date('2026-01-02T00:00:00Z');
const BEFORE = new Date('2026-01-01T00:00:00Z');
const AFTER = new Date('2026-01-03T00:00:00Z');

/** A package whose every input is older than its build. */
function builtPackage(name: string): { dir: string; outDir: string } {
  const dir = join(base, name);
  const outDir = join(dir, 'dist', 'chrome-mv3');
  const files = ['extension/entrypoints/popup.ts', 'shared/api.ts', 'wxt.config.ts', 'public/icon/16.png', 'package.json'];
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), 'x');
    utimesSync(join(dir, file), BEFORE, BEFORE);
  }
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'manifest.json'), '{}');
  utimesSync(join(outDir, 'manifest.json'), BUILT, BUILT);
  return { dir, outDir };
}

it.each(['extension/entrypoints/popup.ts', 'shared/api.ts', 'wxt.config.ts', 'public/icon/16.png', 'package.json'])(
  'a build older than %s is not current; one newer than all it is made from is',
  (changed) => {
    const { dir, outDir } = builtPackage(changed.replace(/\W/g, '-'));
    expect(extensionBuildIsCurrent(dir, outDir)).toBe(true);
    utimesSync(join(dir, changed), AFTER, AFTER);
    expect(extensionBuildIsCurrent(dir, outDir)).toBe(false);
  },
);
