/**
 * Issue 9, finding 6: the default policy let `.aws/credentials` (secret key and all) and `.netrc` be read with no
 * approval. Two layers answer it: the default deny list names the credential files of the usual cloud CLIs,
 * package managers, container and cluster tools, git credential stores and GPG; and the built-in redactions
 * know the token formats of the large providers, for secrets that live in ordinary files. Ordinary code — the
 * bulk of what a model reads — must come through untouched.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig, policyFromConfig } from '../../../companion/policy/load-config';
import { BUILTIN_REDACTIONS, redact } from '../../../companion/policy/redact';
import { callTool } from '../../../companion/runs/tool-call';
import { toolHandlers } from '../../../companion/tools';
import { createWorld, type World } from '../tools/world';

/** Where each tool keeps its credentials, relative to a home directory. */
const CREDENTIAL_FILES: Array<[tool: string, file: string, content: string]> = [
  ['AWS CLI credentials', '.aws/credentials', '[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n'],
  ['AWS CLI config', '.aws/config', '[profile ci]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n'],
  ['AWS SSO token cache', '.aws/sso/cache/0a1b2c.json', '{"accessToken": "aoaAAAAAGZ-example-sso-token"}'],
  ['gcloud application default credentials', '.config/gcloud/application_default_credentials.json', '{"refresh_token": "1//0g-example"}'],
  ['gcloud credential database', '.config/gcloud/credentials.db', 'SQLite format 3'],
  ['gcloud legacy credentials', '.config/gcloud/legacy_credentials/me@example.com/adc.json', '{"client_secret": "d-example"}'],
  ['Azure CLI token cache', '.azure/msal_token_cache.json', '{"AccessToken": {}}'],
  ['npm', '.npmrc', '//registry.npmjs.org/:_authToken=00000000-1111-2222-3333-444444444444\n'],
  ['PyPI', '.pypirc', '[pypi]\nusername = __token__\npassword = pypi-example\n'],
  ['cargo', '.cargo/credentials.toml', '[registry]\ntoken = "cio-example"\n'],
  ['cargo (old name)', '.cargo/credentials', '[registry]\ntoken = "cio-example"\n'],
  ['RubyGems', '.gem/credentials', '---\n:rubygems_api_key: rubygems_example\n'],
  ['Composer', '.config/composer/auth.json', '{"github-oauth": {"github.com": "example"}}'],
  ['Composer (old home)', '.composer/auth.json', '{"github-oauth": {"github.com": "example"}}'],
  ['Maven', '.m2/settings.xml', '<settings><servers><server><password>example</password></server></servers></settings>'],
  ['Maven master password', '.m2/settings-security.xml', '<settingsSecurity><master>{example}</master></settingsSecurity>'],
  ['Gradle', '.gradle/gradle.properties', 'ossrhPassword=example\n'],
  ['Docker', '.docker/config.json', '{"auths": {"https://index.docker.io/v1/": {"auth": "dXNlcjpwYXNz"}}}'],
  ['kubectl', '.kube/config', 'users:\n- name: admin\n  user:\n    token: example\n'],
  ['git credential store', '.git-credentials', 'https://me:example@github.com\n'],
  ['git credential store (XDG)', '.config/git/credentials', 'https://me:example@github.com\n'],
  ['GitHub CLI', '.config/gh/hosts.yml', 'github.com:\n    oauth_token: example\n'],
  ['GPG private keys', '.gnupg/private-keys-v1.d/0123ABCD.key', '(private-key example)'],
  ['GPG keyring', '.gnupg/pubring.kbx', 'keybox'],
  ['netrc', '.netrc', 'machine api.example.com login me password example\n'],
  ['netrc (Windows name)', '_netrc', 'machine api.example.com login me password example\n'],
  ['PostgreSQL password file', '.pgpass', 'db.internal:5432:app:app:example\n'],
  ['Vault token', '.vault-token', 'hvs.example'],
  ['Terraform Cloud', '.terraform.d/credentials.tfrc.json', '{"credentials": {"app.terraform.io": {"token": "example"}}}'],
  ['SSH ECDSA key outside .ssh', 'backup/id_ecdsa', 'key'],
  ['SSH DSA key outside .ssh', 'backup/id_dsa', 'key'],
  ['PKCS#12 keystore', 'certs/client.p12', 'binary'],
  ['PFX keystore', 'certs/client.pfx', 'binary'],
  ['Java keystore', 'android/release.jks', 'binary'],
  ['Android keystore', 'android/debug.keystore', 'binary'],
  ['PuTTY key', 'keys/server.ppk', 'PuTTY-User-Key-File-3: ssh-ed25519'],
];

