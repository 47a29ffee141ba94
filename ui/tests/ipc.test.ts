import { beforeEach, describe, expect, it, vi } from "vitest";

const invoke = vi.fn();
vi.mock("@tauri-apps/api/core", () => ({ invoke }));
vi.mock("@tauri-apps/api/event", () => ({ listen: vi.fn() }));

const { call, describeError, isCommandError } = await import("../src/lib/ipc");

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
});
