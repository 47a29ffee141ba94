// Esc for the app's panels (settings, MCP servers, help): it closes the panel, unless an
// approval or a question from the engine is open on top of it, which takes its own Esc.

/** The handler a panel installs on the window: Esc calls `onclose`. */
export function closeOnEscape(onclose: () => void): (event: KeyboardEvent) => void {
  return (event) => {
    if (event.key !== "Escape" || event.defaultPrevented) return;
    if (document.querySelector("[data-testid=dialog-backdrop]")) return;
    event.preventDefault();
    onclose();
  };
}