describe('default deny list covers the usual credential stores (issue 9, finding 6)', () => {
  let world: World;
  beforeEach(async () => {
    // the embedded defaults, as a companion started without a config file has them
    world = await createWorld({ deny: parseConfig({}).deny, redact: [...BUILTIN_REDACTIONS] });
  });
  afterEach(() => world.cleanup());

  it.each(CREDENTIAL_FILES)('reading the %s file (%s) is POLICY_BLOCKED, in a project and in a home used as root', async (_tool, file, content) => {
    for (const where of [file, `home/me/${file}`]) {
      const target = await world.write(where, content);
      const read = await callTool('fs.read', { path: target }, world.ctx, toolHandlers);
      expect(read.ok ? 'read' : read.code, where).toBe('POLICY_BLOCKED');
      const promptx = await callTool('filesystem', { action: 'read', path: where }, world.ctx, toolHandlers);
      expect(promptx.ok ? 'read' : promptx.code, where).toBe('POLICY_BLOCKED');
    }
  });

  it('a search from the root never reports what the credential files hold', async () => {
    for (const [, file, content] of CREDENTIAL_FILES) await world.write(`home/me/${file}`, `${content}\nneedle-in-credentials\n`);
    const out = await callTool('fs.search', { path: world.root, query: 'needle-in-credentials' }, world.ctx, toolHandlers);
    expect(out.ok && out.text).toBe(`No matches for "needle-in-credentials" under ${world.root}`);
  });

  it('project files that merely share a name stay readable: gradle.properties, settings.xml, .yarnrc.yml, auth.json', async () => {
    for (const file of ['gradle.properties', 'settings.xml', '.yarnrc.yml', 'auth.json', '.docker/daemon.json', 'src/aws/config.ts']) {
      const target = await world.write(file, 'ordinary: true\n');
      const read = await callTool('fs.read', { path: target }, world.ctx, toolHandlers);
      expect(read.ok, file).toBe(true);
    }
  });
});

/**
 * Where browsers, the system's secret stores, password managers and signed-in desktop apps keep what signs the
 * person in, relative to a home directory (Linux, macOS, Windows). Reads are on auto by default, so a model told to
 * by a page it read could otherwise take the person's cookies and saved passwords — and the extension's own pairing
 * token from the browser profile — into the chat with one fs.read.
 */
