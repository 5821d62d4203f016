import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * Whether the build in `outDir` is there and newer than everything it is made from (extension/, shared/, public/ —
 * the icons and other files the build copies as they are —, wxt.config.ts, and package.json, whose version the
 * manifest says): after a `git pull` the folder exists but holds the old extension, which may not speak the
 * companion's new messages. A package without the sources (an installed one) keeps the build it came with.
 */
export function extensionBuildIsCurrent(packageDir: string, outDir: string): boolean {
  const manifest = join(outDir, 'manifest.json');
  if (!existsSync(manifest)) return false;
  const sources = ['extension', 'shared', 'public'].map((dir) => join(packageDir, dir)).filter((dir) => existsSync(dir));
  const files = ['wxt.config.ts', 'package.json'].map((file) => join(packageDir, file)).filter((file) => existsSync(file));
  const newest = Math.max(0, ...sources.map(newestMtime), ...files.map((file) => statSync(file).mtimeMs));
  return statSync(manifest).mtimeMs >= newest;
}
