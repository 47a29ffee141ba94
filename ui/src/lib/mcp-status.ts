// The MCP servers at a glance, for the title bar: while servers connect it says so (with a
// spinner), a failed server or a project file waiting for trust stands out, and otherwise it
// counts what is connected; when the backend can't be asked, it says nothing it doesn't know.
// Pure, over the panel the backend returns (or the error it answered with).

import type { McpPanel } from "../bindings/McpPanel";

/** The title bar's MCP summary. */
export type McpGlance =
  /** The configuration is being read, or servers are connecting. */
  | { readonly kind: "starting"; readonly pending: number }
  /** The configuration cannot be read. */
  | { readonly kind: "config_failed" }
  /** At least one server failed (the others may work). */
  | { readonly kind: "failed"; readonly failed: number }
  /** The project's `.mcp.json` waits for the user's trust. */
  | { readonly kind: "untrusted"; readonly waiting: number }
  /** Everything that should run runs. */
  | { readonly kind: "ready"; readonly connected: number; readonly tools: number }
  /** No server is configured. */
  | { readonly kind: "none" }
  /** The last question to the backend failed: nothing is known (the error, as it came). */
  | { readonly kind: "unavailable"; readonly error: string };

/** How often the title bar asks again while servers connect, and when all is settled. */
export const GLANCE_REFRESH_MS = { settling: 1000, settled: 5000 } as const;

/** The summary of `panel`; `null` (not asked yet) reads as starting. An `error` (the last
 *  question failed) wins over an older panel, which may no longer be true. */
export function glance(panel: McpPanel | null, error: string | null = null): McpGlance {
  if (error !== null) return { kind: "unavailable", error };
  if (panel === null || panel.hub.state === "starting") return { kind: "starting", pending: 0 };
  if (panel.hub.state === "failed") return { kind: "config_failed" };
  const count = (state: string): number => panel.servers.filter((server) => server.state === state).length;
  const starting = count("starting");
  if (starting > 0) return { kind: "starting", pending: starting };
  const failed = count("failed");
  if (failed > 0) return { kind: "failed", failed };
  const waiting = count("untrusted");
  if (waiting > 0) return { kind: "untrusted", waiting };
  const connected = panel.servers.filter((server) => server.state === "connected");
  if (connected.length === 0) return { kind: "none" };
  const tools = connected.reduce((sum, server) => sum + server.tools.length, 0);
  return { kind: "ready", connected: connected.length, tools };
}

/** Whether to ask again soon (something is on its way; a failing backend is asked at the
 *  settled rate). */
export function glanceSettling(current: McpGlance): boolean {
  return current.kind === "starting";
}
