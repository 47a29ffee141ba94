import { afterEach, describe, expect, it } from "vitest";

import type { ProviderSettings } from "../src/bindings/ProviderSettings";
import type { ProviderView } from "../src/bindings/ProviderView";
import {
  choosePreset,
  CUSTOM,
  formFor,
  presetLabel,
  probeRequest,
  probeSummary,
  saveRequest,
} from "../src/lib/settings";
import { setLanguage } from "../src/lib/i18n.svelte";

const FLAGS = { streamUsage: true, replayReasoning: false, textToolCalls: false, images: true };

function preset(name: string, baseUrl: string, model: string, apiKeyEnv: string | null = null): ProviderView {
  return { name, baseUrl, model, apiKeyEnv, contextWindow: 8192, saved: false, flags: FLAGS, server: "other", needsKey: apiKeyEnv !== null };
}

const presets = [
  preset("openai", "https://api.openai.com/v1", "gpt-4.1-mini", "OPENAI_API_KEY"),
  preset("ollama", "http://localhost:11434/v1", "qwen2.5-coder"),
];

function settings(active: ProviderView): ProviderSettings {
  return { active, configured: true, key: { state: "missing" }, presets };
}

describe("the provider form", () => {
  it("starts from the active provider, on its preset when it is one", () => {
    const form = formFor(settings(presets[1] as ProviderView));
    expect(form).toEqual({
      preset: "ollama",
      name: "ollama",
      baseUrl: "http://localhost:11434/v1",
      model: "qwen2.5-coder",
      contextWindow: "8192",
      apiKey: "",
      flags: FLAGS,
    });
    const custom = formFor(settings({ ...preset("work", "https://llm.example/v1", "m"), saved: true }));
    expect(custom.preset).toBe(CUSTOM);
  });

  it("fills in a chosen preset and keeps the fields for custom", () => {
    const form = formFor(settings(presets[1] as ProviderView));
    const openai = choosePreset({ ...form, apiKey: "sk-typed" }, presets, "openai");
    expect(openai).toMatchObject({ preset: "openai", name: "openai", baseUrl: "https://api.openai.com/v1", apiKey: "sk-typed" });
    const custom = choosePreset(openai, presets, CUSTOM);
    expect(custom).toEqual({ ...openai, preset: CUSTOM });
  });

  it("sends the key only when one was typed, and the window only when given", () => {
    const form = formFor(settings(presets[0] as ProviderView));
    expect(saveRequest(form)).toEqual({
      name: "openai",
      baseUrl: "https://api.openai.com/v1",
      model: "gpt-4.1-mini",
      contextWindow: 8192,
      flags: FLAGS,
    });
    expect(saveRequest({ ...form, apiKey: "  sk-new  ", contextWindow: "" })).toEqual({
      name: "openai",
      baseUrl: "https://api.openai.com/v1",
      model: "gpt-4.1-mini",
      apiKey: "sk-new",
      flags: FLAGS,
    });
  });

  it("says what is missing or malformed", () => {
    const form = formFor(settings(presets[0] as ProviderView));
    expect(saveRequest({ ...form, name: " " })).toEqual({ error: "Give the provider a name." });
    expect(saveRequest({ ...form, baseUrl: "" })).toEqual({ error: "Enter the API base URL." });
    expect(saveRequest({ ...form, model: "" })).toEqual({ error: "Enter a model." });
    expect(saveRequest({ ...form, contextWindow: "12.5" })).toHaveProperty("error");
    expect(saveRequest({ ...form, contextWindow: "-1" })).toHaveProperty("error");
  });

  it("names the presets as their makers do", () => {
    expect(presetLabel("lmstudio")).toBe("LM Studio");
    expect(presetLabel("llamacpp")).toBe("llama.cpp");
    expect(presetLabel("my-vllm")).toBe("my-vllm");
  });
});

describe("the connection test", () => {
  const form = { preset: "custom", name: " local ", baseUrl: " http://127.0.0.1:8080/v1 ", model: "m", contextWindow: "", apiKey: "", flags: FLAGS };

  it("asks with the form's name and URL, and a key only when one was typed", () => {
    expect(probeRequest(form)).toEqual({ name: "local", baseUrl: "http://127.0.0.1:8080/v1" });
    expect(probeRequest({ ...form, apiKey: " sk-1 " })).toEqual({
      name: "local",
      baseUrl: "http://127.0.0.1:8080/v1",
      apiKey: "sk-1",
    });
    expect(probeRequest({ ...form, baseUrl: " " })).toEqual({ error: "Enter the API base URL." });
  });

  it("sums up what the provider answered", () => {
    expect(probeSummary({ models: ["a", "b"], elapsedMs: 12 })).toBe("Connected in 12 ms: 2 models listed.");
    expect(probeSummary({ models: ["a"], elapsedMs: 3 })).toBe("Connected in 3 ms: 1 model listed.");
  });
});

describe("the provider form in Chinese", () => {
  afterEach(() => {
    setLanguage("system");
  });

  it("says what is missing and what the test found in Chinese", () => {
    setLanguage("zh-CN");
    expect(saveRequest({ ...formFor(settings(presets[0] as ProviderView)), name: " " })).toEqual({ error: "请为提供方填写名称。" });
    expect(probeRequest({ ...formFor(settings(presets[0] as ProviderView)), baseUrl: "" })).toEqual({ error: "请填写 API 基础 URL。" });
    expect(probeSummary({ models: ["a"], elapsedMs: 3 })).toBe("连接成功，用时 3 毫秒：列出了 1 个模型。");
  });
});
