import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { siteById } from '../../extension/sites';
import { answerBlocks, FIXTURE_DIR, loadFixture } from './site-fixtures';

/**
 * A modal menu or dialog built on Radix UI (ChatGPT's and Claude's menus, model picker, share and settings dialogs)
 * hides the rest of the page from assistive technology while it is open: every child of the body but its own portal
 * gets aria-hidden="true" (and data-aria-hidden), the conversation included. A reply that finishes meanwhile is read
 * then, and each code block's language must be read as on the page without the menu: a label lost makes a call
 * plain code, which never runs.
 */
function openModalMenu(doc: Document): void {
  for (const child of Array.from(doc.body.children)) {
    child.setAttribute('aria-hidden', 'true');
    child.setAttribute('data-aria-hidden', 'true');
  }
  const portal = doc.createElement('div');
  portal.setAttribute('data-radix-popper-content-wrapper', '');
  portal.innerHTML = '<div role="menu" data-state="open"><div role="menuitem">Share</div></div>';
  doc.body.append(portal);
}

function savedPages(): Array<{ file: string; siteId: string }> {
  const out: Array<{ file: string; siteId: string }> = [];
  for (const dir of readdirSync(FIXTURE_DIR).sort()) {
    if (!siteById(dir)) continue;
    for (const file of readdirSync(join(FIXTURE_DIR, dir)).sort()) out.push({ file: `${dir}/${file}`, siteId: dir });
  }
  return out;
}

describe('code blocks read while a modal menu hides the conversation from assistive technology', () => {
  const pages = savedPages();

  it('covers the saved pages of ChatGPT and Claude', () => {
    expect(pages.some((p) => p.siteId === 'chatgpt')).toBe(true);
    expect(pages.some((p) => p.siteId === 'claude')).toBe(true);
  });

  for (const { file, siteId } of pages) {
    it(`${file}: the same blocks, with the same labels, as with the menu closed`, () => {
      const site = siteById(siteId)!;
      const shown = answerBlocks(site, loadFixture(file));
      const doc = loadFixture(file);
      openModalMenu(doc);
      expect(answerBlocks(site, doc)).toEqual(shown);
    });
  }
});
