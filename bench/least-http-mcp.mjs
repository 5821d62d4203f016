/**
 * The least an MCP server over Streamable HTTP can do for the reference group's operations (reference-fs.ts): a
 * bare node:http server that answers each JSON-RPC message by hand — no SDK server, no schema check, no guard, no
 * policy, no log — with the file system calls the operation needs and nothing more (realpath and readFile; readdir;
 * readdir and one lstat per entry; writeFile with no fsync). Timed with the same SDK Client the companion's /mcp is,
 * it is a floor under any server on that path: what the client's transport and one local HTTP round trip cost with
 * the tool's own work, against the reference server over stdio. Plain JavaScript, run by node directly (no loader),
 * so nothing is timed that a server need not do. Prints its port on stdout.
 */
import { createServer } from 'node:http';
import { lstat, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

async function callTool(name, args) {
  const path = await realpath(args.path);
  if (name === 'read') return readFile(path, 'utf8');
  if (name === 'write') {
    await writeFile(path, args.content);
    return `wrote ${path}`;
  }
  const entries = await readdir(path, { withFileTypes: true });
  if (name === 'list') return entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).join('\n');
  const sizes = await Promise.all(entries.map((e) => lstat(join(path, e.name))));
  return entries.map((e, i) => `${e.name}  ${sizes[i].size} B`).join('\n');
}

async function answer(message) {
  if (message.method === 'initialize') {
    return { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'least-http-mcp', version: '1.0.0' } };
  }
  if (message.method === 'ping') return {};
  if (message.method === 'tools/call') {
    const { name, arguments: args } = message.params;
    return { content: [{ type: 'text', text: await callTool(name, args) }] };
  }
  throw new Error(`no method ${message.method}`);
}

createServer((request, response) => {
  // the client opens no event stream here: a server that offers none answers a GET with 405
  if (request.method !== 'POST') return void response.writeHead(405).end();
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', async () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    // a notification is accepted with no body
    if (message.id === undefined) return void response.writeHead(202).end();
    let body;
    try {
      body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: await answer(message) });
    } catch (error) {
      body = JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: String(error) } });
    }
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
}).listen(0, '127.0.0.1', function listening() {
  console.log(this.address().port);
});
