import { describe, expect, it } from "vitest";

import { reportSummary, resentAt, splitHunks, userIndexes } from "../src/lib/changes";
import { emptyChat, type ChatState } from "../src/lib/chat";
import { parseUnifiedDiff } from "../src/lib/diff";

describe("a diff cut into hunks", () => {
  const diff = [
    "--- a/a.txt",
    "+++ b/a.txt",
    "@@ -1,3 +1,3 @@",
    " one",
    "-two",
    "+2",
    " three",
    "@@ -20,2 +20,3 @@",
    " twenty",
    "+added",
    // A removed line that looks like a hunk header is part of the hunk.
    "-@@ -1 +1 @@",
    "",
  ].join("\n");

  it("repeats the file headers on each hunk, in order", () => {
    const { header, hunks } = splitHunks(diff);
    expect(header).toBe("--- a/a.txt\n+++ b/a.txt");
    expect(hunks).toHaveLength(2);
    expect(hunks[0]).toBe("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n");
    expect(hunks[1]?.endsWith("-@@ -1 +1 @@\n")).toBe(true);
    const parsed = parseUnifiedDiff(hunks[1] ?? "");
    expect([parsed.additions, parsed.deletions]).toEqual([1, 1]);
  });

  it("has no hunk for headers alone", () => {
    expect(splitHunks("--- a/x\n+++ b/x\n").hunks).toEqual([]);
  });
});

describe("rewinding the chat", () => {
  const state: ChatState = {
    ...emptyChat,
    sessionId: "1",
    items: [
      { kind: "user", key: 1, text: "first" },
      { kind: "assistant", key: 2, text: "One.", reasoning: "", tools: [], status: "complete", live: false },
      { kind: "user", key: 3, text: "second" },
      { kind: "assistant", key: 4, text: "Two.", reasoning: "", tools: [], status: "complete", live: false },
    ],
    nextKey: 5,
  };

  it("numbers the user messages and replaces everything from the chosen one, keeping its key", () => {
    expect([...userIndexes(state.items)]).toEqual([
      [1, 0],
      [3, 1],
    ]);
    const rewound = resentAt(state, 1, "second, edited");
    expect(rewound.items.map((item) => item.key)).toEqual([1, 2, 3]);
    expect(rewound.items.at(-1)).toEqual({ kind: "user", key: 3, text: "second, edited" });
    expect(rewound.running).toBe(true);
    expect(rewound.nextKey).toBe(5);
    expect(resentAt(state, 0, "again").items).toEqual([{ kind: "user", key: 1, text: "again" }]);
    expect(resentAt(state, 7, "x")).toBe(state);
  });

  it("keeps the attachments the user did not remove", () => {
    const file = (path: string) => ({ kind: "file" as const, path });
    const withFiles: ChatState = {
      ...state,
      items: [{ kind: "user", key: 1, text: "look", attachments: [file("a.md"), file("b.md")] }, ...state.items.slice(1)],
    };
    expect(resentAt(withFiles, 0, "look").items).toEqual([{ kind: "user", key: 1, text: "look", attachments: [file("a.md"), file("b.md")] }]);
    expect(resentAt(withFiles, 0, "look again", [0]).items).toEqual([{ kind: "user", key: 1, text: "look again", attachments: [file("b.md")] }]);
    expect(resentAt(withFiles, 0, "bare", [0, 1]).items).toEqual([{ kind: "user", key: 1, text: "bare" }]);
  });
});

describe("a restore's summary", () => {
  it("counts what was restored, what failed and what was not kept", () => {
    const report = { applied: true, restored: ["a", "b"], conflicts: [], unrestorable: ["big"], failed: [], restoreId: "3" };
    expect(reportSummary(report)).toBe("Restored 2 files. 1 was not kept and stays as it is.");
    expect(reportSummary({ ...report, restored: [], unrestorable: [] })).toBe("Nothing to restore: the files are already as they were.");
  });
});
