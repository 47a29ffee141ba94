// What one streamed delta costs to render, against the length of the answer so far: the
// incremental renderer (markdown-stream.ts + markdown-dom.ts: lex the open tail, render and
// sanitise the open blocks, swap them in the DOM) next to the whole-message renderer it replaces
// (marked + DOMPurify over all of the text, then `innerHTML`, on every delta). The first should
// stay flat as the answer grows; the second grows with it. `npm run bench` runs one file per
// length, one after the other, each in a fresh worker.
//
// Two more rows leave the DOM and DOMPurify out (marked's lexing and rendering only), which
// is what this code decides and jsdom does not distort.
//
// jsdom, not WebKit: its DOM is slower, and each document it parses (DOMPurify parses one per
// call) makes the next ones a little slower for the rest of the process. So the answer before the
// timed deltas is built without sanitising (the timed deltas go through the real path), a macrotask
// between deltas lets jsdom drop what it can, and each length has its own worker.

import { Marked } from "marked";
import { bench, describe } from "vitest";

import { markedBlock, renderBlock, sanitizeHtml } from "../src/lib/markdown";
import { BlockMount } from "../src/lib/markdown-dom";
import { MarkdownStream } from "../src/lib/markdown-stream";
import { longAnswer } from "../tests/support/answers";

/** Characters per delta: 13 KB in 2,200 deltas, as measured in the window. */
const DELTA = 6;
/** Characters per delta of a reply at 200 tokens/s, one delta a frame (60 a second), at four
 *  characters a token. */
export const DELTA_AT_200_TOKENS_PER_SECOND = 13;
/** Deltas timed at each length (few: the answer must stay near that length). */
const DELTAS = 40;

/** The renderer this replaces: the whole message through marked and DOMPurify, every time. */
const whole = new Marked({ gfm: true, breaks: false, async: false });
function renderWhole(markdown: string): string {
  return sanitizeHtml(whole.parse(markdown, { async: false }));
}

const yieldToLoop = (): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, 0);
  });

const options = { time: 0, iterations: DELTAS, warmupTime: 0, warmupIterations: 2, afterEach: yieldToLoop };

/** Benches one delta at `kb` KB of answer, for both renderers; `delta` characters a delta, and
 *  `label` to name the case (with highlighting on, the caller loads the highlighter first). */
export function streamingBench(kb: number, delta = DELTA, label = `one delta at ${kb} KB`): void {
  const start = kb * 1024;
  const text = longAnswer(start + delta * (DELTAS + 10));

  describe(label, () => {
    let end = start;
    let sanitise = false;
    let stream = new MarkdownStream();
    let mount = new BlockMount(document.createElement("div"));
    bench(
      "incremental",
      () => {
        end += delta;
        mount.apply(stream.update(text.slice(0, end)));
      },
      {
        ...options,
        setup: () => {
          sanitise = false;
          stream = new MarkdownStream((token) => (sanitise ? renderBlock(token) : markedBlock(token)));
          mount = new BlockMount(document.createElement("div"));
          end = start;
          mount.apply(stream.update(text.slice(0, end)));
          sanitise = true;
        },
      },
    );

    let marked = new MarkdownStream(markedBlock);
    bench(
      "incremental, marked only",
      () => {
        end += delta;
        marked.update(text.slice(0, end));
      },
      {
        ...options,
        setup: () => {
          marked = new MarkdownStream(markedBlock);
          end = start;
          marked.update(text.slice(0, end));
        },
      },
    );

    bench(
      "whole message, marked only",
      () => {
        end += delta;
        whole.parse(text.slice(0, end), { async: false });
      },
      {
        ...options,
        setup: () => {
          end = start;
        },
      },
    );

    const container = document.createElement("div");
    bench(
      "whole message",
      () => {
        end += delta;
        container.innerHTML = renderWhole(text.slice(0, end));
      },
      {
        ...options,
        setup: () => {
          end = start;
          container.innerHTML = whole.parse(text.slice(0, end), { async: false });
        },
      },
    );
  });
}
