// The keyboard shortcuts: the list the help overlay shows, and the key that opens it.

import type { MessageKey } from "./locales/en";

/** One shortcut as the help overlay lists it: its keys (as typed) and what it does (a message
 *  key, so the overlay reads in the UI's language). */
export interface Shortcut {
  readonly keys: string;
  readonly action: MessageKey;
}

/** Every shortcut, grouped by where it applies (`area` is a message key too). */
export const SHORTCUTS: readonly { readonly area: MessageKey; readonly items: readonly Shortcut[] }[] = [
  {
    area: "shortcuts.area.chat",
    items: [
      { keys: "Enter", action: "shortcuts.send" },
      { keys: "Shift+Enter", action: "shortcuts.newLine" },
      { keys: "Esc", action: "shortcuts.stop" },
      { keys: "Ctrl+Tab / Ctrl+Page Down", action: "shortcuts.nextTab" },
      { keys: "Ctrl+Shift+Tab / Ctrl+Page Up", action: "shortcuts.previousTab" },
      { keys: "Ctrl+W", action: "shortcuts.closeTab" },
    ],
  },
  {
    area: "shortcuts.area.approval",
    items: [
      { keys: "Enter / Space", action: "shortcuts.pressFocused" },
      { keys: "Esc", action: "shortcuts.deny" },
      { keys: "Tab", action: "shortcuts.moreChoices" },
    ],
  },
  {
    area: "shortcuts.area.question",
    items: [
      { keys: "Enter", action: "shortcuts.sendAnswer" },
      { keys: "Esc", action: "shortcuts.dismiss" },
    ],
  },
  {
    area: "shortcuts.area.everywhere",
    items: [
      { keys: "F1 / ?", action: "shortcuts.help" },
      { keys: "Ctrl+Shift+O", action: "shortcuts.newWindow" },
      { keys: "Esc", action: "shortcuts.closePanel" },
      { keys: "Tab / Shift+Tab", action: "shortcuts.moveFocus" },
    ],
  },
];

/** Whether `event` asks for the help overlay: F1 anywhere, `?` outside text fields. */
export function isHelpKey(event: Pick<KeyboardEvent, "key" | "ctrlKey" | "altKey" | "metaKey" | "target">): boolean {
  if (event.ctrlKey || event.altKey || event.metaKey) return false;
  if (event.key === "F1") return true;
  if (event.key !== "?") return false;
  const target = event.target as { tagName?: unknown; isContentEditable?: unknown } | null;
  const tag = typeof target?.tagName === "string" ? target.tagName.toUpperCase() : "";
  return !(tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || target?.isContentEditable === true);
}
