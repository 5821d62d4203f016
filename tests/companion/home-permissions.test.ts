/**
 * attack: another local user and the companion's data directory. It holds the tokens that pair an extension, the
 * config a start loads (its modes, the MCP servers it starts), the journal a start repairs from (before-images of the
 * person's files, and what it writes back), the audit and run logs. A data directory that already exists — made by
 * hand, by `mkdir` under a loose umask, or a shared folder CHATBRIDGE_HOME names — may be open to other users, or
 * theirs. Real folders, real modes; ownership by another user is made with chown, so those cases need root.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../shared/errors';
import { createTokenStore, hashToken } from '../../companion/auth/token-store';
import { ensureHome } from '../../companion/home';
import { createJournal } from '../../companion/journal';
import { createWorld } from './tools/world';
import { markUnfinished } from './journal/entry-files';

const posix = process.platform !== 'win32';
const root = posix && process.getuid?.() === 0;
/** nobody */
const OTHER_UID = 65534;
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe.skipIf(!posix)('attack: a data directory other users can reach', () => {
  let base: string;
  let home: string;
  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-home-')));
    home = join(base, 'home');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('a new one, and every folder it makes, is the person’s alone (0700)', () => {
    const paths = ensureHome(home);
    for (const dir of [home, paths.audit, paths.journal, paths.programs]) expect(modeOf(dir).toString(8), dir).toBe('700');
  });

  it('one that is theirs but open to others (0755, 0777, a 0777 journal in it) is made private before anything in it is read', () => {
    mkdirSync(join(home, 'journal'), { recursive: true });
    chmodSync(home, 0o777);
    chmodSync(join(home, 'journal'), 0o777);
    mkdirSync(join(home, 'mcp-logs'));
    chmodSync(join(home, 'mcp-logs'), 0o755);
    const paths = ensureHome(home);
    for (const dir of [home, paths.journal, paths.mcpLogs, paths.audit]) expect(modeOf(dir).toString(8), dir).toBe('700');
  });

  it('a link to a folder of theirs is followed and that folder made private', () => {
    const real = join(base, 'elsewhere');
    mkdirSync(real, { mode: 0o755 });
    chmodSync(real, 0o755);
    symlinkSync(real, home);
    ensureHome(home);
    expect(modeOf(real).toString(8)).toBe('700');
  });

  it.skipIf(!root)('a tokens.json another user put in a writable one (pairing a token of theirs) is refused, naming it and the owner (a start would have paired it)', () => {
    mkdirSync(home);
    chmodSync(home, 0o777);
    const theirs = 'a-token-of-another-user-0123456789abcdef';
    const file = join(home, 'tokens.json');
    writeFileSync(file, JSON.stringify({ tokens: [{ sha256: hashToken(theirs).toString('hex'), label: 'extension', createdAt: new Date().toISOString() }] }));
    chownSync(file, OTHER_UID, OTHER_UID);
    let refusal: unknown;
    try {
      ensureHome(home);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ToolError);
    expect((refusal as ToolError).message).toBe(
      `the data directory ${home} holds ${file}, which belongs to another user (uid ${OTHER_UID}), not to you: it may hold what they put there (a token of theirs, a config, a journal entry the next start would write back), so it is not used. Remove it, or set CHATBRIDGE_HOME to a folder of your own (default ~/.chatbridge)`,
    );
    // what a start would have done with it
    expect(createTokenStore({ file: join(home, 'tokens.json') }).verify(theirs)).toBe(true);
  });

  // the journal, audit and programs folders are read at every start: one that was open to others may hold what they
  // put in it, whoever owns the folder itself
  it.skipIf(!root)('a journal entry another user put in a 0777 journal folder of the person is refused, naming it (a start would have written it back)', async () => {
    const world = await createWorld();
    try {
      const target = await world.write('notes.txt', 'what the other user wants here\n');
      const journalDir = join(home, 'journal');
      const planted = createJournal({ dir: journalDir, policy: world.policy });
      const { id } = await planted.apply('planted', [{ op: 'write', path: target, content: 'the person\'s notes\n', mode: 'overwrite' }]);
      const entry = await markUnfinished(journalDir, id);
      await world.write('notes.txt', 'the person\'s notes, edited\n');
      chmodSync(home, 0o700);
      chmodSync(journalDir, 0o777);
      chownSync(entry, OTHER_UID, OTHER_UID);
      let refusal: unknown;
      try {
        ensureHome(home);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(ToolError);
      expect((refusal as ToolError).message).toBe(
        `the data directory ${home} holds ${entry}, which belongs to another user (uid ${OTHER_UID}), not to you: it may hold what they put there (a token of theirs, a config, a journal entry the next start would write back), so it is not used. Remove it, or set CHATBRIDGE_HOME to a folder of your own (default ~/.chatbridge)`,
      );
      // what a start would have done with it
      expect(await createJournal({ dir: journalDir, policy: world.policy }).recover()).toEqual([id]);
      expect(await world.read('notes.txt')).toBe('what the other user wants here\n');
    } finally {
      await world.cleanup();
    }
  });

  it.skipIf(!root)('one that belongs to another user is refused before anything is made in it', () => {
    mkdirSync(home);
    chmodSync(home, 0o777);
    chownSync(home, OTHER_UID, OTHER_UID);
    expect(() => ensureHome(home)).toThrow(
      `the data directory ${home} belongs to another user (uid ${OTHER_UID}), not to you: they could put a token, a config or a journal entry of theirs in it, so it is not used. Set CHATBRIDGE_HOME to a folder of your own (default ~/.chatbridge)`,
    );
    expect(() => statSync(join(home, 'journal'))).toThrow();
  });
});
