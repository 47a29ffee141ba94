import { afterEach, describe, expect, it } from "vitest";

import type { McpPanel } from "../src/bindings/McpPanel";
import type { McpServerView } from "../src/bindings/McpServerView";
import { setLanguage } from "../src/lib/i18n.svelte";
import { initialImportChoice, originLabel, projectSwitch, settling, stateLabel, untrusted } from "../src/lib/mcp";

function server(name: string, origin: string, state: string, extra: Partial<McpServerView> = {}): McpServerView {
  return {
    name,
    origin,
    configPath: origin === "user" ? "/home/u/.config/gantry/mcp.json" : "/p/.mcp.json",
    transport: "stdio",
    target: "node server.js",
    state,
    reason: null,
    tools: [],
    stderrTail: [],
    pid: null,
    restarts: 0,
    editable: origin === "user",
    disabledInFile: false,
    disabledInProject: false,
    signIn: null,
    resources: [],
    resourceTemplates: [],
    prompts: [],
    ...extra,
  };
}

describe("the MCP panel", () => {
  const panel: McpPanel = {
    hub: { state: "running" },
    servers: [
      server("everything", "user", "connected", { tools: ["mcp__everything__echo", "mcp__everything__add"] }),
      server("files", "project", "untrusted"),
      server("broken", "project", "failed", { reason: "exited with status 1" }),
    ],
    warnings: [],
    userConfigPath: "/home/u/.config/gantry/mcp.json",
    trust: null,
  };

  it("lists the project servers waiting for trust", () => {
    expect(untrusted(panel).map((s) => s.name)).toEqual(["files"]);
  });

  it("labels states with their tool count or reason", () => {
    expect(panel.servers.map(stateLabel)).toEqual([
      "connected · 2 tools",
      "waiting for your trust",
      "failed: exited with status 1",
    ]);
  });

  it("keeps refreshing only while something starts", () => {
    expect(settling(panel)).toBe(false);
    expect(settling({ ...panel, hub: { state: "starting" } })).toBe(true);
    expect(settling({ ...panel, servers: [server("s", "user", "starting")] })).toBe(true);
  });

  it("says which switch keeps a server off and offers the one that fits", () => {
    const here = server("a", "user", "disabled", { disabledInProject: true });
    const everywhere = server("b", "user", "disabled", { disabledInFile: true });
    const both = server("c", "user", "disabled", { disabledInFile: true, disabledInProject: true });
    const running = server("d", "project", "connected");
    expect([here, everywhere, both].map(stateLabel)).toEqual([
      "disabled in this project",
      "disabled in every project",
      "disabled in this project",
    ]);
    expect([here, everywhere, both, running].map(projectSwitch)).toEqual(["enable", null, "enable", "disable"]);
  });

  it("selects Claude's servers Gantry does not have yet", () => {
    const preview = {
      path: "/home/u/.config/Claude/claude_desktop_config.json",
      found: true,
      servers: [
        { name: "github", transport: "stdio", target: "docker run", inGantry: true, problem: null },
        { name: "files", transport: "stdio", target: "npx fs", inGantry: false, problem: null },
        { name: "odd", transport: "", target: "", inGantry: false, problem: "mcpServers.odd.args: expected a list" },
      ],
    };
    // Nor the ones Gantry can't read.
    expect(initialImportChoice(preview)).toEqual(["files"]);
  });
});

describe("the MCP panel's labels", () => {
  afterEach(() => {
    setLanguage("system");
  });

  const states = [
    server("a", "user", "starting"),
    server("b", "user", "connected", { tools: ["mcp__b__one"] }),
    server("c", "user", "connected", { tools: [] }),
    server("d", "project", "failed"),
    server("e", "project", "failed", { reason: "exited with status 1" }),
    server("f", "user", "stopped"),
    server("g", "project", "untrusted"),
    server("h", "user", "disabled"),
    server("i", "user", "disabled", { disabledInProject: true }),
    server("j", "user", "disabled", { disabledInFile: true }),
    server("k", "user", "sleeping"),
  ];

  it("names every state, and a state it does not know as the backend does", () => {
    expect(states.map(stateLabel)).toEqual([
      "starting",
      "connected · 1 tool",
      "connected · 0 tools",
      "failed",
      "failed: exited with status 1",
      "stopped",
      "waiting for your trust",
      "disabled",
      "disabled in this project",
      "disabled in every project",
      "sleeping",
    ]);
    expect(["user", "project", "elsewhere"].map(originLabel)).toEqual(["user", "project", "elsewhere"]);
  });

  it("names them in Chinese, a failure's reason as it comes", () => {
    setLanguage("zh-CN");
    expect(states.map(stateLabel)).toEqual([
      "正在启动",
      "已连接 · 1 个工具",
      "已连接 · 0 个工具",
      "失败",
      "失败：exited with status 1",
      "已停止",
      "等待你确认信任",
      "已禁用",
      "已在此项目中禁用",
      "已在所有项目中禁用",
      "sleeping",
    ]);
    expect(["user", "project", "elsewhere"].map(originLabel)).toEqual(["用户", "项目", "elsewhere"]);
  });
});
