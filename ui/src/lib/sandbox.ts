// How a command runs, in the UI's words: in the OS sandbox (with or without the network) or
// without one (the engine's sentence says why). Shared by the approval dialog, the tool card
// and the Tools panel.

import type { SandboxState } from "../bindings/SandboxState";
import { t } from "./i18n.svelte";

/** "sandboxed", "sandboxed · network on", "not sandboxed". */
export function sandboxLabel(state: SandboxState): string {
  if (state.kind === "unsandboxed") return t("sandbox.off");
  return state.network ? t("sandbox.network") : t("sandbox.on");
}

/** The tooltip: what the sandbox allows, or why there is none. */
export function sandboxHint(state: SandboxState): string {
  if (state.kind === "unsandboxed") return state.why;
  return state.network ? t("sandbox.networkHint") : t("sandbox.onHint");
}

/** A short machine name for styling and tests: `sandboxed`, `network`, `unsandboxed`. */
export function sandboxTone(state: SandboxState): "sandboxed" | "network" | "unsandboxed" {
  if (state.kind === "unsandboxed") return "unsandboxed";
  return state.network ? "network" : "sandboxed";
}

/** The items of `list` with `item` added once (trimmed; blank items are not added). */
export function withItem(list: readonly string[], item: string): string[] {
  const trimmed = item.trim();
  if (trimmed === "" || list.includes(trimmed)) return [...list];
  return [...list, trimmed];
}

/** The items of `list` without `item`. */
export function withoutItem(list: readonly string[], item: string): string[] {
  return list.filter((existing) => existing !== item);
}
