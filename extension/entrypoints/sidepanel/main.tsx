import { render } from 'preact';
import '../../ui/styles.css';
import { uiLanguage } from '../../ui/i18n';
import { browserSource, createLive } from '../../ui/live';
import { SidePanel } from '../../ui/side-panel';

document.documentElement.lang = uiLanguage() === 'zh' ? 'zh-CN' : 'en';
const app = document.getElementById('app');
if (app) render(<SidePanel live={createLive(browserSource, ['approvals', 'grants', 'programs', 'runs', 'journal', 'audit'])} />, app);
