// A part of the page loaded on first need: loaded once, its listeners told, a failure tried again.

import { describe, expect, it, vi } from "vitest";

import { LazyModule, settleLoads } from "../src/lib/lazy-module";

describe("a lazily loaded module", () => {
  it("loads once, on the first load, and tells its listeners", async () => {
    const load = vi.fn(() => Promise.resolve({ name: "renderer" }));
    const lazy = new LazyModule(load);
    const told = vi.fn();
    const stop = lazy.onLoaded(told);
    expect(load).not.toHaveBeenCalled();
    expect(lazy.get()).toBeNull();
    const [first, second] = await Promise.all([lazy.load(), lazy.load()]);
    expect(first).toBe(second);
    expect(lazy.get()).toBe(first);
    expect(load).toHaveBeenCalledTimes(1);
    expect(told).toHaveBeenCalledTimes(1);
    stop();
    await lazy.load();
    expect(load).toHaveBeenCalledTimes(1);
    expect(told).toHaveBeenCalledTimes(1);
  });

  it("tries again after a failed load", async () => {
    const load = vi
      .fn<() => Promise<string>>()
      .mockRejectedValueOnce(new Error("the chunk did not load"))
      .mockResolvedValueOnce("loaded");
    const lazy = new LazyModule(load);
    await expect(lazy.load()).rejects.toThrow("the chunk did not load");
    expect(lazy.get()).toBeNull();
    await expect(lazy.load()).resolves.toBe("loaded");
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("lets the loads under way end before a test environment is torn down", async () => {
    let finish: (value: string) => void = () => undefined;
    const lazy = new LazyModule(() => new Promise<string>((resolve) => (finish = resolve)));
    void lazy.load();
    let settled = false;
    const settling = settleLoads().then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    finish("loaded");
    await settling;
    expect(lazy.get()).toBe("loaded");
  });
});