const SESSION_STORES: Array<[what: string, file: string]> = [
  ['Chrome cookies (Linux)', '.config/google-chrome/Default/Cookies'],
  ['Chrome saved passwords (Linux)', '.config/google-chrome/Default/Login Data'],
  ["an extension's storage, chatbridge's token among them (Linux)", '.config/google-chrome/Default/Local Extension Settings/abcdefghijklmnopabcdefghijklmnop/000003.log'],
  ['Chrome Beta', '.config/google-chrome-beta/Default/Cookies'],
  ['Chromium', '.config/chromium/Default/Cookies'],
  ['Brave', '.config/BraveSoftware/Brave-Browser/Default/Cookies'],
  ['Edge Dev (Linux)', '.config/microsoft-edge-dev/Default/Cookies'],
  ['Vivaldi', '.config/vivaldi/Default/Cookies'],
  ['Opera', '.config/opera/Cookies'],
  ['Firefox cookies (Linux)', '.mozilla/firefox/abcd1234.default-release/cookies.sqlite'],
  ['Firefox saved logins (Linux)', '.mozilla/firefox/abcd1234.default-release/logins.json'],
  ['Chrome cache', '.cache/google-chrome/Default/Cache/Cache_Data/data_1'],
  ['Firefox cache', '.cache/mozilla/firefox/abcd1234.default-release/cache2/entries/0A1B'],
  ['Chromium from a snap', 'snap/chromium/common/chromium/Default/Cookies'],
  ['Firefox from a snap', 'snap/firefox/common/.mozilla/firefox/x.default/cookies.sqlite'],
  ['a Flatpak browser', '.var/app/com.google.Chrome/config/google-chrome/Default/Cookies'],
  ['Chrome (macOS)', 'Library/Application Support/Google/Chrome/Default/Cookies'],
  ['Edge (macOS)', 'Library/Application Support/Microsoft Edge/Default/Login Data'],
  ['Firefox (macOS)', 'Library/Application Support/Firefox/Profiles/x.default/cookies.sqlite'],
  ['Arc (macOS)', 'Library/Application Support/Arc/User Data/Default/Cookies'],
  ['Safari', 'Library/Safari/History.db'],
  ['Safari (sandboxed)', 'Library/Containers/com.apple.Safari/Data/Library/Cookies/Cookies.binarycookies'],
  ['macOS cookies', 'Library/Cookies/Cookies.binarycookies'],
  ['Chrome (Windows)', 'AppData/Local/Google/Chrome/User Data/Default/Network/Cookies'],
  ['Edge (Windows)', 'AppData/Local/Microsoft/Edge/User Data/Default/Login Data'],
  ['Firefox (Windows)', 'AppData/Roaming/Mozilla/Firefox/Profiles/x.default/logins.json'],
  ['macOS keychain', 'Library/Keychains/login.keychain-db'],
  ['GNOME keyring', '.local/share/keyrings/login.keyring'],
  ['KWallet', '.local/share/kwalletd/kdewallet.kwl'],
  ['Windows credentials', 'AppData/Roaming/Microsoft/Credentials/DFBE70A7E5CC19A398EBF1B96859CE5D'],
  ['Windows DPAPI master keys', 'AppData/Roaming/Microsoft/Protect/S-1-5-21-1/0a1b2c3d-0000-0000-0000-000000000000'],
  ['pass', '.password-store/email/me.gpg'],
  ['KeePass database', 'Documents/Passwords.kdbx'],
  ['Bitwarden', '.config/Bitwarden/data.json'],
  ['Bitwarden CLI', '.config/Bitwarden CLI/data.json'],
  ['1Password CLI', '.config/op/config'],
  ['Slack', '.config/Slack/Cookies'],
  ['Slack (macOS)', 'Library/Application Support/Slack/Local Storage/leveldb/000003.log'],
  ['Discord', '.config/discord/Local Storage/leveldb/000003.log'],
  ['Signal (its database key)', '.config/Signal/config.json'],
  ['Telegram', '.local/share/TelegramDesktop/tdata/key_datas'],
  ['Claude Desktop (its MCP servers, with their keys)', 'Library/Application Support/Claude/claude_desktop_config.json'],
  ['GitHub Copilot', '.config/github-copilot/apps.json'],
  ['hub', '.config/hub'],
  ['rclone', '.config/rclone/rclone.conf'],
  ["VS Code's state database", '.config/Code/User/globalStorage/state.vscdb'],
  ["Cursor's state database (macOS)", 'Library/Application Support/Cursor/User/globalStorage/state.vscdb'],
  ['a remote VS Code server', '.vscode-server/data/User/globalStorage/state.vscdb.backup'],
  ['DigitalOcean doctl', '.config/doctl/config.yaml'],
  ['Fly.io', '.fly/config.yml'],
  ['Netlify', '.config/netlify/config.json'],
  ['Vercel', '.local/share/com.vercel.cli/auth.json'],
  ['Firebase', '.config/configstore/firebase-tools.json'],
  ['Cloudflare wrangler', '.config/.wrangler/config/default.toml'],
  ['Cloudflare tunnel', '.cloudflared/0a1b2c3d.json'],
  ['Supabase', '.supabase/access-token'],
  ['Railway', '.railway/config.json'],
  ['Hetzner Cloud', '.config/hcloud/cli.toml'],
  ['Oracle Cloud', '.oci/config'],
  ['Hugging Face', '.cache/huggingface/token'],
  ['Hugging Face (old home)', '.huggingface/token'],
  ['Kaggle', '.kaggle/kaggle.json'],
  ['ngrok', '.config/ngrok/ngrok.yml'],
  ['Stripe CLI', '.config/stripe/config.toml'],
  ['Podman', '.config/containers/auth.json'],
  ['MySQL client', '.my.cnf'],
  ['MySQL login path', '.mylogin.cnf'],
  ['s3cmd', '.s3cfg'],
  ['boto / gsutil', '.boto'],
  ['Terraform CLI config', '.terraformrc'],
  ['age keys for sops', '.config/sops/age/keys.txt'],
];

