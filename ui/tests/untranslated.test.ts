// Every word a user reads in a component comes from the catalogs: this scans the components'
// markup for literal text and for literal `aria-label`, `title`, `placeholder` and `alt`
// attributes, so a string added in English only fails here rather than in front of a Chinese
// reader.

/// <reference types="vite/client" />

import { describe, expect, it } from "vitest";

/** Every component's source, by path. */
const SOURCES: Readonly<Record<string, string>> = import.meta.glob(["../src/App.svelte", "../src/components/*.svelte"], {
  query: "?raw",
  import: "default",
  eager: true,
});

function fileName(path: string): string {
  return path.split("/").pop() ?? path;
}

/** Words that read the same in every language: names, formats, symbols. */
const NAMES = /\b(Gantry|MCP|JSON|JSONL|OpenAI|OpenRouter|DeepSeek|Ollama|LM Studio|llama\.cpp|URL|API|stdio|http|sse|Enter|Esc|Tab|Shift|F1)\b/g;

/** The markup of a component without its script, style and `{expressions}`. */
function markup(source: string): string {
  let text = source
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<style[\s\S]*?<\/style>/g, "")
    // Code and keys are shown as they are typed.
    .replace(/<(code|kbd)>[\s\S]*?<\/\1>/g, " ");
  // Innermost braces first, until none are left.
  for (let previous = ""; previous !== text; ) {
    previous = text;
    text = text.replace(/\{[^{}]*\}/g, " ");
  }
  return text;
}

/** The outermost `{expressions}` of a component's markup, but for `class={...}` values. */
function expressions(source: string): string[] {
  const body = source.replace(/<script[\s\S]*?<\/script>/g, "").replace(/<style[\s\S]*?<\/style>/g, "");
  const found: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index];
    if (char === "{" && depth++ === 0) start = index;
    if (char === "}" && depth > 0 && --depth === 0 && !body.slice(0, start).endsWith("class=")) {
      found.push(body.slice(start, index + 1));
    }
  }
  return found;
}

/** Prose in the string literals of the markup's expressions (`{busy ? "Saving…" : "Save"}`):
 *  several words, or a capitalised word, or an ellipsis. Catalog keys (`area.what`) and values
 *  such as `"true"` or `"."` are not prose. */
function literalsInExpressions(source: string): string[] {
  const found: string[] = [];
  for (const expression of expressions(source)) {
    for (const match of expression.matchAll(/"([^"\\]*)"|'([^'\\]*)'|`([^`]*)`/g)) {
      const text = (match[1] ?? match[2] ?? match[3] ?? "").replace(/\$\{[^}]*\}/g, " ").replace(NAMES, "").trim();
      if (/^[\w-]+(\.[\w-]+)+$/.test(text) || !/[A-Za-z]{2,}/.test(text)) continue;
      if (/[A-Za-z]{2,}\s+[A-Za-z]{2,}/.test(text) || /^[A-Z][a-z]/.test(text) || text.endsWith("…")) found.push(text);
    }
  }
  return found;
}

/** The literal texts a user would read in `source`. */
function literalTexts(source: string): string[] {
  const body = markup(source);
  const found: string[] = [];
  for (const match of body.matchAll(/>([^<>]*)</g)) found.push(match[1] ?? "");
  for (const match of body.matchAll(/\b(?:aria-label|title|placeholder|alt)="([^"]*)"/g)) found.push(match[1] ?? "");
  return found
    .map((text) => text.replace(NAMES, "").trim())
    .filter((text) => /[A-Za-z]{2,}/.test(text));
}

describe("the components", () => {
  it("finds literal text (the scanner works)", () => {
    expect(literalTexts('<p class="x">Hello there</p><button aria-label="Close">{t("a")}</button>')).toEqual([
      "Hello there",
      "Close",
    ]);
    expect(literalTexts('<p>{t("a")}</p><code>cargo</code><span>Gantry</span>')).toEqual([]);
    expect(
      literalsInExpressions(
        '<script>const x = "Not markup";</script><summary>{thinking ? "Thinking…" : "Reasoning"}</summary>' +
          '<b title={ok ? t("a.b") : `${n} more waiting`} data-x={on ? "true" : "false"} class={ok ? "probe ok" : "x y"}>' +
          '{path === "" ? "." : path}</b>',
      ),
    ).toEqual(["Thinking…", "Reasoning", "more waiting"]);
  });

  it("have no text outside the catalogs", () => {
    const files = Object.entries(SOURCES);
    expect(files.length).toBeGreaterThan(20);
    const left = files.flatMap(([file, source]) =>
      [...literalTexts(source), ...literalsInExpressions(source)].map((text) => `${fileName(file)}: ${text}`),
    );
    expect(left).toEqual([]);
  });
});
