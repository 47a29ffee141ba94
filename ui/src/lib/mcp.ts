// The MCP servers panel's logic: which servers wait for the user's trust, how a server's state
// and origin read, which switch a server offers, and what the Claude Desktop import selects at
// first.

import type { ClaudeImportPreview } from "../bindings/ClaudeImportPreview";
import type { McpPanel } from "../bindings/McpPanel";
import type { McpServerView } from "../bindings/McpServerView";
import { t } from "./i18n.svelte";

/** The project servers that will not start until the user trusts the project's `.mcp.json`. */
export function untrusted(panel: McpPanel): McpServerView[] {
  return panel.servers.filter((server) => server.origin === "project" && server.state === "untrusted");
}

/** How often the open panel asks again while a server is starting, in milliseconds. */
export const REFRESH_MS = 1000;

/** Whether the panel should keep refreshing (something is on its way somewhere). */
export function settling(panel: McpPanel): boolean {
  return panel.hub.state === "starting" || panel.servers.some((server) => server.state === "starting");
}

/** A short label for a server's state, in the UI's language (a failure's reason is the
 *  backend's words, as they come). */
export function stateLabel(server: McpServerView): string {
  switch (server.state) {
    case "starting":
      return t("mcp.state.starting");
    case "connected":
      return t("mcp.state.connected", { count: server.tools.length });
    case "failed":
      return server.reason === null ? t("mcp.state.failed") : t("mcp.state.failedBecause", { reason: server.reason });
    case "stopped":
      return t("mcp.state.stopped");
    case "untrusted":
      return t("mcp.state.untrusted");
    case "disabled":
      if (server.disabledInProject) return t("mcp.state.disabledInProject");
      if (server.disabledInFile) return t("mcp.state.disabledInFile");
      return t("mcp.state.disabled");
    default:
      // A state this UI does not know yet: shown as the backend names it.
      return server.state;
  }
}

/** Where a server is configured: "user" (the user-wide file) or "project" (the project's
 *  `.mcp.json`), in the UI's language. */
export function originLabel(origin: string): string {
  switch (origin) {
    case "user":
      return t("mcp.origin.user");
    case "project":
      return t("mcp.origin.project");
    default:
      return origin;
  }
}

/** The per-project switch a server offers: Disable, Enable, or none (off in its file). */
export function projectSwitch(server: McpServerView): "disable" | "enable" | null {
  if (server.disabledInProject) return "enable";
  if (server.disabledInFile) return null;
  return "disable";
}

/** The servers the import selects at first: Claude's servers that Gantry does not have and
 *  can read. */
export function initialImportChoice(preview: ClaudeImportPreview): string[] {
  return preview.servers.filter((server) => !server.inGantry && server.problem === null).map((server) => server.name);
}
