// The session list (switch, inline rename, delete with a confirm step) and the provider
// settings dialog (presets, the key sent only when typed, errors inline). Backend mocked.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ProviderSettings } from "../src/bindings/ProviderSettings";
import type { SessionSummary } from "../src/bindings/SessionSummary";
import SessionList from "../src/components/SessionList.svelte";
import SettingsDialog from "../src/components/SettingsDialog.svelte";
import { setLanguage, STORAGE_KEY } from "../src/lib/i18n.svelte";

const { call } = vi.hoisted(() => ({ call: vi.fn() }));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/lib/ipc")>();
  return { ...actual, call };
});

function q(selector: string, root: ParentNode = document): HTMLElement | null {
  return root.querySelector<HTMLElement>(selector);
}

function click(selector: string, root: ParentNode = document): void {
  const element = q(selector, root);
  if (!element) throw new Error(`no ${selector}`);
  element.click();
  flushSync();
}

function type(selector: string, value: string): HTMLInputElement {
  const field = document.querySelector<HTMLInputElement>(selector);
  if (!field) throw new Error(`no ${selector}`);
  field.value = value;
  field.dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
  return field;
}

function key(target: EventTarget, name: string): KeyboardEvent {
  const event = new KeyboardEvent("keydown", { key: name, bubbles: true, cancelable: true });
  target.dispatchEvent(event);
  flushSync();
  return event;
}

let component: ReturnType<typeof mount> | null = null;

beforeEach(() => {
  call.mockReset();
});

afterEach(() => {
  if (component) void unmount(component);
  component = null;
  document.body.innerHTML = "";
  setLanguage("system");
});

const now = Date.now();
const sessions: SessionSummary[] = [
  { id: "a", title: "Fix the build", model: "m", provider: null, messageCount: 4, createdAt: now - 7_200_000, updatedAt: now - 3 * 3_600_000, activity: "idle" },
  { id: "b", title: "", model: null, provider: null, messageCount: 0, createdAt: now, updatedAt: now, activity: "idle" },
];

describe("the session list", () => {
  function render() {
    const handlers = {
      onnew: vi.fn(),
      onopen: vi.fn(),
      onrename: vi.fn(() => Promise.resolve(true)),
      ondelete: vi.fn(),
      onexport: vi.fn(() => Promise.resolve({ path: "/tmp/s.md", messages: 4 })),
    };
    component = mount(SessionList, { target: document.body, props: { sessions, currentId: "a", ...handlers } });
    flushSync();
    return handlers;
  }

  it("lists sessions with the current one marked, and switches on click", () => {
    const handlers = render();
    const items = [...document.querySelectorAll<HTMLElement>("[data-testid=session-item]")];
    expect(items.map((item) => [item.dataset.sessionId, item.dataset.current])).toEqual([
      ["a", "true"],
      ["b", "false"],
    ]);
    expect(q("[data-testid=session-title]", items[0])?.textContent).toBe("Fix the build");
    expect(items[0]?.textContent).toContain("3 h ago");
    expect(q("[data-testid=session-title]", items[1])?.textContent).toBe("Untitled session");
    click("[data-session-id=b] .session-open");
    expect(handlers.onopen).toHaveBeenCalledWith("b");
    click("[data-testid=session-new]");
    expect(handlers.onnew).toHaveBeenCalled();
  });

  it("renames inline: Enter saves, Esc cancels without reaching the window", async () => {
    const handlers = render();
    click("[data-session-id=a] [data-testid=session-rename]");
    let field = type("[data-testid=session-rename-input]", "Nope");
    const seen = vi.fn();
    window.addEventListener("keydown", seen);
    const esc = key(field, "Escape");
    window.removeEventListener("keydown", seen);
    expect(esc.defaultPrevented).toBe(true);
    expect(q("[data-testid=session-rename-input]")).toBeNull();
    expect(handlers.onrename).not.toHaveBeenCalled();

    click("[data-session-id=a] [data-testid=session-rename]");
    field = type("[data-testid=session-rename-input]", "  Build fixed  ");
    key(field, "Enter");
    expect(handlers.onrename).toHaveBeenCalledWith("a", "Build fixed");
    await vi.waitFor(() => {
      expect(q("[data-testid=session-rename-input]")).toBeNull();
    });
  });

  it("deletes only after the confirm step", () => {
    const handlers = render();
    click("[data-session-id=b] [data-testid=session-delete]");
    expect(handlers.ondelete).not.toHaveBeenCalled();
    click("[data-session-id=b] [data-testid=session-delete-confirm]");
    expect(handlers.ondelete).toHaveBeenCalledWith("b");
  });

  it("exports a session in the format chosen and says where it went", async () => {
    const handlers = render();
    click("[data-session-id=a] [data-testid=session-export]");
    click("[data-session-id=a] [data-testid=session-export-md]");
    expect(handlers.onexport).toHaveBeenCalledWith("a", "markdown");
    await Promise.resolve();
    await Promise.resolve();
    flushSync();
    expect(document.querySelector("[data-testid=session-exported]")?.textContent).toContain("/tmp/s.md");
  });
});

