import { render } from 'preact';
import { expect, it } from 'vitest';
import { Switch } from '../../extension/ui/switch';

it('a switch is a named checkbox with role=switch that reports changes', () => {
  const seen: boolean[] = [];
  const root = document.body.appendChild(document.createElement('div'));
  render(<Switch label="Auto-run" checked={false} onChange={(on) => seen.push(on)} attributes={{ 'data-setting': 'chatgpt.autoRun' }} />, root);
  const input = root.querySelector<HTMLInputElement>('input[data-setting="chatgpt.autoRun"]')!;
  expect(input.getAttribute('role')).toBe('switch');
  expect(input.closest('label')!.textContent).toBe('Auto-run');
  input.click();
  expect(seen).toEqual([true]);
});