describe('default deny list covers browser profiles, secret stores and signed-in apps', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld({ deny: parseConfig({}).deny, redact: [...BUILTIN_REDACTIONS] });
  });
  afterEach(() => world.cleanup());

  it.each(SESSION_STORES)('reading %s (%s) is POLICY_BLOCKED, in a home used as root', async (_what, file) => {
    const target = await world.write(`home/me/${file}`, 'session=s3ss10n-c00k13\n');
    for (const [tool, args] of [
      ['fs.read', { path: target }],
      ['filesystem', { action: 'read', path: target }],
      ['fs.read', { path: target, encoding: 'base64' }],
    ] as const) {
      const read = await callTool(tool, args, world.ctx, toolHandlers);
      expect(read.ok ? 'read' : read.code, `${tool} ${file}`).toBe('POLICY_BLOCKED');
    }
  });

  it('a search or a listing from the home never shows what they hold, and names them only as denied', async () => {
    for (const [, file] of SESSION_STORES) await world.write(`home/me/${file}`, 'needle-in-session-store\n');
    const search = await callTool('fs.search', { path: world.root, query: 'needle-in-session-store' }, world.ctx, toolHandlers);
    expect(search.ok && search.text).toBe(`No matches for "needle-in-session-store" under ${world.root}`);
    const list = await callTool('fs.ls', { path: `${world.root}/home/me/.config`, depth: 3 }, world.ctx, toolHandlers);
    if (!list.ok) throw new Error(list.message);
    expect(list.text).toContain('google-chrome/  [denied by policy]');
    expect(list.text).not.toContain('Local Extension Settings');
    expect(list.text).not.toContain('Cookies');
    // a store's folder is denied itself, so the listing never walks in to name what it holds
    for (const folder of ['Bitwarden', 'Bitwarden CLI', 'microsoft-edge-dev', 'opera', 'vivaldi', 'Slack', 'op']) expect(`\n${list.text}\n`).toContain(`\n${folder}/  [denied by policy]\n`);
    expect(list.text).not.toMatch(/data\.json|Default\//);
  });

  it('project files that merely look alike stay readable', async () => {
    const lookAlikes = [
      'src/chrome/background.ts',
      'docs/google-chrome.md',
      'extension/Library/Cookies.swift',
      'app/Library/Application Support.md',
      'packages/slack/index.ts',
      'config/signal.json',
      '.config/app.json',
      'snap/snapcraft.yaml',
      'src/keyrings.ts',
      'notes/op/plan.md',
      '.vscode/settings.json',
      'src/User/globalStorage.ts',
      '.netlify/state.json',
      'fly.toml',
      'db/my.cnf.example',
      'docs/huggingface/tokenizer.md',
    ];
    for (const file of lookAlikes) {
      const target = await world.write(file, 'ordinary: true\n');
      const read = await callTool('fs.read', { path: target }, world.ctx, toolHandlers);
      expect(read.ok, file).toBe(true);
    }
  });
});

const policy = policyFromConfig(parseConfig({}), [{ root: process.cwd(), base: process.cwd(), key: 'cwd' }]);

