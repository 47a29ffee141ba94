// The streaming renderer against the one-shot one. Whatever the cuts between deltas (inside a
// fence, a table row, a list item, an HTML tag, a surrogate pair, a CRLF), a finished stream
// shows exactly the DOM of `renderMarkdown` of its text; every block it committed on the way was
// final (mounted once, never touched again); and no step lets a script or a handler through.

import type { Token } from "marked";
import { describe, expect, it } from "vitest";

import { lexBlocks, markedBlock, renderMarkdown } from "../src/lib/markdown";
import { BlockMount } from "../src/lib/markdown-dom";
import { completeTokens, MarkdownStream } from "../src/lib/markdown-stream";
import { ANSWERS, below, longAnswer, prng, randomChunks, soup } from "./support/answers";

/** The one-shot render as the DOM shows it. */
function oneShot(text: string): string {
  const container = document.createElement("div");
  container.innerHTML = renderMarkdown(text);
  return container.innerHTML;
}

/** marked's blocks for the whole text (unsanitised: the lexing is what is compared). */
function markedBlocks(text: string): string[] {
  return lexBlocks(text).tokens.map(markedBlock).filter((html) => html !== "");
}

const hasDefinitions = (text: string): boolean => /^ {0,3}\[[^\]]+\]:/m.test(text);

/**
 * Streams `chunks` (marked's HTML, unsanitised) and returns what was committed; checks at each
 * step that the committed blocks are a prefix of `expected` unless a definition may restart it.
 */
function streamMarked(chunks: readonly string[], expected: readonly string[], strict: boolean): MarkdownStream {
  const stream = new MarkdownStream(markedBlock);
  let text = "";
  for (const chunk of chunks) {
    text += chunk;
    stream.update(text);
    if (strict) expect(expected.slice(0, stream.committed.length), JSON.stringify(chunks)).toEqual(stream.committed);
  }
  stream.update(text, true);
  return stream;
}

/** Streams `chunks` into a container through the real (sanitising) path; the final HTML. */
function streamDom(chunks: readonly string[], check?: (container: HTMLElement) => void): string {
  const stream = new MarkdownStream();
  const container = document.createElement("div");
  const mount = new BlockMount(container);
  let text = "";
  for (const chunk of chunks) {
    text += chunk;
    mount.apply(stream.update(text));
    check?.(container);
  }
  mount.apply(stream.update(text, true));
  check?.(container);
  return container.innerHTML;
}

describe("the streamed blocks", () => {
  for (const [name, answer] of Object.entries(ANSWERS)) {
    it(`are the one-shot blocks of "${name}", whatever the cuts`, () => {
      const expected = markedBlocks(answer);
      const strict = !hasDefinitions(answer);
      const random = prng(name.length * 7919 + name.charCodeAt(0));
      for (let run = 0; run < 150; run += 1) {
        const chunks = randomChunks(random, answer, 1 + below(random, 120));
        const stream = streamMarked(chunks, expected, strict);
        expect(stream.committed, JSON.stringify(chunks)).toEqual(expected);
        if (strict) expect(stream.stats.restarts).toBe(0);
      }
      // One character (UTF-16 unit) at a time.
      expect(streamMarked(answer.split(""), expected, strict).committed).toEqual(expected);
    });
  }

  it("are the one-shot blocks of line soup (tricky lines in random order), whatever the cuts", () => {
    const random = prng(20240611);
    for (let run = 0; run < 1500; run += 1) {
      const text = soup(random, 4 + below(random, 40));
      const expected = markedBlocks(text);
      const strict = !hasDefinitions(text);
      const chunks = randomChunks(random, text, 1 + below(random, 60));
      const stream = streamMarked(chunks, expected, strict);
      expect(stream.committed, JSON.stringify(chunks)).toEqual(expected);
    }
  }, 60_000);
});

