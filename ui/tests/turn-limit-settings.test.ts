// The Settings dialog's turn limit: read when shown, saved at once when changed, refused
// before saving when out of range, put back and explained when the save fails. Backend mocked.

import { flushSync, mount, unmount } from "svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";

import TurnLimitSettings from "../src/components/TurnLimitSettings.svelte";
import { setLanguage } from "../src/lib/i18n.svelte";
import { settle, unmountAfterEach } from "./support/component";

const { call } = vi.hoisted(() => ({ call: vi.fn() }));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/lib/ipc")>();
  return { ...actual, call };
});

const mounted = unmountAfterEach();

beforeEach(() => {
  setLanguage("en");
  call.mockReset();
});

function input(): HTMLInputElement {
  const box = document.querySelector<HTMLInputElement>("[data-testid=settings-turn-limit]");
  if (!box) throw new Error("no turn limit box");
  return box;
}

function errorText(): string | null {
  return document.querySelector("[data-testid=settings-turn-limit-error]")?.textContent ?? null;
}

/** Types `value` into the box and leaves it (what fires `change`). */
function enter(value: string): void {
  input().value = value;
  input().dispatchEvent(new Event("change", { bubbles: true }));
  flushSync();
}

/**
 * A backend holding limit `max` with `running` turns running, whose saves succeed;
 * `fromEnvironment`: what GANTRY_MAX_TURNS set, if anything.
 */
function backend(max: number, running = 0, fromEnvironment: number | null = null): void {
  call.mockImplementation((command: string, request?: { max: number }) => {
    if (command !== "turn_limit_settings") max = request?.max ?? max;
    return Promise.resolve({ max, running, fromEnvironment });
  });
}

function text(testid: string): string | null {
  return document.querySelector(`[data-testid=${testid}]`)?.textContent ?? null;
}

describe("the turn limit setting", () => {
  it("shows the limit in force and saves a change at once", async () => {
    backend(4);
    mounted(mount(TurnLimitSettings, { target: document.body }));
    expect(input().disabled).toBe(true);
    await settle();
    expect(call).toHaveBeenCalledWith("turn_limit_settings");
    expect(input().disabled).toBe(false);
    expect(input().value).toBe("4");
    expect(document.body.textContent).toContain("Turns running at once");
    expect(document.body.textContent).toContain("More are queued and start when one ends.");
    enter("1");
    await settle();
    expect(call).toHaveBeenLastCalledWith("save_turn_limit_settings", { max: 1 });
    expect(input().value).toBe("1");
    expect(errorText()).toBeNull();
  });

  it("refuses a number out of range without saving it", async () => {
    backend(4);
    mounted(mount(TurnLimitSettings, { target: document.body }));
    await settle();
    for (const value of ["0", "17", "2.5", ""]) {
      enter(value);
      await settle();
      expect(errorText(), value).toBe("Enter a whole number from 1 to 16.");
      expect(input().value, value).toBe("4");
    }
    expect(call).not.toHaveBeenCalledWith("save_turn_limit_settings", expect.anything());
    enter("16");
    await settle();
    expect(call).toHaveBeenLastCalledWith("save_turn_limit_settings", { max: 16 });
    expect(errorText()).toBeNull();
  });

  it("puts the limit back and says why when the save fails", async () => {
    call.mockImplementation((command: string) =>
      command === "turn_limit_settings"
        ? Promise.resolve({ max: 3, running: 1, fromEnvironment: null })
        : Promise.reject(new Error("the database is locked")),
    );
    mounted(mount(TurnLimitSettings, { target: document.body }));
    await settle();
    enter("8");
    await settle();
    expect(input().value).toBe("3");
    expect(errorText()).toContain("the database is locked");
  });

  it("says how many turns run now, and what GANTRY_MAX_TURNS brings back at each start", async () => {
    backend(4, 2);
    const first = mount(TurnLimitSettings, { target: document.body });
    await settle();
    expect(text("settings-turn-limit-running")).toBe("Running now: 2.");
    expect(text("settings-turn-limit-environment")).toBeNull();
    await unmount(first);

    backend(6, 0, 6);
    mounted(mount(TurnLimitSettings, { target: document.body }));
    await settle();
    expect(text("settings-turn-limit-environment")).toBe(
      "GANTRY_MAX_TURNS sets 6 at each start: a change here lasts until Gantry restarts.",
    );
    enter("3");
    await settle();
    expect(input().value).toBe("3");
    expect(text("settings-turn-limit-environment")).toContain("sets 6 at each start");
  });

  it("says why when the limit cannot be read", async () => {
    call.mockRejectedValue(new Error("window `project-3` is not open"));
    mounted(mount(TurnLimitSettings, { target: document.body }));
    await settle();
    expect(input().disabled).toBe(true);
    expect(errorText()).toContain("is not open");
  });

  it("reads in Chinese too", async () => {
    setLanguage("zh-CN");
    backend(2);
    mounted(mount(TurnLimitSettings, { target: document.body }));
    await settle();
    expect(document.body.textContent).toContain("同时运行的轮次");
    enter("0");
    await settle();
    expect(errorText()).toBe("请输入 1 到 16 之间的整数。");
  });
});
