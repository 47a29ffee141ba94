// The tree panel as the user meets it: the root listed on mount, folders listed when expanded,
// the watcher's changes applied, the watcher's status shown. The backend is mocked here; the
// end-to-end suite drives the real one.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { TreeEntry } from "../src/bindings/TreeEntry";
import FileTree from "../src/components/FileTree.svelte";

const { call, handlers } = vi.hoisted(() => ({
  call: vi.fn(),
  handlers: new Map<string, (payload: unknown) => void>(),
}));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const { mockedIpc } = await import("./support/ipc-mock");
  return mockedIpc(await importOriginal(), call, handlers);
});

const listings: Record<string, TreeEntry[]> = {
  "": [
    { name: "src", path: "src", kind: "dir", size: null },
    { name: "README.md", path: "README.md", kind: "file", size: 5 },
  ],
  src: [{ name: "main.rs", path: "src/main.rs", kind: "file", size: 12 }],
};

function rows(): string[] {
  return [...document.querySelectorAll<HTMLElement>("[data-path]")].map((row) => row.dataset.path ?? "");
}

function emit(event: string, payload: unknown): void {
  handlers.get(event)?.(payload);
  flushSync();
}

const selected: string[] = [];
let panel: ReturnType<typeof mount> | null = null;

beforeEach(async () => {
  handlers.clear();
  selected.length = 0;
  call.mockReset();
  call.mockImplementation((command: string, request?: { path: string }) => {
    if (command === "list_dir") {
      const listing = listings[request?.path ?? ""];
      return listing ? Promise.resolve(listing) : Promise.reject(new Error("no such dir"));
    }
    if (command === "tree_status") return Promise.resolve({ projectId: 1, state: { state: "starting" } });
    return Promise.reject(new Error(`unexpected ${command}`));
  });
  panel = mount(FileTree, {
    target: document.body,
    props: {
      projectId: 1,
      selected: null,
      onselect: (path: string) => selected.push(path),
      onchanges: () => undefined,
    },
  });
  await vi.waitFor(() => {
    flushSync();
    expect(rows()).toEqual(["src", "README.md"]);
  });
});

afterEach(() => {
  if (panel) void unmount(panel);
  panel = null;
  document.body.innerHTML = "";
});

describe("the file tree", () => {
  it("lists a folder when it is first expanded, and selects files", async () => {
    expect(call).toHaveBeenCalledTimes(2); // the root listing and the watcher status
    document.querySelector<HTMLElement>("[data-path=src]")?.click();
    await vi.waitFor(() => {
      flushSync();
      expect(rows()).toEqual(["src", "src/main.rs", "README.md"]);
    });
    expect(call).toHaveBeenCalledWith("list_dir", { path: "src" });
    document.querySelector<HTMLElement>("[data-path='src/main.rs']")?.click();
    expect(selected).toEqual(["src/main.rs"]);
  });

  it("applies the watcher's changes for this project only", () => {
    emit("tree:changed", { projectId: 1, changes: [{ kind: "created", path: "a.txt", isDir: false }] });
    expect(rows()).toEqual(["src", "a.txt", "README.md"]);
    emit("tree:changed", { projectId: 2, changes: [{ kind: "created", path: "b.txt", isDir: false }] });
    expect(rows()).toEqual(["src", "a.txt", "README.md"]);
    emit("tree:changed", {
      projectId: 1,
      changes: [
        { kind: "renamed", from: "a.txt", to: "z.txt", isDir: false },
        { kind: "removed", path: "README.md", isDir: false },
      ],
    });
    expect(rows()).toEqual(["src", "z.txt"]);
  });

  it("shows whether the tree is kept current", async () => {
    const tree = document.querySelector<HTMLElement>("[data-testid=tree]");
    expect(tree?.dataset.watching).toBe("false");
    emit("tree:status", { projectId: 1, state: { state: "watching" } });
    expect(tree?.dataset.watching).toBe("true");
    // Becoming current lists the loaded folders again.
    await vi.waitFor(() => {
      expect(call.mock.calls.filter(([command]) => command === "list_dir")).toHaveLength(2);
    });
    emit("tree:status", { projectId: 1, state: { state: "failed", message: "too many watches" } });
    expect(document.body.textContent).toContain("Not updating live: too many watches");
  });

  it("says when the limit on watched folders is reached, and how to raise it", () => {
    const limit = () => document.querySelector<HTMLElement>("[data-testid=tree-watch-limit]");
    emit("tree:status", { projectId: 1, state: { state: "watching" } });
    expect(limit()).toBeNull();
    emit("tree:status", { projectId: 1, state: { state: "watching", limit: { watched: 8192, unwatched: 40, cap: null } } });
    expect(limit()?.getAttribute("role")).toBe("status");
    expect(limit()?.textContent).toContain("40 folders are not watched");
    expect(limit()?.textContent).toContain("sysctl fs.inotify.max_user_watches=");
    expect(limit()?.textContent).toContain("/etc/sysctl.d/");
    emit("tree:status", { projectId: 1, state: { state: "watching", limit: { watched: 1, unwatched: 3, cap: 1 } } });
    expect(limit()?.textContent).toContain("limit of 1 watched folders (GANTRY_WATCH_MAX_WATCHES)");
    expect(limit()?.textContent).not.toContain("sysctl");
  });
});
