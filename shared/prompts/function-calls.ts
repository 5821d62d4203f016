import { fenced } from '../results/fence';
import { pickCallExamples } from './call-examples';
import { absoluteRootRule, bullets, formatExamples, numbered, workspacePath } from './common';
import { describeToolList } from './tool-list';
import type { PromptExample, PromptInput } from './types';

/**
 * The prompt for `<function_calls>` (shared/protocols/function-calls.ts): the XML call format of the MCP browser
 * proxies, in an ```` ```xml ```` block, answered with `<function_result>` elements (results/function-result.ts).
 * chatbridge also reads prompts written for those extensions as they are; this one names chatbridge's tools.
 */

/** A parameter as the format writes it: strings as they are, anything else as JSON. */
function parameterText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function functionCallsBlock(callId: number, tool: string, args: Record<string, unknown>): string {
  const parameters = Object.entries(args).map(([name, value]) => `<parameter name="${name}">${parameterText(value)}</parameter>`);
  return fenced('xml', ['<function_calls>', `<invoke name="${tool}" call_id="${callId}">`, ...parameters, '</invoke>', '</function_calls>'].join('\n'));
}

function examples(input: PromptInput): PromptExample[] {
  return pickCallExamples(input.tools, input.workspaceRoot, 5).map((example, index) => ({
    title: example.title,
    reply: functionCallsBlock(index + 1, example.tool, example.args),
  }));
}

const SUCCESS = ['<function_result call_id="2" name="fs.read" audit_id="…">', '…the file text…', '</function_result>'].join('\n');
const FAILURE = ['<function_result call_id="3" name="fs.read" status="error" audit_id="…">', 'NOT_FOUND: …', '</function_result>'].join('\n');
const PENDING = [
  '<function_result call_id="4" name="fs.write" status="pending" pending_confirmation_id="…" audit_id="…">',
  'Pending confirmation in chatbridge (fs.write …). Do not report success; wait for the result.',
  '</function_result>',
].join('\n');

