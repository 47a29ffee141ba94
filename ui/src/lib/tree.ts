// The project tree as the webview holds it: the listings of the directories loaded so far (lazily,
// as the user expands them) and which ones are expanded. Pure functions over immutable state, so
// the live-update rules are unit-tested without a window.

import type { TreeChange } from "../bindings/TreeChange";
import type { TreeEntry } from "../bindings/TreeEntry";

/** One directory's listing. */
export interface DirListing {
  /** The children, or null until the first listing arrives. */
  readonly entries: readonly TreeEntry[] | null;
  /** Why the last listing failed. */
  readonly error: string | null;
}

/** The loaded part of the tree. The root directory is "". */
export interface TreeState {
  readonly dirs: ReadonlyMap<string, DirListing>;
  readonly expanded: ReadonlySet<string>;
  /** How many children of a directory are shown, when more than {@link PAGE} were asked for. */
  readonly shown: ReadonlyMap<string, number>;
}

/** How many children of one directory are rendered before a "show more" row. */
export const PAGE = 500;

export const emptyTree: TreeState = { dirs: new Map(), expanded: new Set(), shown: new Map() };

/** The parent directory of a project-relative path ("" for top-level entries). */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

/** The last component of a path. */
export function nameOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** True when `path` is `dir` or inside it. */
export function isWithin(path: string, dir: string): boolean {
  return dir === "" || path === dir || path.startsWith(`${dir}/`);
}

function sortKey(entry: TreeEntry): [number, string, string] {
  return [entry.kind === "dir" ? 0 : 1, entry.name.toLowerCase(), entry.name];
}

/** The engine's order: directories first, then by name ignoring case, then by exact name. */
export function compareEntries(a: TreeEntry, b: TreeEntry): number {
  const ka = sortKey(a);
  const kb = sortKey(b);
  for (let i = 0; i < 3; i += 1) {
    const x = ka[i] ?? "";
    const y = kb[i] ?? "";
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

/** A directory's listing arrived. */
export function listed(state: TreeState, dir: string, entries: readonly TreeEntry[]): TreeState {
  const dirs = new Map(state.dirs);
  dirs.set(dir, { entries: [...entries].sort(compareEntries), error: null });
  return { ...state, dirs };
}

/** A directory's listing failed. */
export function listFailed(state: TreeState, dir: string, error: string): TreeState {
  const dirs = new Map(state.dirs);
  dirs.set(dir, { entries: state.dirs.get(dir)?.entries ?? null, error });
  return { ...state, dirs };
}

/** Expands or collapses `dir`. Returns whether the caller must list it (first expansion). */
export function toggle(state: TreeState, dir: string): { state: TreeState; load: boolean } {
  const expanded = new Set(state.expanded);
  if (expanded.has(dir)) {
    expanded.delete(dir);
    return { state: { ...state, expanded }, load: false };
  }
  expanded.add(dir);
  return { state: { ...state, expanded }, load: !state.dirs.get(dir)?.entries };
}

/** Shows {@link PAGE} more children of `dir`. */
export function showMore(state: TreeState, dir: string): TreeState {
  const shown = new Map(state.shown);
  shown.set(dir, (state.shown.get(dir) ?? PAGE) + PAGE);
  return { ...state, shown };
}

function withoutSubtree(state: TreeState, path: string): TreeState {
  const keep = ([dir]: [string, unknown]): boolean => !isWithin(dir, path);
  return {
    dirs: new Map([...state.dirs].filter(keep)),
    expanded: new Set([...state.expanded].filter((dir) => !isWithin(dir, path))),
    shown: new Map([...state.shown].filter(keep)),
  };
}

function removeEntry(state: TreeState, path: string): TreeState {
  const parent = parentOf(path);
  const listing = state.dirs.get(parent);
  const pruned = withoutSubtree(state, path);
  if (!listing?.entries) return pruned;
  const dirs = new Map(pruned.dirs);
  dirs.set(parent, { ...listing, entries: listing.entries.filter((e) => e.path !== path) });
  return { ...pruned, dirs };
}

function addEntry(state: TreeState, path: string, isDir: boolean): TreeState {
  const parent = parentOf(path);
  const listing = state.dirs.get(parent);
  // Not loaded: it will be listed, with the new entry, when the user expands it.
  if (!listing?.entries) return state;
  const entry: TreeEntry = { name: nameOf(path), path, kind: isDir ? "dir" : "file", size: null };
  const others = listing.entries.filter((e) => e.path !== path);
  const dirs = new Map(state.dirs);
  dirs.set(parent, { ...listing, entries: [...others, entry].sort(compareEntries) });
  return { ...state, dirs };
}

/**
 * Applies the watcher's changes. Returns the new state and the loaded directories to list again
 * (for `rescan`, and for a created path whose kind the event can't tell, such as a symbolic link,
 * nothing: the listing on expansion will tell).
 */
export function applyChanges(
  state: TreeState,
  changes: readonly TreeChange[],
): { state: TreeState; relist: string[] } {
  let next = state;
  const relist = new Set<string>();
  for (const change of changes) {
    switch (change.kind) {
      case "created":
        next = addEntry(next, change.path, change.isDir);
        break;
      case "removed":
        next = removeEntry(next, change.path);
        break;
      case "renamed":
        next = addEntry(removeEntry(next, change.from), change.to, change.isDir);
        break;
      case "modified":
        break;
      case "rescan":
        for (const dir of next.dirs.keys()) {
          if (isWithin(dir, change.path)) relist.add(dir);
        }
        break;
    }
  }
  return { state: next, relist: [...relist].filter((dir) => next.dirs.has(dir)) };
}

/** One visible entry of the tree. */
export interface EntryRow {
  readonly kind: "entry";
  readonly entry: TreeEntry;
  readonly depth: number;
  readonly expanded: boolean;
  /** True while an expanded directory's listing has not arrived. */
  readonly loading: boolean;
  readonly error: string | null;
}

/** Stands for the children of `dir` not rendered yet. */
export interface MoreRow {
  readonly kind: "more";
  readonly dir: string;
  readonly depth: number;
  readonly remaining: number;
}

export type TreeRow = EntryRow | MoreRow;

/**
 * The rows to show, in order: the root's children and the children of every expanded directory,
 * at most {@link PAGE} per directory until the user asks for more (a folder of a hundred thousand
 * files stays responsive).
 */
export function visibleRows(state: TreeState): TreeRow[] {
  const rows: TreeRow[] = [];
  const walk = (dir: string, depth: number): void => {
    const entries = state.dirs.get(dir)?.entries ?? [];
    const limit = state.shown.get(dir) ?? PAGE;
    for (const entry of entries.slice(0, limit)) {
      const expanded = entry.kind === "dir" && state.expanded.has(entry.path);
      const listing = state.dirs.get(entry.path);
      rows.push({
        kind: "entry",
        entry,
        depth,
        expanded,
        loading: expanded && !listing?.entries && !listing?.error,
        error: expanded ? (listing?.error ?? null) : null,
      });
      if (expanded) walk(entry.path, depth + 1);
    }
    if (entries.length > limit) {
      rows.push({ kind: "more", dir, depth, remaining: entries.length - limit });
    }
  };
  walk("", 0);
  return rows;
}
