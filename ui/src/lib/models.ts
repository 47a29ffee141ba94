// The chat header's model picker and the first run: how a context window and a local server
// read on screen.

import type { LocalServer } from "../bindings/LocalServer";
import { t } from "./i18n.svelte";

/** A token count, short: 8192 → "8K", 131072 → "128K", 1048576 → "1M". */
export function shortTokens(tokens: number): string {
  if (tokens >= 1_048_576 && tokens % 1_048_576 === 0) return `${String(tokens / 1_048_576)}M`;
  if (tokens >= 1_000_000) return `${(tokens / 1_000_000).toFixed(1)}M`;
  if (tokens >= 1024 && tokens % 1024 === 0) return `${String(tokens / 1024)}K`;
  if (tokens >= 1000) return `${String(Math.round(tokens / 1000))}K`;
  return String(tokens);
}

/** The sentence about the context window requests are fitted into. */
export function windowText(tokens: number, fromServer: boolean): string {
  return fromServer
    ? t("models.windowFromServer", { tokens: shortTokens(tokens) })
    : t("models.windowConfigured", { tokens: shortTokens(tokens) });
}

/** `localhost:11434` for `http://localhost:11434/v1`. */
export function shortAddress(url: string): string {
  const rest = url.includes("://") ? url.slice(url.indexOf("://") + 3) : url;
  return rest.split("/")[0] ?? rest;
}

/** The line about a server found: how many models it lists. */
export function serverSummary(server: LocalServer): string {
  return server.models.length === 0
    ? t("setup.noModels", { server: server.label, address: shortAddress(server.baseUrl) })
    : t("setup.found", { server: server.label, address: shortAddress(server.baseUrl), count: server.models.length });
}
