// The tab strip's rules (session-tabs.ts), the strip's state kept in step with the chat and
// remembered through the backend (tab-strip.svelte.ts), and the strip as the user sees it
// (SessionTabs.svelte). Backend mocked.

import { mount, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { SessionSummary } from "../src/bindings/SessionSummary";
import SessionTabs from "../src/components/SessionTabs.svelte";
import { setLanguage } from "../src/lib/i18n.svelte";
import type { ProjectChat } from "../src/lib/project-chat.svelte";
import {
  MAX_TABS,
  neighbour,
  rememberedTabs,
  restoredTabs,
  tabKey,
  type TabId,
  withoutTab,
  withShown,
} from "../src/lib/session-tabs";
import { TabStrip } from "../src/lib/tab-strip.svelte";
import { settle } from "./support/component";

const { call } = vi.hoisted(() => ({ call: vi.fn() }));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/lib/ipc")>();
  return { ...actual, call };
});

beforeEach(() => {
  setLanguage("en");
  call.mockReset();
});

describe("which tabs are open", () => {
  it("keeps the tabs when the shown session has one", () => {
    const tabs = ["a", "b"];
    expect(withShown(tabs, "b", "a")).toBe(tabs);
  });

  it("gives the fresh chat's tab to the session its first message made", () => {
    expect(withShown(["a", null, "b"], "c", null)).toEqual(["a", "c", "b"]);
  });

  it("opens a session's tab right after the tab it was opened from", () => {
    expect(withShown(["a", "b", "c"], "d", "a")).toEqual(["a", "d", "b", "c"]);
    expect(withShown(["a"], null, "a")).toEqual(["a", null]);
    expect(withShown([], "a", null)).toEqual(["a"]);
  });

  it("closes the leftmost tab that is not shown past the most tabs", () => {
    const full = Array.from({ length: MAX_TABS }, (_, index) => `s${String(index)}`);
    const next = withShown(full, "new", "s5");
    expect(next).toHaveLength(MAX_TABS);
    expect(next[0]).toBe("s1");
    expect(next.indexOf("new")).toBe(5);
  });

  it("closing the shown tab shows its right neighbour, else its left one", () => {
    expect(withoutTab(["a", "b", "c"], "b", "b")).toEqual({ tabs: ["a", "c"], show: "c" });
    expect(withoutTab(["a", "b", "c"], "c", "c")).toEqual({ tabs: ["a", "b"], show: "b" });
  });

  it("closing another tab keeps the shown one; the last leaves a fresh chat", () => {
    expect(withoutTab(["a", "b"], "a", "b")).toEqual({ tabs: ["b"], show: undefined });
    expect(withoutTab(["a"], "a", "a")).toEqual({ tabs: [null], show: null });
    expect(withoutTab(["a"], "zz", "a")).toEqual({ tabs: ["a"], show: undefined });
  });

  it("steps to the next and previous tab, going round", () => {
    const tabs: TabId[] = ["a", null, "c"];
    expect(neighbour(tabs, "a", 1)).toBe(null);
    expect(neighbour(tabs, "c", 1)).toBe("a");
    expect(neighbour(tabs, "a", -1)).toBe("c");
    expect(neighbour([], "a", 1)).toBeUndefined();
  });

  it("remembers sessions' tabs only, and adds the shown one when opening", () => {
    expect(rememberedTabs(["a", null, "b"])).toEqual(["a", "b"]);
    expect(restoredTabs(["a", "b"], "b")).toEqual(["a", "b"]);
    expect(restoredTabs(["a", "b"], "c")).toEqual(["a", "b", "c"]);
    expect(restoredTabs(["a"], null)).toEqual(["a", null]);
  });

  it("reads the strip's keys", () => {
    const key = (init: Partial<KeyboardEvent>): ReturnType<typeof tabKey> =>
      tabKey({ key: "", ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, ...init });
    expect(key({ key: "Tab", ctrlKey: true })).toBe("next");
    expect(key({ key: "Tab", ctrlKey: true, shiftKey: true })).toBe("previous");
    expect(key({ key: "PageDown", ctrlKey: true })).toBe("next");
    expect(key({ key: "PageUp", ctrlKey: true })).toBe("previous");
    expect(key({ key: "w", ctrlKey: true })).toBe("close");
    expect(key({ key: "Tab" })).toBeNull();
    expect(key({ key: "w", ctrlKey: true, altKey: true })).toBeNull();
    expect(key({ key: "W", ctrlKey: true, shiftKey: true })).toBeNull();
  });
});

/** The part of the chat the strip uses: the shown session, and switching. */
function fakeChat(shown: TabId): { chat: ProjectChat; shown: () => TabId; opened: string[] } {
  const opened: string[] = [];
  const fake = {
    loaded: true,
    state: { sessionId: shown },
    openSession(id: string): Promise<void> {
      opened.push(id);
      fake.state = { sessionId: id };
      return Promise.resolve();
    },
    newSession(): Promise<void> {
      opened.push("(new)");
      fake.state = { sessionId: null };
      return Promise.resolve();
    },
  };
  return { chat: fake as unknown as ProjectChat, shown: () => fake.state.sessionId, opened };
}

