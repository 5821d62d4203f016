import { describe, expect, it } from 'vitest';
import { validateFlycodeCall, validateMcpRequest } from '../../../shared/protocols';
import { ERROR_CODES } from '../../../shared/errors';

describe('validateMcpRequest', () => {
  const cases: Array<[string, unknown, string, string]> = [
    ['not JSON', undefined, 'PARSE_ERROR', 'not JSON'],
    ['a batch', [{ jsonrpc: '2.0', method: 'ping' }], 'INVALID_REQUEST', 'batches are not supported'],
    ['a string', 'ping', 'INVALID_REQUEST', 'got "ping"'],
    ['jsonrpc 1.0', { jsonrpc: '1.0', method: 'ping' }, 'INVALID_REQUEST', 'jsonrpc must be "2.0"'],
    ['id true', { jsonrpc: '2.0', id: true, method: 'ping' }, 'INVALID_REQUEST', 'id must be a string or a number'],
    ['method missing', { jsonrpc: '2.0', id: 1 }, 'INVALID_REQUEST', 'method must be a string'],
    ['method callTool', { jsonrpc: '2.0', id: 1, method: 'callTool' }, 'METHOD_NOT_FOUND', 'allowed: initialize, tools/list, tools/call, ping, notifications/*'],
    ['params a string', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: 'x' }, 'INVALID_REQUEST', 'params must be an object'],
    ['tool name missing', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }, 'INVALID_INPUT', 'tools/call needs params.name'],
    ['tool name under "tool"', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { tool: 'fs.ls', arguments: { path: '/w' } } }, 'INVALID_INPUT', 'the tool\'s name goes under params.name (seed 000); the call puts it under params.tool'],
    ['unknown tool', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'rm -rf' } }, 'INVALID_INPUT', 'tool "rm -rf" is not available; allowed: fs.ls'],
    ['arguments a string', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fs.ls', arguments: '/tmp' } }, 'INVALID_INPUT', 'must be an object, got "/tmp"'],
    ['arguments under "args"', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fs.ls', args: { path: '/w' } } }, 'INVALID_INPUT', 'the arguments of fs.ls go under params.arguments (seed 000); the call puts them under params.args'],
    ['arguments under "args" as a JSON string', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fs.ls', args: '{"path": "/w/sub"}' } }, 'INVALID_INPUT', 'the call puts them under params.args'],
  ];
  it.each(cases)('%s → %s', (_name, value, code, message) => {
    const check = validateMcpRequest(value);
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.code).toBe(code);
      expect(check.message).toContain(message);
      expect(ERROR_CODES[check.code]).toBeTypeOf('number');
    }
  });

  it('defaults tools/call arguments to {} and keeps the id', () => {
    expect(validateMcpRequest({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'fs.ls' } })).toEqual({
      ok: true,
      request: { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'fs.ls', arguments: {} } },
    });
  });

  it('accepts notifications without an id', () => {
    expect(validateMcpRequest({ jsonrpc: '2.0', method: 'notifications/initialized' }).ok).toBe(true);
  });
});

describe('validateFlycodeCall', () => {
  const cases: Array<[string, unknown, string, string]> = [
    ['not JSON', undefined, 'PARSE_ERROR', 'not JSON'],
    ['an array', [], 'INVALID_REQUEST', 'must be one JSON object'],
    ['no id', { tool: 'fs.ls', args: {} }, 'INVALID_REQUEST', 'id is required'],
    ['blank id', { id: '  ', tool: 'fs.ls', args: {} }, 'INVALID_REQUEST', 'id is required'],
    ['unknown tool', { id: 'c', tool: 'read.file', args: {} }, 'METHOD_NOT_FOUND', 'tool "read.file" is not available; allowed:'],
    ['tool name under "name", as MCP writes it', { id: 'c', name: 'fs.read', args: { path: '/w/a.txt' } }, 'INVALID_INPUT', `the tool's name goes under "tool" (seed 001: {"id", "tool", "args"}); it puts it under "name"`],
    ['no tool', { id: 'c', args: { path: '/w/a.txt' } }, 'INVALID_REQUEST', 'the call names no tool: write {"id":"call-001","tool":"fs.read","args":{…}}; allowed: fs.ls'],
    ['args an array', { id: 'c', tool: 'fs.ls', args: [] }, 'INVALID_INPUT', 'args of fs.ls must be an object, got an array'],
    ['args under "arguments"', { id: 'c', tool: 'fs.read', arguments: { path: '/w/a.txt' } }, 'INVALID_INPUT', `the call's arguments go under "args" (seed 001: {"id", "tool", "args"}); it puts them under "arguments"`],
    ['args under "parameters"', { id: 'c', tool: 'shell.exec', parameters: { command: 'ls' } }, 'INVALID_INPUT', 'it puts them under "parameters"'],
    ['args under "arguments" as a JSON string, as function calling writes them', { id: 'c', tool: 'fs.ls', arguments: '{"path": "/w/sub"}' }, 'INVALID_INPUT', 'it puts them under "arguments"'],
    ['args under "input" as a list', { id: 'c', tool: 'fs.ls', input: ['/w/sub'] }, 'INVALID_INPUT', 'it puts them under "input"'],
  ];
  it.each(cases)('%s → %s', (_name, value, code, message) => {
    const check = validateFlycodeCall(value);
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.code).toBe(code);
      expect(check.message).toContain(message);
    }
  });

  it('defaults args to {}', () => {
    expect(validateFlycodeCall({ id: 'c', tool: 'fs.ls' })).toEqual({ ok: true, call: { id: 'c', tool: 'fs.ls', args: {} } });
  });
});
