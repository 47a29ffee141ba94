import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";

import { copyFromButton, COPIED_MS, decorateCodeBlocks } from "../src/lib/code-blocks";
import { fillLines, highlightedLines } from "../src/lib/code-view";
import { highlighter, loadHighlighter, splitHighlightedLines } from "../src/lib/highlight";
import { renderMarkdown } from "../src/lib/markdown";
import { MarkdownStream } from "../src/lib/markdown-stream";

const WORDS = { copy: "Copy code", copied: "Copied" };

function render(markdown: string): HTMLElement {
  const container = document.createElement("div");
  container.innerHTML = renderMarkdown(markdown);
  return container;
}

describe("before the highlighter is loaded", () => {
  it("code renders plain and asks for it", async () => {
    expect(highlighter()).toBeNull();
    const root = render("```rust\nfn main() {}\n```");
    expect(root.querySelector("pre code")?.textContent).toBe("fn main() {}\n");
    expect(root.querySelector("span")).toBeNull();
    await loadHighlighter();
    expect(highlighter()).not.toBeNull();
  });
});

describe("highlighting", () => {
  beforeAll(async () => {
    await loadHighlighter();
  });

  it("colours a fenced block with a language, keeping its text", () => {
    const root = render("```rust\nfn main() { let x = \"hi\"; } // done\n```");
    const code = root.querySelector("pre code");
    expect(code?.className).toBe("language-rust");
    expect(code?.textContent).toBe("fn main() { let x = \"hi\"; } // done\n");
    expect(code?.querySelector(".hljs-keyword")?.textContent).toBe("fn");
    expect(code?.querySelector(".hljs-string")?.textContent).toBe("\"hi\"");
    expect(code?.querySelector(".hljs-comment")?.textContent).toBe("// done");
  });

  it("leaves blocks without a known language plain", () => {
    expect(render("```\nlet x = 1;\n```").querySelector("span")).toBeNull();
    expect(render("```klingon\nlet x = 1;\n```").querySelector("span")).toBeNull();
    expect(render("    let x = 1;\n").querySelector("span")).toBeNull();
  });

  it("lets no model markup ride in: code is escaped, and hljs classes only stay in code", () => {
    const root = render('```html\n<script>alert(1)</script><img src=x onerror=alert(1)>\n```\n\n<span class="hljs-keyword toast">x</span>');
    expect(root.querySelector("script, img")).toBeNull();
    expect(root.querySelector("pre code")?.textContent).toContain("<script>alert(1)</script>");
    const outside = [...root.querySelectorAll("p span")];
    expect(outside.every((span) => !span.hasAttribute("class"))).toBe(true);
    // A fence's info string cannot break out of the class attribute.
    const sneaky = render('```js" onclick="alert(1)\nx\n```');
    expect(sneaky.querySelector("[onclick]")).toBeNull();
  });

  it("highlights a closed block once and only the open block again as it grows", () => {
    const rendered: string[] = [];
    const stream = new MarkdownStream((token) => {
      rendered.push(token.raw);
      return renderMarkdown(token.raw);
    });
    const block = "```ts\nconst a = 1;\n```\n";
    const text = `Intro.\n\n${block}\nAfter.\n\nMore text here.\n`;
    for (let end = 1; end <= text.length; end += 1) stream.update(text.slice(0, end));
    stream.update(text, true);
    expect(rendered.filter((raw) => raw === block)).toHaveLength(1);
    // While open, the block was rendered again as it grew (each time highlighted).
    expect(rendered.filter((raw) => raw.startsWith("```ts")).length).toBeGreaterThan(5);
    expect(stream.committed.filter((html) => html.includes("hljs-keyword"))).toHaveLength(1);
  });

  it("cuts highlighted HTML into well-formed lines", () => {
    const lines = splitHighlightedLines('<span class="hljs-comment">/* a\nb */</span> x\ny');
    expect(lines).toEqual(['<span class="hljs-comment">/* a</span>', '<span class="hljs-comment">b */</span> x', "y"]);
  });

  it("colours a previewed file by its name and keeps escapes visible", () => {
    const text = "def f():\n    return 'x\u202e'\n";
    const lines = text.slice(0, -1).split("\n");
    const html = highlightedLines(lines.join("\n"), "src/app.py");
    expect(html).not.toBeNull();
    const pre = document.createElement("pre");
    fillLines(pre, lines, html ?? []);
    const rows = pre.querySelectorAll(".line");
    expect(rows).toHaveLength(2);
    expect(rows[0]?.querySelector(".hljs-keyword")?.textContent).toBe("def");
    expect(rows[1]?.querySelector("[data-testid='escape']")).not.toBeNull();
    expect(highlightedLines("x", "notes.unknownext")).toBeNull();
  });
});

describe("the copy button", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is added to each code block and copies its code, saying so for a moment", async () => {
    vi.useFakeTimers();
    const root = render("```\nfirst\n```\n\ntext\n\n```\nsecond line\n```");
    decorateCodeBlocks(root, WORDS);
    const buttons = root.querySelectorAll<HTMLButtonElement>("button.code-copy");
    expect(buttons).toHaveLength(2);
    expect(buttons[1]?.getAttribute("aria-label")).toBe("Copy code");
    decorateCodeBlocks(root, WORDS);
    expect(root.querySelectorAll("button.code-copy")).toHaveLength(2);
    const copied: string[] = [];
    const ok = await copyFromButton(buttons[1] ?? null, WORDS, (text) => {
      copied.push(text);
      return Promise.resolve();
    });
    expect(ok).toBe(true);
    expect(copied).toEqual(["second line"]);
    expect(buttons[1]?.textContent).toBe("Copied");
    vi.advanceTimersByTime(COPIED_MS);
    expect(buttons[1]?.textContent).toBe("Copy code");
    expect(await copyFromButton(root.querySelector("p"), WORDS, () => Promise.resolve())).toBe(false);
  });

  it("says nothing was copied when the clipboard refuses", async () => {
    const root = render("```\nx\n```");
    decorateCodeBlocks(root, WORDS);
    const ok = await copyFromButton(root.querySelector("button"), WORDS, () => Promise.reject(new Error("denied")));
    expect(ok).toBe(false);
    expect(root.querySelector("button")?.textContent).toBe("Copy code");
  });
});
