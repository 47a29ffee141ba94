import { describe, expect, it } from "vitest";

import type { TreeEntry } from "../src/bindings/TreeEntry";
import {
  applyChanges,
  compareEntries,
  emptyTree,
  listed,
  listFailed,
  PAGE,
  showMore,
  toggle,
  type TreeRow,
  type TreeState,
  visibleRows,
} from "../src/lib/tree";

function file(path: string): TreeEntry {
  return { name: path.slice(path.lastIndexOf("/") + 1), path, kind: "file", size: 1 };
}
function dir(path: string): TreeEntry {
  return { name: path.slice(path.lastIndexOf("/") + 1), path, kind: "dir", size: null };
}
function paths(rows: TreeRow[]): string[] {
  return rows.map((row) => (row.kind === "entry" ? row.entry.path : `…${row.dir}`));
}

function sample(): TreeState {
  let state = listed(emptyTree, "", [file("README.md"), dir("src"), dir("docs")]);
  state = toggle(state, "src").state;
  state = listed(state, "src", [file("src/main.rs"), dir("src/util")]);
  return state;
}

describe("the tree", () => {
  it("sorts like the engine: directories first, then names ignoring case", () => {
    const entries = [file("b.rs"), dir("Zeta"), file("A.md"), file("a.md"), dir("alpha")];
    expect(entries.sort(compareEntries).map((e) => e.name)).toEqual(["alpha", "Zeta", "A.md", "a.md", "b.rs"]);
  });

  it("shows expanded directories' children only, and asks to load on first expansion", () => {
    const state = sample();
    expect(paths(visibleRows(state))).toEqual(["docs", "src", "src/util", "src/main.rs", "README.md"]);
    const first = toggle(state, "docs");
    expect(first.load).toBe(true);
    expect(visibleRows(first.state).find((r) => r.kind === "entry" && r.entry.path === "docs")).toMatchObject({
      expanded: true,
      loading: true,
    });
    const collapsed = toggle(state, "src");
    expect(collapsed.load).toBe(false);
    expect(paths(visibleRows(collapsed.state))).toEqual(["docs", "src", "README.md"]);
    // Expanding again needs no new listing.
    expect(toggle(collapsed.state, "src").load).toBe(false);
  });

  it("reports a failed listing on the row", () => {
    let state = toggle(sample(), "docs").state;
    state = listFailed(state, "docs", "permission denied");
    const row = visibleRows(state).find((r) => r.kind === "entry" && r.entry.path === "docs");
    expect(row).toMatchObject({ loading: false, error: "permission denied" });
  });

  it("adds created entries to loaded directories, in order, once", () => {
    const { state, relist } = applyChanges(sample(), [
      { kind: "created", path: "src/lib.rs", isDir: false },
      { kind: "created", path: "src/lib.rs", isDir: false },
      { kind: "created", path: "assets", isDir: true },
      { kind: "created", path: "docs/guide.md", isDir: false }, // docs not loaded: nothing to do
    ]);
    expect(relist).toEqual([]);
    expect(paths(visibleRows(state))).toEqual([
      "assets", "docs", "src", "src/util", "src/lib.rs", "src/main.rs", "README.md",
    ]);
  });

  it("removes entries and forgets removed directories' listings", () => {
    const { state } = applyChanges(sample(), [
      { kind: "removed", path: "src", isDir: true },
      { kind: "removed", path: "README.md", isDir: false },
    ]);
    expect(paths(visibleRows(state))).toEqual(["docs"]);
    expect(state.dirs.has("src")).toBe(false);
    expect(state.expanded.has("src")).toBe(false);
  });

  it("moves renamed entries", () => {
    const { state } = applyChanges(sample(), [
      { kind: "renamed", from: "src/main.rs", to: "src/app.rs", isDir: false },
      { kind: "renamed", from: "README.md", to: "src/README.md", isDir: false },
    ]);
    expect(paths(visibleRows(state))).toEqual(["docs", "src", "src/util", "src/app.rs", "src/README.md"]);
  });

  it("does not confuse a sibling with a common prefix for a subtree", () => {
    let state = listed(emptyTree, "", [dir("src"), dir("src2")]);
    state = toggle(state, "src2").state;
    state = listed(state, "src2", [file("src2/a")]);
    const { state: after } = applyChanges(state, [{ kind: "removed", path: "src", isDir: true }]);
    expect(paths(visibleRows(after))).toEqual(["src2", "src2/a"]);
  });

  it("lists again the loaded directories a rescan covers", () => {
    const state = sample();
    expect(applyChanges(state, [{ kind: "rescan", path: "src" }]).relist).toEqual(["src"]);
    expect(applyChanges(state, [{ kind: "rescan", path: "" }]).relist.sort()).toEqual(["", "src"]);
    expect(applyChanges(state, [{ kind: "rescan", path: "docs" }]).relist).toEqual([]);
  });

  it("ignores modifications", () => {
    const state = sample();
    expect(applyChanges(state, [{ kind: "modified", path: "src/main.rs", isDir: false }]).state).toBe(state);
  });

  it("renders a huge directory a page at a time", () => {
    const many = Array.from({ length: PAGE * 2 + 10 }, (_, i) => file(`f${String(i).padStart(5, "0")}`));
    let state = listed(emptyTree, "", many);
    let rows = visibleRows(state);
    expect(rows).toHaveLength(PAGE + 1);
    expect(rows.at(-1)).toEqual({ kind: "more", dir: "", depth: 0, remaining: PAGE + 10 });
    state = showMore(state, "");
    rows = visibleRows(state);
    expect(rows).toHaveLength(PAGE * 2 + 1);
    state = showMore(state, "");
    expect(visibleRows(state)).toHaveLength(PAGE * 2 + 10);
  });
});
