import { afterEach, describe, expect, it } from "vitest";

import type { ToolInfo } from "../src/bindings/ToolInfo";
import {
  changedCount,
  defaultPolicy,
  firstLine,
  groupTools,
  isDefault,
  needsConfirmation,
  POLICIES,
  policyHint,
  policyLabel,
} from "../src/lib/tools-panel";
import { setLanguage } from "../src/lib/i18n.svelte";

function tool(name: string, level: ToolInfo["level"], policy: ToolInfo["policy"], server?: string): ToolInfo {
  return {
    name,
    description: `${name} does things.\n\nMore detail.`,
    level,
    policy,
    source: server === undefined ? { kind: "builtin" } : { kind: "mcp", server },
  };
}

describe("grouping tools", () => {
  it("puts the built-ins first, then one group per MCP server, names sorted", () => {
    const groups = groupTools([
      tool("mcp__zeta__a", "sensitive", "ask", "zeta"),
      tool("write_file", "sensitive", "ask"),
      tool("mcp__files__read", "safe", "auto", "files"),
      tool("read_file", "safe", "auto"),
      tool("mcp__files__delete", "dangerous", "disabled", "files"),
    ]);
    expect(groups.map((group) => [group.key, group.label, group.tools.map((t) => t.name)])).toEqual([
      ["builtin", "Built-in", ["read_file", "write_file"]],
      ["mcp:files", "MCP: files", ["mcp__files__delete", "mcp__files__read"]],
      ["mcp:zeta", "MCP: zeta", ["mcp__zeta__a"]],
    ]);
  });

  it("has no groups without tools and an MCP-only list has no built-in group", () => {
    expect(groupTools([])).toEqual([]);
    expect(groupTools([tool("mcp__s__t", "safe", "auto", "s")]).map((group) => group.key)).toEqual(["mcp:s"]);
  });
});

describe("defaults", () => {
  it("follow the level: SAFE auto, SENSITIVE ask, DANGEROUS disabled", () => {
    expect(defaultPolicy("safe")).toBe("auto");
    expect(defaultPolicy("sensitive")).toBe("ask");
    expect(defaultPolicy("dangerous")).toBe("disabled");
  });

  it("say which tools differ from their defaults", () => {
    const tools = [
      tool("read_file", "safe", "auto"),
      tool("write_file", "sensitive", "auto"),
      tool("run_command", "dangerous", "ask"),
      tool("edit_file", "sensitive", "ask"),
    ];
    expect(tools.map(isDefault)).toEqual([true, false, false, true]);
    expect(changedCount(tools)).toBe(2);
  });
});

describe("labels", () => {
  it("name the three choices in the control's order", () => {
    expect(POLICIES.map(policyLabel)).toEqual(["Disabled", "Ask", "Auto"]);
    expect(POLICIES.map(policyHint).every((hint) => hint.length > 0)).toBe(true);
  });

  it("take a description's first non-empty line", () => {
    expect(firstLine("\n  Run a shell command.  \nMore.")).toBe("Run a shell command.");
    expect(firstLine("")).toBe("");
  });

  it("ask for a confirmation only when a DANGEROUS tool is turned on", () => {
    expect(needsConfirmation("dangerous", "ask")).toBe(true);
    expect(needsConfirmation("dangerous", "auto")).toBe(true);
    expect(needsConfirmation("dangerous", "disabled")).toBe(false);
    expect(needsConfirmation("sensitive", "auto")).toBe(false);
  });
});

describe("labels in Chinese", () => {
  afterEach(() => {
    setLanguage("system");
  });

  it("name the policies and the groups in Chinese", () => {
    setLanguage("zh-CN");
    expect(POLICIES.map(policyLabel)).toEqual(["禁用", "询问", "自动"]);
    expect(POLICIES.map(policyHint)).toEqual(["模型无法调用它", "每次调用前都询问我", "无需询问，直接运行"]);
    expect(groupTools([tool("read_file", "safe", "auto"), tool("x", "safe", "auto", "files")]).map((g) => g.label)).toEqual([
      "内置",
      "MCP：files",
    ]);
  });
});
