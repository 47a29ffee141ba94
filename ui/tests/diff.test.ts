import { describe, expect, it } from "vitest";

import { parseUnifiedDiff } from "../src/lib/diff";

describe("parseUnifiedDiff", () => {
  it("numbers lines and counts changes", () => {
    const diff = [
      "--- a/src/main.rs",
      "+++ b/src/main.rs",
      "@@ -1,3 +1,4 @@",
      " fn main() {",
      '-    println!("hi");',
      '+    println!("hello");',
      '+    println!("world");',
      " }",
      "",
    ].join("\n");
    const parsed = parseUnifiedDiff(diff);
    expect(parsed.additions).toBe(2);
    expect(parsed.deletions).toBe(1);
    expect(parsed.lines.map((l) => [l.kind, l.oldLine, l.newLine, l.text])).toEqual([
      ["file", null, null, "--- a/src/main.rs"],
      ["file", null, null, "+++ b/src/main.rs"],
      ["hunk", null, null, "@@ -1,3 +1,4 @@"],
      ["context", 1, 1, "fn main() {"],
      ["del", 2, null, '    println!("hi");'],
      ["add", null, 2, '    println!("hello");'],
      ["add", null, 3, '    println!("world");'],
      ["context", 3, 4, "}"],
    ]);
  });

  it("follows several hunks and files", () => {
    const diff = [
      "--- a/a.txt",
      "+++ b/a.txt",
      "@@ -10,2 +10,2 @@",
      "-x",
      "+y",
      " z",
      "@@ -40 +40 @@",
      "-old",
      "+new",
      "\\ No newline at end of file",
      "--- a/b.txt",
      "+++ b/b.txt",
      "@@ -0,0 +1 @@",
      "+created",
    ].join("\n");
    const lines = parseUnifiedDiff(diff).lines;
    expect(lines.filter((l) => l.kind === "file")).toHaveLength(4);
    expect(lines.find((l) => l.text === "z")).toMatchObject({ oldLine: 11, newLine: 11 });
    expect(lines.find((l) => l.text === "new")).toMatchObject({ kind: "add", newLine: 40 });
    expect(lines.find((l) => l.text.startsWith("\\"))?.kind).toBe("meta");
    expect(lines.find((l) => l.text === "created")).toMatchObject({ kind: "add", newLine: 1 });
  });

  it("treats a line that looks like a header inside a hunk as a change", () => {
    // A removed line whose text starts with "-- " renders as "--- ..." in the diff.
    const lines = parseUnifiedDiff("@@ -1,2 +1,1 @@\n--- comment\n keep\n").lines;
    expect(lines[1]).toMatchObject({ kind: "del", text: "-- comment", oldLine: 1 });
    expect(lines[2]).toMatchObject({ kind: "context", oldLine: 2, newLine: 1 });
  });

  it("keeps markup as text and handles CRLF and empty input", () => {
    const lines = parseUnifiedDiff("@@ -1 +1 @@\r\n-<b>x</b>\r\n+<script>alert(1)</script>\r\n").lines;
    expect(lines[2]?.text).toBe("<script>alert(1)</script>");
    expect(parseUnifiedDiff("").lines).toEqual([]);
  });
});
