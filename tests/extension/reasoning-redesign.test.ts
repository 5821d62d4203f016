import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findBlocks } from '../../shared/protocols';
import { chipView, claimBlocks } from '../../extension/content/page-decide';
import type { TrackedBlock } from '../../extension/content/page-context';
import { LoopGuard } from '../../extension/scanner/blocks';
import { unplacedReasoningLabel } from '../../extension/scanner/reasoning';
import { serializeMessage } from '../../extension/scanner/serialize';
import { SITES } from '../../extension/sites';
import type { Site } from '../../extension/sites/define-site';
import { t } from '../../extension/ui/i18n';
import { useLocale } from './i18n-fake';
import { assistantRow, buildPage, catchChipRoots, READ, renderReply, start, stopPages, until, userRow, type Harness } from './page-harness';
import { FIXTURE_DIR, idsReadingEverything, loadFixture } from './site-fixtures';

/**
 * A call the model only drafted in its reasoning never runs, on any site — also after a redesign renames what the
 * site module knows the reasoning by. Each saved page whose reply holds a reasoning section with a decoy call (an
 * fs.rm of "/", id "think") is read and decided as a finished live reply is (scanner, reasoning check, claimBlocks):
 * as saved, the answer's calls run and the decoy does not; with every class, test id and attribute that names the
 * reasoning renamed or dropped, the decoy still never runs — where the module can no longer tell the reasoning from
 * the answer nothing of that reply runs by itself, and its chips say why, in the person's language.
 */

afterEach(stopPages);
const roots = catchChipRoots();

const HOOK = /think|reason|thought|cot|deep/i;

/** What a redesign does to the reasoning's hooks: its class names renamed, its naming attributes gone. */
function renameReasoningHooks(root: ParentNode): void {
  for (const el of Array.from(root.querySelectorAll('*'))) {
    for (const name of Array.from(el.classList)) if (HOOK.test(name)) el.classList.replace(name, `r${name.length}`);
    for (const attr of Array.from(el.attributes)) {
      if (attr.name !== 'class' && (HOOK.test(attr.name) || HOOK.test(attr.value))) el.removeAttribute(attr.name);
    }
  }
}

/** Saved idle pages whose reply holds a reasoning section with the decoy. */
const pages = SITES.filter((site) => site.hosts.length > 0).flatMap((site) =>
  readdirSync(join(FIXTURE_DIR, site.id))
    .filter((f) => f.includes('idle'))
    .map((f) => [`${site.id}/${f}`, site] as const)
    .filter(([file]) => idsReadingEverything(site, loadFixture(file)).includes('think')),
);

interface Decided {
  ran: unknown[];
  held: Array<{ id: unknown; note: string | undefined; chip: string | undefined }>;
  labels: Array<string | null>;
}

/** Every reply of the page read and decided as the page decides a finished live reply, everything ready to run. */
function decide(site: Site, doc: Document): Decided {
  const decided: Decided = { ran: [], held: [], labels: [] };
  for (const message of site.messages(doc)) {
    if (message.role !== 'assistant') continue;
    const answer = site.answerRoot(message.el);
    if (!answer) continue;
    const serialized = serializeMessage(answer, site);
    const unplacedReasoning = unplacedReasoningLabel(message.el, serialized, site) ?? site.unplacedRegion?.(message.el) ?? null;
    decided.labels.push(unplacedReasoning);
    const blocks: TrackedBlock[] = findBlocks(serialized.markdown).map((block, index) => ({
      block, index, key: `k${index}`, state: 'ready', chip: null, anchor: null, ranBefore: false, reruns: 0,
    }));
    const record = { role: 'assistant' as const, origin: 'live' as const, ending: 'normal' as const, blocks, unplacedReasoning };
    const outcome = claimBlocks({ settings: { enabled: true, autoRun: true }, record, ran: new Set(), guard: new LoopGuard(), conversation: 'c' });
    const idOf = (tracked: TrackedBlock): unknown => (tracked.block.payload as { id?: unknown } | undefined)?.id;
    decided.ran.push(...outcome.run.map(idOf));
    for (const refused of outcome.refused) {
      decided.held.push({ id: idOf(refused.tracked), note: refused.note, chip: chipView(record, refused.tracked, () => true, t).note });
    }
  }
  return decided;
}

