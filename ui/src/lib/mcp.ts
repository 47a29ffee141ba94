// The MCP servers panel's logic: which servers wait for the user's trust, how a server's state
// reads, which switch a server offers, and what the Claude Desktop import selects at first.

import type { ClaudeImportPreview } from "../bindings/ClaudeImportPreview";
import type { McpPanel } from "../bindings/McpPanel";
import type { McpServerView } from "../bindings/McpServerView";

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

/** A short label for a server's state. */
export function stateLabel(server: McpServerView): string {
  const tools = server.tools.length === 1 ? "1 tool" : `${String(server.tools.length)} tools`;
  switch (server.state) {
    case "connected":
      return `connected · ${tools}`;
    case "failed":
      return server.reason === null ? "failed" : `failed: ${server.reason}`;
    case "untrusted":
      return "waiting for your trust";
    case "disabled":
      if (server.disabledInProject) return "disabled in this project";
      if (server.disabledInFile) return "disabled in every project";
      return "disabled";
    default:
      return server.state;
  }
}

/** The per-project switch a server offers: Disable, Enable, or none (off in its file). */
export function projectSwitch(server: McpServerView): "disable" | "enable" | null {
  if (server.disabledInProject) return "enable";
  if (server.disabledInFile) return null;
  return "disable";
}

/** The servers the import selects at first: Claude's servers that Gantry does not have. */
export function initialImportChoice(preview: ClaudeImportPreview): string[] {
  return preview.servers.filter((server) => !server.inGantry).map((server) => server.name);
}
