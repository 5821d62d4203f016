import { describe, expect, it } from 'vitest';
import { findBlocks } from '../../../shared/protocols';

/** Replies that show the format with an example before the call they mean, as models explaining it write them. */
const F = '```';
const mcp = (id: string, path: string) =>
  `${F}mcp-request\n{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"${path}"}}}\n${F}`;
const flycode = (id: string, path: string) => `${F}flycode-call\n{"id":"${id}","tool":"fs.read","args":{"path":"${path}"}}\n${F}`;
const axonWrite = (path: string, text: string) => `~~~~~act\nwrite_file\n~~~~~\n~~~~~path\n${path}\n~~~~~\n~~~~~text\n${text}\n~~~~~`;
const xml = (id: string, path: string) =>
  `${F}xml\n<function_calls>\n<invoke name="fs.read" call_id="${id}">\n<parameter name="path">${path}</parameter>\n</invoke>\n</function_calls>\n${F}`;
const plan = (step: string, path: string) =>
  `#####--\n{"metadata":{"step_id":"${step}","reason":"r"},"type":"operate","file_operations":[{"action_type":"read_file","path":"${path}"}]}\n--#####`;

describe('a block shown as an example before the call the reply means does not run; the call does', () => {
  it.each([
    ['mcp-request, in Chinese', `例如，你可以这样写：\n\n${mcp('call-001', '/abs/path')}\n\n现在实际读取：\n\n${mcp('call-002', '/w/real.md')}`],
    ['flycode-call, "For instance, you could write:"', `For instance, you could write:\n\n${flycode('call-001', '/abs/path')}\n\nNow the real call:\n\n${flycode('call-002', '/w/real.md')}`],
    ['<function_calls> in an xml code block, "For example:"', `**For example:**\n\n${xml('ex', '/abs/path')}\n\nHere is the actual call:\n\n${xml('1', '/w/real.md')}`],
    ['an Axon statement, "For example, a write looks like:"', `For example, a write looks like:\n\n${axonWrite('example.txt', 'hi')}\n\nNow the real change:\n\n${axonWrite('main.py', 'print(1)')}`],
  ])('%s', (_what, reply) => {
    const blocks = findBlocks(reply);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.error).toBeUndefined();
    expect(JSON.stringify(blocks[0]?.payload)).not.toMatch(/abs\/path|example\.txt/);
  });

  it.each([
    ['Japanese', '例えば、次のように書けます：', '実際に読み込みます：'],
    ['Korean', '예를 들어 다음과 같이 쓸 수 있습니다:', '이제 실제로 읽겠습니다:'],
    ['Spanish', 'Por ejemplo, podrías escribir:', 'Ahora la llamada real:'],
    ['Portuguese', 'Por exemplo, você poderia escrever:', 'Agora a chamada real:'],
    ['French, with a space before its colon', 'Par exemple :', 'Maintenant, la vraie lecture :'],
    ['German', 'Zum Beispiel könnten Sie schreiben:', 'Jetzt der echte Aufruf:'],
    ['Russian', 'Например, можно написать так:', 'Теперь настоящий вызов:'],
    ['Chinese, 例 alone', '例：', '现在实际读取：'],
  ])('a reply in %s, as a model writes to a person who asked in it, shows its example without running it', (_language, intro, then) => {
    for (const reply of [
      `${intro}\n\n${flycode('call-001', '/abs/path')}\n\n${then}\n\n${flycode('call-002', '/w/real.md')}`,
      `${intro}\n\n${plan('ex', 'example.py')}\n\n${then}\n\n${plan('s1', 'main.py')}`,
    ]) {
      const blocks = findBlocks(reply);
      expect(blocks).toHaveLength(1);
      expect(blocks[0]?.error).toBeUndefined();
      expect(JSON.stringify(blocks[0]?.payload)).not.toMatch(/abs\/path|example\.py/);
    }
  });

  it('words that only start like an example\'s (Примерно, "example.py" as a name) introduce none', () => {
    expect(findBlocks(`Примерно так я прочитаю оба файла:\n\n${flycode('call-001', '/w/a.md')}\n\n${flycode('call-002', '/w/b.md')}`)).toHaveLength(2);
    expect(findBlocks(`Exemplos/ e exemples/ primeiro:\n\n${flycode('call-001', '/w/a.md')}\n\n${flycode('call-002', '/w/b.md')}`)).toHaveLength(2);
  });

  it('an auto_coder plan shown as an example is no plan: the reply\'s own plan after it is the first, and runs', () => {
    const reply = `比如，一个计划是这样写的：\n\n${plan('ex', 'example.py')}\n\n下面是实际的计划：\n\n${plan('s1', 'main.py')}`;
    const blocks = findBlocks(reply);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ kind: 'autocoder', complete: true, payload: { metadata: { step_id: 's1' } } });
    expect(blocks[0]?.inert).toBeUndefined();
    expect(blocks[0]?.error).toBeUndefined();
  });

  it('a call introduced with "for example" that is alone in its reply is the call', () => {
    expect(findBlocks(`For example, let me read the README first:\n\n${mcp('call-001', '/w/README.md')}`)).toMatchObject([{ kind: 'mcp-request', complete: true }]);
    expect(findBlocks(`例如：\n\n${plan('s1', 'main.py')}`)).toMatchObject([{ kind: 'autocoder', complete: true, payload: { metadata: { step_id: 's1' } } }]);
  });

  it('a reply that starts with blank lines before its example is read to its first line', () => {
    expect(findBlocks(`\n\n${xml('ex', '/abs/path')}\n\n${xml('1', '/w/real.md')}`)).toHaveLength(2);
    expect(findBlocks(`\nFor example:\n\n${xml('ex', '/abs/path')}\n\n${xml('1', '/w/real.md')}`)).toHaveLength(1);
  });

  it('calls introduced by ordinary prose all run, and so does every statement of an Axon plan', () => {
    expect(findBlocks(`First, the config:\n\n${flycode('call-001', '/w/a.json')}\n\nThen the source:\n\n${flycode('call-002', '/w/b.ts')}`)).toHaveLength(2);
    const axon = `I'll create the example file first:\n\n${axonWrite('example.txt', 'hi')}\n\nThen main.py:\n\n${axonWrite('main.py', 'print(1)')}`;
    expect(findBlocks(axon)).toHaveLength(2);
  });

  it('an example of another kind than the call after it is left alone (it is not the call\'s example)', () => {
    expect(findBlocks(`For example:\n\n${flycode('call-001', '/w/example.md')}\n\n${mcp('call-002', '/w/real.md')}`)).toHaveLength(2);
  });
});
