import { render } from 'preact';
import '../../ui/styles.css';
import { companionUrl } from '../../settings';
import { uiLanguage } from '../../ui/i18n';
import { OptionsView } from '../../ui/options';
import { siteEntries, siteStore } from '../../ui/site-store';

document.documentElement.lang = uiLanguage() === 'zh' ? 'zh-CN' : 'en';
const app = document.getElementById('app');
if (app) {
  void Promise.all([siteEntries().then(siteStore), companionUrl.getValue()]).then(([store, url]) =>
    render(<OptionsView store={store} companionUrl={url} saveUrl={(value) => companionUrl.setValue(value)} />, app),
  );
}
