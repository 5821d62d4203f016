import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../../shared/errors';
import {
  assertUnchanged,
  deniedBy,
  isInsideRoot,
  normalizeInputPath,
  openForRead,
  realpathLoose,
  resolveInsideRoots,
} from '../../../companion/policy/path-guard';
import { createWorld, type World } from '../tools/world';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof ToolError) return error.code;
    throw error;
  }
}

describe('normalizeInputPath (pure)', () => {
  const policy = { roots: ['/work/root'] };
  it.each([
    ['relative path', 'src/a.ts', /relative.*\/work\/root\/src\/a\.ts/],
    ['dot-relative path', './a', /relative/],
    ['parent-relative path', '../etc/passwd', /relative/],
    ['NUL byte', '/work/root/a\0.txt', /NUL/],
    ['tilde', '~/.ssh/id_rsa', /"~".*not expanded/],
    ['tilde user', '~root/x', /"~"/],
    ['shell variable', '$HOME/notes.txt', /"\$HOME".*not expanded.*absolute path \(the workspace root is \/work\/root\)$/],
    ['braced shell variable', '${HOME}/notes.txt', /"\$\{HOME\}".*not expanded/],
    ['Windows variable', '%USERPROFILE%\\notes.txt', /"%USERPROFILE%".*not expanded/],
    // "C:\temp\new.txt" in a JSON string: valid escapes, so C:, a tab, emp, a line break, ew.txt
    ['Windows path whose backslashes JSON read as escapes', JSON.parse('"C:\\temp\\new.txt"') as string, /holds a tab \(U\+0009\), a line break \(U\+000A\): in a JSON string/],
    ['POSIX path holding a line break', '/work/root/notes\nREADME.md', /holds a line break \(U\+000A\).*write each backslash of a Windows path as \\\\/],
    ['Windows drive path on POSIX', 'C:\\Users\\me\\a.txt', /Windows path/],
    ['Windows drive path with slashes', 'C:/Users/me', /Windows path/],
    ['UNC path', '\\\\server\\share\\x', /Windows path/],
    ['empty', '', /non-empty/],
  ])('%s → INVALID_INPUT', (_name, input, message) => {
    let caught: unknown;
    try {
      normalizeInputPath(input, policy, false);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ToolError);
    expect((caught as ToolError).code).toBe('INVALID_INPUT');
    expect((caught as ToolError).message).toMatch(message);
  });

  it.each([
    ['/work/root/a/../b', '/work/root/b'],
    ['/work/root/./a//b/', '/work/root/a/b'],
    ['/work/root/../root-evil/x', '/work/root-evil/x'],
  ])('normalizes %s lexically', (input, expected) => {
    expect(normalizeInputPath(input, policy, false)).toBe(expected);
  });

  it('relative path error carries the workspace root as a hint', () => {
    try {
      normalizeInputPath('a.txt', policy, false);
    } catch (error) {
      expect((error as ToolError).data.hint).toBe('/work/root');
    }
  });
});

describe('isInsideRoot / deniedBy (pure)', () => {
  it.each([
    ['/root', '/root', true],
    ['/root/a', '/root', true],
    ['/root-evil', '/root', false],
    ['/root-evil/a', '/root', false],
    ['/rootx', '/root', false],
    ['/', '/root', false],
    ['/anything', '/', true],
  ])('%s inside %s = %s', (candidate, root, expected) => {
    expect(isInsideRoot(candidate, root)).toBe(expected);
  });

  const policy = { roots: ['/r'], deny: ['**/.git/**', '**/.env', '**/.env.*', '**/*.pem', 'secrets/**'] };
  it.each([
    ['/r/.env', '**/.env'],
    ['/r/sub/.env', '**/.env'],
    ['/r/.env.local', '**/.env.*'],
    ['/r/.git', '**/.git/**'],
    ['/r/.git/config', '**/.git/**'],
    ['/r/a/.git/HEAD', '**/.git/**'],
    ['/r/keys/server.pem', '**/*.pem'],
    ['/r/secrets/a', 'secrets/**'],
    ['/r/src/env.ts', undefined],
    ['/r/.environment', undefined],
    ['/r', undefined],
    ['/elsewhere/.env', undefined],
    // any case, on every platform: WSL's /mnt/c, FAT and exFAT drives and SMB shares are case-insensitive on Linux too,
    // where `.ENV` opens `.env`
    ['/r/.ENV', '**/.env'],
    ['/r/sub/.Env.Local', '**/.env.*'],
    ['/r/.GIT/config', '**/.git/**'],
    ['/r/keys/server.PEM', '**/*.pem'],
    ['/r/Secrets/a', 'secrets/**'],
  ])('%s → %s', (candidate, glob) => {
    expect(deniedBy(candidate, policy)).toBe(glob);
  });
});

