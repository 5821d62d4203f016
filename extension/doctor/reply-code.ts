import { findBlocks } from '../../shared/protocols';
import { HIDDEN_LABEL } from '../../shared/protocols/json-fence';
import { AXON_ARITY, type AxonAct } from '../../shared/protocols/axon';
import type { DoctorProblem } from '../companion/badge';
import { outermost, type Site } from '../sites/define-site';
import { t, tn } from '../ui/i18n';
import { drawnCode, insideAnswer, problemFor, safe, unrecognizedCode } from './report';

/**
 * What the site doctor says about a reply's code once the reply finished (content/page-doctor.ts). Apart from the
 * report (report.ts), which the popup and the background load too: reading a block as a call takes the protocol
 * parsers, which only the content script carries.
 */

/**
 * Why a reply that finished has code chatbridge cannot read, or null when it has none: its answer was not found
 * though the message has code, a block the site shows only in part, or code the module's code block selector does
 * not match (the site changed its code block markup).
 */
export function replyCodeProblem(site: Site, message: Element, blocks: Array<{ unreadable?: string | undefined }>): DoctorProblem | null {
  const answer = site.answerRoot(message);
  if (!answer) return drawnCode(message).length > 0 ? problemFor('code-unreadable', t('doctor.detailNoAnswer')) : null;
  const partial = blocks.find((b) => b.unreadable)?.unreadable;
  if (partial) return problemFor('code-unreadable', partial);
  const unknown = unrecognizedCode(site, answer);
  if (unknown > 0) return problemFor('code-unreadable', tn('doctor.detailCodeMarkup', unknown));
  const unlabelled = unlabelledCalls(site, answer);
  if (unlabelled > 0) return problemFor('code-unreadable', tn('doctor.detailNoLabel', unlabelled));
  return null;
}

const HIDDEN_LABEL_FENCE = `\`\`\`${HIDDEN_LABEL}`;

/** The kinds a code block is only by its language label: one JSON call in a fence labelled with the kind. */
const LABELLED_KINDS = ['mcp-request', 'flycode-call'] as const;

/**
 * How many of an answer's code blocks show no language label the module reads while their code is a call of a kind
 * known only by that label: the site changed how it labels code, and every such call is read as plain code (nothing
 * runs, no Run is offered). A block the model wrote without a language holds no such call. An Axon statement is
 * known by its act fence's label (`act`): a block holding only an act's name, followed by as many blocks as the act
 * takes parameters, the first of them unlabelled too, is such a fence with its label gone.
 */
export function unlabelledCalls(site: Site, answer: Element): number {
  const blocks = outermost(Array.from(answer.querySelectorAll(site.codeBlockSelector))).filter((el) => !insideAnswer(el, answer, site.skipSelector));
  return blocks.filter((el, index) => {
    if (safe(() => site.codeLanguage(el), '').trim() !== '') return false;
    const text = safe(() => site.codeText(el).text, '');
    const act = text.trim();
    if (Object.hasOwn(AXON_ARITY, act)) {
      // where the module knows its page hides labels, the statement is read so and offered with Run: no fault
      if (safe(() => site.labelHidden?.(el) === true, false)) return false;
      // Its first parameter's fence is labelled with no language (`path`, `list`) and loses its label with the act's: a
      // label read there (a tool named in a plain block, its JSON examples after it) means the site shows labels.
      const next = blocks[index + 1];
      return blocks.length - 1 - index >= AXON_ARITY[act as AxonAct].length && next !== undefined && safe(() => site.codeLanguage(next), '').trim() === '';
    }
    // where the module knows its page hides labels, such a call is offered with Run (Site.labelHidden): no fault
    if (safe(() => site.labelHidden?.(el) === true, false) && findBlocks(`${HIDDEN_LABEL_FENCE}\n${text}\n\`\`\``).some((b) => b.labelHidden === true)) {
      return false;
    }
    return LABELLED_KINDS.some((kind) => findBlocks(`\`\`\`${kind}\n${text}\n\`\`\``, kind).some((b) => b.payload !== undefined && b.error === undefined));
  }).length;
}