describe("a streamed answer in the DOM", () => {
  for (const [name, answer] of Object.entries(ANSWERS)) {
    it(`equals the one-shot render of "${name}"`, () => {
      const expected = oneShot(answer);
      const random = prng(name.length * 104729 + 3);
      for (let run = 0; run < 3; run += 1) {
        const chunks = randomChunks(random, answer, 4 + below(random, 24));
        expect(streamDom(chunks), JSON.stringify(chunks)).toBe(expected);
      }
    });
  }

  it("equals the one-shot render of line soup", () => {
    const random = prng(7);
    for (let run = 0; run < 25; run += 1) {
      const text = soup(random, 4 + below(random, 20));
      const chunks = randomChunks(random, text, 2 + below(random, 10));
      expect(streamDom(chunks), JSON.stringify(chunks)).toBe(oneShot(text));
    }
  }, 60_000);

  it("is cut inside multi-byte characters without harm", () => {
    const text = ANSWERS.multibyte ?? "";
    const cuts: string[] = [];
    let from = 0;
    // Cut between the halves of every surrogate pair (emoji, 𝒳, flags).
    for (let i = 1; i < text.length; i += 1) {
      const code = text.charCodeAt(i);
      if (code >= 0xdc00 && code <= 0xdfff) {
        cuts.push(text.slice(from, i));
        from = i;
      }
    }
    cuts.push(text.slice(from));
    expect(cuts.length).toBeGreaterThan(5);
    expect(streamDom(cuts)).toBe(oneShot(text));
  });

  it("mounts a committed block once and never touches it again", () => {
    // (Reference definitions after their use would start it over once: not here.)
    const text = longAnswer(4000, ["references"]);
    const container = document.createElement("div");
    const stream = new MarkdownStream();
    const mount = new BlockMount(container);
    const observer = new MutationObserver(() => undefined);
    observer.observe(container, { childList: true, subtree: true, characterData: true, attributes: true });
    let committedNodes: Node[] = [];
    for (let end = 12; end <= text.length; end += 12) {
      mount.apply(stream.update(text.slice(0, end)));
      // The committed blocks' nodes come first, the same nodes as before.
      const nodes = [...container.childNodes];
      expect(committedNodes.every((node, index) => nodes[index] === node)).toBe(true);
      const template = document.createElement("template");
      template.innerHTML = stream.committed.join("");
      committedNodes = nodes.slice(0, template.content.childNodes.length);
    }
    // Nothing was removed from, or changed in, a committed block.
    const committed = new Set<Node>(committedNodes);
    const inCommitted = (node: Node): boolean => {
      for (let at: Node | null = node; at !== null && at !== container; at = at.parentNode) if (committed.has(at)) return true;
      return false;
    };
    for (const record of observer.takeRecords()) {
      if (record.target !== container) expect(inCommitted(record.target)).toBe(false);
      for (const node of record.removedNodes) expect(committed.has(node)).toBe(false);
    }
    observer.disconnect();
    expect(committedNodes.length).toBeGreaterThan(40);
    expect(stream.stats.restarts).toBe(0);
  }, 60_000);
});

describe("what stays open", () => {
  /** The tokens of `text` and how many of them are final. */
  function complete(text: string): { count: number; tokens: Token[] } {
    const { tokens } = lexBlocks(text);
    return { count: completeTokens(tokens, text), tokens };
  }

  it("commits blocks once the two lines after them are complete", () => {
    // heading, space, paragraph, space, paragraph
    expect(complete("# Title\n\nFirst paragraph.").count).toBe(0);
    expect(complete("# Title\n\nFirst paragraph.\n").count).toBe(0);
    expect(complete("# Title\n\nFirst paragraph.\n\n").count).toBe(2);
    expect(complete("# Title\n\nFirst paragraph.\n\nSecond").count).toBe(2);
    expect(complete("# Title\n\nFirst paragraph.\n\nSecond\nthird\n").count).toBe(4);
  });

  it("keeps the last block open, whatever it is", () => {
    for (const text of ["Para\n\n", "```js\ncode\n```\n", "| a |\n|---|\n| 1 |\n", "- a\n- b\n\n"]) {
      const { tokens, count } = complete(text);
      expect(count, text).toBeLessThan(tokens.filter((token) => token.type !== "space").length);
    }
  });

  it("keeps a paragraph open that a setext underline may turn into a heading", () => {
    expect(complete("Title\nmore text\n").count).toBe(0);
    // The underline came: a heading, decided.
    expect(lexBlocks("Title\nmore text\n===\n").tokens[0]?.type).toBe("heading");
  });

  it("keeps a list open while an indented line may continue an item", () => {
    // "- a\n\n" then "  b": the blank line does not end the list yet.
    expect(complete("- a\n\n  b\n").count).toBe(0);
    expect(complete("- a\n\nnext\nline\n").count).toBe(2);
  });

  it("keeps a table open while rows may come, and a paragraph before an unfinished table", () => {
    expect(complete("| a | b |\n|---|---|\n| 1 | 2 |\n").count).toBe(0);
    // The header line alone: maybe a table, maybe text.
    expect(complete("Intro\n| a | b |\n").count).toBe(0);
  });

  it("never ends a commit right after a paragraph", () => {
    // The lone tag after a paragraph is read in its light (kind-7 HTML cannot interrupt it).
    const { tokens, count } = complete("text\n|---|---|\n</pre>\n---\nafter\nmore\n");
    expect(tokens[count - 1]?.type).not.toBe("paragraph");
  });

  it("keeps a definition open while its title may still follow", () => {
    // The quote may close further down (a title can hold a blank line): the definition waits.
    const open = complete('[a]: https://example.com\n"a title\nover lines\n\npara\nmore\n');
    expect(open.tokens[0]?.type).toBe("def");
    expect(open.count).toBe(0);
    // A line that can't start a title: decided.
    expect(complete("[a]: https://example.com\ntext\n\npara\nmore\n").count).toBe(3);
  });
});

