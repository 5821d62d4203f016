import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Block } from '../../../shared/protocols';

/** One expected block, as written in `tests/fixtures/blocks/<kind>/<case>.expected.json` (see its README). */
export interface ExpectedBlock {
  kind: Block['kind'];
  complete: boolean;
  payload?: unknown;
  hasPayload?: boolean;
  error?: boolean | string;
  repaired?: boolean;
  raw?: string;
  warnings?: string[];
  /** When present, whether the block was found outside any fenced code block (`Block.unfenced`). */
  unfenced?: boolean;
  /** When present, whether the block is an `<invoke>` written without its `<function_calls>` (`Block.unwrapped`). */
  unwrapped?: boolean;
  /** When present, whether the block is an Axon statement read through the quote marks of a block quote (`Block.quoted`). */
  quoted?: boolean;
}

export interface BlockFixture {
  /** `<kind folder>/<case>` */
  name: string;
  markdown: string;
  expected: ExpectedBlock[];
}

export const BLOCK_FIXTURE_ROOT = join(import.meta.dirname, '..', '..', 'fixtures', 'blocks');

/** Every fixture case, read from disk: `<case>.md` with `<case>.expected.json` beside it. */
export function loadBlockFixtures(root = BLOCK_FIXTURE_ROOT): BlockFixture[] {
  const fixtures: BlockFixture[] = [];
  for (const folder of readdirSync(root, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    const dir = join(root, folder.name);
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith('.md')) continue;
      const base = file.slice(0, -'.md'.length);
      fixtures.push({
        name: `${folder.name}/${base}`,
        markdown: readFileSync(join(dir, file), 'utf8'),
        expected: JSON.parse(readFileSync(join(dir, `${base}.expected.json`), 'utf8')) as ExpectedBlock[],
      });
    }
  }
  return fixtures;
}

/** What differs between the blocks found and the expected ones; empty when they match. */
export function mismatches(found: Block[], expected: ExpectedBlock[]): string[] {
  const problems: string[] = [];
  if (found.length !== expected.length) {
    problems.push(
      `expected ${expected.length} blocks, found ${found.length}: ${found.map((b) => `${b.kind}${b.complete ? '' : '(incomplete)'}`).join(', ')}`,
    );
  }
  expected.forEach((want, i) => {
    const got = found[i];
    const at = `block ${i}`;
    if (got === undefined) return;
    if (got.kind !== want.kind) problems.push(`${at}: kind ${got.kind}, expected ${want.kind}`);
    if (got.complete !== want.complete) problems.push(`${at}: complete ${got.complete}, expected ${want.complete}`);
    const error = want.error ?? false;
    if (error === false && got.error !== undefined) problems.push(`${at}: unexpected error: ${got.error}`);
    if (error === true && got.error === undefined) problems.push(`${at}: expected an error`);
    if (typeof error === 'string' && !(got.error ?? '').includes(error)) {
      problems.push(`${at}: error ${JSON.stringify(got.error)} does not contain ${JSON.stringify(error)}`);
    }
    if ((got.repaired ?? false) !== (want.repaired ?? false)) {
      problems.push(`${at}: repaired ${got.repaired ?? false}, expected ${want.repaired ?? false}`);
    }
    if ('payload' in want && !isDeepStrictEqual(got.payload, want.payload)) {
      problems.push(`${at}: payload ${JSON.stringify(got.payload)?.slice(0, 400)} differs from expected`);
    }
    if (want.hasPayload !== undefined && (got.payload !== undefined) !== want.hasPayload) {
      problems.push(`${at}: payload ${got.payload === undefined ? 'missing' : 'present'}, expected ${want.hasPayload ? 'present' : 'none'}`);
    }
    if (want.raw !== undefined && got.raw !== want.raw) {
      problems.push(`${at}: raw ${JSON.stringify(got.raw.slice(0, 200))} differs from expected`);
    }
    if (want.unfenced !== undefined && (got.unfenced ?? false) !== want.unfenced) {
      problems.push(`${at}: unfenced ${got.unfenced ?? false}, expected ${want.unfenced}`);
    }
    if (want.unwrapped !== undefined && (got.unwrapped ?? false) !== want.unwrapped) {
      problems.push(`${at}: unwrapped ${got.unwrapped ?? false}, expected ${want.unwrapped}`);
    }
    if (want.quoted !== undefined && (got.quoted ?? false) !== want.quoted) {
      problems.push(`${at}: quoted ${got.quoted ?? false}, expected ${want.quoted}`);
    }
    if (want.warnings !== undefined) {
      const warnings = got.warnings ?? [];
      if (want.warnings.length === 0 && warnings.length > 0) problems.push(`${at}: unexpected warnings ${JSON.stringify(warnings)}`);
      for (const w of want.warnings) {
        if (!warnings.some((g) => g.includes(w))) problems.push(`${at}: no warning containing ${JSON.stringify(w)} in ${JSON.stringify(warnings)}`);
      }
    }
  });
  return problems;
}
