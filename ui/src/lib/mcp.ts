// The MCP servers panel's logic: which servers wait for the user's trust, and how a server's
// state reads.

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
    default:
      return server.state;
  }
}
