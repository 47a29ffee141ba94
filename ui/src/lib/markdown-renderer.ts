// What the page loads the first time a message is rendered (markdown-loader.ts): the streaming
// Markdown renderer and the sanitiser, with marked and DOMPurify, as one chunk of its own.

export { MarkdownStream } from "./markdown-stream";
export { sanitizeHtml } from "./markdown";