describe.each(pages)('%s: a call drafted in the reasoning never runs', (file, site) => {
  it('as saved: the answer runs, the reasoning does not, nothing is held', () => {
    const decided = decide(site, loadFixture(file));
    expect(decided.ran).not.toContain('think');
    expect(decided.ran.length).toBeGreaterThan(0);
    expect(decided.held).toEqual([]);
    expect(decided.labels.every((label) => label === null)).toBe(true);
  });

  it('after a redesign renames the reasoning: nothing of it runs, and what is held says why', () => {
    useLocale('zh_CN');
    const doc = loadFixture(file);
    renameReasoningHooks(doc);
    const decided = decide(site, doc);
    expect(decided.ran).not.toContain('think');
    if (decided.held.length === 0) return; // the module still tells the reasoning apart by what is left
    const label = decided.labels.find((l) => l !== null)!;
    const why = t('note.unplacedReasoning', [label]);
    expect(why).toMatch(/[\u4e00-\u9fff]/);
    expect(why).toContain(label);
    for (const held of decided.held) {
      expect(held.note).toBe(why);
      // the chip of a block held so, once redrawn, still says it (its own note, else the reply's)
      expect(held.chip).toBe(why);
    }
  });
});

const DECOY = '{"jsonrpc":"2.0","id":"think","method":"tools/call","params":{"name":"fs.rm","arguments":{"path":"/"}}}';

/**
 * A live reply on the DeepSeek-like page whose answer body holds, before the answer, a folded section under no name
 * the module knows (a redesign's reasoning) with its "Thought for 4s" toggle and a drafted call; it streams and ends.
 */
async function replyWithSection(h: Harness, label: string): Promise<HTMLElement> {
  h.page.list.append(userRow('do it'));
  const { row, answer } = assistantRow();
  h.page.setGenerating(true);
  h.page.list.append(row);
  await h.settle();
  renderReply(answer, ['Reading the file.', { lang: 'mcp-request', code: READ }]);
  const section = document.createElement('div');
  section.innerHTML = '<div><button aria-expanded="true"></button></div><div><p>Delete it first?</p></div>';
  section.querySelector('button')!.textContent = label;
  renderReply(section.lastElementChild as HTMLElement, ['Delete it first?', { lang: 'mcp-request', code: DECOY }]);
  answer.prepend(section);
  h.clock.now += 50;
  await h.settle();
  h.page.setGenerating(false);
  h.clock.now += 500;
  await h.settle();
  return row;
}

describe('the page: a reply holding a reasoning section the module does not place', () => {
  it('runs nothing by itself; each chip and the site doctor say why, in the person\'s language', async () => {
    useLocale('zh_CN');
    const h = start(buildPage(), { doctorCheckMs: 60 });
    const row = await replyWithSection(h, '已深度思考（用时 4 秒）');
    await until(() => Array.from(row.querySelectorAll('[data-chatbridge-chip]')).length === 2);
    const why = t('note.unplacedReasoning', ['已深度思考（用时 4 秒）']);
    await until(() => Array.from(row.querySelectorAll('[data-chatbridge-chip]')).every((chip) => roots.get(chip)?.textContent?.includes(why)));
    await until(() => h.problems.at(-1)?.code === 'reasoning-unplaced');
    expect(h.problems.at(-1)?.message).toMatch(/[\u4e00-\u9fff]/);
    h.clock.now += 10_000;
    await h.settle();
    expect(h.runs).toEqual([]);
  });

  it('the same reply whose section carries no reasoning label runs both its calls (both are read as answer)', async () => {
    const h = start(buildPage());
    await replyWithSection(h, 'Deleting first');
    await until(() => h.runs.length === 2);
    expect(h.problems.filter((p) => p !== null)).toEqual([]);
  });
});
