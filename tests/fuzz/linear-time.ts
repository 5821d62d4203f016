import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { findBlocks } from '../../shared/protocols';
import { fencedText, markerText } from './arbitraries';

/*
 * findBlocks must stay linear on adversarial input: the extension re-scans a growing reply on every streamed
 * token. Time is compared between an input and the same input eight times longer — never against a clock
 * budget. Linear work grows ×8, quadratic ×64; the bound sits at ×32.
 *
 * Noise, measured on a loaded two-core machine: wall time of the same call varied 5×, so this counts the
 * process's CPU time and takes the fastest of several alternating runs per size. The garbage a previous run
 * left in the young generation made the same linear work measure ×6 to ×22 for ×8 the input; a minor collection
 * before each run brings that to ×6–×10. Larger inputs (a few hundred thousand characters) keep thousands of
 * blocks alive through many scavenges and look ×4–×8 per doubling, so the sizes stay below: 25 000 → 200 000.
 */

type MinorCollection = () => void;

/**
 * A minor collection, when the runtime lets us have one: `gc` is exposed by a V8 flag, which can be set at run
 * time and read from a fresh context. Without it the measure is only noisier.
 */
function loadMinorCollection(): MinorCollection {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    if (typeof gc === 'function') return () => (gc as (options: object) => void)({ type: 'minor' });
  } catch {
    // fall through: no collection between runs
  }
  return () => undefined;
}

let minorCollection: MinorCollection | undefined;

export const GROWTH = 8;
/** Largest time ratio accepted between the GROWTH× input and the 1× input. */
export const MAX_RATIO = 32;

export interface GrowthCase {
  name: string;
  /** The input at about `size` characters. */
  build(size: number): string;
}

function repeatTo(unit: string, size: number): string {
  if (unit === '') return '';
  return unit.repeat(Math.max(1, Math.ceil(size / unit.length))).slice(0, size);
}

/** [name, opening text, unit repeated after it, closing text] */
const ADVERSARIAL_UNITS: Array<[string, string, string, string?]> = [
  ['a run of backticks with no line break', '', '`'],
  ['tilde fences that never close', '', '~~~~~act\n'],
  ['#####-- openers without a closer', '', '#####--{"type":"operate",'],
  ['#####-- openers with one closer at the very end', '', '#####--{"type":"operate",', '\n--#####'],
  ['many complete auto_coder plans', '', '#####--{"type":"operate"}--#####\n'],
  ['auto_coder plans in inline code after words, ending their lines', '', 'x `#####--{"type":"operate"}--#####`\n'],
  ['--##### closers without an opener', '', '--#####\n'],
  ['deeply nested braces in an unclosed mcp-request', '```mcp-request\n', '{"a":['],
  ['deeply nested braces in a closed mcp-request (JSON repair)', '```mcp-request\n', '{"a":[', '\n```\n'],
  ['deeply nested braces in an autocoder plan (JSON repair)', '#####--\n', '{"a":[', '\n--#####\n'],
  ['many small broken JSON blocks', '', '```flycode-call\n{"id":"c","tool":"fs.read","args":{"path":"a"\n```\n'],
  ['act blocks with no parameters', '', '~~~act\nwrite_file\n~~~\n'],
  ['act blocks with a parameter each', '', '```act\nwrite_file\n```\n```path\na\n```\n'],
  ['mcp-request fences closed by a shorter run', '', '````mcp-request\n{"jsonrpc":"2.0",\n```\n'],
  ['CRLF fences alternating with text', '', '```\r\nx\r\n```\r\n'],
  ['<function_calls> openers without a closer', '', '<function_calls>\n<invoke name="a">\n'],
  ['<function_calls> openers with one closer at the very end', '', '<function_calls><invoke name="a"><parameter name="p">x', '</function_calls>'],
  ['<invoke and <parameter tags that never end', '<function_calls>\n', '<invoke <parameter ', '</function_calls>'],
  ['many complete <function_calls> blocks', '', '<function_calls><invoke name="a"><parameter name="p">x</parameter></invoke></function_calls>\n'],
  ['JSON-line calls that never end', '', '{"type": "function_call_start", "name": "a"}\n{"type": "parameter", "key": "p", "value": 1}\n'],
  ['<function_result> openers without a closer, each before a call', '', '<function_result name="a">\n<function_calls><invoke name="a"></invoke></function_calls>\n'],
  ['<function_result> openers with one closer at the very end', '', '<function_result name="a">\n<function_calls><invoke name="a"></invoke></function_calls>\n', '</function_result>\n'],
  ['<function_result> openers in code blocks, no closer', '', '```xml\n<function_result name="a">\n<function_calls><invoke name="a"></invoke></function_calls>\n```\n'],
  ['many quoted results, each holding a call', '', '```flycode-result\n[data]\n#####--{"type":"operate"}--#####\n```\n<function_result name="a">\n<function_calls><invoke name="a"></invoke></function_calls>\n</function_result>\n'],
  ['<invoke tags without a wrapper that never end, one closer at the very end', '', '<invoke x ', '></invoke>'],
  ['<invoke tags without a wrapper, one closer at the very end', '', '<invoke name="a"><parameter name="p">x', '</invoke>'],
  ['many complete <invoke> calls without a wrapper', '', '<invoke name="a"><parameter name="p">x</parameter></invoke>\n'],
  ['quoted act blocks with a parameter each', '', '> ~~~~~act\n> write_file\n> ~~~~~\n> ~~~~~path\n> a\n> ~~~~~\n>\n'],
  ['a quoted act fence that never closes', '> ~~~~~act\n', '> x\n'],
  ['JSON-line calls inside an XML block', '<function_calls><invoke name="a"><parameter name="p">', '{"type": "function_call_start", "name": "a"}\n{"type": "function_call_end"}\n', '</parameter></invoke></function_calls>'],
];

