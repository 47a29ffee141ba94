// The Tools panel: the three-way control, the DANGEROUS confirm step driven by the backend's
// needs_confirmation refusal, reset, and the session's grants with revoke. Backend mocked.

import { flushSync, mount, tick, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ToolInfo } from "../src/bindings/ToolInfo";
import ToolsPanel from "../src/components/ToolsPanel.svelte";
import { setLanguage } from "../src/lib/i18n.svelte";

const { call, on } = vi.hoisted(() => ({ call: vi.fn(), on: vi.fn() }));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/lib/ipc")>();
  return { ...actual, call, on };
});

const tools: ToolInfo[] = [
  { name: "write_file", description: "Write a file.", level: "sensitive", policy: "ask", source: { kind: "builtin" } },
  { name: "run_command", description: "Run a shell command.\nMore.", level: "dangerous", policy: "disabled", source: { kind: "builtin" } },
  { name: "mcp__files__read", description: "Read.", level: "safe", policy: "auto", source: { kind: "mcp", server: "files" } },
];

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await tick();
  flushSync();
}

function q(selector: string): HTMLElement {
  const element = document.querySelector<HTMLElement>(selector);
  if (!element) throw new Error(`no ${selector}`);
  return element;
}

let component: ReturnType<typeof mount> | null = null;
let current: ToolInfo[] = [];

beforeEach(() => {
  current = tools.map((tool) => ({ ...tool }));
  call.mockReset();
  on.mockReset();
  on.mockResolvedValue(() => undefined);
  call.mockImplementation((command: string, request?: { tool: string; policy: ToolInfo["policy"]; confirmDangerous?: boolean }) => {
    switch (command) {
      case "list_tools":
        return Promise.resolve(current);
      case "session_grants":
        return Promise.resolve([{ grant: { tool: "write_file", key: null }, label: "write_file" }]);
      case "revoke_grant":
        return Promise.resolve([]);
      case "reset_tool_policies":
        current = tools.map((tool) => ({ ...tool }));
        return Promise.resolve(current);
      case "set_tool_policy": {
        if (!request) throw new Error("no request");
        const target = current.find((tool) => tool.name === request.tool);
        if (target?.level === "dangerous" && request.policy !== "disabled" && request.confirmDangerous !== true) {
          // The backend rejects with a plain CommandError object, not an Error.
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          return Promise.reject({ kind: "needs_confirmation", message: "run_command is DANGEROUS: it can do anything." });
        }
        current = current.map((tool) => (tool.name === request.tool ? { ...tool, policy: request.policy } : tool));
        return Promise.resolve(current);
      }
      default:
        return Promise.reject(new Error(`unexpected ${command}`));
    }
  });
});

afterEach(() => {
  if (component) void unmount(component);
  component = null;
  document.body.innerHTML = "";
  setLanguage("system");
});