describe('resolveInsideRoots on real directories', () => {
  let world: World;
  let root: string;
  let outside: string;
  beforeEach(async () => {
    world = await createWorld();
    root = world.root;
    outside = world.outside;
    await fs.writeFile(path.join(outside, 'secret.txt'), 'outside secret');
    await world.write('inside.txt', 'inside');
  });
  afterEach(() => world.cleanup());

  it('sibling prefix: /root-evil next to /root is FORBIDDEN', async () => {
    const evil = `${root}-evil`;
    await fs.mkdir(evil);
    await fs.writeFile(path.join(evil, 'x'), 'evil');
    expect(await codeOf(resolveInsideRoots(path.join(evil, 'x'), world.policy))).toBe('FORBIDDEN');
    expect(await codeOf(resolveInsideRoots(evil, world.policy))).toBe('FORBIDDEN');
  });

  it('dot-dot escape: /root/../outside/secret.txt is FORBIDDEN', async () => {
    expect(await codeOf(resolveInsideRoots(`${root}/../outside/secret.txt`, world.policy))).toBe('FORBIDDEN');
    expect(await codeOf(resolveInsideRoots(`${root}/a/b/../../../outside`, world.policy))).toBe('FORBIDDEN');
  });

  it('absolute with dot-dot that stays inside is allowed and normalized', async () => {
    expect(await resolveInsideRoots(`${root}/sub/../inside.txt`, world.policy, { mustExist: true })).toBe(path.join(root, 'inside.txt'));
  });

  it('symlink out (file) resolves to its target and is FORBIDDEN', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    const error = await resolveInsideRoots(path.join(root, 'link.txt'), world.policy).catch((e: ToolError) => e);
    expect((error as ToolError).code).toBe('FORBIDDEN');
    expect((error as ToolError).message).toMatch(/symlink.*outside the allowed roots/);
  });

  it('symlink out (directory component) is FORBIDDEN for a path below it', async () => {
    await fs.symlink(outside, path.join(root, 'out'));
    expect(await codeOf(resolveInsideRoots(path.join(root, 'out', 'secret.txt'), world.policy))).toBe('FORBIDDEN');
    expect(await codeOf(resolveInsideRoots(path.join(root, 'out', 'new-file.txt'), world.policy, { forWrite: true }))).toBe('FORBIDDEN');
  });

  it('relative symlink that climbs out is FORBIDDEN', async () => {
    await fs.symlink('../outside/secret.txt', path.join(root, 'rel-link'));
    expect(await codeOf(resolveInsideRoots(path.join(root, 'rel-link'), world.policy))).toBe('FORBIDDEN');
  });

  it('dangling symlink pointing outside is FORBIDDEN (its target is checked, not the link)', async () => {
    await fs.symlink(path.join(outside, 'does-not-exist-yet'), path.join(root, 'dangling'));
    expect(await realpathLoose(path.join(root, 'dangling'))).toBe(path.join(outside, 'does-not-exist-yet'));
    expect(await codeOf(resolveInsideRoots(path.join(root, 'dangling'), world.policy, { forWrite: true }))).toBe('FORBIDDEN');
  });

  it('dangling symlink pointing inside resolves to its target', async () => {
    await fs.symlink(path.join(root, 'later.txt'), path.join(root, 'dangling-in'));
    expect(await resolveInsideRoots(path.join(root, 'dangling-in'), world.policy)).toBe(path.join(root, 'later.txt'));
  });

  it('symlink loop is INVALID_INPUT, not a hang', async () => {
    await fs.symlink(path.join(root, 'loop-b'), path.join(root, 'loop-a'));
    await fs.symlink(path.join(root, 'loop-a'), path.join(root, 'loop-b'));
    expect(await codeOf(resolveInsideRoots(path.join(root, 'loop-a'), world.policy))).toBe('INVALID_INPUT');
  });

  it('symlink with an innocent name to a denied file is POLICY_BLOCKED', async () => {
    await world.write('.env', 'TOKEN=1');
    await fs.symlink(path.join(root, '.env'), path.join(root, 'settings.txt'));
    expect(await codeOf(resolveInsideRoots(path.join(root, 'settings.txt'), world.policy))).toBe('POLICY_BLOCKED');
  });

  it.each(['.env', '.env.production', '.git/config', 'sub/.git/HEAD', 'certs/server.pem', '.ssh/id_rsa', '.ENV', '.SSH/id_rsa'])('deny glob: %s is POLICY_BLOCKED', async (relative) => {
    await world.write(relative, 'x');
    expect(await codeOf(resolveInsideRoots(path.join(root, relative), world.policy))).toBe('POLICY_BLOCKED');
  });

  it('NUL byte and ~ are INVALID_INPUT', async () => {
    expect(await codeOf(resolveInsideRoots(`${root}/inside.txt\0.png`, world.policy))).toBe('INVALID_INPUT');
    expect(await codeOf(resolveInsideRoots('~/inside.txt', world.policy))).toBe('INVALID_INPUT');
  });

  it('mustExist → NOT_FOUND; forWrite on a root → FORBIDDEN', async () => {
    expect(await codeOf(resolveInsideRoots(path.join(root, 'nope'), world.policy, { mustExist: true }))).toBe('NOT_FOUND');
    expect(await codeOf(resolveInsideRoots(root, world.policy, { forWrite: true }))).toBe('FORBIDDEN');
    expect(await codeOf(resolveInsideRoots(`${root}/`, world.policy))).toBe('ok');
  });

  it('keepFinalName resolves the parent only (rm/mv act on a link itself)', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'link-out'));
    expect(await resolveInsideRoots(path.join(root, 'link-out'), world.policy, { keepFinalName: true })).toBe(path.join(root, 'link-out'));
  });

  it('symlink swap before a read: openForRead refuses the redirected descriptor', async () => {
    await world.write('dir/data.txt', 'inside data');
    await fs.writeFile(path.join(outside, 'data.txt'), 'outside data');
    const checked = await resolveInsideRoots(path.join(root, 'dir', 'data.txt'), world.policy, { mustExist: true });
    // the swap: the checked directory becomes a symlink to the outside
    await fs.rename(path.join(root, 'dir'), path.join(root, 'dir-old'));
    await fs.symlink(outside, path.join(root, 'dir'));
    const error = await openForRead(checked, world.policy).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('FORBIDDEN');
    expect((error as ToolError).message).toMatch(/redirected|symlink/);
  });

  it('symlink swap of the final name before a read: O_NOFOLLOW refuses it', async () => {
    await world.write('plain.txt', 'inside');
    const checked = await resolveInsideRoots(path.join(root, 'plain.txt'), world.policy, { mustExist: true });
    await fs.rm(checked);
    await fs.symlink(path.join(outside, 'secret.txt'), checked);
    expect(await codeOf(openForRead(checked, world.policy))).toBe('FORBIDDEN');
  });

  it('assertUnchanged notices a directory swapped for a symlink', async () => {
    await world.write('d/f.txt', 'x');
    const checked = await resolveInsideRoots(path.join(root, 'd'), world.policy);
    await expect(assertUnchanged(checked, world.policy)).resolves.toBeUndefined();
    await fs.rename(checked, `${checked}-old`);
    await fs.symlink(outside, checked);
    expect(await codeOf(assertUnchanged(checked, world.policy))).toBe('FORBIDDEN');
  });
});