function growingBackticks(size: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let n = 3; length < size; n = n >= 200 ? 3 : n + 1) {
    const line = `${'`'.repeat(n)}mcp-request\n{"jsonrpc":\n`;
    lines.push(line);
    length += line.length;
  }
  return lines.join('').slice(0, size);
}

/** The adversarial shapes plus `samples` random texts from the given seed, each repeated to the wanted size. */
export function growthCases(seed: number, samples = 2): GrowthCase[] {
  const cases: GrowthCase[] = [
    { name: 'backtick runs of growing length, one per line', build: growingBackticks },
    ...ADVERSARIAL_UNITS.map(([name, opening, unit, closing = '']) => ({
      name,
      build: (size: number) => opening + repeatTo(unit, size - opening.length - closing.length) + closing,
    })),
  ];
  // Repeating a random reply repeats whatever blocks it opens and closes: many blocks, or one that never ends.
  const nonEmpty = (text: string) => text.length > 0;
  const random = fc.sample(fc.tuple(markerText(200).filter(nonEmpty), fencedText().filter(nonEmpty)), { seed, numRuns: samples });
  random.forEach(([marker, fenced], index) => {
    cases.push({ name: `random marker text #${index + 1} (seed ${seed})`, build: (size) => repeatTo(marker, size) });
    cases.push({ name: `random fence lines #${index + 1} (seed ${seed})`, build: (size) => repeatTo(fenced, size) });
  });
  return cases;
}

export interface Growth {
  name: string;
  smallMs: number;
  largeMs: number;
  ratio: number;
}

/** CPU milliseconds of one call: time the machine spent on other processes does not count. */
function timeOnce(scan: (text: string) => unknown, text: string): number {
  minorCollection ??= loadMinorCollection();
  minorCollection();
  const started = process.cpuUsage();
  scan(text);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/**
 * Times findBlocks at `size` and GROWTH × `size`, alternating the two so a busy phase of the machine hits both;
 * the ratio of the fastest runs.
 */
export function measureGrowth(
  growthCase: GrowthCase,
  size: number,
  scan: (text: string) => unknown = findBlocks,
  repeats = 7,
): Growth {
  const small = growthCase.build(size);
  const large = growthCase.build(size * GROWTH);
  scan(small);
  let smallMs = Infinity;
  let largeMs = Infinity;
  for (let i = 0; i < repeats; i++) {
    smallMs = Math.min(smallMs, timeOnce(scan, small));
    largeMs = Math.min(largeMs, timeOnce(scan, large));
  }
  // Below a quarter of a millisecond the clock and the JIT, not the parser, decide the ratio.
  return { name: growthCase.name, smallMs, largeMs, ratio: largeMs / Math.max(smallMs, 0.25) };
}

/**
 * The growth of one case, measured again when the first measure is over the bound: a collection pause can land
 * in every run of one size, a parser that is not linear is over the bound every time.
 */
export function growthWithinBound(growthCase: GrowthCase, size: number, scan: (text: string) => unknown = findBlocks): Growth {
  const first = measureGrowth(growthCase, size, scan);
  if (first.ratio <= MAX_RATIO) return first;
  const second = measureGrowth(growthCase, size, scan);
  return second.ratio < first.ratio ? second : first;
}
