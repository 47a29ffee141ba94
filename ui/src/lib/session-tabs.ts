// The tab strip of a project's window, as pure functions: which sessions are open as tabs, in
// which order, and which one to show when the shown one closes. A tab is a session's id, or
// `null` for the fresh chat (its first message makes it a session, and the tab becomes that
// session's). The window remembers the sessions' tabs (never the fresh chat's) through the
// backend.

/** A tab: a session's id, or `null` for the fresh chat. */
export type TabId = string | null;

/** The most tabs open at once (the backend keeps as many); opening one more closes the
 *  oldest opened that is not shown. */
export const MAX_TABS = 32;

/**
 * The tabs once `shown` is shown, coming from `previous`: as they are when `shown` has a tab;
 * else the fresh chat's tab becomes `shown`'s when `previous` was the fresh chat (its first
 * message made it a session, or the user opened a session from it); else `shown` gets a tab
 * right after `previous`'s.
 */
export function withShown(tabs: readonly TabId[], shown: TabId, previous: TabId): readonly TabId[] {
  if (tabs.includes(shown)) return tabs;
  if (shown !== null && previous === null && tabs.includes(null)) {
    return tabs.map((tab) => (tab === null ? shown : tab));
  }
  const after = tabs.indexOf(previous);
  const next = after < 0 ? [...tabs, shown] : [...tabs.slice(0, after + 1), shown, ...tabs.slice(after + 1)];
  return next.length > MAX_TABS ? withoutOldest(next, shown) : next;
}

/** `tabs` with one tab fewer: the leftmost that is not `keep`. */
function withoutOldest(tabs: readonly TabId[], keep: TabId): readonly TabId[] {
  const at = tabs.findIndex((tab) => tab !== keep);
  return tabs.filter((_, index) => index !== at);
}

/** What closing tab `closing` leaves: the tabs, and the tab to show (`undefined`: the shown one
 *  stays). Closing the shown tab shows its right neighbour, else its left one; closing the last
 *  tab leaves the fresh chat's. */
export function withoutTab(
  tabs: readonly TabId[],
  closing: TabId,
  shown: TabId,
): { readonly tabs: readonly TabId[]; readonly show: TabId | undefined } {
  const at = tabs.indexOf(closing);
  if (at < 0) return { tabs, show: undefined };
  const rest = tabs.filter((_, index) => index !== at);
  if (rest.length === 0) return { tabs: [null], show: null };
  if (closing !== shown) return { tabs: rest, show: undefined };
  return { tabs: rest, show: rest[Math.min(at, rest.length - 1)] ?? null };
}

/** The tab `step` places right of `from` (left for a negative step), going round. */
export function neighbour(tabs: readonly TabId[], from: TabId, step: number): TabId | undefined {
  if (tabs.length === 0) return undefined;
  const at = Math.max(tabs.indexOf(from), 0);
  const count = tabs.length;
  return tabs[(((at + step) % count) + count) % count];
}

/** The tabs the window remembers: the sessions' (not the fresh chat's). */
export function rememberedTabs(tabs: readonly TabId[]): string[] {
  return tabs.filter((tab): tab is string => tab !== null);
}

/** The tabs of a window that opens with `remembered` and shows `shown`. */
export function restoredTabs(remembered: readonly string[], shown: TabId): readonly TabId[] {
  if (remembered.includes(shown ?? "")) return remembered;
  return [...remembered, shown];
}

/** What a key asks of the tab strip: the next or previous tab, or closing the shown one. */
export type TabKey = "next" | "previous" | "close";

/** The tab strip's keys: Ctrl+Tab and Ctrl+Page Down (next), Ctrl+Shift+Tab and Ctrl+Page Up
 *  (previous), Ctrl+W (close the shown tab). */
export function tabKey(event: Pick<KeyboardEvent, "key" | "ctrlKey" | "shiftKey" | "altKey" | "metaKey">): TabKey | null {
  if (!event.ctrlKey || event.altKey || event.metaKey) return null;
  switch (event.key) {
    case "Tab":
      return event.shiftKey ? "previous" : "next";
    case "PageDown":
      return event.shiftKey ? null : "next";
    case "PageUp":
      return event.shiftKey ? null : "previous";
    case "w":
    case "W":
      return event.shiftKey ? null : "close";
    default:
      return null;
  }
}
