// A streamed answer rendered in time linear to its length. The text only grows while it streams;
// each update lexes only the open tail (the text after the last committed block), commits the
// blocks later text can no longer change (rendered and sanitised once, never touched again), and
// re-renders just the blocks still open. The HTML of a finished stream equals `renderMarkdown`
// of its text (a property test holds the two together).
//
// When is a block complete? marked lexes left to right, and each top-level token is decided by
// its own text plus a short look at what follows it: the next line (a list or indented code block
// ends when the first non-blank line after it is not indented; a paragraph ends at a blank line
// or at a line that interrupts it, a heading or a fence), or the next two (a table interrupting a
// paragraph needs its delimiter row). So the tokens before token `j` are committed when the text
// from `j`'s start already holds `LOOKAHEAD_LINES` complete lines: the decisions that ended them
// were made on finished lines. The last token is never committed before the end (an open fence,
// a growing paragraph or list), and a commit never ends right after a paragraph: what follows a
// paragraph without a blank line is lexed in its light (an indented line or a definition joins
// it, a lone HTML tag cannot interrupt it), which a lex starting there would not know. Two
// further rules keep it exact:
// - A link definition without a title stays open while the next line could still be its title
//   (it starts with `"`, `'` or `(`, and a title may run over several lines).
// - Reference links resolve against every definition in the text, later ones included. Committed
//   blocks are rendered with the definitions known when they were committed; if a later commit
//   (or the end) knows other ones and some committed text has a `[`, the stream starts over once
//   from the whole text. Definitions are rare; everything else is committed once.
// The next lex starts where the committed text ends, seeded with what marked carries across
// blocks: the committed definitions and whether an HTML `<a>` is left open (see `lexStateAfter`).
//
// Carriage returns are folded into line feeds as they arrive, as marked does, so a `\r\n` split
// across two deltas is still one line break.

import type { Links, Token } from "marked";

import { initialLexState, lexBlocks, type LexState, lexStateAfter, renderBlock, sameLinks } from "./markdown";

/** Complete lines the text after a commit point must hold (see the module's comment). */
export const LOOKAHEAD_LINES = 2;

/** What changed since the previous update, for the view to apply. */
export interface StreamStep {
  /** Everything shown before is void (the text was replaced, or started over): clear first. */
  readonly reset: boolean;
  /** Blocks completed by this update, in order, appended once after the committed ones. */
  readonly committed: readonly string[];
  /** The blocks still open, after the committed ones; the next step replaces them. */
  readonly open: readonly string[];
}

/** Counters for tests and the bench. */
export interface StreamStats {
  /** Times the stream started over from the whole text (other link definitions than the
   *  committed blocks were rendered with, a text that did not grow from the previous one). */
  readonly restarts: number;
}

