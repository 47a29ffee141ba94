import { afterEach, describe, expect, it } from "vitest";

import { setLanguage } from "../src/lib/i18n.svelte";
import { renderMarkdown, sanitizeHtml } from "../src/lib/markdown";

/** Renders and parses the result, to inspect it as a DOM. */
function render(markdown: string): HTMLElement {
  const container = document.createElement("div");
  container.innerHTML = renderMarkdown(markdown);
  return container;
}

/** Every attribute of every element, as "tag attr=value". */
function attributes(root: HTMLElement): string[] {
  return [...root.querySelectorAll("*")].flatMap((element) =>
    [...element.attributes].map((a) => `${element.tagName.toLowerCase()} ${a.name}=${a.value}`),
  );
}

describe("renderMarkdown", () => {
  it("renders ordinary Markdown", () => {
    const root = render("# Title\n\nSome *emphasis*, `code` and\n\n```rust\nfn main() {}\n```\n\n- a\n- b");
    expect(root.querySelector("h1")?.textContent).toBe("Title");
    expect(root.querySelector("em")?.textContent).toBe("emphasis");
    expect(root.querySelector("pre code")?.textContent).toBe("fn main() {}\n");
    expect(root.querySelector("pre code")?.className).toBe("language-rust");
    expect(root.querySelectorAll("li")).toHaveLength(2);
  });

  it.each([
    ["a script element", "<script>alert(1)</script>hello"],
    ["a script in a paragraph", "text <script src=x></script> more"],
    ["an iframe", '<iframe src="https://evil.example/"></iframe>'],
    ["an iframe with srcdoc", '<iframe srcdoc="<script>alert(1)</script>"></iframe>'],
    ["an onerror handler", '<img src=x onerror="alert(1)">'],
    ["an onclick handler", '<a href="#" onclick="alert(1)">x</a>'],
    ["an svg onload", '<svg onload="alert(1)"><circle/></svg>'],
    ["an object", '<object data="x.swf"></object><embed src="x">'],
    ["a form", '<form action="https://evil.example/"><input name=a><button>go</button></form>'],
    ["a style element", "<style>body{display:none}</style>x"],
    ["a style attribute", '<p style="background:url(https://evil.example/t.png)">x</p>'],
    ["a meta refresh", '<meta http-equiv="refresh" content="0;url=https://evil.example/">'],
    ["a base element", '<base href="https://evil.example/">'],
    ["a link element", '<link rel="stylesheet" href="https://evil.example/x.css">'],
    ["a details ontoggle", "<details open ontoggle=alert(1)><summary>x</summary></details>"],
    ["a math/mglyph mutation", "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>"],
  ])("removes %s", (_name, payload) => {
    const root = render(payload);
    expect(root.querySelector("script, iframe, object, embed, form, style, meta, base, link, svg, math, button")).toBeNull();
    for (const attr of attributes(root)) {
      expect(attr).not.toMatch(/^\S+ (on\w+|style|srcdoc|action)=/);
    }
    expect(root.innerHTML).not.toMatch(/alert\(1\)/);
  });

  it.each([
    ["a Markdown link", "[click](javascript:alert(1))"],
    ["an HTML link", '<a href="javascript:alert(1)">click</a>'],
    ["an entity-encoded scheme", '<a href="&#106;avascript:alert(1)">click</a>'],
    ["a data: HTML link", '<a href="data:text/html,<script>alert(1)</script>">click</a>'],
    ["a vbscript link", '<a href="vbscript:msgbox(1)">click</a>'],
  ])("neutralises %s", (_name, payload) => {
    const root = render(payload);
    for (const link of root.querySelectorAll("a")) {
      const href = link.getAttribute("href");
      if (href !== null) expect(href).toMatch(/^(https?:|mailto:|#)/i);
    }
    expect(root.innerHTML).not.toMatch(/javascript:|vbscript:|data:text/i);
  });

  it("keeps web links visible but marks them inert-friendly", () => {
    const link = render("[docs](https://example.com/docs)").querySelector("a");
    expect(link?.getAttribute("href")).toBe("https://example.com/docs");
    expect(link?.getAttribute("rel")).toBe("noopener noreferrer nofollow");
    expect(link?.hasAttribute("target")).toBe(false);
  });

  it("drops remote and relative images, keeping their alt text", () => {
    const root = render(
      "![tracker](https://evil.example/pixel.png) ![local](./a.png) <img src=//evil.example/x.png alt=proto>",
    );
    expect(root.querySelector("img")).toBeNull();
    expect(root.textContent).toContain("[image: tracker]");
    expect(root.textContent).toContain("[image: local]");
    expect(root.textContent).toContain("[image: proto]");
  });

  it("keeps an inline raster data: image", () => {
    const src = "data:image/png;base64,iVBORw0KGgo=";
    const img = render(`![dot](${src})`).querySelector("img");
    expect(img?.getAttribute("src")).toBe(src);
  });

  it("refuses an SVG data: image, which can carry script", () => {
    const root = render("![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)");
    expect(root.querySelector("img")).toBeNull();
  });

  it("keeps task-list checkboxes, disabled, and drops other inputs", () => {
    const root = render("- [x] done\n- [ ] todo");
    const boxes = root.querySelectorAll("input");
    expect(boxes).toHaveLength(2);
    for (const box of boxes) {
      expect(box.type).toBe("checkbox");
      expect(box.disabled).toBe(true);
    }
    expect(sanitizeHtml('<input type="text" value="x"><input type="image" src="x">')).toBe("");
  });

  it("strips class, id and style from model HTML, so no app style can be borrowed", () => {
    const root = render(
      '<div class="toast" id="main" style="position:fixed">a</div>\n\n' +
        'text <span class="modal-backdrop" id="x">b</span> and <code class="language-js">c</code>',
    );
    expect(root.querySelector("div")?.attributes).toHaveLength(0);
    expect(root.querySelector("span")?.attributes).toHaveLength(0);
    // A `language-…` class on `<code>` is what a fenced block gets: it names no app style.
    expect(root.querySelector("code")?.className).toBe("language-js");
    expect(sanitizeHtml('<p class="error">x</p><code class="language-js toast">y</code>')).toBe("<p>x</p><code>y</code>");
    expect(sanitizeHtml('<pre class="language-js">x</pre>')).toBe("<pre>x</pre>");
  });

  it("keeps HTML a block leaves open inside that block", () => {
    const root = render("Use a <div> here\n\nNext paragraph");
    const paragraphs = [...root.children].filter((element) => element.tagName === "P");
    expect(paragraphs.at(-1)?.textContent).toBe("Next paragraph");
    expect(paragraphs.at(-1)?.parentElement).toBe(root);
  });

  it("escapes HTML in code", () => {
    const root = render("`<img src=x onerror=alert(1)>`");
    expect(root.querySelector("img")).toBeNull();
    expect(root.querySelector("code")?.textContent).toBe("<img src=x onerror=alert(1)>");
  });
});

describe("dropped images in Chinese", () => {
  afterEach(() => {
    setLanguage("system");
  });

  it("are named in the UI's language, their alt text as the model wrote it", () => {
    setLanguage("zh-CN");
    const root = render("![tracker](https://evil.example/pixel.png) ![](https://evil.example/x.png)");
    expect(root.textContent).toContain("[图片：tracker]");
    expect(root.textContent).toContain("[图片]");
  });
});
