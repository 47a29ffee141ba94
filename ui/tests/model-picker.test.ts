// The chat header's model picker: shows what the session talks to, lists another provider's
// models, switches this session, and returns it to the settings' provider. Backend mocked.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { ModelChoices } from "../src/bindings/ModelChoices";
import ModelPicker from "../src/components/ModelPicker.svelte";
import { setLanguage } from "../src/lib/i18n.svelte";
import { shortTokens } from "../src/lib/models";

const { call } = vi.hoisted(() => ({ call: vi.fn() }));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/lib/ipc")>();
  return { ...actual, call };
});

const PROVIDERS = [
  { name: "ollama", baseUrl: "http://localhost:11434/v1", saved: true, local: true },
  { name: "mistral", baseUrl: "https://api.mistral.ai/v1", saved: false, local: false },
];

function choices(overrides: Partial<ModelChoices> = {}): ModelChoices {
  return {
    provider: "ollama",
    baseUrl: "http://localhost:11434/v1",
    model: "qwen2.5-coder:7b",
    chosen: false,
    contextWindow: 32768,
    windowFromServer: true,
    models: ["llama3.2:3b", "qwen2.5-coder:7b"],
    error: null,
    providers: PROVIDERS,
    ...overrides,
  };
}

let component: ReturnType<typeof mount> | null = null;

afterEach(() => {
  if (component) void unmount(component);
  component = null;
  document.body.innerHTML = "";
  call.mockReset();
  setLanguage("system");
});

function q(selector: string): HTMLElement | null {
  return document.querySelector<HTMLElement>(selector);
}

async function render(): Promise<void> {
  component = mount(ModelPicker, { target: document.body, props: { sessionId: "7", revision: 0 } });
  await vi.waitFor(() => {
    expect(q("[data-testid=provider-summary]")).not.toBeNull();
  });
  flushSync();
}

describe("the model picker", () => {
  it("shows the session's model and the window the server runs", async () => {
    call.mockResolvedValue(choices());
    await render();
    expect(call).toHaveBeenCalledWith("list_models", {});
    expect(q("[data-testid=provider-summary]")?.textContent).toBe("Ollama · qwen2.5-coder:7b");
    q("[data-testid=model-picker]")?.click();
    flushSync();
    expect(q("[data-testid=model-window]")?.textContent).toBe("Context window: 32K tokens, as the server runs the model.");
    expect([...document.querySelectorAll("[data-testid=model-list] button")].map((b) => b.textContent)).toEqual([
      "llama3.2:3b",
      "qwen2.5-coder:7b",
    ]);
    expect(q("[data-testid=model-follow]")).toBeNull();
  });

  it("lists another provider's models and switches this session to one", async () => {
    call.mockImplementation((command: string, request?: { provider?: string }) => {
      if (command === "list_models" && request?.provider === "mistral") {
        return Promise.resolve(choices({ provider: "mistral", model: "mistral-medium-latest", models: ["codestral-latest", "mistral-medium-latest"], windowFromServer: false, contextWindow: 131072 }));
      }
      if (command === "choose_model") {
        return Promise.resolve(choices({ provider: "mistral", model: "codestral-latest", chosen: true }));
      }
      return Promise.resolve(choices());
    });
    await render();
    q("[data-testid=model-picker]")?.click();
    flushSync();
    const select = document.querySelector<HTMLSelectElement>("[data-testid=model-provider]");
    if (!select) throw new Error("no provider select");
    select.value = "mistral";
    select.dispatchEvent(new Event("change", { bubbles: true }));
    await vi.waitFor(() => {
      expect(q("[data-testid=model-window]")?.textContent).toBe("Context window: 128K tokens (as configured).");
    });
    document.querySelector<HTMLButtonElement>("[data-testid=model-list] li:first-child button")?.click();
    flushSync();
    q("[data-testid=model-use]")?.click();
    expect(call).toHaveBeenCalledWith("choose_model", { provider: "mistral", model: "codestral-latest" });
    await vi.waitFor(() => {
      expect(q("[data-testid=provider-summary]")?.textContent).toBe("Mistral · codestral-latest");
    });
    expect(q("[data-testid=model-menu]")).toBeNull();
    expect(q("[data-testid=model-picker]")?.dataset.chosen).toBe("true");
  });

  it("says why the models could not be listed and returns a switched session to the settings", async () => {
    call.mockImplementation((command: string) =>
      Promise.resolve(
        command === "choose_model"
          ? choices()
          : choices({ chosen: true, models: [], error: "nothing is listening at http://localhost:11434" }),
      ),
    );
    await render();
    q("[data-testid=model-picker]")?.click();
    flushSync();
    expect(q("[data-testid=model-error]")?.textContent).toContain("nothing is listening");
    q("[data-testid=model-follow]")?.click();
    expect(call).toHaveBeenCalledWith("choose_model", {});
  });

  it("reads in Chinese", async () => {
    setLanguage("zh-CN");
    call.mockResolvedValue(choices());
    await render();
    q("[data-testid=model-picker]")?.click();
    flushSync();
    expect(q("[data-testid=model-use]")?.textContent.trim()).toBe("用于本对话");
    expect(q("[data-testid=model-window]")?.textContent).toBe("上下文窗口：32K 个 token（服务器运行该模型时的实际值）。");
  });
});

describe("token counts", () => {
  it("read short", () => {
    expect([8192, 131072, 1048576, 1047576, 200000, 512].map(shortTokens)).toEqual(["8K", "128K", "1M", "1.0M", "200K", "512"]);
  });
});
