// The file preview of a log's first window (512 KB, about 9,000 lines, what the engine reads of
// a 50 MB log): mounted until its lines are in the DOM, a page of them (what the preview does)
// against all of them at once (what it did). jsdom, not WebKit: the ratio is the point; the
// end-to-end suite measures the real window (tests/e2e, "a large repository").
import { mount, unmount } from "svelte";
import { bench, describe, vi } from "vitest";

import FilePreview from "../src/components/FilePreview.svelte";

const WINDOW_BYTES = 512 * 1024;

function logWindow(): string {
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < WINDOW_BYTES; n += 1) {
    const line = `2026-01-01T00:00:00Z INFO request ${String(n)} served in 12 ms`;
    size += line.length + 1;
    lines.push(line);
  }
  return lines.join("\n") + "\n";
}

const text = logWindow();

vi.mock("../src/lib/ipc", () => ({
  call: () => Promise.resolve({ kind: "text", path: "app.log", text, size: 50 * 1024 * 1024, truncated: true }),
  describeError: String,
}));

async function render(page: number): Promise<void> {
  const target = document.createElement("div");
  document.body.append(target);
  const preview = mount(FilePreview, { target, props: { path: "app.log", revision: 0, onclose: () => undefined, page } });
  while (target.querySelector(".line") === null) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  await unmount(preview);
  target.remove();
}

describe("the preview of a 512 KB log window, to its lines in the DOM", () => {
  bench("a page of 300 lines (the preview)", () => render(300), { iterations: 20, time: 0 });
  // Some 20 s a run in jsdom: two runs, no warm-up.
  bench("all 9,000 lines at once (before)", () => render(Number.POSITIVE_INFINITY), {
    iterations: 2,
    time: 0,
    warmupIterations: 0,
    warmupTime: 0,
  });
});
