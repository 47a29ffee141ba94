import { describe, expect, it } from "vitest";

import type { ConfigReport } from "../src/bindings/ConfigReport";
import type { FileReport } from "../src/bindings/FileReport";
import { fileState, trustRequest, waitingCount, waitingFiles } from "../src/lib/project-config";

function file(shown: string, extra: Partial<FileReport> = {}): FileReport {
  return {
    source: { path: `/p/${shown}`, shown, scope: "project" },
    kind: "settings",
    read: [],
    notUnderstood: [],
    waitsForTrust: [],
    sha256: `sha-${shown}`,
    trusted: false,
    ...extra,
  };
}

describe("the project configuration view", () => {
  const report: ConfigReport = {
    files: [
      file("CLAUDE.md", { kind: "instructions", read: ["instructions, 2 KiB"] }),
      file(".claude/settings.json", { waitsForTrust: ["allow rule Bash(npm test)", "hook PreToolUse Bash"] }),
      file(".mcp.json", { kind: "mcp", waitsForTrust: ["MCP server x"], trusted: true }),
      file(".codex/hooks.json", { problem: "not valid JSON", waitsForTrust: ["hook Stop"] }),
    ],
  };

  it("tells each file's state: problems first, then trust", () => {
    expect(report.files.map(fileState)).toEqual(["applies", "waits", "applies", "unreadable"]);
  });

  it("trusts exactly the files shown as waiting, with the hash they were shown with", () => {
    expect(waitingFiles(report).map((f) => f.source.shown)).toEqual([".claude/settings.json"]);
    expect(waitingCount(report)).toBe(2);
    expect(trustRequest(report)).toEqual({
      files: [{ path: "/p/.claude/settings.json", sha256: "sha-.claude/settings.json" }],
    });
    expect(trustRequest({ files: [] })).toEqual({ files: [] });
  });
});

describe("the note about run_command", () => {
  it("appears for a rule allowing commands, applied or waiting, and not for others", async () => {
    const { allowsCommands } = await import("../src/lib/project-config");
    const settings = (read: string[], waitsForTrust: string[] = []): ConfigReport => ({
      files: [file(".claude/settings.json", { read, waitsForTrust })],
    });
    expect(allowsCommands(settings([], ["allow rule Bash(npm test)"]))).toBe(true);
    expect(allowsCommands(settings(["allow rule Bash"]))).toBe(true);
    expect(allowsCommands(settings(["deny rule Bash(rm *)", "allow rule Read(src/**)"]))).toBe(false);
    expect(allowsCommands(settings(["allow rule Bashful(x)"]))).toBe(false);
  });
});
