import { describe, expect, it } from 'vitest';
import { observeMessages, type PageChanges } from '../../extension/scanner/observe';

function page(count: number): HTMLElement[] {
  const list = document.createElement('div');
  const messages = Array.from({ length: count }, (_, i) => {
    const m = document.createElement('div');
    m.className = 'msg';
    m.innerHTML = `<div class="body"><p>message ${i}</p></div>`;
    return m;
  });
  list.append(...messages);
  document.body.replaceChildren(list);
  return messages;
}

/**
 * Until the observer set up before it has had the changes `run` makes and has flushed them: a second observer, made
 * after it, is told of the same changes after it, and a zero timer set then runs after the flush it scheduled. (A
 * fixed wait ran out first on a busy machine, and the test saw no batch.)
 */
async function settled(run: () => void): Promise<void> {
  const delivered = new Promise<void>((resolve) => {
    const after = new MutationObserver(() => {
      after.disconnect();
      resolve();
    });
    after.observe(document.body, { childList: true, subtree: true, characterData: true });
  });
  run();
  await delivered;
  await new Promise((resolve) => setTimeout(resolve, 0));
}

async function batches(run: () => void, setup: (signal: AbortSignal, onChanges: (c: PageChanges) => void) => void): Promise<PageChanges[]> {
  const seen: PageChanges[] = [];
  const controller = new AbortController();
  setup(controller.signal, (c) => seen.push(c));
  await settled(run);
  controller.abort();
  return seen;
}

const observe = (signal: AbortSignal, onChanges: (c: PageChanges) => void): void => {
  observeMessages({ root: document.body, site: { messageSelector: '.msg', messageNesting: 'innermost' }, onChanges, signal });
};

