// The provider settings form: which preset it starts from, what a preset fills in, and the
// request a filled form sends. The API key is sent only when the user typed one (the stored key
// never comes back to the webview, so an empty field means "keep it").

import type { ProviderFlags } from "../bindings/ProviderFlags";
import type { ProviderSettings } from "../bindings/ProviderSettings";
import type { ProviderView } from "../bindings/ProviderView";
import type { ProbeProviderRequest } from "../bindings/ProbeProviderRequest";
import type { ProviderProbe } from "../bindings/ProviderProbe";
import type { SaveProviderRequest } from "../bindings/SaveProviderRequest";
import { t } from "./i18n.svelte";

/** The select's value for a provider that is not a preset. */
export const CUSTOM = "custom";

/** How the shipped presets are called on screen. */
const PRESET_LABELS: Readonly<Record<string, string>> = {
  openai: "OpenAI",
  openrouter: "OpenRouter",
  deepseek: "DeepSeek",
  mistral: "Mistral",
  groq: "Groq",
  together: "Together AI",
  gemini: "Gemini",
  anthropic: "Anthropic",
  ollama: "Ollama",
  lmstudio: "LM Studio",
  llamacpp: "llama.cpp",
  vllm: "vLLM",
};

/** OpenAI's wire behaviour: what a custom provider starts with. */
export const DEFAULT_FLAGS: ProviderFlags = { streamUsage: true, replayReasoning: false, textToolCalls: false, images: true };

/** A preset's display name. */
export function presetLabel(name: string): string {
  return PRESET_LABELS[name] ?? name;
}

export interface ProviderForm {
  /** A preset's name, or {@link CUSTOM}. */
  readonly preset: string;
  readonly name: string;
  readonly baseUrl: string;
  readonly model: string;
  /** As typed; empty means the preset's (or the default) window. */
  readonly contextWindow: string;
  /** As typed; empty keeps the stored key. */
  readonly apiKey: string;
  /** Where the provider's wire differs from OpenAI's. */
  readonly flags: ProviderFlags;
}

/** The form for the active provider. */
export function formFor(settings: ProviderSettings): ProviderForm {
  const { active } = settings;
  const preset = settings.presets.find((candidate) => candidate.name === active.name);
  return {
    preset: preset ? preset.name : CUSTOM,
    name: active.name,
    baseUrl: active.baseUrl,
    model: active.model,
    contextWindow: String(active.contextWindow),
    apiKey: "",
    flags: active.flags,
  };
}

/** The form after choosing `preset` in the select: a preset fills in its fields. */
export function choosePreset(
  form: ProviderForm,
  presets: readonly ProviderView[],
  preset: string,
): ProviderForm {
  const chosen = presets.find((candidate) => candidate.name === preset);
  if (!chosen) return { ...form, preset: CUSTOM };
  return {
    preset: chosen.name,
    name: chosen.name,
    baseUrl: chosen.baseUrl,
    model: chosen.model,
    contextWindow: String(chosen.contextWindow),
    apiKey: form.apiKey,
    flags: chosen.flags,
  };
}

/** The request for `form`, or what is wrong with it. */
export function saveRequest(form: ProviderForm): SaveProviderRequest | { error: string } {
  const name = form.name.trim();
  const baseUrl = form.baseUrl.trim();
  const model = form.model.trim();
  if (name === "") return { error: t("settings.error.name") };
  if (baseUrl === "") return { error: t("settings.error.baseUrl") };
  if (model === "") return { error: t("settings.error.model") };
  const request: SaveProviderRequest = { name, baseUrl, model, flags: form.flags };
  const window = form.contextWindow.trim();
  if (window !== "") {
    const tokens = Number(window);
    if (!Number.isInteger(tokens) || tokens <= 0) {
      return { error: t("settings.error.contextWindow") };
    }
    request.contextWindow = tokens;
  }
  const key = form.apiKey.trim();
  if (key !== "") request.apiKey = key;
  return request;
}

/** The `probe_provider` request for the form (the connection test), or why it can't be made. */
export function probeRequest(form: ProviderForm): ProbeProviderRequest | { error: string } {
  const name = form.name.trim();
  const baseUrl = form.baseUrl.trim();
  if (name === "") return { error: t("settings.error.name") };
  if (baseUrl === "") return { error: t("settings.error.baseUrl") };
  const request: ProbeProviderRequest = { name, baseUrl };
  const key = form.apiKey.trim();
  if (key !== "") request.apiKey = key;
  return request;
}

/** One line about a successful connection test. */
export function probeSummary(probe: ProviderProbe): string {
  return t("settings.connected", { ms: probe.elapsedMs, count: probe.models.length });
}
