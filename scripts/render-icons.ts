/*
 * Renders the extension's icon (extension/assets/icon.svg) to the PNG sizes the browsers and stores ask for, into
 * public/icon/<size>.png (WXT puts them in the manifest). The PNGs are checked in; run this after
 * changing the SVG:
 *
 *   npx tsx scripts/render-icons.ts          (Chromium from CHATBRIDGE_CHROMIUM or /usr/bin/chromium)
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const ICON_SIZES = [16, 32, 48, 128] as const;

const repo = path.resolve(import.meta.dirname, '..');
const svg = await readFile(path.join(repo, 'extension/assets/icon.svg'), 'utf8');
const outDir = path.join(repo, 'public/icon');
await mkdir(outDir, { recursive: true });

const browser = await chromium.launch({ executablePath: process.env.CHATBRIDGE_CHROMIUM ?? '/usr/bin/chromium', headless: true });
try {
  for (const size of ICON_SIZES) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    const dataUrl = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    await page.setContent(`<html><body style="margin:0;background:transparent"><img src="${dataUrl}" width="${size}" height="${size}"></body></html>`);
    await page.locator('img').evaluate((img: HTMLImageElement) => img.decode());
    const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
    await writeFile(path.join(outDir, `${size}.png`), png);
    await page.close();
    console.log(`icon/${size}.png ${png.length} bytes`);
  }
} finally {
  await browser.close();
}
