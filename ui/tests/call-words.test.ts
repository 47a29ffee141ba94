import { afterEach, describe, expect, it } from "vitest";

import type { Decision } from "../src/bindings/Decision";
import { askReason, callSummary, codeSpans, decidedBy, keyArgument, mcpParts, parseArguments, type Words } from "../src/lib/call-words";
import { setLanguage, tSlots } from "../src/lib/i18n.svelte";

/** A sentence as it reads. */
function read(words: Words | null): string {
  return words === null ? "" : tSlots(words.key, words.code ?? {}, words.params).join("");
}

afterEach(() => {
  setLanguage("system");
});

describe("what a call will do", () => {
  it("reads a diff: a new file, lines changed, added or removed", () => {
    setLanguage("en");
    const created = "--- a/src/util.rs\n+++ b/src/util.rs\n@@ -0,0 +1,24 @@\n" + "+x\n".repeat(24);
    expect(read(callSummary("write_file", {}, { kind: "diff", path: "src/util.rs", unified: created }))).toBe("Create src/util.rs (24 lines)");
    const changed = "--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1,4 +1,4 @@\n-a\n-b\n-c\n+A\n+B\n+C\n d\n";
    expect(read(callSummary("edit_file", {}, { kind: "diff", path: "src/main.rs", unified: changed }))).toBe("Change 3 lines in src/main.rs");
    const added = "--- a/n\n+++ b/n\n@@ -1 +1,2 @@\n a\n+b\n";
    expect(read(callSummary("edit_file", {}, { kind: "diff", path: "n", unified: added }))).toBe("Add 1 line to n");
    const removed = "--- a/n\n+++ b/n\n@@ -1,3 +1 @@\n a\n-b\n-c\n";
    expect(read(callSummary("edit_file", {}, { kind: "diff", path: "n", unified: removed }))).toBe("Remove 2 lines from n");
    expect(read(callSummary("write_file", {}, { kind: "diff", path: "n", unified: "--- a/n\n+++ b/n\n" }))).toBe("Write n (no change)");
  });

  it("reads a command, an MCP tool and the other built-ins", () => {
    setLanguage("en");
    expect(read(callSummary("run_command", {}, { kind: "command", command: "cargo test", workdir: "" }))).toBe("Run cargo test in .");
    const summary = callSummary("run_command", {}, { kind: "command", command: "make", workdir: "sub" });
    expect(summary.code).toEqual({ command: "make", dir: "sub" });
    expect(read(callSummary("mcp__github__search_issues", { q: "x" }, null))).toBe("Call search_issues on the MCP server github");
    expect(read(callSummary("read_file", { path: "README.md" }, null))).toBe("Read README.md");
    expect(read(callSummary("grep_search", { pattern: "TODO", path: "" }, null))).toBe("Search for TODO in .");
    expect(read(callSummary("glob_search", { pattern: "**/*.rs", path: "src" }, null))).toBe("List the files matching **/*.rs in src");
    expect(read(callSummary("mystery", null, null))).toBe("Call mystery");
    // A long command is cut in the first line (the dialog shows all of it below).
    const long = `make ${"x".repeat(200)}`;
    const cut = callSummary("run_command", {}, { kind: "command", command: long, workdir: "" }).code?.command ?? "";
    expect(Array.from(cut)).toHaveLength(81);
    expect(cut.endsWith("…")).toBe(true);
  });

  it("reads in Chinese, the paths and commands kept as they are", () => {
    setLanguage("zh-CN");
    expect(read(callSummary("run_command", {}, { kind: "command", command: "cargo test", workdir: "" }))).toBe("在 . 中运行 cargo test");
    const created = "--- a/a.rs\n+++ b/a.rs\n@@ -0,0 +1,2 @@\n+x\n+y\n";
    expect(read(callSummary("write_file", {}, { kind: "diff", path: "a.rs", unified: created }))).toBe("创建 a.rs（2 行）");
    expect(read(callSummary("mcp__github__search_issues", {}, null))).toBe("调用 MCP 服务器 github 的 search_issues");
  });
});

