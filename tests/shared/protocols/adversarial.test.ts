import { describe, expect, it } from 'vitest';
import { findBlocks, type Block } from '../../../shared/protocols';

/**
 * Inputs built to make a naive parser slow or crash: long fence runs, openers without closers (a closer
 * search from each opener is quadratic), deep nesting (recursive parsers overflow), and many blocks whose
 * JSON only the repair library could fix (its cost grows with the square of the text). Each is ~1 MB and
 * must parse without throwing "well under a second"; the bound here is generous for slow machines, and counts the
 * process's CPU time, not the wall clock, so a machine busy with other work does not go over it (seen: 5.6 s of wall
 * time on the busiest of these inputs at a load of 20). How the time grows with the input is tests/fuzz/linear-time.test.ts.
 */

const MB = 1 << 20;
const BOUND_MS = 1_500;

function fill(unit: string): string {
  return unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB);
}

const ATTACKS: Record<string, string> = {
  'one line of a million backticks': '`'.repeat(MB),
  'one line of a million tildes': '~'.repeat(MB),
  'a million-character info string': '```' + 'a'.repeat(MB),
  'fence lines opening and closing': fill('```\n'),
  'fence lines of growing length': Array.from({ length: 1_400 }, (_, i) => '`'.repeat(i + 3)).join('\n'),
  'tilde fences nested by length': fill('~~~~~~\n~~~~~\n~~~~\n'),
  'autocoder openers without a closer': fill('#####--'),
  'autocoder openers then one closer at the end': fill('#####-- x ').slice(0, MB - 7) + '--#####',
  'autocoder empty pairs': fill('#####----#####'),
  'autocoder pairs that are not JSON': fill('#####--f--#####'),
  'deeply nested braces in a plan': '#####--' + '{'.repeat(MB) + '--#####',
  'deeply nested arrays in an mcp-request': '```mcp-request\n' + '['.repeat(MB) + '\n```',
  'deeply nested objects in a flycode-call': '```flycode-call\n' + '{"a":'.repeat(MB / 5) + '\n```',
  'mcp-requests needing the repair library': fill('```mcp-request\n[' + "{a:'b'} ".repeat(500) + ']\n```\n'),
  'flycode-calls needing the repair library': fill('```flycode-call\n{' + "k: 'v' ".repeat(580) + '}\n```\n'),
  'plans needing the repair library': fill("#####--[" + "'a' ".repeat(1000) + ']--#####'),
  'all three JSON kinds needing the library': fill(
    '```mcp-request\n[' + "{a:'b'} ".repeat(500) + ']\n```\n```flycode-call\n[' + "{a:'b'} ".repeat(500) +
      ']\n```\n#####--[' + "{a:'b'} ".repeat(500) + ']--#####\n',
  ),
  'missing commas everywhere': '#####--{' + '"a":1 '.repeat(MB / 6) + '}--#####',
  'unterminated string': '#####--{"a": "' + 'x'.repeat(MB) + '--#####',
  'quotes only': '#####--' + '"'.repeat(MB) + '--#####',
  'hash comments on every line': '#####--{' + '"a":1 #c\n'.repeat(MB / 9) + '}--#####',
  'many axon statements': fill('~~~~~act\nwrite_file\n~~~~~\n~~~~~path\na\n~~~~~\n~~~~~text\nb\n~~~~~\n'),
  'axon acts that never get parameters': fill('~~~~~act\nreplace\n~~~~~\n'),
  'CRLF only': fill('\r\n'),
  'lone carriage returns': fill('\r'),
  'spaces only': ' '.repeat(MB),
};

describe('findBlocks on adversarial 1 MB inputs', () => {
  it.each(Object.entries(ATTACKS))('%s', (_name, markdown) => {
    const started = process.cpuUsage();
    let blocks: Block[] = [];
    expect(() => {
      blocks = findBlocks(markdown);
    }).not.toThrow();
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(BOUND_MS);
    for (const block of blocks.slice(0, 100)) expect(block.raw).toBe(markdown.slice(block.start, block.end));
  });
});
