import { beforeEach, describe, expect, it, vi } from "vitest";

const invoke = vi.fn();
vi.mock("@tauri-apps/api/core", () => ({ invoke }));
vi.mock("@tauri-apps/api/event", () => ({ listen: vi.fn() }));

const { call, describeError, isCommandError } = await import("../src/lib/ipc");
const { setLanguage } = await import("../src/lib/i18n.svelte");

describe("call", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("sends a command's argument as `request`, and nothing for commands without one", async () => {
    invoke.mockResolvedValue([]);
    await call("list_dir", { path: "src" });
    expect(invoke).toHaveBeenLastCalledWith("list_dir", { request: { path: "src" } });
    await call("launch_state");
    expect(invoke).toHaveBeenLastCalledWith("launch_state", {});
  });

  it("passes the backend's typed error through", async () => {
    invoke.mockRejectedValue({ kind: "outside_project", message: "\"../x\" leads outside the project" });
    const failure: unknown = await call("read_preview", { path: "../x" }).catch((e: unknown) => e);
    expect(isCommandError(failure)).toBe(true);
    expect(describeError(failure)).toBe("\"../x\" leads outside the project");
    expect(describeError(new Error("boom"))).toBe("boom");
    expect(describeError("plain")).toBe("plain");
  });

  it("words an everyday refusal in the UI's language, and falls back to the message", () => {
    const taken = {
      kind: "invalid_input",
      message: "'files' is already configured in /u/mcp.json",
      reason: { code: "mcp_names_taken", names: ["files"], file: "/u/mcp.json" },
    };
    expect(describeError(taken)).toBe(
      "A server named files is already configured in /u/mcp.json. Choose another name, or edit that server.",
    );
    const two = { ...taken, reason: { code: "mcp_names_taken", names: ["a", "b"], file: "/u/mcp.json" } };
    expect(describeError(two)).toContain("/u/mcp.json: a");
    setLanguage("zh-CN");
    try {
      expect(describeError(taken)).toBe("/u/mcp.json 中已配置名为 files 的服务器。请换一个名称，或编辑该服务器。");
      expect(describeError({ kind: "busy", message: "still starting", reason: { code: "mcp_starting" } })).toBe(
        "MCP 服务器仍在启动，请稍后再试。",
      );
      // No reason: the backend's words as they come.
      expect(describeError({ kind: "io", message: "disk full" })).toBe("disk full");
    } finally {
      setLanguage("system");
    }
  });
});
