// Syntax highlighting for code blocks and the file preview, with highlight.js loaded lazily
// (highlight-languages.ts is a chunk of its own, imported the first time it is needed).
//
// Safety: highlight.js escapes the code it is given and only wraps it in `<span class="hljs-…">`;
// its output still goes through the Markdown sanitiser (markdown.ts keeps a `class` on a span
// only when every name in it is one of highlight.js's), so no model-written markup can ride in.
// Colours come from the theme's `--syntax-*` tokens (styles.css).

import { LazyModule } from "./lazy-module";
import { loadMarkdown } from "./markdown-loader";

type Highlighter = (typeof import("./highlight-languages"))["highlighter"];

// Highlighted HTML is always sanitised (markdown.ts), so the renderer comes with it.
const lazyHighlighter = new LazyModule<Highlighter>(async () => {
  const [languages] = await Promise.all([import("./highlight-languages"), loadMarkdown()]);
  return languages.highlighter;
});

/** The highlighter, once loaded; `null` before (see {@link loadHighlighter}). Once it is, so is
 *  the Markdown renderer with its sanitiser. */
export function highlighter(): Highlighter | null {
  return lazyHighlighter.get();
}

/** Loads the highlighter (once); calls every {@link onHighlighterLoaded} listener when it is. */
export function loadHighlighter(): Promise<Highlighter> {
  return lazyHighlighter.load();
}

/** Calls `listener` when the highlighter has loaded; returns the function that stops. */
export function onHighlighterLoaded(listener: () => void): () => void {
  return lazyHighlighter.onLoaded(listener);
}

/** Names a fence or a file extension may use for a language, beyond its own. */
const ALIASES: Readonly<Record<string, string>> = {
  sh: "bash", zsh: "bash", console: "shell", js: "javascript", jsx: "javascript", mjs: "javascript",
  cjs: "javascript", ts: "typescript", tsx: "typescript", mts: "typescript", py: "python",
  rs: "rust", rb: "ruby", yml: "yaml", toml: "ini", html: "xml", svelte: "xml", vue: "xml",
  svg: "xml", h: "c", hpp: "cpp", cc: "cpp", cxx: "cpp", cs: "csharp", kt: "kotlin", kts: "kotlin",
  md: "markdown", mk: "makefile", patch: "diff", docker: "dockerfile", golang: "go",
};

/** The language a fence's info string (` ```ts `) or a file name names, if Gantry has it. */
export function languageOf(name: string, highlight: Highlighter): string | null {
  const lower = name.trim().toLowerCase();
  const base = lower.split("/").at(-1) ?? lower;
  if (base === "dockerfile" || base === "makefile") return base;
  const extension = base.includes(".") ? (base.split(".").at(-1) ?? "") : base;
  const language = ALIASES[extension] ?? extension;
  return highlight.getLanguage(language) ? language : null;
}

/** `code` as highlighted HTML in `language` (escaped text in highlight.js's spans), or null
 *  when the language is unknown or the highlighter not loaded yet. */
export function highlightCode(code: string, language: string): string | null {
  const highlight = lazyHighlighter.get();
  if (!highlight) return null;
  const name = languageOf(language, highlight);
  if (name === null) return null;
  return highlight.highlight(code, { language: name, ignoreIllegals: true }).value;
}

/** Highlighted HTML cut at its line feeds, each line closing the spans open at its end and the
 *  next reopening them, so every line is well-formed on its own. */
export function splitHighlightedLines(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let line = "";
  const tag = /<span[^>]*>|<\/span>|\n/g;
  let last = 0;
  for (const match of html.matchAll(tag)) {
    line += html.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[0] === "\n") {
      lines.push(line + "</span>".repeat(open.length));
      line = open.join("");
    } else if (match[0] === "</span>") {
      open.pop();
      line += match[0];
    } else {
      open.push(match[0]);
      line += match[0];
    }
  }
  lines.push(line + html.slice(last));
  return lines;
}
