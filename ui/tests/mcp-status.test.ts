import { describe, expect, it } from "vitest";

import type { McpPanel } from "../src/bindings/McpPanel";
import type { McpServerView } from "../src/bindings/McpServerView";
import { glance, glanceSettling } from "../src/lib/mcp-status";

/** A server with the fields the glance reads (the rest do not matter to it). */
function server(name: string, state: string, tools: string[] = []): McpServerView {
  return { name, state, tools, origin: "user", transport: "stdio", target: "node s.js", reason: null } as unknown as McpServerView;
}

function running(...servers: McpServerView[]): McpPanel {
  return { hub: { state: "running" }, servers, warnings: [], userConfigPath: "/home/u/.config/gantry/mcp.json", trust: null };
}

describe("the MCP glance", () => {
  it("reads as starting before the first answer and while the configuration is read", () => {
    expect(glance(null)).toEqual({ kind: "starting", pending: 0 });
    expect(glance({ hub: { state: "starting" }, servers: [], warnings: [], userConfigPath: "/home/u/.config/gantry/mcp.json", trust: null }).kind).toBe("starting");
  });

  it("counts the servers still connecting, before anything else", () => {
    const panel = running(server("a", "starting"), server("b", "failed"), server("c", "starting"));
    expect(glance(panel)).toEqual({ kind: "starting", pending: 2 });
    expect(glanceSettling(glance(panel))).toBe(true);
  });

  it("puts a failure ahead of a trust request, and a trust request ahead of readiness", () => {
    expect(glance(running(server("a", "connected", ["x"]), server("b", "failed")))).toEqual({ kind: "failed", failed: 1 });
    expect(glance(running(server("a", "connected", ["x"]), server("b", "untrusted")))).toEqual({ kind: "untrusted", waiting: 1 });
  });

  it("counts connected servers and their tools, leaving disabled ones out", () => {
    const panel = running(server("a", "connected", ["x", "y"]), server("b", "connected", ["z"]), server("c", "disabled"));
    expect(glance(panel)).toEqual({ kind: "ready", connected: 2, tools: 3 });
    expect(glanceSettling(glance(panel))).toBe(false);
  });

  it("says when there is nothing, or the configuration is broken", () => {
    expect(glance(running())).toEqual({ kind: "none" });
    expect(glance(running(server("c", "disabled")))).toEqual({ kind: "none" });
    expect(glance({ hub: { state: "failed", message: "bad" }, servers: [], warnings: [], userConfigPath: "/home/u/.config/gantry/mcp.json", trust: null })).toEqual({ kind: "config_failed" });
  });

  it("says nothing it doesn't know once asking fails, and waits the settled time to ask again", () => {
    const failed = glance(null, "the engine is not running");
    expect(failed).toEqual({ kind: "unavailable", error: "the engine is not running" });
    expect(glanceSettling(failed)).toBe(false);
    // An older answer is no longer to be trusted.
    expect(glance(running(server("a", "starting")), "gone").kind).toBe("unavailable");
  });
});
