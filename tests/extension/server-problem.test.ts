import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerProblem } from '../../shared/api';
import { serverProblemText } from '../../extension/ui/server-problem';
import { useLocale } from './i18n-fake';

afterEach(() => useLocale('en'));

describe("an MCP server's problem in the person's language", () => {
  it('a server that signs people in with OAuth only is not told to take a token in its headers', () => {
    const problem: McpServerProblem = { code: 'auth-refused', starting: true, httpStatus: 401, headers: [], signIn: 'oauth' };
    const english = serverProblemText({ problem });
    expect(english).toContain('it signs people in with OAuth, in a browser, which chatbridge does not do');
    expect(english).toContain('mcp-remote');
    expect(english).not.toContain('not supported');
    useLocale('zh_CN');
    expect(serverProblemText({ problem })).toContain('OAuth 登录');
    // one that wants a token and says nothing of OAuth is still told where to put it
    useLocale('en');
    expect(serverProblemText({ problem: { code: 'auth-refused', starting: true, httpStatus: 401, headers: [] } })).toContain('Put a token in its "headers"');
  });
});
