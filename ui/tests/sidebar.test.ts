import { describe, expect, it } from "vitest";

import {
  clampTreeHeight,
  DEFAULT_TREE_LAYOUT,
  keyedHeight,
  loadTreeLayout,
  MIN_SESSIONS_HEIGHT,
  MIN_TREE_HEIGHT,
  parseTreeLayout,
  saveTreeLayout,
  TREE_LAYOUT_KEY,
} from "../src/lib/sidebar";

describe("the sidebar's tree", () => {
  it("keeps its height between its minimum and what leaves room for the sessions", () => {
    expect(clampTreeHeight(10, 800)).toBe(MIN_TREE_HEIGHT);
    expect(clampTreeHeight(5000, 800)).toBe(800 - MIN_SESSIONS_HEIGHT);
    expect(clampTreeHeight(300.4, 800)).toBe(300);
    expect(clampTreeHeight(Number.NaN, 800)).toBeGreaterThanOrEqual(MIN_TREE_HEIGHT);
  });

  it("remembers whether it is open and its height, and survives what storage holds", () => {
    const stored = new Map<string, string>();
    const storage = { getItem: (key: string) => stored.get(key) ?? null, setItem: (key: string, value: string) => void stored.set(key, value) };
    expect(loadTreeLayout(storage)).toEqual(DEFAULT_TREE_LAYOUT);
    saveTreeLayout(storage, { open: false, height: 222 });
    expect(stored.has(TREE_LAYOUT_KEY)).toBe(true);
    expect(loadTreeLayout(storage)).toEqual({ open: false, height: 222 });
    expect(parseTreeLayout("{not json")).toEqual(DEFAULT_TREE_LAYOUT);
    expect(parseTreeLayout('{"open":"yes","height":"tall"}')).toEqual(DEFAULT_TREE_LAYOUT);
    const failing = { getItem: (): string => { throw new Error("denied"); } };
    expect(loadTreeLayout(failing)).toEqual(DEFAULT_TREE_LAYOUT);
  });

  it("moves with the arrow and page keys (up makes the tree taller)", () => {
    expect(keyedHeight("ArrowUp", 300)).toBeGreaterThan(300);
    expect(keyedHeight("ArrowDown", 300)).toBeLessThan(300);
    expect(keyedHeight("PageUp", 300)).toBeGreaterThan(keyedHeight("ArrowUp", 300) ?? 0);
    expect(keyedHeight("a", 300)).toBeNull();
  });
});
