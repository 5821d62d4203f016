/** The plain chat page with a contenteditable composer (plain-page.ts). */
import { startPlainPage } from './plain-page';

startPlainPage('editable');
