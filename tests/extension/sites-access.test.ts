import './fake-extension-api';
import { beforeEach, describe, expect, it } from 'vitest';
import { disableSite, enableSite, registrationChanges, siteAccess, startSiteScripts, wantedRegistrations } from '../../extension/site-access';
import { SITES, STATIC_SITE_IDS, grok, huggingchat, kimi } from '../../extension/sites';
import { fake } from './fake-extension-api';

describe('which content scripts are registered at run time', () => {
  const optIn = SITES.filter((s) => !STATIC_SITE_IDS.includes(s.id));

  it('an opt-in site gets its script only when it is enabled AND its permission is granted', () => {
    const wanted = wantedRegistrations(optIn, new Set(['grok', 'kimi', 'perplexity']), new Set(['grok', 'kimi', 'qwen']), []);
    expect(wanted).toEqual([
      { id: 'chatbridge-site-kimi', matches: kimi.matches },
      { id: 'chatbridge-site-grok', matches: grok.matches },
    ]);
  });

  it('a site under one path of its host is registered for that path only; generic hosts get their own script', () => {
    const wanted = wantedRegistrations(optIn, new Set(['huggingchat']), new Set(['huggingchat']), ['https://chat.example.org/*']);
    expect(wanted).toEqual([
      { id: 'chatbridge-site-huggingchat', matches: huggingchat.matches },
      { id: 'chatbridge-generic', matches: ['https://chat.example.org/*'] },
    ]);
  });

  it('the sites in the manifest are never registered again', () => {
    for (const id of ['chatgpt', 'deepseek', 'claude', 'gemini']) expect(optIn.map((s) => s.id)).not.toContain(id);
    expect(optIn.length).toBe(SITES.length - STATIC_SITE_IDS.length);
  });

  it('changes: unchanged registrations stay, changed ones are replaced, others are left alone', () => {
    const current = [
      { id: 'chatbridge-site-claude', matches: ['https://claude.ai/*'] },
      { id: 'chatbridge-site-kimi', matches: ['https://kimi.moonshot.cn/*'] },
      { id: 'chatbridge-site-grok', matches: ['https://grok.com/*'] },
      { id: 'someone-else', matches: ['https://example.com/*'] },
    ];
    const wanted = [
      { id: 'chatbridge-site-claude', matches: ['https://claude.ai/*'] },
      { id: 'chatbridge-site-kimi', matches: kimi.matches },
      { id: 'chatbridge-generic', matches: ['https://chat.example.org/*'] },
    ];
    expect(registrationChanges(current, wanted)).toEqual({
      unregister: ['chatbridge-site-kimi', 'chatbridge-site-grok'],
      register: [wanted[1], wanted[2]],
    });
    expect(registrationChanges(wanted, wanted)).toEqual({ unregister: [], register: [] });
  });
});

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('enabling and disabling a site (one click in the popup)', () => {
  // One background for the file, as in the browser: it watches settings and permissions from here on.
  let started = false;
  beforeEach(() => {
    fake.reset();
    if (!started) startSiteScripts();
    started = true;
  });

  it('an opt-in site asks for its hosts, registers its script and reaches the tabs already open there', async () => {
    fake.tabs.push({ id: 1, url: 'https://chat.mistral.ai/chat/5d2c9a1e-7b3f-4e8a-9c01-23456789abcd', started: false });
    fake.tabs.push({ id: 2, url: 'https://chat.mistral.ai/chat', started: true });
    fake.tabs.push({ id: 3, url: 'https://example.com/', started: false });
    expect(await enableSite('mistral')).toBe(true);
    expect(fake.prompts).toEqual([['https://chat.mistral.ai/*']]);
    await until(() => fake.registered.has('chatbridge-site-mistral'), 'the registration');
    expect(fake.registered.get('chatbridge-site-mistral')).toMatchObject({ matches: ['https://chat.mistral.ai/*'], js: ['content-scripts/content.js'] });
    await until(() => fake.injected.length > 0, 'the injection');
    // Only the open tab without the script gets it; a tab where it runs already is left alone.
    expect(fake.injected).toEqual([{ tabId: 1, files: ['/content-scripts/content.js'] }]);
    expect(await siteAccess('mistral')).toEqual({ enabled: true, granted: true, optIn: true });
  });

  it('a refused permission leaves the site off and registers nothing', async () => {
    fake.prompt.next = false;
    expect(await enableSite('kimi')).toBe(false);
    expect(await siteAccess('kimi')).toEqual({ enabled: false, granted: false, optIn: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.registered.size).toBe(0);
  });

  it('the prompt outliving the popup (Firefox closes it): the wish is kept and the grant finishes the job', async () => {
    fake.prompt.next = 'never';
    void enableSite('grok');
    await until(() => fake.data.get('site.grok.enabled') === true, 'the stored wish');
    expect(fake.registered.size).toBe(0);
    fake.granted.add('https://grok.com/*');
    fake.permissionAdded.emit({ origins: ['https://grok.com/*'] });
    await until(() => fake.registered.has('chatbridge-site-grok'), 'the registration after the grant');
  });

  it('disabling gives the permission back and unregisters the script', async () => {
    expect(await enableSite('huggingchat')).toBe(true);
    await until(() => fake.registered.has('chatbridge-site-huggingchat'), 'the registration');
    expect(fake.registered.get('chatbridge-site-huggingchat')!.matches).toEqual(['https://huggingface.co/chat*']);
    await disableSite('huggingchat');
    expect(fake.granted.has('https://huggingface.co/*')).toBe(false);
    await until(() => !fake.registered.has('chatbridge-site-huggingchat'), 'the unregistration');
    expect(await siteAccess('huggingchat')).toEqual({ enabled: false, granted: false, optIn: true });
  });

  it('a site in the manifest is switched without any prompt', async () => {
    expect(await enableSite('deepseek')).toBe(true);
    await disableSite('chatgpt');
    expect(fake.prompts).toEqual([]);
    expect(await siteAccess('chatgpt')).toEqual({ enabled: false, granted: true, optIn: false });
  });

  it('an unknown site id is refused with a message naming it', async () => {
    await expect(enableSite('evil')).rejects.toThrow(/"evil" is not a site chatbridge knows/);
  });
});
