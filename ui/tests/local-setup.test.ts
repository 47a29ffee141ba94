// The first run's offer: local servers found with their models, or how to get one, or a hosted
// preset with its key. Backend mocked.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { LocalServers } from "../src/bindings/LocalServers";
import LocalSetup from "../src/components/LocalSetup.svelte";
import { setLanguage } from "../src/lib/i18n.svelte";

const { call } = vi.hoisted(() => ({ call: vi.fn() }));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/lib/ipc")>();
  return { ...actual, call };
});

const FLAGS = { streamUsage: true, replayReasoning: false, textToolCalls: false, images: true };
const SETTINGS = {
  active: { name: "ollama", baseUrl: "http://localhost:11434/v1", model: "qwen2.5-coder:7b", apiKeyEnv: null, contextWindow: 8192, saved: false, flags: FLAGS, server: "ollama", needsKey: false },
  configured: false,
  key: { state: "missing" },
  presets: [
    { name: "openai", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1-mini", apiKeyEnv: "OPENAI_API_KEY", contextWindow: 1047576, saved: false, flags: FLAGS, server: "other", needsKey: true },
    { name: "mistral", baseUrl: "https://api.mistral.ai/v1", model: "mistral-medium-latest", apiKeyEnv: "MISTRAL_API_KEY", contextWindow: 131072, saved: false, flags: { ...FLAGS, streamUsage: false }, server: "other", needsKey: true },
    { name: "ollama", baseUrl: "http://localhost:11434/v1", model: "qwen2.5-coder:7b", apiKeyEnv: null, contextWindow: 8192, saved: false, flags: FLAGS, server: "ollama", needsKey: false },
  ],
};

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

function answer(found: LocalServers): ReturnType<typeof vi.fn> {
  const onconfigured = vi.fn();
  call.mockImplementation((command: string) => {
    switch (command) {
      case "local_servers":
        return Promise.resolve(found);
      case "provider_settings":
        return Promise.resolve(SETTINGS);
      case "save_provider":
        return Promise.resolve({ ...SETTINGS, configured: true });
      default:
        return Promise.reject(new Error(command));
    }
  });
  component = mount(LocalSetup, { target: document.body, props: { onconfigured } });
  return onconfigured;
}

describe("the first run", () => {
  it("offers the local servers found, with their models", async () => {
    const onconfigured = answer({
      configured: false,
      servers: [
        { preset: "lmstudio", label: "LM Studio", baseUrl: "http://localhost:1234/v1", models: ["a-model", "qwen2.5-coder-7b-instruct"], suggestedModel: "qwen2.5-coder-7b-instruct" },
        { preset: "llamacpp", label: "llama.cpp", baseUrl: "http://localhost:8080/v1", models: [], suggestedModel: null },
      ],
    });
    await vi.waitFor(() => {
      expect(document.querySelectorAll("[data-testid=setup-server]")).toHaveLength(2);
    });
    flushSync();
    const [studio, llama] = [...document.querySelectorAll<HTMLElement>("[data-testid=setup-server]")];
    expect(studio?.textContent).toContain("LM Studio at localhost:1234: 2 models");
    expect(studio?.querySelector<HTMLSelectElement>("select")?.value).toBe("qwen2.5-coder-7b-instruct");
    expect(llama?.textContent).toContain("llama.cpp at localhost:8080 is running but has no model yet.");
    expect(llama?.querySelector("button")).toBeNull();
    studio?.querySelector<HTMLButtonElement>("[data-testid=setup-use]")?.click();
    expect(call).toHaveBeenCalledWith("save_provider", {
      name: "lmstudio",
      baseUrl: "http://localhost:1234/v1",
      model: "qwen2.5-coder-7b-instruct",
    });
    await vi.waitFor(() => {
      expect(onconfigured).toHaveBeenCalled();
    });
    expect(q("[data-testid=local-setup]")).toBeNull();
  });

  it("with nothing found, says how to get a server, or takes a hosted preset and its key", async () => {
    const onconfigured = answer({ configured: false, servers: [] });
    await vi.waitFor(() => {
      expect(q("[data-testid=setup-none]")).not.toBeNull();
    });
    await vi.waitFor(() => {
      expect(document.querySelectorAll("[data-testid=setup-preset] option")).toHaveLength(2);
    });
    flushSync();
    expect(q("[data-testid=local-setup]")?.textContent).toContain("ollama pull qwen2.5-coder:7b");
    const preset = document.querySelector<HTMLSelectElement>("[data-testid=setup-preset]");
    if (!preset) throw new Error("no preset select");
    preset.value = "mistral";
    preset.dispatchEvent(new Event("change", { bubbles: true }));
    q("[data-testid=setup-save]")?.click();
    flushSync();
    expect(q("[data-testid=setup-error]")?.textContent).toBe("Paste the provider's API key.");
    const key = document.querySelector<HTMLInputElement>("[data-testid=setup-key]");
    if (!key) throw new Error("no key field");
    key.value = " sk-mistral ";
    key.dispatchEvent(new Event("input", { bubbles: true }));
    q("[data-testid=setup-save]")?.click();
    expect(call).toHaveBeenCalledWith("save_provider", {
      name: "mistral",
      baseUrl: "https://api.mistral.ai/v1",
      model: "mistral-medium-latest",
      apiKey: "sk-mistral",
    });
    await vi.waitFor(() => {
      expect(onconfigured).toHaveBeenCalled();
    });
  });

  it("shows nothing once a provider is chosen", async () => {
    answer({ configured: true, servers: [] });
    await vi.waitFor(() => {
      expect(call).toHaveBeenCalledWith("local_servers");
    });
    flushSync();
    expect(q("[data-testid=local-setup]")).toBeNull();
  });

  it("reads in Chinese", async () => {
    setLanguage("zh-CN");
    answer({ configured: false, servers: [] });
    await vi.waitFor(() => {
      expect(q("[data-testid=setup-none]")?.textContent).toBe("本机没有应答的本地模型服务器（Ollama、LM Studio、llama.cpp）。");
    });
  });
});
