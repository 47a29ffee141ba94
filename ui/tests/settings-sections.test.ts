// The Settings dialog's lazily read sections (checkpoint limits, compaction): read when first
// opened, invalid input refused without a call, saved values shown back. Backend mocked.

import { flushSync, mount } from "svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";

import CheckpointSettings from "../src/components/CheckpointSettings.svelte";
import CompactSettings from "../src/components/CompactSettings.svelte";
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

function field(testId: string): HTMLInputElement {
  const input = document.querySelector<HTMLInputElement>(`[data-testid=${testId}]`);
  if (!input) throw new Error(`no ${testId}`);
  return input;
}

function button(testId: string): HTMLButtonElement {
  const found = document.querySelector<HTMLButtonElement>(`[data-testid=${testId}]`);
  if (!found) throw new Error(`no ${testId}`);
  return found;
}

async function open(testId: string): Promise<void> {
  const details = document.querySelector<HTMLDetailsElement>(`[data-testid=${testId}]`);
  if (!details) throw new Error(`no ${testId}`);
  details.open = true;
  details.dispatchEvent(new Event("toggle"));
  await settle();
}

function set(testId: string, value: string): void {
  const input = field(testId);
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
}

function message(testId: string): string | undefined {
  return document.querySelector(`[data-testid=${testId}]`)?.textContent.trim();
}

describe("the checkpoint limits section", () => {
  it("reads the limits once when opened, refuses invalid ones and saves valid ones", async () => {
    call.mockImplementation((command: string, request?: { maxMb: number; maxAgeDays: number }) =>
      command === "checkpoint_settings"
        ? Promise.resolve({ maxMb: 500, maxAgeDays: 30, usedBytes: 2048 })
        : Promise.resolve({ ...request, usedBytes: 2048 }),
    );
    mounted(mount(CheckpointSettings, { target: document.body }));
    expect(call).not.toHaveBeenCalled();
    expect(button("checkpoints-save").disabled).toBe(true);
    await open("checkpoint-settings");
    expect(call).toHaveBeenCalledWith("checkpoint_settings");
    expect(field("checkpoints-max-mb").value).toBe("500");
    expect(field("checkpoints-max-age").value).toBe("30");
    expect(document.body.textContent).toContain("2.0 KB");

    set("checkpoints-max-mb", "0");
    button("checkpoints-save").click();
    await settle();
    expect(call).toHaveBeenCalledTimes(1);
    expect(document.querySelector("[data-testid=checkpoints-message]")?.className).toContain("error");

    set("checkpoints-max-mb", "250");
    button("checkpoints-save").click();
    await settle();
    expect(call).toHaveBeenLastCalledWith("save_checkpoint_settings", { maxMb: 250, maxAgeDays: 30 });
    expect(document.querySelector("[data-testid=checkpoints-message]")?.className).toContain("ok");

    // Closed and opened again: not read again.
    await open("checkpoint-settings");
    expect(call).toHaveBeenCalledTimes(2);
  });
});

describe("the compaction section", () => {
  it("accepts 0 or 10 to 100 and says when the backend refuses", async () => {
    call.mockImplementation((command: string) =>
      command === "compact_settings" ? Promise.resolve({ compactAtPercent: 80 }) : Promise.reject(new Error("the store is read-only")),
    );
    mounted(mount(CompactSettings, { target: document.body }));
    await open("compact-settings");
    expect(field("compact-at").value).toBe("80");
    set("compact-at", "5");
    button("compact-save").click();
    await settle();
    expect(call).toHaveBeenCalledTimes(1);
    expect(message("compact-message")).toBe("Use 0, or a whole number from 10 to 100.");
    set("compact-at", "0");
    button("compact-save").click();
    await settle();
    expect(call).toHaveBeenLastCalledWith("save_compact_settings", { compactAtPercent: 0 });
    expect(message("compact-message")).toContain("the store is read-only");
    expect(button("compact-save").disabled).toBe(false);
  });
});
