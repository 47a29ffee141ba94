// The Markdown renderer (marked, DOMPurify) is not in the first script: a message rendered before
// it is there shows its text as it is, and renders once it loads. Each test file has its own
// modules, so the renderer starts unloaded here (project-chat-markdown.test.ts has when the chat
// loads it).

import { flushSync, mount, unmount } from "svelte";
import { describe, expect, it } from "vitest";

import Markdown from "../src/components/Markdown.svelte";
import { loadMarkdown, markdownRenderer } from "../src/lib/markdown-loader";
import { unmountAfterEach } from "./support/component";

const mounted = unmountAfterEach();

describe("the Markdown renderer, loaded on first need", () => {
  it("shows a message's text until the renderer is there, then renders it", async () => {
    expect(markdownRenderer()).toBeNull();
    mounted(mount(Markdown, { target: document.body, props: { source: "Some **bold** text" } }));
    flushSync();
    expect(document.querySelector("[data-testid=markdown-pending]")?.textContent).toBe("Some **bold** text");
    // Text, never markup: model-written HTML shows as the characters it is.
    const markup = '<img src="x" onerror="alert(1)"><script>alert(2)</script>';
    const host = document.createElement("div");
    document.body.append(host);
    const second = mount(Markdown, { target: host, props: { source: markup } });
    flushSync();
    expect(host.querySelector("[data-testid=markdown-pending]")?.textContent).toBe(markup);
    expect(host.querySelector("img, script")).toBeNull();
    void unmount(second);
    // The message asked for it.
    await loadMarkdown();
    flushSync();
    expect(document.querySelector("[data-testid=markdown-pending]")).toBeNull();
    expect(document.querySelector(".markdown strong")?.textContent).toBe("bold");
  });

  it("renders at once once loaded", () => {
    expect(markdownRenderer()).not.toBeNull();
    mounted(mount(Markdown, { target: document.body, props: { source: "# Title" } }));
    flushSync();
    expect(document.querySelector(".markdown h1")?.textContent).toBe("Title");
    expect(document.querySelector("[data-testid=markdown-pending]")).toBeNull();
  });
});
