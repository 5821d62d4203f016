/** A click handler that acts only for a person's click (never for one a script dispatched). */
export function trusted(action: () => void): (event: Event) => void {
  return (event) => {
    if (event.isTrusted) action();
  };
}
