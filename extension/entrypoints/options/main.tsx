import { render } from 'preact';
import '../../ui/styles.css';
import { companionUrl, readSiteSettings } from '../../settings';
import { uiLanguage } from '../../ui/i18n';
import { OptionsView } from '../../ui/options';
import { siteEntries, writeSiteSetting } from '../../ui/popup-browser';

document.documentElement.lang = uiLanguage() === 'zh' ? 'zh-CN' : 'en';
const app = document.getElementById('app');
if (app) {
  void Promise.all([siteEntries(), companionUrl.getValue()]).then(([sites, url]) =>
    render(
      <OptionsView store={{ sites, readSite: readSiteSettings, writeSite: writeSiteSetting }} companionUrl={url} saveUrl={(value) => companionUrl.setValue(value)} />,
      app,
    ),
  );
}