describe("the stream", () => {
  it("starts over when a definition comes for a reference committed before it", () => {
    const text = "See [the guide][g].\n\nMore text.\n\nAnd more.\n\n[g]: https://example.com/guide\n\nEnd.\n";
    const chunks = text.split(/(?<=\n)/);
    const html = streamDom(chunks);
    expect(html).toBe(oneShot(text));
    expect(html).toContain('href="https://example.com/guide"');
  });

  it("starts over when the text is replaced rather than extended", () => {
    const stream = new MarkdownStream();
    stream.update("# One\n\nfirst\n\nsecond\nthird\n");
    const step = stream.update("# Two\n");
    expect(step.reset).toBe(true);
    expect(stream.stats.restarts).toBe(1);
  });

  it("keeps the open blocks when nothing changed", () => {
    const stream = new MarkdownStream();
    const first = stream.update("para one\n\npara two");
    const again = stream.update("para one\n\npara two");
    expect(again.open).toEqual(first.open);
    expect(again.committed).toEqual([]);
  });

  it("folds a CRLF split across two deltas into one line break", () => {
    const chunks = ["line one\r", "\nline two\r", "\n\r", "\n- item\r\n"];
    expect(streamDom(chunks)).toBe(oneShot(chunks.join("")));
  });

  it("renders a final text whole, and starts over if it changes after", () => {
    const stream = new MarkdownStream();
    const step = stream.update("Hello", true);
    expect(step.committed).toEqual(["<p>Hello</p>\n"]);
    const next = stream.update("Hello world", true);
    expect(next.reset).toBe(true);
    expect(next.committed).toEqual(["<p>Hello world</p>\n"]);
  });
});

describe("sanitising while streaming", () => {
  /** Every attribute name and tag in `container`. */
  function unsafe(container: HTMLElement): string[] {
    const found: string[] = [];
    for (const element of container.querySelectorAll("*")) {
      if (/^(script|iframe|object|embed|style|svg|math|form)$/i.test(element.tagName)) found.push(element.tagName);
      for (const attribute of element.attributes) {
        if (/^on|^(style|id|srcdoc)$/i.test(attribute.name)) found.push(`${element.tagName} ${attribute.name}`);
        if (attribute.name === "class" && !(element.tagName === "CODE" && /^language-\S+$/.test(attribute.value))) {
          found.push(`${element.tagName} class=${attribute.value}`);
        }
      }
    }
    return found;
  }

  it.each([
    ["a script", "Before\n\n<script>window.pwned = 1</script>\n\nafter <script>window.pwned = 2</script> text\n"],
    ["an onerror handler", "Look: <img src=x onerror=\"window.pwned = 3\"> here\n\n<img src=x onerror=window.pwned=4>\n"],
    ["an svg onload", "<svg onload=\"window.pwned = 5\"><circle/></svg>\n\ntext\n"],
    ["app classes, ids and styles", '<div class="toast" id="main" style="position:fixed">x</div>\n\n<span class="modal-backdrop">y</span>\n'],
  ])("lets %s through at no step, one character at a time", (_name, text) => {
    const html = streamDom(text.split(""), (container) => {
      expect(unsafe(container)).toEqual([]);
    });
    expect(html).toBe(oneShot(text));
    expect((window as { pwned?: number }).pwned).toBeUndefined();
  });
});
