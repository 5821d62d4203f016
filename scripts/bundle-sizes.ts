/*
 * What each part of the built extension loads (its script, the chunks it imports, its CSS), raw and gzipped:
 *
 *   npx wxt build && npx tsx scripts/bundle-sizes.ts        (reads dist/chrome-mv3)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = path.resolve(import.meta.dirname, '..', 'dist', 'chrome-mv3');

/** A file and, for scripts, every chunk it imports statically (transitively). */
function closure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  if (!file.endsWith('.js')) return seen;
  const text = readFileSync(path.join(dist, file), 'utf8');
  for (const match of text.matchAll(/(?:import|from)\s*["']([^"']+\.js)["']/g)) {
    closure(path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1]!)), seen);
  }
  return seen;
}

function pageFiles(html: string): Set<string> {
  const text = readFileSync(path.join(dist, html), 'utf8');
  const files = new Set<string>();
  for (const match of text.matchAll(/(?:src|href)="\/?([^"]+\.(?:js|css))"/g)) for (const file of closure(match[1]!)) files.add(file);
  return files;
}

const parts: Array<[string, Set<string>]> = [
  ['popup', pageFiles('popup.html')],
  ['side panel', pageFiles('sidepanel.html')],
  ['options', pageFiles('options.html')],
  ['content script', closure('content-scripts/content.js')],
  ['background', closure('background.js')],
];
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} kB`;
console.log('| part | raw | gzip |\n|---|---|---|');
for (const [name, files] of parts) {
  const data = Buffer.concat([...files].map((file) => readFileSync(path.join(dist, file))));
  console.log(`| ${name} | ${kb(data.length)} | ${kb(gzipSync(data).length)} |`);
}
