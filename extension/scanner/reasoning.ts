import type { Site } from '../sites/define-site';
import type { SerializedMessage } from './serialize';

/*
 * A site module tells a reply's reasoning ("thinking") from its answer by the site's class names and attributes,
 * which a redesign renames. Then the reasoning is read as answer, and a call the model only drafted in it would run.
 * What the sites draw around their reasoning, and a redesign keeps because the person still has to see it, is a
 * labelled toggle heading the section it folds ("Thought for 4s", "Thinking…", "Reasoning", "思考已完成", "已深度思考"):
 * a button, a <summary>, an aria-expanded control or a short header row. A code block read as answer inside the
 * section such a label heads is in a region the module cannot place, and none of that reply's blocks runs by itself
 * (its chips and the site doctor say why). Yuanbao draws no label in its saved pages: its module places its own
 * (Site.unplacedRegion).
 */

// 2026-11: the labels of the reasoning toggles in the saved pages and SITES.md / SITES-MORE.md (DeepSeek, Kimi, Z.ai,
// Qwen, Doubao, Gemini, Claude, ChatGPT, Grok, Copilot, T3 Chat), with their durations and states.
const REASONING_LABEL = new RegExp(
  [
    String.raw`^(?:(?:show|hide) )?(?:thinking|reasoning)(?: process)?(?:…|\.\.\.)?$`,
    String.raw`^(?:thoughts|thought process|think deeper|thinking complete[d]?)$`,
    String.raw`^(?:thought|reasoned) for [\d.,]+ ?(?:s|sec|secs|seconds?|m|min|minutes?)$`,
    String.raw`^(?:已?深度思考(?:中|完成)?|思考(?:中|已完成|完成|过程)|已(?:完成)?思考)(?:…|\.\.\.)?(?:[（(].{0,20}[)）])?$`,
    String.raw`^(?:已?思考了?|用时) ?[\d.]+ ?秒$`,
  ].join('|'),
  'i',
);
// Prose of a reply: a paragraph that happens to say "Thinking…" heads nothing.
const PROSE = 'p, li, h1, h2, h3, h4, h5, h6, blockquote, td, th';
const LABEL_MAX_CHARS = 40;

/**
 * The label of the reasoning section that holds a code block this serialization reads as answer, or null when every
 * block read sits outside any such section (the module placed the reasoning: it left it out).
 */
export function unplacedReasoningLabel(msg: Element, serialized: SerializedMessage, site: Pick<Site, 'codeBlockSelector'>): string | null {
  const read = serialized.segments.filter((segment) => segment.code).map((segment) => segment.el);
  if (read.length === 0) return null;
  for (const label of reasoningLabels(msg, site)) {
    const section = sectionOf(label, msg);
    if (section && read.some((code) => section.contains(code))) return label.textContent?.trim() ?? '';
  }
  return null;
}

/**
 * Short elements, outside code blocks and prose, whose whole text is a reasoning label: found from the text nodes (a
 * reply's elements are many, its short texts few), the innermost element holding each label.
 */
function reasoningLabels(msg: Element, site: Pick<Site, 'codeBlockSelector'>): Element[] {
  const labels = new Set<Element>();
  const walker = msg.ownerDocument.createTreeWalker(msg, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if ((node.nodeValue ?? '').trim().length > LABEL_MAX_CHARS) continue;
    for (let el = node.parentElement; el && el !== msg; el = el.parentElement) {
      const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ');
      if (text.length > LABEL_MAX_CHARS) break;
      if (!REASONING_LABEL.test(text)) continue;
      if (!el.closest(site.codeBlockSelector) && !el.closest(PROSE)) labels.add(el);
      break;
    }
  }
  return [...labels];
}

/**
 * The section a label heads: its nearest wrapper inside the message holding more than the label (the toggle with the
 * body it folds), when the label comes first in it. The message itself is no section: a label heading the whole reply
 * is not told from a word in its answer.
 */
function sectionOf(label: Element, msg: Element): Element | null {
  const text = (label.textContent ?? '').trim();
  for (let el = label.parentElement; el && el !== msg && msg.contains(el); el = el.parentElement) {
    if ((el.textContent ?? '').trim() === text) continue;
    return (el.textContent ?? '').trim().startsWith(text) ? el : null;
  }
  return null;
}
