/**
 * Light or dark, as the chat page shows itself, so the chips drawn into it stay legible. The sites say it on their
 * root elements; where they say nothing the person's system setting decides (prefers-color-scheme).
 */

export type PageTheme = 'light' | 'dark';

/** The attributes the sites switch their theme with: the only ones the watcher listens to. */
const THEME_ATTRIBUTES = ['class', 'style', 'data-theme', 'data-color-mode', 'data-ds-dark-theme', 'data-ds-light-theme'];

/** What one root element (`<html>`, then `<body>`) says about the theme, or null when it says nothing. */
function themeOf(el: Element | null): PageTheme | null {
  if (!el) return null;
  // 2024–2026: ChatGPT writes `class="dark"` / `class="light"` on <html> (with a matching inline color-scheme); Claude,
  // Grok, Kimi and most Tailwind sites use the same `dark` class.
  if (el.classList.contains('dark')) return 'dark';
  if (el.classList.contains('light')) return 'light';
  // 2025–2026: DeepSeek marks <body> with `data-ds-dark-theme` while its dark theme is on.
  if (el.hasAttribute('data-ds-dark-theme')) return 'dark';
  if (el.hasAttribute('data-ds-light-theme')) return 'light';
  for (const name of ['data-theme', 'data-color-mode']) {
    const value = el.getAttribute(name)?.toLowerCase();
    if (value === 'dark' || value === 'light') return value;
  }
  // An inline `color-scheme: dark` (ChatGPT sets it with its class); `light dark` means "follow the system".
  const scheme = (el as HTMLElement).style?.colorScheme?.trim().toLowerCase();
  if (scheme === 'dark' || scheme === 'light') return scheme;
  return null;
}

/**
 * The theme the page paints when it names none: the background of <body>, else of <html>, by its luminance. A site
 * whose light theme carries no marker (DeepSeek marks only its dark one) is then read right even on a dark system.
 * Transparent backgrounds say nothing.
 */
function paintedTheme(doc: Document): PageTheme | null {
  const view = doc.defaultView;
  if (!view?.getComputedStyle) return null;
  for (const el of [doc.body, doc.documentElement]) {
    if (!el) continue;
    const match = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(view.getComputedStyle(el).backgroundColor);
    if (!match) continue;
    const alpha = match[4] === undefined ? 1 : match[4].endsWith('%') ? Number.parseFloat(match[4]) / 100 : Number(match[4]);
    if (alpha < 0.5) continue;
    const [r, g, b] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
    // perceived lightness (ITU-R BT.601 weights) of the 0–255 channels
    return 0.299 * r + 0.587 * g + 0.114 * b < 128 ? 'dark' : 'light';
  }
  return null;
}

/** The page's theme now: its root elements first, then the background it paints, then the system's preference. */
export function readPageTheme(doc: Document): PageTheme {
  const said = themeOf(doc.documentElement) ?? themeOf(doc.body) ?? paintedTheme(doc);
  if (said) return said;
  return doc.defaultView?.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/**
 * Calls `onChange` whenever the page's theme changes, until `signal` aborts; returns the theme now. Watches only the
 * theme attributes of <html> and <body> (not their subtrees), so it costs nothing while a reply streams.
 */
export function watchPageTheme(signal: AbortSignal, doc: Document, onChange: (theme: PageTheme) => void): PageTheme {
  let theme = readPageTheme(doc);
  const check = (): void => {
    const next = readPageTheme(doc);
    if (next === theme) return;
    theme = next;
    onChange(next);
  };
  const View = doc.defaultView;
  if (View?.MutationObserver) {
    const observer = new View.MutationObserver(check);
    for (const el of [doc.documentElement, doc.body]) if (el) observer.observe(el, { attributes: true, attributeFilter: THEME_ATTRIBUTES });
    signal.addEventListener('abort', () => observer.disconnect(), { once: true });
  }
  const query = View?.matchMedia?.('(prefers-color-scheme: dark)');
  query?.addEventListener?.('change', check, { signal });
  return theme;
}
