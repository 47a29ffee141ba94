// The Markdown renderer (markdown-renderer.ts: marked, DOMPurify and the streaming renderer),
// loaded the first time something needs it: a window showing a fresh chat never does. Evaluating
// marked and DOMPurify costs the web process about 5 MiB (measured with scripts/bench-memory's
// reference app showing this page), so they are not in the first script.
//
// Nothing is shown unrendered when it can be avoided: a chat with messages waits for the
// renderer before it shows them (project-chat.svelte.ts), and sending a message starts loading
// it, long before the first words of the answer arrive. Until it is there, a message shows
// its text as it is (Markdown.svelte).

import { LazyModule } from "./lazy-module";

type Renderer = typeof import("./markdown-renderer");

const lazyRenderer = new LazyModule<Renderer>(() => import("./markdown-renderer"));

/** The renderer, once loaded; `null` before (see {@link loadMarkdown}). */
export function markdownRenderer(): Renderer | null {
  return lazyRenderer.get();
}

/** Loads the renderer (once). */
export function loadMarkdown(): Promise<Renderer> {
  return lazyRenderer.load();
}
