import { describe, expect, it } from 'vitest';
import { createOutputBuffer, omittedMarker } from '../../../companion/processes/output-buffer';

describe('output buffer', () => {
  it('keeps output whole up to the budget, across chunks', () => {
    const buffer = createOutputBuffer(10);
    buffer.push('abcd');
    buffer.push('efghij');
    expect(buffer.result()).toEqual({ text: 'abcdefghij', truncated: false });
    expect(buffer.totalBytes).toBe(10);
  });

  it('cuts to head + tail at line breaks, with a marker that counts the omitted bytes', () => {
    const buffer = createOutputBuffer(12);
    const text = 'ABCD\nEF' + 'x'.repeat(1000) + 'UV\nWXYZ';
    for (let i = 0; i < text.length; i += 7) buffer.push(text.slice(i, i + 7));
    expect(buffer.result()).toEqual({ text: 'ABCD' + omittedMarker(1006) + 'WXYZ', truncated: true });
    expect(buffer.totalBytes).toBe(1014);
  });

  it('cuts a single huge chunk the same way; in a run without line breaks, at a blank', () => {
    const buffer = createOutputBuffer(8);
    buffer.push('12 4' + '-'.repeat(50) + '7 90');
    expect(buffer.result().text).toBe('12 ' + omittedMarker(52) + ' 90');
  });

  it('attack: a secret the cut goes through is omitted, not kept in two pieces too short to be known', () => {
    const token = `ghp_${'Z9'.repeat(18)}`;
    const buffer = createOutputBuffer(64);
    buffer.push(`a ${token} DB_PASSWORD=hunter2hunter2\n${'m'.repeat(500)}\nkey DB_PASSWORD=hunter2hunter2 ${token}`);
    const { text } = buffer.result();
    for (const piece of ['Z9Z9', 'hunter']) expect(text).not.toContain(piece);
    // a run with no place to cut is omitted whole
    const run = createOutputBuffer(16);
    run.push(token.repeat(3));
    expect(run.result().text).toBe(omittedMarker(120));
  });

  it("attack: a tail that starts inside a private key block starts after the block's END line", () => {
    const body = Array.from({ length: 20 }, (_, i) => `MIIEvQIBADANBgkqhkiG9w0BAQEFAASC${String(i).padStart(32, '0')}`).join('\n');
    const buffer = createOutputBuffer(1200);
    buffer.push(`start\n${'x'.repeat(2000)}\n-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\ndone\n`);
    const { text } = buffer.result();
    expect(text).not.toContain('MIIEvQ');
    expect(text.endsWith('\ndone\n')).toBe(true);
  });

  it('never splits a multi-byte character at either cut', () => {
    // '€' is 3 bytes; the cuts fall at the blanks, which are never inside a character
    const buffer = createOutputBuffer(8);
    buffer.push('€ €€€€€€€€ €');
    const { text, truncated } = buffer.result();
    expect(truncated).toBe(true);
    expect(text).not.toContain('\uFFFD');
    const [head, tail] = text.split(/\n\[… \d+ bytes omitted …\]\n/);
    expect(head).toBe('€ ');
    expect(tail).toBe(' €');
    const omitted = Number(/\[… (\d+) bytes omitted …\]/.exec(text)![1]);
    expect(omitted + Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBe(32);
  });

  it('empty chunks change nothing', () => {
    const buffer = createOutputBuffer(3);
    buffer.push('');
    expect(buffer.result()).toEqual({ text: '', truncated: false });
  });
});
