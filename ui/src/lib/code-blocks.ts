// A copy button on every code block of rendered Markdown. The buttons are made here with the
// DOM, never from HTML (sanitised model HTML holds no button), and work through one delegated
// click handler on the container (see Markdown.svelte).

/** The copy button's words, in the UI's language. */
export interface CopyWords {
  readonly copy: string;
  readonly copied: string;
}

/** How long the button says "Copied". */
export const COPIED_MS = 1500;

/** Wraps each `<pre>` of `root` in a `.code-block` with a copy button. */
export function decorateCodeBlocks(root: DocumentFragment | Element, words: CopyWords): void {
  for (const pre of root.querySelectorAll("pre")) {
    if (pre.parentElement?.classList.contains("code-block")) continue;
    const document = pre.ownerDocument;
    const wrapper = document.createElement("div");
    wrapper.className = "code-block";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "code-copy";
    button.textContent = words.copy;
    button.setAttribute("aria-label", words.copy);
    button.dataset.testid = "copy-code";
    pre.replaceWith(wrapper);
    wrapper.append(pre, button);
  }
}

/** Copies the code of the block whose copy button `target` is in, if it is one; says so on the
 *  button for a moment. Resolves true when something was copied. */
export async function copyFromButton(
  target: EventTarget | null,
  words: CopyWords,
  write: (text: string) => Promise<void> = (text) => navigator.clipboard.writeText(text),
): Promise<boolean> {
  if (!(target instanceof Element)) return false;
  const button = target.closest<HTMLButtonElement>("button.code-copy");
  const code = button?.parentElement?.querySelector("pre")?.textContent;
  if (!button || code === undefined) return false;
  try {
    await write(code.endsWith("\n") ? code.slice(0, -1) : code);
  } catch {
    return false;
  }
  button.textContent = words.copied;
  button.setAttribute("aria-label", words.copied);
  button.dataset.copied = "true";
  setTimeout(() => {
    button.textContent = words.copy;
    button.setAttribute("aria-label", words.copy);
    delete button.dataset.copied;
  }, COPIED_MS);
  return true;
}
