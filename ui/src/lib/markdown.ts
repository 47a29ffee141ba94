// Markdown from the model, rendered to HTML that can't act: no script, no event handlers, no
// frames, no forms, no styles, no remote content. marked renders, DOMPurify sanitises with a
// tight allow-list, and a hook drops every image that is not an inline data: image (the content
// security policy would block a remote one anyway; dropping it keeps a broken-image icon and a
// tracking request out). Links stay visible but inert: the view that shows this HTML cancels
// clicks on them, and the backend refuses any navigation away from the app. Model HTML names no
// class, id or style: the app's own rules (a toast, a modal backdrop) can't be borrowed; the one
// class kept is the `language-…` marked puts on a fenced block's `<code>`, and inside a `<code>`,
// a span's classes when all are highlight.js's (`hljs-…`, or its `…_` scope suffixes): a fenced
// block with a language is highlighted (highlight.ts) once the highlighter has loaded.
//
// A message is rendered block by block: each top-level Markdown block (paragraph, heading, list,
// table, code block, block quote, HTML block) is rendered and sanitised on its own, and the
// message is their concatenation. That is what lets a streamed answer (markdown-stream.ts) mount
// a finished block once and never touch it again, and it keeps HTML the model leaves open in one
// block (`<div>` without `</div>`) from swallowing the blocks after it.

import DOMPurify from "dompurify";
import { getDefaults, Lexer, type Links, type MarkedOptions, type MarkedToken, Parser, type Token } from "marked";

import { highlightCode, loadHighlighter } from "./highlight";
import { t } from "./i18n.svelte";

const ALLOWED_TAGS = [
  "a", "b", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
  "hr", "i", "img", "input", "kbd", "li", "ol", "p", "pre", "s", "span", "strong", "sub", "sup",
  "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
];
// `class` passes only to reach the hook below, which keeps it on `<code>` as a language name.
const ALLOWED_ATTR = ["href", "title", "alt", "src", "align", "class", "type", "checked", "disabled", "start"];

/** A data: URL of a raster image, the only image source kept. */
const INLINE_IMAGE = /^data:image\/(?:png|gif|jpeg|webp);base64,[a-z0-9+/=\s]*$/i;
/** Link targets kept (shown, never followed inside the app). */
const SAFE_LINK = /^(?:https?:|mailto:|#)/i;
/** The class marked gives a fenced code block with an info string: one `language-…` token,
 *  which no rule of the app's style sheet matches. */
const LANGUAGE_CLASS = /^language-\S+$/;
/** The classes highlight.js puts on its spans (`hljs-title function_`). */
const HIGHLIGHT_CLASS = /^(?:hljs-[\w-]+|[\w-]+_)(?: (?:hljs-[\w-]+|[\w-]+_))*$/;

let purifier: ReturnType<typeof DOMPurify> | null = null;

function getPurifier(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  const instance = DOMPurify(window);
  instance.addHook("afterSanitizeAttributes", (node) => {
    const className = node.getAttribute("class");
    const kept =
      (node.tagName === "CODE" && LANGUAGE_CLASS.test(className ?? "")) ||
      (node.tagName === "SPAN" && HIGHLIGHT_CLASS.test(className ?? "") && node.closest("code") !== null);
    if (className !== null && !kept) node.removeAttribute("class");
    if (node.tagName === "IMG") {
      const src = node.getAttribute("src") ?? "";
      if (!INLINE_IMAGE.test(src)) {
        const alt = node.getAttribute("alt") ?? "";
        const text = alt === "" ? t("markdown.image") : t("markdown.imageAlt", { alt });
        node.replaceWith(node.ownerDocument.createTextNode(text));
      }
    } else if (node.tagName === "A") {
      const href = node.getAttribute("href") ?? "";
      if (!SAFE_LINK.test(href)) node.removeAttribute("href");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    } else if (node.tagName === "INPUT") {
      // Only GitHub task-list checkboxes, and never editable.
      if (node.getAttribute("type") !== "checkbox") node.remove();
      else node.setAttribute("disabled", "");
    }
  });
  purifier = instance;
  return instance;
}

/** Sanitises HTML with Gantry's allow-list. */
export function sanitizeHtml(html: string): string {
  return getPurifier().sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOW_UNKNOWN_PROTOCOLS: false,
    RETURN_TRUSTED_TYPE: false,
  });
}

