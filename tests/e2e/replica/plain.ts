/** The plain chat page with a textarea composer (plain-page.ts). */
import { startPlainPage } from './plain-page';

startPlainPage('plain');
