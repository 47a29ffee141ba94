// The transcript's windowing: which rows are rendered for a scroll position, and where the view
// goes when rows above it change.

import { describe, expect, it } from "vitest";

import { centredTop, ESTIMATED_ROW_PX, pushedDown, RowHeights, rowAt, windowOf } from "../src/lib/windowing";

const keys = (count: number, from = 1): number[] => Array.from({ length: count }, (_, index) => from + index);

describe("row heights", () => {
  it("estimates rows never measured and sums measured ones into offsets", () => {
    const heights = new RowHeights(100);
    expect(heights.offsets(keys(3))).toEqual([0, 100, 200, 300]);
    expect(heights.set(2, 40)).toBe(true);
    expect(heights.set(2, 40)).toBe(false);
    expect(heights.set(3, Number.NaN)).toBe(false);
    expect(heights.measured(2)).toBe(true);
    expect(heights.measured(3)).toBe(false);
    expect(heights.offsets(keys(3))).toEqual([0, 100, 140, 240]);
    expect(new RowHeights().height(9)).toBe(ESTIMATED_ROW_PX);
  });

  it("forgets the rows that left", () => {
    const heights = new RowHeights(100);
    heights.set(1, 10);
    heights.set(2, 20);
    heights.keep([2]);
    expect(heights.measured(1)).toBe(false);
    expect(heights.height(2)).toBe(20);
  });
});

describe("the window", () => {
  const offsets = new RowHeights(100).offsets(keys(5000));

  it("finds the row under a pixel", () => {
    expect(rowAt(offsets, -50)).toBe(0);
    expect(rowAt(offsets, 0)).toBe(0);
    expect(rowAt(offsets, 99)).toBe(0);
    expect(rowAt(offsets, 100)).toBe(1);
    expect(rowAt(offsets, 1e9)).toBe(4999);
    expect(rowAt([0], 10)).toBe(0);
  });

  it("renders the rows in view and the overscan around them, the rest as space", () => {
    const shown = windowOf(offsets, 250_000, 800, 400);
    expect(shown.start).toBe(2496);
    expect(shown.end).toBe(2513);
    expect(shown.before).toBe(249_600);
    expect(shown.after).toBe(500_000 - 251_300);
    expect(shown.end - shown.start).toBeLessThan(20);
  });

  it("keeps to the ends", () => {
    expect(windowOf(offsets, 0, 800, 400)).toEqual({ start: 0, end: 13, before: 0, after: 500_000 - 1300 });
    const tail = windowOf(offsets, 500_000 - 800, 800, 400);
    expect(tail.end).toBe(5000);
    expect(tail.after).toBe(0);
    expect(tail.before + (tail.end - tail.start) * 100).toBe(500_000);
    expect(windowOf([0], 0, 800, 400)).toEqual({ start: 0, end: 0, before: 0, after: 0 });
  });

  it("puts a row in the middle of the view", () => {
    expect(centredTop(offsets, 100, 800)).toBe(10_050 - 400);
    expect(centredTop(offsets, 0, 800)).toBe(0);
  });
});

describe("keeping the view still", () => {
  it("moves the view down by what older rows put above the first take", () => {
    const heights = new RowHeights(100);
    heights.set(3, 40);
    const after = [...keys(20, 1), ...keys(10, 101)];
    expect(pushedDown(101, after, heights.offsets(after))).toBe(1940);
    expect(pushedDown(1, after, heights.offsets(after))).toBe(0);
    expect(pushedDown(999, after, heights.offsets(after))).toBe(0);
  });
});