/** A line that may start a link title. */
const TITLE_OPENER = /^[ \t]*["'(]/;

/** The start offset of each token in the text they were lexed from, and their total length. */
function offsets(tokens: readonly Token[]): { starts: number[]; end: number } {
  const starts: number[] = [];
  let end = 0;
  for (const token of tokens) {
    starts.push(end);
    end += token.raw.length;
  }
  return { starts, end };
}

/** Whether `text` holds `count` line feeds from `from` on. */
function hasLines(text: string, from: number, count: number): boolean {
  let at = from - 1;
  for (let found = 0; found < count; found += 1) {
    at = text.indexOf("\n", at + 1);
    if (at === -1) return false;
  }
  return true;
}

/** How many of `tokens` (lexed from `tail`, which may still grow) are final. */
export function completeTokens(tokens: readonly Token[], tail: string): number {
  const { starts, end } = offsets(tokens);
  // Tokens that do not tile the text: commit nothing rather than guess.
  if (end !== tail.length) return 0;
  let limit = tokens.length - 1;
  for (let i = 0; i < limit; i += 1) {
    const token = tokens[i];
    if (token?.type === "def" && !token.title && !token.raw.endsWith("\n\n")) {
      // The line after it (its raw may or may not hold its line feed).
      let next = (starts[i] ?? 0) + token.raw.length;
      if (!token.raw.endsWith("\n")) next += 1;
      if (TITLE_OPENER.test(tail.slice(next, next + 64))) limit = i;
    }
  }
  for (let j = limit; j >= 1; j -= 1) {
    // The lexer reads a token after a paragraph in its light (indented code and definitions join
    // it, HTML of kind 7 cannot interrupt it): a new lex must not start there.
    if (tokens[j]?.type === "space" || tokens[j - 1]?.type === "paragraph") continue;
    if (hasLines(tail, starts[j] ?? 0, LOOKAHEAD_LINES)) return j;
  }
  return 0;
}

/** What a token's HTML depends on, besides the tokens before it and the definitions: its kind,
 *  its text, and what the lexer made of it (an indented line joined to a paragraph loses its
 *  indent in `text`, and only the line after it says so). */
function tokenKey(token: Token): string {
  const text = "text" in token && typeof token.text === "string" ? token.text : "";
  return `${token.type}\u0000${token.raw}\u0000${text}`;
}

/** Renders one top-level token to HTML (empty for none). */
export type BlockRenderer = (token: Token) => string;

function normalizeBreaks(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

/** One message's Markdown, rendered as it streams. */
export class MarkdownStream {
  /** The source as last given (raw). */
  #source = "";
  /** The source's text after the committed blocks, line breaks normalised: what is lexed. */
  #tail = "";
  /** How much of the (normalised) text is committed. */
  #committed = 0;
  /** The lexer's state after the committed text. */
  #state: LexState = initialLexState;
  /** Whether the committed text has a `[` (so other definitions may change it). */
  #bracketed = false;
  /** The definitions the committed blocks were rendered with. */
  #seen: Readonly<Links> = {};
  /** Everything committed, in order. */
  #blocks: string[] = [];
  /** The open blocks of the last step. */
  #open: readonly string[] = [];
  /** The open tokens last rendered after the committed text (what they were and their HTML). */
  #rendered: { readonly key: string; readonly html: string }[] = [];
  #renderedLinks: Readonly<Links> = {};
  #restarts = 0;
  /** `reset` was called: the next step clears the view. */
  #cleared = false;
  /** The text was final: all of it is committed, its last block included, so it can't grow. */
  #final = false;
  readonly #render: BlockRenderer;

  /** `render` turns a block into HTML: `renderBlock` (sanitised) unless a test looks at
   *  marked's own output. */
  constructor(render: BlockRenderer = renderBlock) {
    this.#render = render;
  }

  /** The committed blocks so far. */
  get committed(): readonly string[] {
    return this.#blocks;
  }

  /** How much of the (normalised) text is committed. */
  get committedLength(): number {
    return this.#committed;
  }

  get stats(): StreamStats {
    return { restarts: this.#restarts };
  }

  /** Forgets everything: the next update renders its source from the start, and says to clear
   *  what was shown. */
  reset(): void {
    this.#clear();
    this.#cleared = true;
  }

  #clear(): void {
    this.#final = false;
    this.#source = "";
    this.#tail = "";
    this.#committed = 0;
    this.#state = initialLexState;
    this.#bracketed = false;
    this.#seen = {};
    this.#blocks = [];
    this.#open = [];
    this.#rendered = [];
  }

  /**
   * Takes the message's whole text so far. `final` says no more will come: every block is
   * committed then. A text that does not extend the previous one starts the stream over.
   */
  update(source: string, final = false): StreamStep {
    let reset = this.#cleared;
    this.#cleared = false;
    if (source === this.#source && (this.#final || !final)) return { reset, committed: [], open: this.#open };
    if (!this.#final && source.startsWith(this.#source)) {
      let added = source.slice(this.#source.length);
      if (this.#source.endsWith("\r") && added.startsWith("\n")) added = added.slice(1);
      this.#tail += normalizeBreaks(added);
    } else {
      this.#clear();
      this.#restarts += 1;
      reset = true;
      this.#tail = normalizeBreaks(source);
    }
    this.#source = source;
    this.#final = final;
    const step = this.#advance(final);
    this.#open = step.open;
    return reset ? { ...step, reset } : step;
  }

  #advance(final: boolean): StreamStep {
    const tail = this.#tail;
    if (tail === "") return { reset: false, committed: [], open: [] };
    const { tokens, links } = lexBlocks(tail, this.#state);
    const count = final ? tokens.length : completeTokens(tokens, tail);
    if (count > 0 && this.#bracketed && !sameLinks(links, this.#seen)) return this.#restart(final);
    const html = this.#renderTokens(tokens, links);
    const open = html.slice(count);
    this.#rendered = tokens.slice(count).map((token, index) => ({ key: tokenKey(token), html: open[index] ?? "" }));
    this.#renderedLinks = links;
    const committed = html.slice(0, count).filter((block) => block !== "");
    if (count > 0) {
      const done = tokens.slice(0, count);
      const length = count === tokens.length ? tail.length : offsets(done).end;
      this.#blocks.push(...committed);
      this.#tail = tail.slice(length);
      this.#committed += length;
      this.#state = lexStateAfter(done, this.#state);
      this.#seen = links;
      this.#bracketed ||= tail.slice(0, length).includes("[");
    }
    return { reset: false, committed, open: open.filter((block) => block !== "") };
  }

  /** The HTML of each token (the first ones after the committed text); a token rendered last
   *  time as it is now, after the same tokens, with the same definitions, is not rendered again. */
  #renderTokens(tokens: readonly Token[], links: Readonly<Links>): string[] {
    let same = sameLinks(links, this.#renderedLinks);
    return tokens.map((token, index) => {
      const previous = this.#rendered[index];
      same &&= previous?.key === tokenKey(token);
      return same && previous ? previous.html : this.#render(token);
    });
  }

  /** Renders the whole text again, with the definitions known now. */
  #restart(final: boolean): StreamStep {
    const source = this.#source;
    this.#clear();
    this.#restarts += 1;
    this.#tail = normalizeBreaks(source);
    this.#source = source;
    this.#final = final;
    return { ...this.#advance(final), reset: true };
  }
}