describe("why Gantry asks", () => {
  it("names the policy, the grant that is missing, or the engine's reason", () => {
    setLanguage("en");
    expect(read(askReason({ tool: "write_file", reason: { kind: "policy" }, sessionScope: ["write_file"] }))).toBe(
      "write_file is set to Ask in this project",
    );
    const keyed = askReason({ tool: "run_command", reason: { kind: "policy" }, sessionScope: ["run_command: git push"] });
    expect(read(keyed)).toBe("No session grant covers git push");
    expect(keyed.code).toEqual({ keys: "git push" });
    expect(read(askReason({ tool: "run_command", reason: { kind: "unscoped", why: "`--output` writes a file" }, sessionScope: [] }))).toBe(
      "`--output` writes a file: no grant can cover this call, so it asks every time",
    );
    expect(read(askReason({ tool: "write_file", reason: { kind: "always", why: "`.git/hooks/` runs code" }, sessionScope: [] }))).toBe(
      "`.git/hooks/` runs code: always asks",
    );
  });

  it("marks the engine's backticked words as code", () => {
    expect(codeSpans("`--output` writes `a` file")).toEqual([
      { text: "--output", code: true },
      { text: " writes ", code: false },
      { text: "a", code: true },
      { text: " file", code: false },
    ]);
    expect(codeSpans("plain")).toEqual([{ text: "plain", code: false }]);
  });
});

describe("who decided", () => {
  const decision = (kind: Decision["kind"], by: Decision["by"], detail: string | null = null): Decision => ({ kind, by, detail });

  it("says the user, a session grant, the policy or an MCP annotation", () => {
    setLanguage("en");
    expect(read(decidedBy(decision("allowed_once", "user"), "write_file", "sensitive"))).toBe("you: allowed once");
    expect(read(decidedBy(decision("allowed_for_session", "user"), "write_file", "sensitive"))).toBe("you: allowed for this session");
    expect(read(decidedBy(decision("denied", "user", "not today"), "write_file", "sensitive"))).toBe("you: denied — not today");
    expect(read(decidedBy(decision("denied", "user"), "write_file", "sensitive"))).toBe("you: denied");
    expect(read(decidedBy(decision("allowed_for_session", "session_grant", "run_command: git log"), "run_command", "dangerous"))).toBe(
      "session grant: git log",
    );
    expect(read(decidedBy(decision("auto", "policy"), "read_file", "safe"))).toBe("Auto in this project");
    expect(read(decidedBy(decision("auto", "policy"), "mcp__fs__read_text_file", "safe"))).toBe("read-only MCP tool");
    expect(read(decidedBy(decision("disabled", "policy"), "run_command", "dangerous"))).toBe("Disabled in this project");
    expect(decidedBy(decision("not_evaluated", "engine"), "x", null)).toBeNull();
    expect(read(decidedBy(decision("allowed_once", "hook", ".claude/settings.json"), "run_command", "dangerous"))).toBe(
      "Allowed by a hook of .claude/settings.json",
    );
    expect(decidedBy(decision("denied", "hook", ".claude/settings.json"), "run_command", "dangerous")).toBeNull();
  });
});

describe("a card's key argument", () => {
  it("is the path, the command, the pattern or server:tool", () => {
    expect(keyArgument("write_file", parseArguments('{"path":"a.txt","content":"x"}'))).toBe("a.txt");
    expect(keyArgument("run_command", parseArguments('{"command":"cargo test"}'))).toBe("cargo test");
    expect(keyArgument("grep_search", parseArguments('{"pattern":"TODO"}'))).toBe("TODO");
    expect(keyArgument("mcp__github__search_issues", undefined)).toBe("github:search_issues");
    expect(keyArgument("write_file", parseArguments("{not json"))).toBeNull();
    expect(mcpParts("read_file")).toBeNull();
  });
});
