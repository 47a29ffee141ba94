// Esc for the app's panels (settings, MCP servers, help): it closes the panel, unless an
// approval or a question from the engine is open on top of it, which takes its own Esc, or an
// input method is composing text (its Esc cancels the composition, not the panel).

/** Whether the key press belongs to an input method's composition (Chinese, Japanese…): the
 *  browser says so, or reports the key as 229 while the IME handles it. */
export function composing(event: KeyboardEvent): boolean {
  // keyCode is deprecated, but 229 is how WebKit reports the key that ends a composition.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  return event.isComposing || event.keyCode === 229;
}

/** The handler a panel installs on the window: Esc calls `onclose`. */
export function closeOnEscape(onclose: () => void): (event: KeyboardEvent) => void {
  return (event) => {
    if (event.key !== "Escape" || event.defaultPrevented || composing(event)) return;
    if (document.querySelector("[data-testid=dialog-backdrop]")) return;
    event.preventDefault();
    onclose();
  };
}