export function functionCallsPrompt(input: PromptInput): string {
  const { lang, tools, workspaceRoot: root } = input;
  const first = pickCallExamples(tools, root, 1)[0];
  const template = first === undefined ? '' : functionCallsBlock(1, first.tool, first.tool === 'fs.read' ? { path: workspacePath(root, 'README.md') } : first.args);
  const toolList = describeToolList(tools, lang);

  if (lang === 'en') {
    return [
      '# Working on my computer through chatbridge (<function_calls>)',
      'You can read and change files, run commands and use my own MCP servers\' tools on my computer through chatbridge, a local tool runner. You have no other access to my machine: every action is a function call that you write as a `<function_calls>` block. chatbridge runs it (some calls only after I approve them) and puts the answer in my next message as `<function_result>` elements. Reply to this message with one short sentence saying you are ready, then wait for my task.',
      '## Hard rules',
      numbered([
        'Write each call inside a fenced code block labelled `xml`: `<function_calls>`, then one `<invoke name="tool" call_id="N">` with one `<parameter name="argument">value</parameter>` per argument, then `</invoke>` and `</function_calls>`. One call per reply; wait for its result before the next.',
        '`call_id` is a number that goes up by 1 with each call, starting from 1.',
        'The `name` is a tool name from the list below; the parameters are only the argument names listed for that tool. Strings are written as they are (no quotes, no escaping); numbers, true/false, lists and objects are written as JSON.',
        'Never write `<function_calls>` in your reasoning or to explain the format: every `<function_calls>` block in a reply is a call.',
        'Paths are absolute (Linux `/home/me/app`, or Windows `C:\\Users\\me\\app`). Do not guess paths: look them up with a listing or search first.',
        absoluteRootRule(lang, root),
        'Never write a `<function_result>` yourself and never invent results; only use the results I send.',
        'When you do not need a tool, answer normally. When you need a tool but something essential is missing (a path, the content to write), ask me first instead of calling. Do not write, delete, move or run anything I did not ask for.',
      ]),
      '## Call format',
      template === '' ? '(no tools are available)' : template,
      `## Tools (${tools.length})`,
      toolList === '' ? '(none)' : toolList,
      '## How results come back',
      bullets(['Each call is answered in my next message by a `<function_result>` with the same `call_id`; the output text is between its tags:']),
      SUCCESS,
      bullets([
        '`truncated="true"` means the output was cut; the text says how to read the rest.',
        '`status="error"` means the call failed; the text is `CODE: what and why` — INVALID_INPUT (fix the arguments), NOT_FOUND, FORBIDDEN or POLICY_BLOCKED (refused by my policy: do not retry it), CONFLICT, LIMIT_EXCEEDED, NOT_SUPPORTED, TIMEOUT, TOOL_ERROR (the tool itself reported failure), UNAVAILABLE (its server is not running). Explain it, then make a corrected call or ask me; never repeat a failed call unchanged:',
      ]),
      FAILURE,
      bullets([
        '`status="pending"` means the call is waiting for my approval: it has NOT run. Say that it waits for approval in chatbridge, do not report success, and wait — the real result follows in a later message:',
      ]),
      PENDING,
      formatExamples(lang, examples(input)),
    ].join('\n\n');
  }

  return [
    '# 通过 chatbridge 操作我的电脑（<function_calls>）',
    '你可以通过 chatbridge（一个本地工具执行器）读取、修改我电脑上的文件、运行命令，并使用我自己的 MCP 服务器提供的工具。除此之外你无法接触我的电脑：每个操作都是一次函数调用，写成一个 `<function_calls>` 块。chatbridge 会执行它（部分调用需要我先批准），并在我的下一条消息里用 `<function_result>` 元素返回结果。请用一句话回复本消息表示已就绪，然后等待我的任务。',
    '## 硬性规则',
    numbered([
      '每次调用写在一个语言标签为 `xml` 的代码块里：先写 `<function_calls>`，再写一个 `<invoke name="工具名" call_id="N">`，每个参数一行 `<parameter name="参数名">值</parameter>`，最后是 `</invoke>` 和 `</function_calls>`。每条回复只调用一次；等收到结果再进行下一次调用。',
      '`call_id` 是数字，从 1 开始，每次调用加 1。',
      '`name` 必须是下方列表中的工具名；参数只能使用该工具列出的参数名。字符串原样书写（不加引号、不转义）；数字、true/false、列表和对象写成 JSON。',
      '不要在思考过程里或解释格式时写 `<function_calls>`：回复中的每个 `<function_calls>` 块都会被当作调用。',
      '路径必须是绝对路径（Linux 的 `/home/me/app`，或 Windows 的 `C:\\Users\\me\\app`）。不要猜路径：先用列目录或搜索确认。',
      absoluteRootRule(lang, root),
      '不要自己写 `<function_result>`，也不要编造结果；只依据我发回的结果。',
      '不需要工具时正常回答。需要工具但缺少关键信息（路径、要写入的内容）时，先问我，不要调用。不要写入、删除、移动或运行我没有要求的东西。',
    ]),
    '## 调用格式',
    template === '' ? '（没有可用的工具）' : template,
    `## 工具（${tools.length} 个）`,
    toolList === '' ? '（无）' : `（工具和参数的说明由本地助手提供，保留英文原文。）\n\n${toolList}`,
    '## 结果如何返回',
    bullets(['每次调用的结果在我的下一条消息里，是一个 `call_id` 相同的 `<function_result>`，输出文本在标签之间：']),
    SUCCESS,
    bullets([
      '`truncated="true"` 表示输出被截断；文本会说明如何读取剩余部分。',
      '`status="error"` 表示调用失败，文本是 `错误码: 原因`——INVALID_INPUT（改正参数）、NOT_FOUND、FORBIDDEN 或 POLICY_BLOCKED（被策略拒绝：不要重试）、CONFLICT、LIMIT_EXCEEDED、NOT_SUPPORTED、TIMEOUT、TOOL_ERROR（工具自己报告失败）、UNAVAILABLE（它的服务器没有运行）。先解释错误，再发出修正后的调用或向我提问；不要原样重复失败的调用：',
    ]),
    FAILURE,
    bullets(['`status="pending"` 表示调用正在等待我批准：它还没有执行。请说明正在等待 chatbridge 中的批准，不要宣称已完成，并等待——真正的结果会在之后的消息里到来：']),
    PENDING,
    formatExamples(lang, examples(input)),
  ].join('\n\n');
}
