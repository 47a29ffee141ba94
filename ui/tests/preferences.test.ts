import { beforeEach, describe, expect, it, vi } from "vitest";

const { call } = vi.hoisted(() => ({ call: vi.fn() }));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/lib/ipc")>();
  return { ...actual, call };
});

describe("the UI's stored preferences", () => {
  beforeEach(() => {
    vi.resetModules();
    call.mockReset();
  });

  it("are read once per window, and read again after a failure", async () => {
    const { uiPreferences } = await import("../src/lib/preferences");
    call.mockRejectedValueOnce(new Error("not yet"));
    await expect(uiPreferences()).rejects.toThrow("not yet");
    const stored = { language: "zh-CN", tree: { open: false, height: 200 } };
    call.mockResolvedValue(stored);
    await expect(uiPreferences()).resolves.toEqual(stored);
    await expect(uiPreferences()).resolves.toEqual(stored);
    expect(call.mock.calls).toEqual([["ui_preferences"], ["ui_preferences"]]);
  });

  it("save the language and a whole-pixel tree layout", async () => {
    const { saveLanguage, saveTreeLayout } = await import("../src/lib/preferences");
    call.mockResolvedValue(null);
    saveLanguage("en");
    saveTreeLayout({ open: true, height: 240.6 });
    expect(call.mock.calls).toEqual([
      ["save_language", { language: "en" }],
      ["save_tree_layout", { open: true, height: 241 }],
    ]);
  });
});