describe("the Tools panel", () => {
  it("groups tools, marks the pressed policy and changes it", async () => {
    component = mount(ToolsPanel, { target: document.body, props: { onclose: () => undefined } });
    await settle();
    const groups = [...document.querySelectorAll<HTMLElement>("[data-testid=tool-group]")].map((g) => g.dataset.group);
    expect(groups).toEqual(["builtin", "mcp:files"]);
    expect(q("[data-testid=tool-policy][data-tool=write_file] [data-policy=ask]").getAttribute("aria-pressed")).toBe("true");
    expect(q("[data-testid=tools-reset]").hasAttribute("disabled")).toBe(true);

    q("[data-testid=tool-policy][data-tool=write_file] [data-policy=auto]").click();
    await settle();
    expect(call).toHaveBeenCalledWith("set_tool_policy", { tool: "write_file", policy: "auto" });
    expect(q("[data-testid=tool-policy][data-tool=write_file] [data-policy=auto]").getAttribute("aria-pressed")).toBe("true");
    expect(q("[data-testid=tool-row][data-tool=write_file]").dataset.default).toBe("false");

    q("[data-testid=tools-reset]").click();
    await settle();
    expect(q("[data-testid=tool-row][data-tool=write_file]").dataset.default).toBe("true");
  });

  it("shows the confirm step for a DANGEROUS tool and sends the confirmation", async () => {
    component = mount(ToolsPanel, { target: document.body, props: { onclose: () => undefined } });
    await settle();
    q("[data-testid=tool-policy][data-tool=run_command] [data-policy=ask]").click();
    await settle();
    expect(q("[data-testid=dangerous-confirm]").textContent).toContain("can do anything");
    expect(q("[data-testid=tool-policy][data-tool=run_command] [data-policy=disabled]").getAttribute("aria-pressed")).toBe("true");
    q("[data-testid=dangerous-confirm-yes]").click();
    await settle();
    expect(call).toHaveBeenLastCalledWith("set_tool_policy", { tool: "run_command", policy: "ask", confirmDangerous: true });
    expect(document.querySelector("[data-testid=dangerous-confirm]")).toBeNull();
    expect(q("[data-testid=tool-policy][data-tool=run_command] [data-policy=ask]").getAttribute("aria-pressed")).toBe("true");
  });

  it("Esc leaves the confirm step first, then closes", async () => {
    const onclose = vi.fn();
    component = mount(ToolsPanel, { target: document.body, props: { onclose } });
    await settle();
    q("[data-testid=tool-policy][data-tool=run_command] [data-policy=auto]").click();
    await settle();
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", cancelable: true }));
    flushSync();
    expect(document.querySelector("[data-testid=dangerous-confirm]")).toBeNull();
    expect(onclose).not.toHaveBeenCalled();
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", cancelable: true }));
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it("lists the session's grants and revokes one", async () => {
    component = mount(ToolsPanel, { target: document.body, props: { onclose: () => undefined } });
    await settle();
    expect(q("[data-testid=session-grant]").dataset.label).toBe("write_file");
    q("[data-testid=grant-revoke]").click();
    await settle();
    expect(call).toHaveBeenCalledWith("revoke_grant", { grant: { tool: "write_file", key: null } });
    expect(document.querySelector("[data-testid=session-grant]")).toBeNull();
    expect(document.querySelector("[data-testid=grants-empty]")).not.toBeNull();
  });

  describe("in Chinese", () => {
    function policies(tool: string): string[] {
      return [...document.querySelectorAll<HTMLButtonElement>(`[data-testid=tool-policy][data-tool=${tool}] button`)].map(
        (button) => button.textContent.replace("•", "").trim(),
      );
    }

    it("labels the policies, groups and grants in Chinese", async () => {
      setLanguage("zh-CN");
      component = mount(ToolsPanel, { target: document.body, props: { onclose: () => undefined } });
      await settle();
      expect(q("#tools-title").textContent).toBe("工具");
      expect(policies("write_file")).toEqual(["禁用", "询问", "自动"]);
      const ask = q("[data-testid=tool-policy][data-tool=write_file] [data-policy=ask]");
      expect(ask.title).toBe("每次调用前都询问我（默认）");
      expect(q("[data-testid=tool-policy][data-tool=write_file]").getAttribute("aria-label")).toBe("write_file 的策略");
      expect([...document.querySelectorAll("[data-testid=tool-group] > h3")].map((h) => h.textContent)).toEqual(["内置", "MCP：files"]);
      expect(q("[data-testid=tool-row][data-tool=run_command] [data-level] .badge-label").textContent).toBe("危险");
      expect(q(".tools-panel .count").textContent).toBe("3 个工具 · 全部为默认策略");
      expect(q("[data-testid=tools-reset]").textContent).toBe("恢复默认");
      expect(q("[data-testid=grant-revoke]").textContent).toBe("撤销");
      expect(q("[data-testid=grant-revoke]").getAttribute("aria-label")).toBe("撤销 write_file");
    });

    it("asks to confirm a DANGEROUS tool in Chinese, the backend's reason as it came", async () => {
      setLanguage("zh-CN");
      component = mount(ToolsPanel, { target: document.body, props: { onclose: () => undefined } });
      await settle();
      q("[data-testid=tool-policy][data-tool=run_command] [data-policy=auto]").click();
      await settle();
      expect(q("#dangerous-title").textContent).toBe("启用 run_command？");
      expect(q("[data-testid=dangerous-confirm]").textContent).toContain("it can do anything");
      expect(q("[data-testid=dangerous-confirm-yes]").textContent.trim()).toBe("设为“自动”");
      expect(q("[data-testid=dangerous-confirm-no]").textContent.trim()).toBe("保持禁用 Esc");
    });

    it("follows a change of language while open", async () => {
      component = mount(ToolsPanel, { target: document.body, props: { onclose: () => undefined } });
      await settle();
      expect(policies("write_file")).toEqual(["Disabled", "Ask", "Auto"]);
      expect(q(".tools-panel .count").textContent).toBe("3 tools · all at their defaults");
      setLanguage("zh-CN");
      flushSync();
      expect(policies("write_file")).toEqual(["禁用", "询问", "自动"]);
      expect([...document.querySelectorAll("[data-testid=tool-group] > h3")].map((h) => h.textContent)).toEqual(["内置", "MCP：files"]);
    });
  });
});
