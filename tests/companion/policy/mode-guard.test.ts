import { describe, expect, it } from 'vitest';
import { assertNoPrivilegeBits, assertSingleLink } from '../../../companion/policy/mode-guard';

const file = (nlink: number) => ({ nlink, isDirectory: () => false });
const dir = (nlink: number) => ({ nlink, isDirectory: () => true });

describe('mode-guard (pure)', () => {
  it.each([0o755, 0o644, 0o1777, 0o700, 0o000])('mode %o is allowed', (mode) => {
    expect(() => assertNoPrivilegeBits('/ws/a', mode)).not.toThrow();
  });

  it.each([
    [0o4755, /setuid \(4000\)/],
    [0o2755, /setgid \(2000\)/],
    [0o6777, /setuid \(4000\) and setgid \(2000\)/],
  ])('mode %o is FORBIDDEN and the message says which bit and what to use', (mode, message) => {
    expect(() => assertNoPrivilegeBits('/ws/a', mode)).toThrow(message);
    try {
      assertNoPrivilegeBits('/ws/a', mode);
    } catch (error) {
      expect(error).toMatchObject({ code: 'FORBIDDEN', data: { rule: 'no-setuid-setgid' } });
      expect((error as Error).message).toContain(`use 0${(mode & 0o777).toString(8)}`);
    }
  });

  it('one link is fine; two or more is FORBIDDEN naming the count; a directory is judged by its subtree instead', () => {
    expect(() => assertSingleLink('/ws/a', file(1))).not.toThrow();
    expect(() => assertSingleLink('/ws/a', file(3))).toThrow(/3 hard links/);
    expect(() => assertSingleLink('/ws/a', file(2), 'restored')).toThrow(/its mode is not restored/);
    expect(() => assertSingleLink('/ws/d', dir(5))).not.toThrow();
  });
});
