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
  // Drawn once the settings and the first answer are in (or after a moment), so nothing shifts as data arrives.
  const firstAnswer = Promise.race([live.refresh(), new Promise((resolve) => setTimeout(resolve, 400))]);
  let drawn = 0;
  // Drawn again (a new key: every part starts from the fresh settings) when a host was just enabled here.
  const draw = (deps: Awaited<ReturnType<typeof browserPopupDeps>>): void => {
    drawn += 1;
    render(<Popup key={drawn} live={live} deps={{ ...deps, refresh: () => void browserPopupDeps().then(draw) }} />, app);
  };
  void Promise.all([browserPopupDeps(), firstAnswer]).then(([deps]) => draw(deps));
}