/** marked's options for model Markdown: GitHub-flavoured, no hard line breaks, synchronous. A
 *  fresh object each time: a lexer keeps its tokenizer in the options it is given. */
function options(): MarkedOptions {
  return { ...getDefaults(), gfm: true, breaks: false, async: false };
}

/** What the inline lexer carries from one block to the next, and the link definitions. */
export interface LexState {
  /** Reference definitions (`[label]: url`) by normalised label; the first one of a label wins. */
  readonly links: Readonly<Links>;
  /** Inside an HTML `<a>` the model opened and has not closed: bare URLs are not links there. */
  readonly inLink: boolean;
}

export const initialLexState: LexState = { links: {}, inLink: false };

/** The top-level tokens of `markdown` lexed after the blocks `before` describes, and the
 *  definitions known once it is all lexed (the ones of `before`, then the text's own). */
export function lexBlocks(markdown: string, before: LexState = initialLexState): { tokens: Token[]; links: Links } {
  const lexer = new Lexer(options());
  Object.assign(lexer.tokens.links, before.links);
  lexer.state.inLink = before.inLink;
  const tokens = lexer.lex(markdown);
  return { tokens: [...tokens], links: { ...tokens.links } };
}

/**
 * The state after `tokens` (lexed after `before`): their definitions added (the first of a
 * label wins, as in the lexer) and whether an HTML `<a>` is left open. The inline lexer carries
 * that one across blocks, except out of a Markdown link's text (it restores it after one).
 */
export function lexStateAfter(tokens: readonly Token[], before: LexState): LexState {
  const links: Links = { ...before.links };
  let inLink = before.inLink;
  const walk = (list: readonly Token[]): void => {
    // Without extensions, marked makes only its own kinds of token.
    for (const token of list as readonly MarkedToken[]) {
      switch (token.type) {
        case "def":
          if (!Object.hasOwn(links, token.tag)) links[token.tag] = { href: token.href, title: token.title };
          break;
        case "html":
          if ("inLink" in token) inLink = token.inLink;
          break;
        case "link":
        case "image":
          break;
        case "list":
          for (const item of token.items) walk(item.tokens);
          break;
        case "table":
          for (const cell of token.header) walk(cell.tokens);
          for (const row of token.rows) for (const cell of row) walk(cell.tokens);
          break;
        default:
          if ("tokens" in token && token.tokens) walk(token.tokens);
      }
    }
  };
  walk(tokens);
  return { links, inLink };
}

/** Whether two sets of definitions are the same. */
export function sameLinks(a: Readonly<Links>, b: Readonly<Links>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && a[key]?.href === b[key]?.href && a[key]?.title === b[key]?.title);
}

/** One top-level token as marked renders it, not sanitised: never for the DOM. */
export function markedBlock(token: Token): string {
  if (token.type === "space" || token.type === "def") return "";
  return new Parser(options()).parse([token]);
}

/** A fenced block's language name, as a class may hold it. */
function fenceLanguage(info: string | undefined): string {
  return (/^\S*/.exec(info ?? "")?.[0] ?? "").replace(/[^\w+#.-]/g, "");
}

/** A fenced code block with a language, highlighted (not sanitised); null when it has none,
 *  the language is unknown, or the highlighter is not loaded yet (then it starts loading). */
export function highlightedBlock(token: Token): string | null {
  if (token.type !== "code" || token.codeBlockStyle === "indented") return null;
  const language = fenceLanguage(typeof token.lang === "string" ? token.lang : "");
  if (language === "") return null;
  const text = typeof token.text === "string" ? token.text : "";
  const html = highlightCode(text, language);
  if (html === null) {
    void loadHighlighter();
    return null;
  }
  return `<pre><code class="language-${language}">${html}\n</code></pre>\n`;
}

/** One top-level token as sanitised HTML (empty for blank lines and link definitions); a fenced
 *  block with a language is highlighted when the highlighter is loaded. */
export function renderBlock(token: Token): string {
  const html = highlightedBlock(token) ?? markedBlock(token);
  return html === "" ? "" : sanitizeHtml(html);
}

/** Renders model Markdown to sanitised HTML, block by block. */
export function renderMarkdown(markdown: string): string {
  return lexBlocks(markdown).tokens.map(renderBlock).join("");
}