// [format, text holding it, the secret (no piece of it may survive), what stays]
const TOKEN_FORMATS: Array<[string, string, string, string]> = [
  ['AWS secret access key (credentials file, spaces)', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI/K7MDENG', 'aws_secret_access_key = [REDACTED]'],
  ['AWS secret access key (env)', 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI/K7MDENG', 'AWS_SECRET_ACCESS_KEY=[REDACTED]'],
  ['AWS session token', 'aws_session_token = IQoJb3JpZ2luX2VjEOj//////////wEaCXVzLWVhc3QtMSJHMEUCIQD', 'IQoJb3JpZ2luX2VjEOj', 'aws_session_token = [REDACTED]'],
  ['AWS temporary key id', 'ASIAY34FZKBOKMUTVV7A', 'ASIAY34FZKBOKMUTVV7A', '[REDACTED]'],
  ['GitHub OAuth token', 'token: gho_16C7e42F292c6912E7710c838347Ae178B4a', 'gho_16C7e42F292c', 'token: [REDACTED]'],
  ['GitHub user-to-server token', 'ghu_16C7e42F292c6912E7710c838347Ae178B4a', 'ghu_16C7e42F292c', '[REDACTED]'],
  ['GitHub server-to-server token', 'ghs_16C7e42F292c6912E7710c838347Ae178B4a', 'ghs_16C7e42F292c', '[REDACTED]'],
  ['GitHub refresh token', 'ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9Dc86A1498', 'ghr_1B4a2e77838347', '[REDACTED]'],
  ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS', 'github_pat_11ABCDEFG', '[REDACTED]'],
  ['GitLab personal access token', 'PRIVATE-TOKEN: glpat-xZ8vQmR3nL5pK2wT7yHb', 'glpat-xZ8vQmR3nL5', 'PRIVATE-TOKEN: [REDACTED]'],
  ['Slack bot token', 'xoxb-2048-4096-8192abcdEFGH1234', 'xoxb-2048-4096', '[REDACTED]'],
  ['Slack app token', 'xapp-1-A0123456789-1234567890123-abcdef0123456789', 'xapp-1-A0123456789', '[REDACTED]'],
  ['Slack webhook', 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX', 'T00000000/B00000000', 'https://hooks.slack.com/services/[REDACTED]'],
  ['Stripe secret key', 'stripe.api_key = sk_live_51HxQmRAbCdEfGhIjKlMnOpQr', 'sk_live_51HxQmRAbCd', '[REDACTED]'],
  ['Stripe restricted key', 'rk_live_51HxQmRAbCdEfGhIjKlMnOpQr', 'rk_live_51HxQmRAbCd', '[REDACTED]'],
  ['Google API key', 'key=AIzaSyD-1234567890abcdefghijklmnopqrstu', 'AIzaSyD-1234567890', '[REDACTED]'],
  ['OpenAI project key', 'OPENAI_KEY: sk-proj-Abcdefghijklmnopqrstuvwxyz012345', 'sk-proj-Abcdefghij', 'OPENAI_KEY: [REDACTED]'],
  ['Anthropic key', 'sk-ant-api03-AbCdEf1234567890XyZ-abcdEFGH', 'sk-ant-api03-AbCdEf', '[REDACTED]'],
  ['npm token', '//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', 'npm_AbCdEfGhIjKlMnOp', ':_authToken=[REDACTED]'],
  ['npm basic auth', '_auth = dXNlcjpwYXNzd29yZA==', 'dXNlcjpwYXNzd29yZA', '_auth = [REDACTED]'],
  ['Yarn Berry token', 'npmAuthToken: a1b2c3d4e5f6a7b8c9d0', 'a1b2c3d4e5f6a7b8c9d0', 'npmAuthToken: [REDACTED]'],
  ['PyPI token', 'password = pypi-AgEIcHlwaS5vcmcCJGE4YjQ5ZmE4LTg0ZDAtNGEwNi1iYjJlLWI3ZGRhMmI5Yzk0ZQACKlsz', 'pypi-AgEIcHlwaS5vcmc', '[REDACTED]'],
  ['Hugging Face token', 'HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh', 'hf_AbCdEfGhIjKlMnOp', 'HF_TOKEN=[REDACTED]'],
  ['SendGrid key', 'SG.abcdefghijklmnopqrstuv.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq', 'SG.abcdefghijklmnop', '[REDACTED]'],
  ['JSON Web Token', 'token = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"', 'SflKxwRJSMeKKF2QT4fw', 'token = "[REDACTED]"'],
  ['Bearer header', 'Authorization: Bearer abcDEF123456ghiJKL789mnoPQR', 'abcDEF123456ghiJKL', 'Authorization: Bearer [REDACTED]'],
  ['Basic header', 'Authorization: Basic dXNlcjpodW50ZXIy', 'dXNlcjpodW50ZXIy', 'Authorization: Basic [REDACTED]'],
  ['password in a URL', 'DATABASE_URL: postgres://app:s3cr3t-pass@db.internal:5432/app', 's3cr3t-pass', 'postgres://app:[REDACTED]@db.internal:5432/app'],
  ['netrc, one line', 'machine api.example.com login me password s3cr3t-netrc', 's3cr3t-netrc', 'login me password [REDACTED]'],
  ['netrc, one token a line', 'machine api.example.com\n  login me\n  password s3cr3t-netrc\n', 's3cr3t-netrc', '  password [REDACTED]\n'],
  ['kubeconfig client key', '    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=', 'LS0tLS1CRUdJTiBSU0', 'client-key-data: [REDACTED]'],
  ['Maven server password', '<server><id>x</id><password>{COQLCE6DU6GtcS5P=}</password></server>', 'COQLCE6DU6GtcS5P', '<password>[REDACTED]</password>'],
  ['Azure storage account key', 'DefaultEndpointsProtocol=https;AccountName=x;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;', 'Eby8vdM02xNOcqFlqUwJ', 'AccountKey=[REDACTED];'],
  ['OpenSSH private key', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmU', '[REDACTED]'],
  ['EC private key', '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49\n-----END EC PRIVATE KEY-----', 'MHcCAQEEIIrYSSNQFaA2', '[REDACTED]'],
  ['PGP private key block', '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0example4PGPprivatebody\n-----END PGP PRIVATE KEY BLOCK-----', 'lQOYBF0example4PGP', '[REDACTED]'],
  ['private key in a service-account JSON', '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0\\n-----END PRIVATE KEY-----\\n"}', 'MIIEvQIBADANBgkqhkiG9w0', '{"private_key": "[REDACTED]\\n"}'],
];

describe('built-in redactions know the large providers’ token formats (issue 9, finding 6)', () => {
  it.each(TOKEN_FORMATS)('%s', (_format, text, secret, kept) => {
    const out = redact(text, policy);
    expect(out).not.toContain(secret);
    expect(out).toContain(kept);
  });

  it('ordinary code, lockfiles, hashes and ids come through untouched', () => {
    const ordinary = [
      "const key = 'abc';",
      'const apiBase = "https://api.example.com/v1";',
      'function skip_whitespace(text) { return text.trimStart(); }',
      'export const taskList = document.querySelector(".task-list .sk-spinner-wave");',
      '.logo { background: url("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="); }',
      '"integrity": "sha512-9fXm4LqnWkuQ0Ssh4kD0hYhJ5QmAnLvT3xN5FQ4Xo0eR4nZ2hXyY5a7Uq+8w0V2mfqEJQj1c1P2g4lQ2XcB/Ag==",',
      '"resolved": "https://registry.npmjs.org/diff/-/diff-9.0.0.tgz",',
      'commit 3b15acf0c8d2e4f6a8b0c2d4e6f8a0b2c4d6e8f0 (HEAD -> main)',
      'id: 123e4567-e89b-12d3-a456-426614174000',
      'interface Login { password: string; token: string }',
      'const password = req.body.password;',
      'headers: { Authorization: `Bearer ${token}` },',
      'Send `Authorization: Bearer <token>` with every request.',
      'git clone git@github.com:org/repo.git && open http://localhost:3000/path?x=1',
      'remote = https://user@github.com/org/repo.git',
      'The password reset flow asks for the machine name first.',
      'aws_secret_access_key: string;',
      'const token = jwt.sign(payload, secret);',
      'import { skLearn } from "./sk_learn";',
      'ASIA is a prefix; AKIA too.',
    ].join('\n');
    expect(redact(ordinary, policy)).toBe(ordinary);
  });
});