describe('the one MutationObserver', () => {
  it('reports only the message a streamed token changed, once per batch, on a 1000-message page', async () => {
    const messages = page(1000);
    const target = messages[750]!;
    const seen = await batches(() => {
      const p = target.querySelector('p')!;
      for (let i = 0; i < 20; i++) p.append(document.createTextNode(` token${i}`));
      (p.firstChild as Text).data += '!';
    }, observe);
    expect(seen).toHaveLength(1);
    expect([...seen[0]!.changed]).toEqual([target]);
    expect(seen[0]!.added).toEqual([]);
    expect(seen[0]!.removed).toBe(false);
  });

  it('reports new messages (also when they arrive inside a wrapper)', async () => {
    page(3);
    const wrapper = document.createElement('section');
    const fresh = document.createElement('div');
    fresh.className = 'msg';
    wrapper.append(fresh);
    const seen = await batches(() => document.body.firstElementChild!.append(wrapper), observe);
    expect(seen.flatMap((c) => c.added)).toEqual([fresh]);
  });

  it('ignores our own chip going in, but not a re-render taking it out', async () => {
    const messages = page(3);
    const host = document.createElement('div');
    host.setAttribute('data-chatbridge-chip', '');
    expect(await batches(() => messages[1]!.append(host), observe)).toEqual([]);
    const seen = await batches(() => host.remove(), observe);
    expect(seen.flatMap((c) => [...c.changed])).toEqual([messages[1]]);
  });

  it("maps a change to the outer message on sites whose messages nest message-like parts", async () => {
    const messages = page(2);
    const inner = document.createElement('div');
    inner.className = 'msg reasoning-card';
    messages[1]!.append(inner);
    const seen: PageChanges[] = [];
    const controller = new AbortController();
    observeMessages({ root: document.body, site: { messageSelector: '.msg', messageNesting: 'outermost' }, onChanges: (c) => seen.push(c), signal: controller.signal });
    const part = document.createElement('div');
    part.className = 'msg';
    await settled(() => {
      inner.append('thinking…');
      messages[0]!.append(part);
    });
    controller.abort();
    expect(new Set(seen.flatMap((c) => [...c.changed]))).toEqual(new Set([messages[1], messages[0]]));
    expect(seen.flatMap((c) => c.added)).toEqual([part]);
  });

  it('a wrapper that matches the selector itself still brings the messages inside it', async () => {
    page(1);
    const turn = document.createElement('div');
    turn.className = 'msg turn';
    const inner = document.createElement('div');
    inner.className = 'msg';
    turn.append(inner);
    const seen = await batches(() => document.body.firstElementChild!.append(turn), observe);
    expect(seen.flatMap((c) => c.added)).toEqual([turn, inner]);
    expect(new Set(seen.flatMap((c) => [...c.changed]))).toEqual(new Set([turn, inner]));
  });

  it('notices messages leaving the page (virtual list, conversation switch)', async () => {
    const messages = page(5);
    const seen = await batches(() => messages[0]!.remove(), observe);
    expect(seen.some((c) => c.removed)).toBe(true);
  });

  it("a row a long list takes out marks none of the others changed; a turn's own candidate taken out marks the one left", async () => {
    const messages = page(1000);
    const seen = await batches(() => messages[0]!.remove(), observe);
    expect(seen.some((c) => c.removed)).toBe(true);
    expect(seen.flatMap((c) => [...c.changed])).toEqual([]);
    const turn = document.createElement('div');
    const [kept, dropped] = page(2);
    turn.append(kept!, dropped!);
    document.body.replaceChildren(turn);
    const afterPick = await batches(() => dropped!.remove(), observe);
    expect(afterPick.flatMap((c) => [...c.changed])).toEqual([kept]);
  });

  it('tells of changes outside every message (a site control) at once, and not of changes inside messages or our own UI', async () => {
    const messages = page(3);
    const control = document.createElement('div');
    control.innerHTML = '<button>send</button>';
    const chip = document.createElement('div');
    chip.setAttribute('data-chatbridge-chip', '');
    document.body.append(control, chip);
    const outside: string[] = [];
    const seen: PageChanges[] = [];
    const controller = new AbortController();
    let step = 'token';
    observeMessages({
      root: document.body,
      site: { messageSelector: '.msg', messageNesting: 'innermost' },
      onChanges: (c) => seen.push(c),
      onOutside: () => outside.push(step),
      schedule: () => undefined, // batches are not the point here: onOutside is never batched
      signal: controller.signal,
    });
    messages[1]!.querySelector('p')!.append(' more');
    await Promise.resolve();
    step = 'chip';
    chip.textContent = 'running';
    await Promise.resolve();
    step = 'control';
    control.innerHTML = '<button>stop</button>';
    await Promise.resolve();
    controller.abort();
    expect(outside).toEqual(['control']);
    expect(seen).toEqual([]);
  });

  it("with the site's code block selector, a re-rendered code block is its message's change, and new messages are still found", async () => {
    const messages = page(3);
    const seen = await batches(
      () => {
        const pre = document.createElement('pre');
        pre.innerHTML = '<code><span>const a = 1;</span></code>';
        messages[2]!.querySelector('.body')!.append(pre);
        pre.replaceWith(pre.cloneNode(true));
        const wrapper = document.createElement('div');
        wrapper.innerHTML = '<div class="msg"><p>new</p></div>';
        messages[2]!.parentElement!.append(wrapper);
      },
      (signal, onChanges) =>
        observeMessages({ root: document.body, site: { messageSelector: '.msg', messageNesting: 'innermost', codeBlockSelector: 'pre' }, onChanges, signal }),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]!.added.map((el) => el.textContent)).toEqual(['new']);
    expect([...seen[0]!.changed]).toEqual([messages[2], seen[0]!.added[0]]);
    expect(seen[0]!.removed).toBe(false);
  });

  it('inside the message a reply is being written into, a change is that message\'s change; a new message beside it is still found', async () => {
    const messages = page(3);
    const hot = messages[2]!;
    const seen = await batches(
      () => {
        const p = document.createElement('p');
        p.innerHTML = '<span>token</span>';
        hot.querySelector('.body')!.append(p);
        hot.querySelector('p')!.remove();
        const next = document.createElement('div');
        next.className = 'msg';
        next.textContent = 'a new message';
        hot.parentElement!.append(next);
      },
      (signal, onChanges) =>
        observeMessages({ root: document.body, site: { messageSelector: '.msg', messageNesting: 'innermost' }, onChanges, signal, streaming: () => hot }),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]!.added.map((el) => el.textContent)).toEqual(['a new message']);
    expect([...seen[0]!.changed]).toEqual([hot, seen[0]!.added[0]]);
    expect(seen[0]!.removed).toBe(false);
  });

  it('stops when its signal aborts', async () => {
    const messages = page(2);
    const seen: PageChanges[] = [];
    const controller = new AbortController();
    observeMessages({ root: document.body, site: { messageSelector: '.msg', messageNesting: 'innermost' }, onChanges: (c) => seen.push(c), signal: controller.signal });
    controller.abort();
    await settled(() => messages[0]!.append('x'));
    expect(seen).toEqual([]);
  });
});
