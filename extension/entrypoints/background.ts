import { defineBackground } from 'wxt/utils/define-background';
import { startCompanionService } from '../companion/service';

export default defineBackground(() => {
  const handlers = startCompanionService();
  // The keyboard command's and the notification click's handlers, on the worker's global scope (service.ts says why).
  Object.assign(globalThis, { chatbridge: handlers });
});
