// The keys held down right now, as the window saw them: the approval dialog asks when it appears,
// so a key that went down before it (an Enter meant for the chat box) cannot approve the call.
// The listeners run in the capture phase, before any component's handler; a window that loses
// the focus forgets them (their release happens elsewhere).

const held = new Set<string>();

/** The keys down now. */
export function heldKeys(): string[] {
  return [...held];
}

/** Starts following key presses on `target`; returns the function that stops it. */
export function trackHeldKeys(target: Window): () => void {
  const down = (event: KeyboardEvent): void => {
    held.add(event.key);
  };
  const up = (event: KeyboardEvent): void => {
    held.delete(event.key);
  };
  const forget = (): void => {
    held.clear();
  };
  target.addEventListener("keydown", down, true);
  target.addEventListener("keyup", up, true);
  target.addEventListener("blur", forget);
  return () => {
    target.removeEventListener("keydown", down, true);
    target.removeEventListener("keyup", up, true);
    target.removeEventListener("blur", forget);
    held.clear();
  };
}
