/**
 * A name that differs from a denied one only in Unicode normalization: é is one character (NFC, what a config typed
 * in an editor holds) or an e and a combining accent (NFD, the names macOS tools create, kept by a copy or a sync to
 * Linux), and macOS's file systems take either for the same name. A deny glob in one form matched nothing of a
 * folder named in the other, so its files were read, searched, listed with their sizes and written. Real files in a
 * temp workspace, through the real tools.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../../companion/policy/schema';
import { createWorld, type World } from '../tools/world';

const NFC = 'privé';
const NFD = 'prive\u0301';

describe.each([
  ['the glob in NFC, the folder on disk in NFD', NFC, NFD],
  ['the glob in NFD, the folder on disk in NFC', NFD, NFC],
])('deny glob and name in two normalizations: %s', (_name, globForm, diskForm) => {
  let w: World;
  let secret: string;
  beforeEach(async () => {
    w = await createWorld({ deny: [...configSchema.parse({}).deny, `**/${globForm}/**`] });
    await fs.mkdir(path.join(w.root, diskForm));
    secret = path.join(w.root, diskForm, 'notes.txt');
    await fs.writeFile(secret, 'the hidden plan');
  });
  afterEach(() => w.cleanup());

  it('refuses a read of the file', async () => {
    await w.fails('fs.read', { path: secret }, 'POLICY_BLOCKED', /deny glob/);
  });

  it('refuses a write into the folder, and writes nothing', async () => {
    await w.fails('fs.write', { path: path.join(w.root, diskForm, 'new.txt'), mode: 'overwrite', content: 'x' }, 'POLICY_BLOCKED', /deny glob/);
    expect(await w.exists(path.join(w.root, diskForm, 'new.txt'))).toBe(false);
  });

  it('finds nothing in it by a search', async () => {
    const out = await w.call('fs.search', { path: w.root, query: 'hidden plan' });
    expect(out.text).not.toContain('notes.txt');
  });

  it('lists it as denied, without its size', async () => {
    const out = await w.call('fs.ls', { path: w.root, depth: 3, sizes: true });
    expect(out.text).not.toContain('notes.txt');
    expect(out.text).toContain('denied');
  });
});

describe('a denied name spelt with a character NFC makes ASCII', () => {
  let w: World;
  afterEach(() => w.cleanup());

  // U+212A KELVIN SIGN is K to NFC, and macOS's file systems take it so: .\u212Aube/config there is ~/.kube/config,
  // which the built-in **/.kube/** glob (in any case) keeps
  it('refuses .\u212Aube/config as .kube/config', async () => {
    w = await createWorld({ deny: configSchema.parse({}).deny });
    const kelvin = path.join(w.root, '.\u212Aube');
    await fs.mkdir(kelvin);
    await fs.writeFile(path.join(kelvin, 'config'), 'client-key-data: x');
    await w.fails('fs.read', { path: path.join(kelvin, 'config') }, 'POLICY_BLOCKED', /\.kube/);
  });
});
