import { describe, expect, it } from 'vitest';
import { shownUrl, urlSecrets, withoutUrlSecrets } from '../../../companion/mcp-servers/shown-url';

describe("an MCP server's URL as it is shown", () => {
  it.each([
    ['words of the path stay', 'https://mcp.example.com/v1/modelcontextprotocol-server-everything/mcp', 'https://mcp.example.com/v1/modelcontextprotocol-server-everything/mcp'],
    ['a token in the path', 'https://mcp.zapier.test/api/mcp/s/ZjA3NzE2YmItMjQ4ZS00NTk5LWI1ODUtZTQ3NzFmMDQ5ZDk2/mcp', 'https://mcp.zapier.test/api/mcp/s/…/mcp'],
    ['a UUID in the path', 'https://a.test/sse/9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0', 'https://a.test/sse/…'],
    ['a known key shape in the path', 'https://a.test/k/ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123/mcp', 'https://a.test/k/…/mcp'],
    ['the query and a password', 'https://me:pw@a.test/mcp?api_key=abc123', 'https://a.test/mcp?…'],
    ['not a URL: key-like runs still go', 'ftp//files/9f8e7d6c5b4a39281706f5e4d3c2b1a0?k=v', 'ftp//files/…?…'],
  ])('%s', (_name, url, shown) => {
    expect(shownUrl(url)).toBe(shown);
  });

  it("an error quoting the URL loses the same parts, raw or decoded", () => {
    const url = 'https://a.test/s/9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0/mcp?key=p%40ss-word';
    const secrets = urlSecrets(url);
    const text = withoutUrlSecrets('Redirect to https://a.test/s/9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0/mcp/ not followed; key p@ss-word', secrets);
    expect(text).toBe('Redirect to https://a.test/s/…/mcp/ not followed; key …');
  });
});
