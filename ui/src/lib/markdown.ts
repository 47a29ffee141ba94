// Markdown from the model, rendered to HTML that can't act: no script, no event handlers, no
// frames, no forms, no styles, no remote content. marked renders, DOMPurify sanitises with a
// tight allow-list, and a hook drops every image that is not an inline data: image (the content
// security policy would block a remote one anyway; dropping it keeps a broken-image icon and a
// tracking request out). Links stay visible but inert: the view that shows this HTML cancels
// clicks on them, and the backend refuses any navigation away from the app.

import DOMPurify from "dompurify";
import { Marked } from "marked";

import { t } from "./i18n.svelte";

const marked = new Marked({ gfm: true, breaks: false, async: false });

const ALLOWED_TAGS = [
  "a", "b", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
  "hr", "i", "img", "input", "kbd", "li", "ol", "p", "pre", "s", "span", "strong", "sub", "sup",
  "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
];
const ALLOWED_ATTR = ["href", "title", "alt", "src", "align", "class", "type", "checked", "disabled", "start"];

/** A data: URL of a raster image, the only image source kept. */
const INLINE_IMAGE = /^data:image\/(?:png|gif|jpeg|webp);base64,[a-z0-9+/=\s]*$/i;
/** Link targets kept (shown, never followed inside the app). */
const SAFE_LINK = /^(?:https?:|mailto:|#)/i;

let purifier: ReturnType<typeof DOMPurify> | null = null;

function getPurifier(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  const instance = DOMPurify(window);
  instance.addHook("afterSanitizeAttributes", (node) => {
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

/** Renders model Markdown to sanitised HTML. */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown, { async: false });
  return sanitizeHtml(html);
}
