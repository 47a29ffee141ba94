// Keeping the keyboard inside a modal: Tab from its last control goes to its first, Shift+Tab
// from its first to its last, so the page behind a dialog is never reached by accident.

const FOCUSABLE = [
  "button:not([disabled])",
  "input:not([disabled]):not([type=hidden])",
  "select:not([disabled])",
  "textarea:not([disabled])",
  "summary",
  "a[href]",
  "[tabindex]:not([tabindex='-1'])",
].join(",");

/** The controls of `root` that Tab reaches, in document order. */
export function focusables(root: ParentNode): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => !element.closest("[inert]"));
}

/** Handles Tab inside `root`: wraps around its ends. True when it moved the focus. */
export function trapTab(event: KeyboardEvent, root: HTMLElement): boolean {
  if (event.key !== "Tab") return false;
  const controls = focusables(root);
  const first = controls[0];
  const last = controls.at(-1);
  if (!first || !last) return false;
  const active = document.activeElement;
  const inside = active instanceof Node && root.contains(active);
  if (event.shiftKey && (active === first || !inside)) {
    event.preventDefault();
    last.focus();
    return true;
  }
  if (!event.shiftKey && (active === last || !inside)) {
    event.preventDefault();
    first.focus();
    return true;
  }
  return false;
}
