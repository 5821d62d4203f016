/**
 * What the write decision keeps from one decision to the next (runs-code.ts): a folder found to hold no repository,
 * and a start-up file found missing, are looked at again by their folder's stat alone while that folder stays as it
 * was. Each case makes the thing appear between two decisions, in the way that changes the least, and needs the next
 * decision to see it.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type RunsCode = typeof import('../../../companion/policy/runs-code');

const base = realpathSync(mkdtempSync(join(tmpdir(), 'cb-runs-code-kept-')));
const home = join(base, 'home');
const outside = join(base, 'outside');
const parent = join(home, 'work');
const root = join(parent, 'project');
let runsCode: RunsCode;
const savedHome = process.env.HOME;

/** how the companion decides a write: what it keeps is checked again first */
function decidedRisk(file: string): string {
  runsCode.rereadChangedStartFiles();
  return runsCode.asDecided({ risk: 'write', paths: [file], label: `write ${file}` } as never, { roots: [root], mcpServers: {} }).risk;
}

/** the folders' times settle (what a decision keeps comes only from folders that were not just changed) */
const settle = () => new Promise((resolve) => setTimeout(resolve, 250));

beforeAll(async () => {
  mkdirSync(root, { recursive: true });
  mkdirSync(outside);
  process.env.HOME = home;
  runsCode = await import('../../../companion/policy/runs-code');
});

afterAll(() => {
  process.env.HOME = savedHome;
  rmSync(base, { recursive: true, force: true });
});

describe('what a write decision keeps is seen through', () => {
  it('a repository made above the root after decisions found none there: the file its config includes asks as exec', async () => {
    const shared = join(root, 'shared.gitconfig');
    await settle();
    expect(decidedRisk(shared)).toBe('write');
    expect(decidedRisk(shared)).toBe('write');
    mkdirSync(join(parent, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(parent, '.git', 'config'), '[include]\n\tpath = ../project/shared.gitconfig\n');
    expect(decidedRisk(shared)).toBe('exec');
  });

  it('a `.git` link that led nowhere, whose target is made later outside the folder: the folder is not taken as holding no repository', async () => {
    const sub = join(root, 'sub');
    mkdirSync(sub);
    const gitDir = join(outside, 'sub.git');
    symlinkSync(gitDir, join(sub, '.git'));
    const hook = join(sub, 'hooks-here', 'pre-commit');
    await settle();
    expect(decidedRisk(hook)).toBe('write');
    // made where the folder holding the link does not change
    mkdirSync(join(gitDir, 'hooks'), { recursive: true });
    writeFileSync(join(gitDir, 'config'), '[core]\n\thooksPath = hooks-here\n');
    expect(decidedRisk(hook)).toBe('exec');
  });

  it('a start-up file made after decisions found it missing: the file it sources asks as exec', async () => {
    const sourced = join(root, 'env.sh');
    await settle();
    expect(decidedRisk(sourced)).toBe('write');
    expect(decidedRisk(sourced)).toBe('write');
    writeFileSync(join(home, '.bashrc'), `. ${sourced}\n`);
    expect(decidedRisk(sourced)).toBe('exec');
  });

  it('a start-up file that was a dangling link, whose target is made later outside its folder', async () => {
    const target = join(outside, 'profile');
    symlinkSync(target, join(home, '.profile'));
    const sourced = join(root, 'login.sh');
    await settle();
    expect(decidedRisk(sourced)).toBe('write');
    writeFileSync(target, `. ${sourced}\n`);
    expect(decidedRisk(sourced)).toBe('exec');
  });
});