describe("the strip's state", () => {
  it("opens with the remembered tabs and the shown session's, and saves changes only", async () => {
    call.mockImplementation((command: string, request?: unknown) =>
      Promise.resolve(command === "session_tabs" ? { open: ["a", "b"] } : request),
    );
    const fake = fakeChat("c");
    const strip = new TabStrip(fake.chat);
    strip.follow("c");
    expect(strip.tabs, "nothing before the remembered tabs are read").toEqual([]);
    await strip.load();
    expect(strip.tabs).toEqual(["a", "b", "c"]);
    expect(call).toHaveBeenLastCalledWith("save_session_tabs", { open: ["a", "b", "c"] });
    const saves = call.mock.calls.length;
    strip.follow("c");
    expect(call.mock.calls.length, "no change, no save").toBe(saves);
    strip.follow(null);
    expect(strip.tabs).toEqual(["a", "b", "c", null]);
    expect(call.mock.calls.length, "the fresh chat is not remembered").toBe(saves);
    strip.follow("d");
    expect(strip.tabs).toEqual(["a", "b", "c", "d"]);
    expect(call).toHaveBeenLastCalledWith("save_session_tabs", { open: ["a", "b", "c", "d"] });
  });

  it("closing the shown tab shows its neighbour without giving the closed one its tab back", async () => {
    call.mockImplementation((command: string, request?: unknown) =>
      Promise.resolve(command === "session_tabs" ? { open: ["a", "b", "c"] } : request),
    );
    const fake = fakeChat("b");
    const strip = new TabStrip(fake.chat);
    await strip.load();
    const closing = strip.close("b");
    // While the chat switches, it still shows "b": following it does not bring its tab back.
    strip.follow("b");
    await closing;
    expect(fake.opened).toEqual(["c"]);
    strip.follow(fake.shown());
    expect(strip.tabs).toEqual(["a", "c"]);
    expect(call).toHaveBeenLastCalledWith("save_session_tabs", { open: ["a", "c"] });
    await strip.close("a");
    expect(fake.opened, "another tab closes without switching").toEqual(["c"]);
    await strip.close("c");
    expect(fake.opened).toEqual(["c", "(new)"]);
    expect(strip.tabs).toEqual([null]);
    strip.forget("zz");
    expect(strip.tabs).toEqual([null]);
  });

  it("saves again after a save failed", async () => {
    call.mockImplementation((command: string) =>
      command === "session_tabs" ? Promise.resolve({ open: [] }) : Promise.reject(new Error("disk full")),
    );
    const strip = new TabStrip(fakeChat("a").chat);
    await strip.load();
    await settle();
    call.mockImplementation((_command: string, request?: unknown) => Promise.resolve(request));
    strip.follow("a");
    expect(call).toHaveBeenLastCalledWith("save_session_tabs", { open: ["a"] });
  });
});

describe("the tab strip", () => {
  let component: ReturnType<typeof mount> | null = null;
  afterEach(() => {
    if (component) void unmount(component);
    component = null;
    document.body.innerHTML = "";
  });

  const session = (id: string, title: string, activity: SessionSummary["activity"]): SessionSummary => ({
    id, title, activity, model: null, provider: null, messageCount: 1, createdAt: 0, updatedAt: 0,
  });

  it("shows each tab's title and what it does, and acts on clicks", () => {
    const onshow = vi.fn();
    const onclose = vi.fn();
    const onstop = vi.fn();
    const onnew = vi.fn();
    component = mount(SessionTabs, {
      target: document.body,
      props: {
        tabs: ["a", "b", "c", null],
        shown: "a",
        sessions: [session("a", "Refactor", "running"), session("b", "Docs", "waiting"), session("c", "", "queued")],
        onshow,
        onclose,
        onstop,
        onnew,
      },
    });
    const tabs = [...document.querySelectorAll<HTMLElement>("[data-testid=session-tab]")];
    expect(tabs.map((tab) => tab.textContent.replace(/\s+/g, " ").trim())).toEqual([
      "Refactor ■ ✕",
      "● Docs ■ ✕",
      "Untitled session queued ■ ✕",
      "New chat ✕",
    ]);
    expect(tabs.map((tab) => tab.dataset.activity)).toEqual(["running", "waiting", "queued", "idle"]);
    const open = (at: number): HTMLButtonElement => tabs[at]?.querySelector<HTMLButtonElement>("[data-testid=session-tab-open]") as HTMLButtonElement;
    expect(open(0).getAttribute("aria-current")).toBe("page");
    expect(open(1).getAttribute("aria-current")).toBeNull();
    expect(open(1).getAttribute("aria-label")).toBe("Docs, waits for you");
    expect(tabs[0]?.querySelector(".spinner")).not.toBeNull();
    expect(tabs[1]?.querySelector(".tab-dot")).not.toBeNull();

    open(1).click();
    expect(onshow).toHaveBeenCalledWith("b");
    open(3).click();
    expect(onshow).toHaveBeenLastCalledWith(null);
    tabs[2]?.querySelector<HTMLButtonElement>("[data-testid=session-tab-stop]")?.click();
    expect(onstop).toHaveBeenCalledWith("c");
    tabs[0]?.querySelector<HTMLButtonElement>("[data-testid=session-tab-close]")?.click();
    expect(onclose).toHaveBeenCalledWith("a");
    open(1).dispatchEvent(new MouseEvent("auxclick", { button: 1, bubbles: true }));
    expect(onclose).toHaveBeenLastCalledWith("b");
    expect(onshow).toHaveBeenCalledTimes(2);
    document.querySelector<HTMLButtonElement>("[data-testid=session-tab-new]")?.click();
    expect(onnew).toHaveBeenCalledTimes(1);
  });
});
