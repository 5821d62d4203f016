import './fake-extension-api';
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { genericHosts, siteSettingItems } from '../../extension/settings';
import { DoctorView, type DoctorViewDeps } from '../../extension/ui/doctor-view';
import { siteOfTab } from '../../extension/ui/popup-browser';
import { fake } from './fake-extension-api';
import { installBrowserI18n, useLocale } from './i18n-fake';

// the fake extension API stands in as `chrome`: its words come from the locales as in every view test
installBrowserI18n();

/**
 * The popup's site doctor on a tab chatbridge does not run in says why and what to do, as far as the settings tell: a
 * ChatGPT tab open from before chatbridge was installed or updated (the browser puts no content script into pages
 * already open) said only "chatbridge is not running in this tab", beside a ChatGPT card saying it is enabled.
 */

async function notRunning(site: DoctorViewDeps['site']): Promise<string> {
  const root = document.body.appendChild(document.createElement('div'));
  const deps: DoctorViewDeps = { load: async () => null, copy: async () => undefined, version: '1.0.0', refreshMs: 0, ...(site ? { site } : {}) };
  await act(async () => {
    render(<DoctorView deps={deps} />, root);
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
  await act(async () => new Promise((resolve) => setTimeout(resolve, 0)));
  expect(root.querySelector('#doctor')?.getAttribute('data-state')).toBe('absent');
  return root.querySelector('#doctor p')!.textContent!;
}

beforeEach(() => fake.reset());
afterEach(() => {
  useLocale('en');
  for (const child of [...document.body.children]) {
    render(null, child);
    child.remove();
  }
});

describe('the site doctor on a tab chatbridge does not run in', () => {
  it('on a site that is on: reload the page, in English and Chinese', async () => {
    expect(await siteOfTab({ id: 3, url: 'https://chatgpt.com/c/abc' })).toBe('on');
    expect(await notRunning('on')).toBe(
      'chatbridge is on for this site but not running in this tab yet: a page opened before chatbridge was installed, updated or turned on gets it once reloaded. Reload the page.',
    );
    useLocale('zh_CN');
    expect(await notRunning('on')).toBe('此网站已开启 chatbridge，但它尚未在此标签页中运行：在安装、更新或开启 chatbridge 之前打开的页面，要重新加载后才有它。请刷新页面。');
  });

  it('on a site switched off, or on without the browser\'s access: where to change that', async () => {
    await siteSettingItems('claude').enabled.setValue(false);
    expect(await siteOfTab({ id: 3, url: 'https://claude.ai/new' })).toBe('off');
    expect(await notRunning('off')).toBe('chatbridge is off on this site: switch it on under “More sites” below.');
    await siteSettingItems('kimi').enabled.setValue(true);
    expect(await siteOfTab({ id: 3, url: 'https://www.kimi.com/chat/1' })).toBe('no-access');
    fake.granted.add('https://www.kimi.com/*').add('https://kimi.com/*').add('https://kimi.moonshot.cn/*');
    expect(await siteOfTab({ id: 3, url: 'https://www.kimi.com/chat/1' })).toBe('on');
    expect(await notRunning('no-access')).toBe('chatbridge is on for this site, but the browser has not allowed it access yet: press “Allow access” under Sites below.');
    // a host enabled for the generic adapter, as the popup's "Enable on this site" leaves it
    await genericHosts.setValue(['chat.example.org']);
    await siteSettingItems('chat.example.org').enabled.setValue(true);
    expect(await siteOfTab({ id: 3, url: 'https://chat.example.org/c/1' })).toBe('no-access');
    fake.granted.add('https://chat.example.org/*');
    expect(await siteOfTab({ id: 3, url: 'https://chat.example.org/c/1' })).toBe('on');
  });

  it('on a site chatbridge does not know: only that it does not run there (the popup offers to enable it)', async () => {
    expect(await siteOfTab({ id: 3, url: 'https://example.com/' })).toBeUndefined();
    expect(await siteOfTab({ id: 3, url: 'chrome://newtab/' })).toBeUndefined();
    expect(await notRunning(undefined)).toBe('chatbridge is not running in this tab');
  });
});