describe('resolveInsideRoots: one realpath for a path that exists, the component walk otherwise', () => {
  let world: World;
  beforeEach(async () => {
    world = await createWorld();
    await world.write('real/deep/file.txt', 'x');
    await fs.symlink('real', path.join(world.root, 'rel-link'));
    await fs.symlink(path.join(world.root, 'real', 'deep'), path.join(world.root, 'abs-link'));
    await fs.symlink('rel-link', path.join(world.root, 'link-to-link'));
    await fs.symlink('../real/deep/file.txt', path.join(world.root, 'real', 'file-link'));
    await fs.symlink('real/missing-target', path.join(world.root, 'dangling-in'));
  });
  afterEach(() => world.cleanup());

  it.each([
    ['a plain existing file', 'real/deep/file.txt'],
    ['a relative directory link', 'rel-link/deep/file.txt'],
    ['an absolute directory link', 'abs-link/file.txt'],
    ['a link to a link', 'link-to-link/deep/file.txt'],
    ['a file link with ..', 'real/file-link'],
    ['.. after a directory link (the physical parent)', 'abs-link/../deep/file.txt'],
    ['a missing tail under a link', 'rel-link/deep/new/file.txt'],
    ['a dangling link inside the root', 'dangling-in'],
  ])('%s: the same answer as the component walk', async (_name, relative) => {
    const asked = path.join(world.root, relative);
    expect(await resolveInsideRoots(asked, world.policy)).toBe(await realpathLoose(path.resolve(asked)));
  });

  it('mustExist: an existing path through links passes, a missing one is NOT_FOUND, a dangling link is NOT_FOUND', async () => {
    expect(await codeOf(resolveInsideRoots(path.join(world.root, 'link-to-link/deep/file.txt'), world.policy, { mustExist: true }))).toBe('ok');
    expect(await codeOf(resolveInsideRoots(path.join(world.root, 'rel-link/nope'), world.policy, { mustExist: true }))).toBe('NOT_FOUND');
    expect(await codeOf(resolveInsideRoots(path.join(world.root, 'dangling-in'), world.policy, { mustExist: true }))).toBe('NOT_FOUND');
    expect(await codeOf(resolveInsideRoots(path.join(world.root, 'rel-link/deep/file.txt/below'), world.policy, { mustExist: true }))).not.toBe('ok');
  });
});
