// The Settings dialog's desktop-notifications checkbox: read when shown, saved at once when
// changed, put back when the save fails. Backend mocked.

import { flushSync, mount } from "svelte";
import { beforeEach, describe, expect, it, vi } from "vitest";

import NotificationSettings from "../src/components/NotificationSettings.svelte";
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

function checkbox(): HTMLInputElement {
  const input = document.querySelector<HTMLInputElement>("[data-testid=settings-notifications]");
  if (!input) throw new Error("no checkbox");
  return input;
}

function click(input: HTMLInputElement): void {
  input.click();
  flushSync();
}

describe("the notifications setting", () => {
  it("shows the stored choice and saves a change at once", async () => {
    call.mockImplementation((command: string, request?: { enabled: boolean }) =>
      command === "notification_settings" ? Promise.resolve({ enabled: true }) : Promise.resolve(request),
    );
    mounted(mount(NotificationSettings, { target: document.body }));
    expect(checkbox().disabled).toBe(true);
    await settle();
    expect(call).toHaveBeenCalledWith("notification_settings");
    expect(checkbox().disabled).toBe(false);
    expect(checkbox().checked).toBe(true);
    expect(document.body.textContent).toContain("Desktop notifications");
    click(checkbox());
    await settle();
    expect(call).toHaveBeenLastCalledWith("save_notification_settings", { enabled: false });
    expect(checkbox().checked).toBe(false);
  });

  it("puts the box back and says why when the save fails", async () => {
    call.mockImplementation((command: string) =>
      command === "notification_settings"
        ? Promise.resolve({ enabled: false })
        : Promise.reject(new Error("the database is locked")),
    );
    mounted(mount(NotificationSettings, { target: document.body }));
    await settle();
    expect(checkbox().checked).toBe(false);
    click(checkbox());
    await settle();
    expect(checkbox().checked).toBe(false);
    expect(document.querySelector("[data-testid=settings-notifications-error]")?.textContent).toContain(
      "the database is locked",
    );
  });

  it("reads in Chinese too", async () => {
    setLanguage("zh-CN");
    call.mockResolvedValue({ enabled: true });
    mounted(mount(NotificationSettings, { target: document.body }));
    await settle();
    expect(document.body.textContent).toContain("桌面通知");
  });
});
