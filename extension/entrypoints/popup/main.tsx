import { render } from 'preact';
import '../../ui/styles.css';
import { uiLanguage } from '../../ui/i18n';
import { browserSource, createLive } from '../../ui/live';
import { Popup } from '../../ui/popup';
import { browserPopupDeps } from '../../ui/popup-browser';

document.documentElement.lang = uiLanguage() === 'zh' ? 'zh-CN' : 'en';
const app = document.getElementById('app');
if (app) {
  const live = createLive(browserSource, ['approvals']);
  void browserPopupDeps().then((deps) => render(<Popup live={live} deps={deps} />, app));
}
