import type { Block } from './types';
import { MAX_JSON_BLOCKS, defineProtocol } from './define-protocol';
import { parseJsonLenient } from './json';
import { cut, describeValue, isPlainObject } from './describe-value';

/**
 * auto_coder plans (seed 002, DESIGN §3.3): the text between `#####--` and the next `--#####`, wherever it is —
 * in prose or inside a code block of any label. The seed's executor reads them with
 * `re.search(r'#####--\s*(.*?)\s*--#####', text, re.DOTALL)`; this mirrors it: the first `--#####` after an
 * opener closes it, and the next candidate starts after that closer. An opener with no closer yet is an
 * incomplete block running to the end of the text (closers are searched once from each opener, and the scan
 * stops at the first opener without one, so the whole search is linear).
 *
 * Each candidate is reported as follows:
 * - the first candidate that parses as an object with `type` is the plan: payload = the plan; `error` when
 *   `type` is not operate / finish / check_program (the seed's own template literally says "operate/finish");
 * - a later plan: payload kept, `error` says it is ignored (seed 002 rule 9: one command per reply). Parsed
 *   alone (the companion re-parsing its raw text), it would be the first plan — the extension must not send
 *   blocks with an error;
 * - the executor's own messages are not plans and are skipped (no block): responses (an object with
 *   `file_actions` or `program_execs` and no `type`) and `program_runtime_feedback`. A model quoting them
 *   back must never make them runnable;
 * - anything else (not JSON, not an object, an object without `type`): a block with `error` and no payload.
 */

export const PLAN_TYPES = ['operate', 'finish', 'check_program'] as const;

/** The file actions of seed 002, in the seed's order. */
export const AUTOCODER_FILE_ACTIONS = [
  'create_file',
  'replace_file',
  'delete_file',
  'read_file',
  'create_directory',
  'delete_directory',
  'list_tree',
] as const;

const OPEN = '#####--';
const CLOSE = '--#####';

function isExecutorMessage(value: Record<string, unknown>): boolean {
  if (value.type === 'program_runtime_feedback') return true;
  return value.type === undefined && ('file_actions' in value || 'program_execs' in value);
}

export const autocoder = defineProtocol({
  kind: 'autocoder',
  hints: { labels: [], markers: [OPEN] },
  find(markdown) {
    const blocks: Block[] = [];
    let planSeen = false;
    let from = 0;
    for (let candidates = 0; candidates < MAX_JSON_BLOCKS; candidates++) {
      const start = markdown.indexOf(OPEN, from);
      if (start === -1) break;
      const close = markdown.indexOf(CLOSE, start + OPEN.length);
      if (close === -1) {
        blocks.push({
          kind: 'autocoder',
          complete: false,
          raw: markdown.slice(start),
          start,
          end: markdown.length,
        });
        break;
      }
      const end = close + CLOSE.length;
      from = end;
      const block: Block = { kind: 'autocoder', complete: true, raw: markdown.slice(start, end), start, end };
      const text = markdown.slice(start + OPEN.length, close).trim();
      const parsed = parseJsonLenient(text);
      if (!parsed.ok) {
        block.error =
          text === ''
            ? 'the #####-- --##### block is empty; it must hold one JSON plan object'
            : `the #####-- --##### block is not JSON: ${JSON.stringify(cut(text))} (${parsed.reason})`;
        blocks.push(block);
        continue;
      }
      const value = parsed.value;
      if (isPlainObject(value) && isExecutorMessage(value)) continue;
      if (parsed.repaired) block.repaired = true;
      if (!isPlainObject(value)) {
        block.error = `the #####-- --##### block must hold a JSON plan object, got ${describeValue(value)}`;
      } else if (value.type === undefined) {
        block.error = `the plan has no "type"; it must be one of ${PLAN_TYPES.join(' / ')}`;
      } else {
        block.payload = value;
        if (planSeen) {
          block.error =
            'ignored: only the first plan in a reply runs (seed 002: one #####--…--##### command per reply)';
        } else if (!(PLAN_TYPES as readonly unknown[]).includes(value.type)) {
          block.error = `plan type ${describeValue(value.type)} is not one of ${PLAN_TYPES.join(' / ')}`;
        }
        planSeen = true;
      }
      blocks.push(block);
    }
    return blocks;
  },
});
