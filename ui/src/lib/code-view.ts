// The file preview's highlighted lines, built with the DOM into an element Svelte leaves empty.
// The file is highlighted whole (a string or comment may span lines), sanitised once with the
// Markdown allow-list, then cut at its line feeds (highlight.ts reopens the spans on each line).
// A line with an invisible or reordering character is shown as escapes instead (escape.ts), as
// the plain preview does: highlighting never hides what the text really holds.

import { visibleSegments } from "./escape";
import { highlightCode, splitHighlightedLines } from "./highlight";
import { markdownRenderer } from "./markdown-loader";

/** Files larger than this are shown plain (highlighting them would stall the window). */
export const MAX_HIGHLIGHT_CHARS = 512 * 1024;

/** The highlighted HTML of each line of `text` as file `path`, or null when it is not
 *  highlighted (unknown language, too large, highlighter not loaded). */
export function highlightedLines(text: string, path: string): string[] | null {
  if (text.length > MAX_HIGHLIGHT_CHARS) return null;
  const html = highlightCode(text, path);
  // The sanitiser loads with the highlighter (highlight.ts), so it is there when `html` is.
  const sanitizer = markdownRenderer();
  if (html === null || sanitizer === null) return null;
  const clean = sanitizer.sanitizeHtml(`<code>${html}</code>`);
  const inner = clean.startsWith("<code>") && clean.endsWith("</code>") ? clean.slice(6, -7) : null;
  if (inner === null) return null;
  return splitHighlightedLines(inner);
}

/** Fills `pre` with numbered `lines` of `text` (one per line of it), highlighted from `html`. */
export function fillLines(pre: HTMLElement, lines: readonly string[], html: readonly string[]): void {
  const document = pre.ownerDocument;
  const template = document.createElement("template");
  const rows = lines.map((line, index) => {
    const row = document.createElement("span");
    row.className = "line";
    const number = document.createElement("span");
    number.className = "number";
    number.textContent = String(index + 1);
    row.append(number);
    const segments = visibleSegments(line);
    if (segments.some((segment) => segment.escaped)) {
      for (const segment of segments) {
        if (segment.escaped) {
          const escape = document.createElement("span");
          escape.className = "escape";
          escape.dataset.testid = "escape";
          escape.textContent = segment.text;
          row.append(escape);
        } else row.append(segment.text);
      }
    } else {
      template.innerHTML = html[index] ?? "";
      row.append(template.content);
    }
    row.append("\n");
    return row;
  });
  pre.replaceChildren(...rows);
}
