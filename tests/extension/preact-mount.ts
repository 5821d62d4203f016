import { render, type ComponentChild } from 'preact';
import { act } from 'preact/test-utils';

/** Renders `node` into a new element of the test page's body, its effects run. */
export function mount(node: ComponentChild): HTMLElement {
  const root = document.body.appendChild(document.createElement('div'));
  act(() => render(node, root));
  return root;
}

/** Unmounts and removes everything `mount` put on the page (an afterEach of the UI tests). */
export function unmountAll(): void {
  for (const child of [...document.body.children]) {
    render(null, child);
    child.remove();
  }
}
