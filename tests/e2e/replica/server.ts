/**
 * Serves the replica chat pages over HTTPS, picking the site by the Host header, so Chromium can open them on
 * their real hostnames (mapped to loopback with --host-resolver-rules) and the extension's real matches apply.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import type { ReplicaSite } from './api';

const here = path.dirname(fileURLToPath(import.meta.url));

export const REPLICA_HOSTS: Record<string, ReplicaSite> = {
  'chatgpt.com': 'chatgpt',
  'chat.deepseek.com': 'deepseek',
  // editor families (README "What works where"): TipTap/ProseMirror, Quill, Lexical, a framework-controlled textarea
  'claude.ai': 'claude',
  'gemini.google.com': 'gemini',
  'www.kimi.com': 'kimi',
  'chat.z.ai': 'zai',
  'grok.com': 'grok',
  'www.perplexity.ai': 'perplexity',
  // hosts no site module knows (the generic adapter, "Enable on this site"): a textarea and a contenteditable composer
  'textarea.chat.example': 'plain',
  'editable.chat.example': 'editable',
};

/** Bundles one replica page for the browser (a classic script, so it runs while the page is parsed). */
export async function bundleReplica(site: ReplicaSite): Promise<string> {
  const result = await build({
    entryPoints: [path.join(here, `${site}.ts`)],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    charset: 'utf8',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error(`esbuild produced no output for the ${site} replica`);
  return output.text;
}

/** A self-signed certificate for the replica hostnames, made with openssl in `dir`. */
export async function makeCertificate(dir: string): Promise<{ key: Buffer; cert: Buffer }> {
  const keyFile = path.join(dir, 'replica.key');
  const certFile = path.join(dir, 'replica.crt');
  const names = Object.keys(REPLICA_HOSTS)
    .map((host) => `DNS:${host}`)
    .join(',');
  await promisify(execFile)('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2',
    '-subj', '/CN=chatgpt.com', '-addext', `subjectAltName=${names}`,
    '-keyout', keyFile, '-out', certFile,
  ]);
  return { key: await readFile(keyFile), cert: await readFile(certFile) };
}

// Just enough layout for screenshots and real mouse clicks; the DOM structure is what the tests are about.
const PAGE_CSS = [
  'body{font:15px/1.5 system-ui,sans-serif;max-width:860px;margin:auto;color:#1f2328}',
  '.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0)}',
  'section[data-turn],.ds-message{padding:6px 16px}',
  '.user-message-bubble-color,.fbb737a4{background:#f0f0f0;border-radius:18px;padding:6px 14px;display:inline-block;white-space:pre-wrap}',
  '.markdown pre,.md-code-block{background:#f6f8fa;border-radius:12px;padding:8px 12px;margin:8px 0;white-space:normal}',
  '.markdown pre .h-9{display:flex;justify-content:space-between;align-items:center;font-size:12px;color:#57606a}',
  '.cm-content,.md-code-block pre{white-space:pre-wrap;word-break:break-all;margin:4px 0 0;font:13px/1.45 ui-monospace,monospace}',
  'button[aria-label="Copy"]{width:22px;height:22px;border:1px solid #d0d7de;border-radius:6px;background:#fff}',
  '.md-code-block-banner,.md-code-block-banner ._121d384{display:flex;justify-content:space-between;font-size:12px;color:#57606a}',
  '.md-code-block button{font-size:11px;margin-left:4px}',
  '.ds-think-content{border-left:2px solid #d0d7de;padding-left:10px;color:#57606a}',
  '#thread-bottom-container,._77cefa5{display:flex;gap:8px;align-items:flex-end;padding:12px 16px}',
  '#prompt-textarea,#chat-input{min-height:48px;width:100%;border:1px solid #999;border-radius:12px;padding:6px 10px;box-sizing:border-box}',
  '#replica-trailing button{width:36px;height:36px;border-radius:50%}',
  '.ds-button--circle{width:34px;height:34px;border-radius:50%;background:#4d6bfe;display:flex;align-items:center;justify-content:center}',
  '.ds-button--disabled{opacity:.4}.ds-icon svg{stroke:#fff;fill:#fff}',
  '.turn-actions button{width:20px;height:20px;border:none;background:transparent}',
  '#chat-input{width:100%;min-height:48px}.chat-input{flex:1}#replica-editor-slot{flex:1;min-height:48px;border:1px solid #999;border-radius:12px;padding:6px 10px}',
  '.ql-editor,.ProseMirror,.chat-input-editor,#ask-input{min-height:36px;outline:none;white-space:pre-wrap}',
  '.ql-clipboard{position:absolute;left:-10000px;height:1px;overflow-y:hidden}',
  'fieldset,.text-input-field,.chat-editor{display:flex;gap:8px;align-items:flex-end;padding:12px 16px;border:none}',
  '#replica-control button,.send-button-container{width:36px;height:36px;border-radius:50%;border:1px solid #999;display:flex}',
  // the sites' dark themes, as far as the screenshots show them: ChatGPT's html.dark, DeepSeek's body[data-ds-dark-theme]
  'html.dark,html.dark body{background:#212121;color:#ececec}html.dark .markdown pre{background:#171717}',
  'html.dark .markdown pre .h-9{color:#b4b4b4}html.dark .user-message-bubble-color{background:#303030}',
  'html.dark #prompt-textarea{background:#303030;border-color:#444}html.dark button[aria-label="Copy"]{background:#2f2f2f;border-color:#444}',
  'body{background:#fff}',
  'body[data-ds-dark-theme]{background:#292a2d;color:#f8faff}body[data-ds-dark-theme] .md-code-block{background:#1b1b1d}',
  'body[data-ds-dark-theme] .md-code-block-banner{color:#a8a8b0}body[data-ds-dark-theme] .fbb737a4{background:#414158}',
  'body[data-ds-dark-theme] #chat-input{background:#404045;color:#f8faff;border-color:#555}',
  'body[data-ds-dark-theme] .md-code-block button{background:#3a3a3f;color:#e3e3e8;border:1px solid #555;border-radius:4px}',
].join('');

function pageHtml(site: ReplicaSite): string {
  const lang = site === 'deepseek' ? 'zh-CN' : 'en-US';
  return (
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${site}</title>` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<style>${PAGE_CSS}</style></head>` +
    `<body><script src="/__replica/${site}.js"></script></body></html>`
  );
}

export interface ReplicaServer {
  port: number;
  close(): Promise<void>;
}

/** Starts the HTTPS server for every replica on an ephemeral loopback port. */
export async function startReplicaServer(tlsDir: string): Promise<ReplicaServer> {
  const sites = [...new Set(Object.values(REPLICA_HOSTS))];
  const [tls, ...bundles] = await Promise.all([makeCertificate(tlsDir), ...sites.map((site) => bundleReplica(site))]);
  const scripts = Object.fromEntries(sites.map((site, i) => [site, bundles[i] as string])) as Record<ReplicaSite, string>;
  const server: Server = createServer(tls, (request, response) => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    const site = REPLICA_HOSTS[host];
    const url = new URL(request.url ?? '/', 'https://replica');
    if (site === undefined) {
      response.writeHead(421, { 'content-type': 'text/plain' }).end(`no replica for host ${host}`);
    } else if (url.pathname === `/__replica/${site}.js`) {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
      response.end(scripts[site]);
    } else if (url.pathname.startsWith('/__replica/') || url.pathname === '/favicon.ico') {
      response.writeHead(404).end();
    } else {
      // Any other path is the single-page app (/, /c/<id>, /a/chat/s/<id>).
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(pageHtml(site));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
