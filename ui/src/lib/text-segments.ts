// Plain text that streams (a model's reasoning), cut into blocks at line ends so a frame changes
// only the last block: a finished block's text is never set again, and the webview lays out only
// the block that grew. Shown as blocks with `white-space: pre-wrap`, the pieces read exactly as
// the whole text would (a line feed that ends a block starts the next line, as it did).

/** Roughly how long a block grows before it is closed at its last line feed. */
export const SEGMENT_CHARS = 512;

export interface Segments {
  /** The finished blocks, in order (the same array until one is added). */
  readonly done: readonly string[];
  /** The block still growing. */
  readonly open: string;
}

export class TextSegments {
  #text = "";
  #done: readonly string[] = [];
  /** Where the open block starts. */
  #start = 0;

  /** Takes the whole text so far; a text that does not extend the last one starts over. */
  update(text: string): Segments {
    if (!text.startsWith(this.#text)) {
      this.#done = [];
      this.#start = 0;
    }
    this.#text = text;
    if (text.length - this.#start >= SEGMENT_CHARS) {
      const end = text.lastIndexOf("\n") + 1;
      if (end - this.#start >= SEGMENT_CHARS) {
        this.#done = [...this.#done, text.slice(this.#start, end)];
        this.#start = end;
      }
    }
    return { done: this.#done, open: text.slice(this.#start) };
  }
}
