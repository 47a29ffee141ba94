// Text from the model, a tool or a project file shown so that nothing in it is invisible: every
// control character and every Unicode character that changes how text is ordered or hidden is
// shown as an escape (`\u{202e}`, `\r`, `\x07`), as the CLI does for the terminal
// (src-tauri/cli/src/escape.rs). A right-to-left override in a command ("Trojan Source") or a
// lone carriage return could otherwise make the dangerous part of a command read as something
// else in the approval dialog.

/** A piece of text: shown as it is, or an escape standing for one invisible character. */
export interface Segment {
  readonly text: string;
  /** True for an escape (`\u{202e}`): the component marks it so it reads as one. */
  readonly escaped: boolean;
}

/** Whether `code` is a character the user could not see or that reorders what they see. */
export function isInvisible(code: number): boolean {
  if (code === 0x0a || code === 0x09) return false; // newline and tab are text
  if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true; // C0, DEL, C1
  if (code >= 0x202a && code <= 0x202e) return true; // bidi embeddings and overrides
  if (code >= 0x2066 && code <= 0x2069) return true; // bidi isolates
  if (code === 0x200e || code === 0x200f || code === 0x061c) return true; // direction marks
  if (code >= 0x200b && code <= 0x200d) return true; // zero-width space, non-joiner, joiner
  if (code >= 0x2060 && code <= 0x2064) return true; // word joiner, invisible operators
  if (code === 0x2028 || code === 0x2029) return true; // line and paragraph separators
  return code === 0xfeff || code === 0x00ad; // zero-width no-break space, soft hyphen
}

/** The escape shown for an invisible character. */
function escapeOf(code: number): string {
  if (code === 0x1b) return "\\e";
  if (code === 0x0d) return "\\r";
  if (code < 0x80) return `\\x${code.toString(16).padStart(2, "0")}`;
  return `\\u{${code.toString(16)}}`;
}

/** `text` cut into plain runs and escapes (a `\r` right before `\n` stays: CRLF text). */
export function visibleSegments(text: string): Segment[] {
  const segments: Segment[] = [];
  let plain = "";
  // Code point by code point: an invisible character is always a single one.
  for (let at = 0; at < text.length; ) {
    const code = text.codePointAt(at) ?? 0;
    const char = String.fromCodePoint(code);
    at += char.length;
    if (!isInvisible(code) || (code === 0x0d && text[at] === "\n")) {
      plain += char;
      continue;
    }
    if (plain !== "") segments.push({ text: plain, escaped: false });
    plain = "";
    segments.push({ text: escapeOf(code), escaped: true });
  }
  if (plain !== "") segments.push({ text: plain, escaped: false });
  return segments;
}

/** `text` with every invisible character written as its escape (for a title or a label). */
export function visibleText(text: string): string {
  return visibleSegments(text)
    .map((segment) => segment.text)
    .join("");
}

/** Whether `text` holds anything {@link visibleSegments} would escape. */
export function hasInvisible(text: string): boolean {
  return visibleSegments(text).some((segment) => segment.escaped);
}
