// Streamed reasoning cut into blocks at line ends: the pieces are the text, exactly; a finished
// block never changes; a replaced text starts over.

import { describe, expect, it } from "vitest";

import { SEGMENT_CHARS, TextSegments } from "../src/lib/text-segments";
import { below, prng } from "./support/answers";

describe("text segments", () => {
  it("are the text, exactly, however it streams, and never change once done", () => {
    const random = prng(99);
    const lines = Array.from({ length: 400 }, (_, index) => `step ${index}: ${"思考 🤔 ".repeat(below(random, 12))}`);
    const text = lines.join(random() < 0.5 ? "\n" : "\n\n");
    const segments = new TextSegments();
    let done = segments.update("").done;
    for (let end = 1; end < text.length; end += 1 + below(random, 40)) {
      const view = segments.update(text.slice(0, end));
      expect(view.done.join("") + view.open).toBe(text.slice(0, end));
      // Finished blocks stay as they were (the same array until one is added).
      expect(view.done.slice(0, done.length)).toEqual(done);
      if (view.done.length === done.length) expect(view.done).toBe(done);
      done = view.done;
    }
    const last = segments.update(text);
    expect(last.done.join("") + last.open).toBe(text);
    expect(last.done.length).toBeGreaterThan(10);
    for (const part of last.done) {
      expect(part.endsWith("\n")).toBe(true);
      expect(part.length).toBeGreaterThanOrEqual(SEGMENT_CHARS);
    }
  });

  it("keep a line without a line feed whole", () => {
    const segments = new TextSegments();
    const line = "x".repeat(SEGMENT_CHARS * 3);
    expect(segments.update(line)).toEqual({ done: [], open: line });
  });

  it("start over when the text is replaced", () => {
    const segments = new TextSegments();
    const first = `${"a".repeat(SEGMENT_CHARS)}\nmore`;
    expect(segments.update(first).done).toHaveLength(1);
    expect(segments.update("other")).toEqual({ done: [], open: "other" });
  });
});
