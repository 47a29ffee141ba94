// The file preview of a long file: its lines reach the DOM a page at a time (a log's first window
// is thousands of lines), more as the reader scrolls or asks. The backend is mocked here; the
// end-to-end suite measures the real one on a 50 MB log.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import FilePreview from "../src/components/FilePreview.svelte";

const { call, handlers } = vi.hoisted(() => ({
  call: vi.fn(),
  handlers: new Map<string, (payload: unknown) => void>(),
}));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const { mockedIpc } = await import("./support/ipc-mock");
  return mockedIpc(await importOriginal(), call, handlers);
});

const text = Array.from({ length: 1000 }, (_, n) => `line ${String(n + 1)}`).join("\n") + "\n";
let preview: ReturnType<typeof mount> | null = null;

function lines(): number {
  return document.querySelectorAll("[data-testid=preview-text] .line").length;
}

beforeEach(() => {
  call.mockReset();
  call.mockImplementation((command: string) =>
    command === "read_preview"
      ? Promise.resolve({ kind: "text", path: "app.log", text, size: 50_000_000, truncated: true })
      : Promise.reject(new Error(`unexpected ${command}`)),
  );
  preview = mount(FilePreview, { target: document.body, props: { path: "app.log", revision: 0, onclose: () => undefined } });
});

afterEach(() => {
  if (preview) void unmount(preview);
  preview = null;
  document.body.innerHTML = "";
});

describe("the file preview of a long file", () => {
  it("renders a page of lines, then more on request or when scrolled near the end", async () => {
    await vi.waitFor(() => {
      expect(lines()).toBe(300);
    });
    const more = document.querySelector<HTMLButtonElement>("[data-testid=preview-more]");
    expect(more?.textContent).toBe("Show more (700 lines not shown yet)");
    more?.click();
    flushSync();
    expect(lines()).toBe(600);

    // Scrolled to within three screens of the end: the next page comes.
    const pre = document.querySelector<HTMLElement>("[data-testid=preview-text]");
    if (!pre) throw new Error("no text");
    Object.defineProperty(pre, "clientHeight", { value: 400 });
    Object.defineProperty(pre, "scrollHeight", { value: 10_000 });
    pre.scrollTop = 8_900;
    pre.dispatchEvent(new Event("scroll"));
    flushSync();
    expect(lines()).toBe(900);
    pre.dispatchEvent(new Event("scroll"));
    flushSync();
    expect(lines()).toBe(1000);
    expect(document.querySelector("[data-testid=preview-more]")).toBeNull();
    expect(document.body.textContent).toContain("line 1000");
    expect(document.body.textContent).toContain("Only the first");
  });
});
