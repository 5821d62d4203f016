import type { Block, BlockKind } from './types';

/**
 * A block a reply shows as an example before its own call: models that explain the format write one first ("For
 * instance, you could write:", "例如，你可以这样写：") and the call they mean after it, of the same kind. Run as well,
 * the example read or wrote the placeholder path it names (`/abs/path`, `example.txt`), and for an auto_coder plan it
 * took the place of the reply's plan, seed 002 running only the first. A block is such an example when the prose line
 * right before it (blank lines between are fine; for a block inside a code block, the line before that code block)
 * starts with a word that gives an example or says the block is how one could write it, and ends with a colon; and a
 * block of its kind comes after it. Alone in its reply it is the call: "For example, let me read the README:" is how
 * some models start one.
 */

/**
 * Words an example's introduction starts with, after list markers and emphasis: in English and Chinese, and in the
 * languages a person may write to a model given a Chinese or English prompt, which it answers in (Japanese, Korean,
 * Spanish, Portuguese, French, German, Russian).
 */
const EXAMPLE_START = new RegExp(
  '^(?:' +
    [
      String.raw`for example|for instance|e\.g\.|example\b|an example\b|as an example\b|here is an example\b|here's an example\b|here’s an example\b`,
      '例如|比如|譬如|举例|举个例子|示例|例子|样例|范例|打个比方|例(?=[:：])',
      '例えば|たとえば|例として|例を挙げると',
      '예를 들어|예를 들면|예시|예(?=[:：])',
      String.raw`por ejemplo|un ejemplo\b|ejemplo\b|por exemplo|um exemplo\b|exemplo\b`,
      String.raw`par exemple|un exemple\b|voici un exemple\b|exemple\b`,
      String.raw`zum beispiel|z\. ?b\.|ein beispiel|hier ist ein beispiel|beispiel`,
      'например|вот пример|пример(?![а-яё])',
    ].join('|') +
    ')',
  'i',
);

/** Words anywhere in the line that say the block is how one could write it, not what the reply does. */
const EXAMPLE_SAYS = new RegExp(
  [
    String.raw`\b(?:could|would|might) (?:write|look like|be written)\b`,
    '可以这样写|可以写成|会这样写|格式如下|格式为|写法如下|看起来像',
    'のように書け|のように書き|と書け|と書きます',
    '처럼 쓸 수|같이 쓸 수|같이 작성할 수|처럼 작성할 수',
    String.raw`\b(?:podrías|podría|podrían|poderia|poderias|pourriez|pourrais|pourrait) (?:escribir|escrever|écrire)`,
    String.raw`\b(?:könnten?|könntest) (?:sie |du )?(?:so )?schreiben`,
    'можно написать|могли бы написать',
  ].join('|'),
  'i',
);

/** A fence's opening line: the block starts in the code block it opens. */
const FENCE_OPENING = /^ {0,3}(?:`{3,}[^`]*|~{3,}.*)$/;

/** The line of `markdown` that ends right before `end` (a line break at `end`), and where it starts. */
function lineBefore(markdown: string, end: number): { text: string; start: number } {
  // lastIndexOf takes a negative position for 0: a text starting with a line break would give the first line again
  const start = end === 0 ? 0 : markdown.lastIndexOf('\n', end - 1) + 1;
  return { text: markdown.slice(start, end).replace(/\r$/, ''), start };
}

/** The prose line that introduces the block at `at`, if any (see above). */
function introductionOf(markdown: string, at: number): string | undefined {
  let { text, start } = lineBefore(markdown, at);
  if (text.trim() !== '') return FENCE_OPENING.test(text) ? undefined : text;
  // a block that starts inside a code block (a <function_calls> in ```xml) is introduced before that code block
  let fenceToSkip = !/^[`~]{3}/.test(markdown.slice(at, at + 3));
  while (start > 0) {
    ({ text, start } = lineBefore(markdown, start - 1));
    if (text.trim() === '') {
      fenceToSkip = false;
      continue;
    }
    if (fenceToSkip && FENCE_OPENING.test(text)) {
      fenceToSkip = false;
      continue;
    }
    return text;
  }
  return undefined;
}

/** Whether the block at `at` is introduced as an example (the words, not whether a block of its kind follows). */
export function introducedAsExample(markdown: string, at: number): boolean {
  const line = introductionOf(markdown, at);
  if (line === undefined) return false;
  const words = line
    .trim()
    .replace(/^(?:>\s*)*(?:[-*+]\s+|\d+[.)]\s+)?/, '')
    .replace(/[*_]+/g, '')
    .replace(/`+$/, '')
    .trim();
  if (!/[:：]$/.test(words)) return false;
  return EXAMPLE_START.test(words) || EXAMPLE_SAYS.test(words);
}

/**
 * The blocks less those a reply shows as examples before a block of their kind (see above). auto_coder plans are left
 * to their protocol, which reads the example before choosing the reply's one plan (shared/protocols/autocoder.ts).
 */
export function withoutExamples(blocks: Block[], markdown: string): Block[] {
  if (blocks.length < 2) return blocks;
  const lastStart = new Map<BlockKind, number>();
  for (const block of blocks) lastStart.set(block.kind, Math.max(lastStart.get(block.kind) ?? -1, block.start));
  const examples = blocks.filter(
    (block) =>
      block.kind !== 'autocoder' &&
      block.notRead === undefined &&
      (lastStart.get(block.kind) ?? -1) >= block.end &&
      introducedAsExample(markdown, block.start),
  );
  return examples.length === 0 ? blocks : blocks.filter((block) => !examples.includes(block));
}
