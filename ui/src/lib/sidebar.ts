// The sidebar's layout: the sessions on top, the file tree below them, folded or open, with a
// height the user drags (or sets with the arrow keys on the splitter). Both are kept with the
// app's settings (lib/preferences.ts); the webview's storage holds a copy for the first frame.

/** Where the layout is kept. */
export const TREE_LAYOUT_KEY = "gantry.sidebar.tree";

/** The tree's smallest height, and the room always left to the sessions above it, in pixels. */
export const MIN_TREE_HEIGHT = 96;
export const MIN_SESSIONS_HEIGHT = 120;
export const DEFAULT_TREE_HEIGHT = 340;

/** How far one arrow key (or page key) moves the splitter, in pixels. */
export const KEY_STEP = 24;
export const PAGE_STEP = 120;

export interface TreeLayout {
  readonly open: boolean;
  /** The tree's height when open, in pixels. */
  readonly height: number;
}

export const DEFAULT_TREE_LAYOUT: TreeLayout = { open: true, height: DEFAULT_TREE_HEIGHT };

/** The height kept within what the sidebar (`available` pixels tall) can give the tree. */
export function clampTreeHeight(height: number, available: number): number {
  const most = Math.max(MIN_TREE_HEIGHT, available - MIN_SESSIONS_HEIGHT);
  if (!Number.isFinite(height)) return Math.min(DEFAULT_TREE_HEIGHT, most);
  return Math.round(Math.min(most, Math.max(MIN_TREE_HEIGHT, height)));
}

/** Reads the remembered layout (anything unreadable gives the default). */
export function parseTreeLayout(text: string | null): TreeLayout {
  if (text === null) return DEFAULT_TREE_LAYOUT;
  try {
    const value = JSON.parse(text) as { open?: unknown; height?: unknown };
    const open = typeof value.open === "boolean" ? value.open : DEFAULT_TREE_LAYOUT.open;
    const height = typeof value.height === "number" && Number.isFinite(value.height) ? value.height : DEFAULT_TREE_HEIGHT;
    return { open, height: Math.max(MIN_TREE_HEIGHT, Math.round(height)) };
  } catch {
    return DEFAULT_TREE_LAYOUT;
  }
}

/** The layout remembered in `storage` (the default when there is none or storage fails). */
export function loadTreeLayout(storage: Pick<Storage, "getItem"> | null): TreeLayout {
  try {
    return parseTreeLayout(storage?.getItem(TREE_LAYOUT_KEY) ?? null);
  } catch {
    return DEFAULT_TREE_LAYOUT;
  }
}

/** Remembers `layout` (a storage that fails only loses the memory). */
export function saveTreeLayout(storage: Pick<Storage, "setItem"> | null, layout: TreeLayout): void {
  try {
    storage?.setItem(TREE_LAYOUT_KEY, JSON.stringify(layout));
  } catch {
    // Not remembered; the layout still applies for this run.
  }
}

/** The height a key press on the splitter asks for (the tree is below it: Up makes it taller),
 *  or `null` for a key the splitter does not use. */
export function keyedHeight(key: string, height: number): number | null {
  switch (key) {
    case "ArrowUp":
      return height + KEY_STEP;
    case "ArrowDown":
      return height - KEY_STEP;
    case "PageUp":
      return height + PAGE_STEP;
    case "PageDown":
      return height - PAGE_STEP;
    default:
      return null;
  }
}
