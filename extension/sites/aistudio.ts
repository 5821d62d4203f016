import { t } from '../ui/i18n';
import {
  commonAncestor,
  defineSite,
  firstMatch,
  isButtonDisabled,
  languageClassOf,
  outermost,
  positionKey,
  preCodeText,
  type MessageRole,
} from './define-site';

/*
 * DOM contract. Researched 2026-11 from other projects' adapters (SITES-MORE.md: CodeWebChat `chatbots/ai-studio.ts`
 * 2026-08 (composer, thumb_up footer), MCP-SuperAssistant render config comments (turn and chunk elements, reworked
 * 2025-12-25), OneClickPrompts (run button, 2025-11); code-index ids 37165291856 (CodeWebChat 2025), 54693025668,
 * 17782015788 (ms-code-block as an expansion panel)). Confidence: medium.
 *
 *   turn       ms-chat-turn > .chat-turn-container.user | .chat-turn-container.model, also
 *              div.virtual-scroll-container[data-turn-role="User"|"Model"]; long chats lazy-load turns (placeholders)
 *   answer     the turn's chunks (ms-prompt-chunk / ms-text-chunk / ms-cmark-node.cmark-node / ms-code-block) outside
 *              the reasoning: their nearest common ancestor
 *   thinking   ms-thought-chunk (a collapsible expansion panel) — never read
 *   code       ms-code-block > mat-expansion-panel: mat-expansion-panel-header[aria-expanded] (language in
 *              .code-header .language or a data-test-language attribute) + .mat-expansion-panel-body pre > code.
 *              A collapsed panel may not render its body: then the block is marked unreadable (partial)
 *   composer   Angular-forms textarea[formcontrolname="promptText"] (2026-08), ms-autosize-textarea textarea (2025)
 *              — a plain .value + input event is accepted
 *   send       ms-run-button button[type="submit"] / button[aria-label="Run"]; the same button says "Stop" while a
 *              reply runs (aria-label "Stop generating", uncertain)
 *   url        /prompts/new_chat → /prompts/<id>
 *   keys       no message ids known: position among turns
 */

const THINKING_SELECTOR = 'ms-thought-chunk, [class*="thought" i]';
const ANSWER_PART_SELECTOR = 'ms-prompt-chunk, ms-text-chunk, ms-cmark-node, ms-code-block';
const STOP_SELECTORS = ['button[aria-label="Stop generating"]', 'ms-run-button button[aria-label*="Stop" i]', 'ms-run-button button.stoppable'];

function roleOf(el: Element): MessageRole | null {
  const container = el.querySelector('.chat-turn-container, [data-turn-role]') ?? el;
  const role = `${container.className} ${container.getAttribute('data-turn-role') ?? ''}`.toLowerCase();
  if (/\buser\b/.test(role)) return 'user';
  if (/\bmodel\b/.test(role)) return 'assistant';
  return null;
}

function answerRoot(msg: Element): Element | null {
  const parts = outermost(Array.from(msg.querySelectorAll(ANSWER_PART_SELECTOR)).filter((part) => !part.closest(THINKING_SELECTOR)));
  return parts.length > 0 ? commonAncestor(parts, msg) : null;
}

/** The run button while it is a stop button (by its label or its text). */
function stopButton(doc: Document): HTMLElement | null {
  const labelled = firstMatch(doc, STOP_SELECTORS);
  if (labelled) return labelled;
  const run = doc.querySelector<HTMLElement>('ms-run-button button');
  return run && /^\s*stop\b/i.test(run.textContent ?? '') ? run : null;
}

export const aistudio = defineSite({
  id: 'aistudio',
  name: 'Google AI Studio',
  hosts: ['aistudio.google.com'],
  editorFamily: 'textarea',
  messageSelector: 'ms-chat-turn',
  roleOf,
  answerRoot,
  skipSelector: `[data-chatbridge-chip], [data-chatbridge-indicator], button, mat-icon, .cdk-visually-hidden, .turn-footer, .actions-container, ${THINKING_SELECTOR}`,
  codeBlockSelector: 'ms-code-block, pre',
  codeLanguage(codeEl) {
    const attribute = codeEl.closest('[data-test-language]') ?? codeEl.querySelector('[data-test-language]');
    const named = attribute?.getAttribute('data-test-language')?.trim() || codeEl.querySelector('.code-header .language')?.textContent?.trim();
    return named ? (named.split(/\s+/)[0] ?? '') : languageClassOf(codeEl);
  },
  codeText(codeEl) {
    const collapsed = codeEl.querySelector('mat-expansion-panel-header[aria-expanded="false"]');
    if (collapsed && !codeEl.querySelector('pre')) return { text: '', partial: t('reason.collapsed') };
    return preCodeText(codeEl.querySelector('.mat-expansion-panel-body') ?? codeEl);
  },
  editor(doc) {
    return firstMatch(doc, [
      'textarea[formcontrolname="promptText"]',
      'ms-autosize-textarea textarea',
      'ms-prompt-input-wrapper textarea',
      'ms-chunk-input textarea',
    ]);
  },
  sendButton(doc) {
    return firstMatch(doc, ['ms-run-button button[type="submit"]', 'ms-run-button button', 'button[aria-label="Run"]']);
  },
  isSendDisabled(button) {
    return isButtonDisabled(button) || /stop/i.test(`${button.getAttribute('aria-label') ?? ''} ${button.textContent ?? ''}`);
  },
  isGenerating(doc) {
    return stopButton(doc) !== null;
  },
  stopControl: stopButton,
  conversationId(location) {
    const match = location.pathname.match(/^\/prompts\/([A-Za-z0-9_-]{8,80})(?:\/|$)/);
    return match?.[1] && match[1] !== 'new_chat' ? match[1] : null;
  },
  messageKey: (_msg, position) => positionKey(position),
  feedbackIntervalMs: 10_000,
});
