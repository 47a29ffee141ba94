// The keyboard shortcuts: the list the help overlay shows, and the key that opens it.

/** One shortcut as the help overlay lists it. */
export interface Shortcut {
  readonly keys: string;
  readonly action: string;
}

/** Every shortcut, grouped by where it applies. */
export const SHORTCUTS: readonly { readonly area: string; readonly items: readonly Shortcut[] }[] = [
  {
    area: "Chat",
    items: [
      { keys: "Enter", action: "Send the message" },
      { keys: "Shift+Enter", action: "New line in the message" },
      { keys: "Esc", action: "Stop the running turn" },
    ],
  },
  {
    area: "Approval dialog",
    items: [
      { keys: "Enter", action: "Allow once" },
      { keys: "Esc", action: "Deny (with the reason typed, if any)" },
      { keys: "Tab", action: "Move to Allow for this session and the other choices" },
    ],
  },
  {
    area: "Question from the model",
    items: [
      { keys: "Enter", action: "Send the answer typed" },
      { keys: "Esc", action: "Dismiss" },
    ],
  },
  {
    area: "Everywhere",
    items: [
      { keys: "F1 or ?", action: "Show or hide this help" },
      { keys: "Esc", action: "Close a panel or a dialog" },
      { keys: "Tab / Shift+Tab", action: "Move between controls" },
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
