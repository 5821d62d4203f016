import { createChip, type Chip, type ChipAction } from '../../extension/ui/chip';

/** A chip in the page, with its closed shadow root caught the way only our own code could reach it. */
export function chipWithRoot(onAction: (action: ChipAction) => void = () => undefined): { chip: Chip; root: ShadowRoot } {
  const original = Element.prototype.attachShadow;
  let root: ShadowRoot | null = null;
  Element.prototype.attachShadow = function (init) {
    root = original.call(this, init);
    return root;
  };
  try {
    const chip = createChip(document, onAction);
    document.body.replaceChildren(chip.host);
    return { chip, root: root as unknown as ShadowRoot };
  } finally {
    Element.prototype.attachShadow = original;
  }
}
