import type { Block, BlockKind } from './types';
import type { Fence } from './markdown';

/**
 * One block protocol. `find` gets the message's markdown and its fences (scanned once for all protocols) and
 * returns that protocol's blocks; it must not throw and must run in time linear in the text.
 */
export interface Protocol {
  kind: BlockKind;
  find(markdown: string, fences: readonly Fence[]): Block[];
  /**
   * What a message needs before `find` can report anything: a fence carrying one of `labels` (lower case, the
   * first word of its info string) or one of `markers` in its text. Scanners use it to skip messages cheaply;
   * `find` returning a block for a text that has neither is a bug the property tests look for.
   */
  hints: { labels: readonly string[]; markers: readonly string[] };
}

export function defineProtocol(protocol: Protocol): Protocol {
  return protocol;
}

/**
 * The most blocks a JSON protocol parses in one message; later ones are not reported. Seeds 000–002 allow one
 * call per reply, so this only bounds the work an adversarial message can cause (see json.ts). Counting in
 * text order keeps it stable while a reply streams in.
 */
export const MAX_JSON_BLOCKS = 32;
