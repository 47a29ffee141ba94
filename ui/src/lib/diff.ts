// Unified diffs (what the engine's previews and observations carry) parsed into lines to render.
// Rendering uses text nodes only, so a diff of a file full of HTML stays text.

/** What a line of a unified diff is. */
export type DiffLineKind = "file" | "hunk" | "add" | "del" | "context" | "meta";

export interface DiffLine {
  readonly kind: DiffLineKind;
  /** The line without its leading marker (for add, del and context lines). */
  readonly text: string;
  /** The line's number in the old file (del and context lines). */
  readonly oldLine: number | null;
  /** The line's number in the new file (add and context lines). */
  readonly newLine: number | null;
}

export interface ParsedDiff {
  readonly lines: readonly DiffLine[];
  readonly additions: number;
  readonly deletions: number;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Parses a unified diff. A hunk's header says how many old and new lines it holds, so a removed
 * line that itself starts with "-- " is not mistaken for the next file's header. Lines outside
 * hunks other than file headers ("diff --git", "index", "\ No newline at end of file") are "meta".
 */
export function parseUnifiedDiff(diff: string): ParsedDiff {
  const lines: DiffLine[] = [];
  let additions = 0;
  let deletions = 0;
  let oldLine = 0;
  let newLine = 0;
  let oldLeft = 0;
  let newLeft = 0;
  const source = diff.endsWith("\n") ? diff.slice(0, -1) : diff;
  if (source === "") return { lines, additions, deletions };
  for (const raw of source.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const inHunk = oldLeft > 0 || newLeft > 0;
    const hunk = inHunk ? null : HUNK.exec(line);
    if (hunk) {
      oldLine = Number(hunk[1]);
      oldLeft = Number(hunk[2] ?? "1");
      newLine = Number(hunk[3]);
      newLeft = Number(hunk[4] ?? "1");
      lines.push({ kind: "hunk", text: line, oldLine: null, newLine: null });
    } else if (inHunk && line.startsWith("+") && newLeft > 0) {
      additions += 1;
      newLeft -= 1;
      lines.push({ kind: "add", text: line.slice(1), oldLine: null, newLine: newLine++ });
    } else if (inHunk && line.startsWith("-") && oldLeft > 0) {
      deletions += 1;
      oldLeft -= 1;
      lines.push({ kind: "del", text: line.slice(1), oldLine: oldLine++, newLine: null });
    } else if (inHunk && (line.startsWith(" ") || line === "")) {
      oldLeft = Math.max(0, oldLeft - 1);
      newLeft = Math.max(0, newLeft - 1);
      lines.push({ kind: "context", text: line.slice(1), oldLine: oldLine++, newLine: newLine++ });
    } else {
      const kind = line.startsWith("--- ") || line.startsWith("+++ ") ? "file" : "meta";
      lines.push({ kind, text: line, oldLine: null, newLine: null });
    }
  }
  return { lines, additions, deletions };
}