const HOSTED = { streamUsage: true, replayReasoning: false, textToolCalls: false, images: true };
const LOCAL = { streamUsage: true, replayReasoning: false, textToolCalls: true, images: true };

describe("the settings dialog", () => {
  const settings: ProviderSettings = {
    active: { name: "openai", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1-mini", apiKeyEnv: "OPENAI_API_KEY", contextWindow: 128000, saved: true, flags: HOSTED, server: "other", needsKey: true },
    configured: true,
    key: { state: "stored" },
    presets: [
      { name: "openai", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1-mini", apiKeyEnv: "OPENAI_API_KEY", contextWindow: 128000, saved: false, flags: HOSTED, server: "other", needsKey: true },
      { name: "ollama", baseUrl: "http://localhost:11434/v1", model: "qwen2.5-coder", apiKeyEnv: null, contextWindow: 8192, saved: false, flags: LOCAL, server: "ollama", needsKey: false },
    ],
  };

  function render(current: ProviderSettings = settings) {
    const handlers = { onsaved: vi.fn(), onclose: vi.fn() };
    // The notifications checkbox reads its setting when shown: it stays unread here.
    call.mockReturnValue(new Promise(() => undefined));
    component = mount(SettingsDialog, { target: document.body, props: { settings: current, ...handlers } });
    flushSync();
    return handlers;
  }

  it("shows the active provider and that its key is stored, and never sends an untyped key", async () => {
    const handlers = render();
    expect(document.querySelector<HTMLSelectElement>("[data-testid=settings-preset]")?.value).toBe("openai");
    expect(document.querySelector<HTMLInputElement>("[data-testid=settings-model]")?.value).toBe("gpt-4.1-mini");
    expect(q("[data-testid=settings-key-state]")?.textContent).toContain("stored");
    expect(document.querySelector<HTMLInputElement>("[data-testid=settings-api-key]")?.placeholder).toContain("stored");
    call.mockResolvedValue(settings);
    click("[data-testid=settings-save]");
    expect(call).toHaveBeenCalledWith("save_provider", {
      name: "openai",
      baseUrl: "https://api.openai.com/v1",
      model: "gpt-4.1-mini",
      contextWindow: 128000,
      flags: HOSTED,
    });
    await vi.waitFor(() => {
      expect(handlers.onsaved).toHaveBeenCalledWith(settings);
    });
  });

  it("fills a preset and sends a typed key", () => {
    render();
    const select = document.querySelector<HTMLSelectElement>("[data-testid=settings-preset]");
    if (!select) throw new Error("no select");
    select.value = "ollama";
    select.dispatchEvent(new Event("change", { bubbles: true }));
    flushSync();
    expect(document.querySelector<HTMLInputElement>("[data-testid=settings-base-url]")?.value).toBe("http://localhost:11434/v1");
    type("[data-testid=settings-api-key]", "secret-key");
    call.mockReturnValue(new Promise(() => undefined));
    click("[data-testid=settings-save]");
    expect(call).toHaveBeenCalledWith("save_provider", {
      name: "ollama",
      baseUrl: "http://localhost:11434/v1",
      model: "qwen2.5-coder",
      contextWindow: 8192,
      apiKey: "secret-key",
      flags: LOCAL,
    });
  });

  it("shows the preset's wire options and sends them as changed", () => {
    render();
    const stream = document.querySelector<HTMLInputElement>("[data-testid=settings-stream-usage]");
    const text = document.querySelector<HTMLInputElement>("[data-testid=settings-text-tool-calls]");
    expect([stream?.checked, text?.checked]).toEqual([true, false]);
    stream?.click();
    flushSync();
    call.mockReturnValue(new Promise(() => undefined));
    click("[data-testid=settings-save]");
    expect(call).toHaveBeenCalledWith("save_provider", expect.objectContaining({
      flags: { ...HOSTED, streamUsage: false },
    }));
  });

  it("shows a refusal inline, and the keychain's message when it is unavailable", async () => {
    render({ ...settings, key: { state: "unavailable", message: "No keychain; set OPENAI_API_KEY instead." } });
    expect(q("[data-testid=settings-key-state]")?.textContent).toContain("set OPENAI_API_KEY instead");
    call.mockRejectedValue({ kind: "invalid_input", message: "the base URL must start with http:// or https://" });
    type("[data-testid=settings-base-url]", "ftp://x");
    click("[data-testid=settings-save]");
    await vi.waitFor(() => {
      expect(q("[data-testid=settings-error]")?.textContent).toContain("must start with http");
    });
  });

  it("closes with Esc", () => {
    const handlers = render();
    key(window, "Escape");
    expect(handlers.onclose).toHaveBeenCalled();
  });

  it("switches the UI's language at once from its Language control, keeping what was typed", () => {
    const handlers = render();
    const language = document.querySelector<HTMLSelectElement>("[data-testid=settings-language]");
    if (!language) throw new Error("no language control");
    expect(language.value).toBe("system");
    expect([...language.options].map((option) => option.textContent)).toEqual(["System (English)", "English", "简体中文"]);
    expect(q("#settings-title")?.textContent).toBe("Settings");
    expect(q("[data-testid=settings-save]")?.textContent).toBe("Save");
    type("[data-testid=settings-model]", "gpt-5");

    language.value = "zh-CN";
    language.dispatchEvent(new Event("change", { bubbles: true }));
    flushSync();
    expect(q("#settings-title")?.textContent).toBe("设置");
    expect(q("[data-testid=settings-save]")?.textContent).toBe("保存");
    expect(q("[data-testid=settings-test]")?.textContent.trim()).toBe("测试连接");
    expect(q("[data-testid=settings-key-state]")?.textContent).toContain("已保存在系统密钥环中");
    expect(document.querySelector<HTMLInputElement>("[data-testid=settings-api-key]")?.placeholder).toBe("已保存——输入新密钥即可替换");
    expect([...language.options].map((option) => option.textContent)).toEqual(["跟随系统（English）", "English", "简体中文"]);
    expect(language.value).toBe("zh-CN");
    expect(localStorage.getItem(STORAGE_KEY)).toBe("zh-CN");
    expect(document.documentElement.lang).toBe("zh-CN");
    // The choice is kept with the app's settings; nothing else was saved or closed (the other
    // calls are the notifications box and the turn limit reading their settings), and the form
    // kept its text.
    expect(call.mock.calls).toEqual([
      ["notification_settings"],
      ["turn_limit_settings"],
      ["save_language", { language: "zh-CN" }],
    ]);
    expect(handlers.onclose).not.toHaveBeenCalled();
    expect(document.querySelector<HTMLInputElement>("[data-testid=settings-model]")?.value).toBe("gpt-5");

    language.value = "system";
    language.dispatchEvent(new Event("change", { bubbles: true }));
    flushSync();
    expect(q("#settings-title")?.textContent).toBe("Settings");
    expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
  });

  it("opens in the language chosen before, with that choice selected", () => {
    setLanguage("zh-CN");
    render();
    expect(document.querySelector<HTMLSelectElement>("[data-testid=settings-language]")?.value).toBe("zh-CN");
    expect(q("[data-testid=settings-save]")?.textContent).toBe("保存");
  });
});
