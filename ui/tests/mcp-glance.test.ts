// The title bar's MCP button follows the servers: a spinner while they connect, asked again
// every second until they settle, then the tool count; a failure stands out. The backend is
// mocked (a component test); the e2e suite runs the real one.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { McpPanel } from "../src/bindings/McpPanel";
import type { McpServerView } from "../src/bindings/McpServerView";
import McpGlance from "../src/components/McpGlance.svelte";
import { setLanguage } from "../src/lib/i18n.svelte";

const { call, handlers } = vi.hoisted(() => ({
  call: vi.fn(),
  handlers: new Map<string, (payload: unknown) => void>(),
}));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const { mockedIpc } = await import("./support/ipc-mock");
  return mockedIpc(await importOriginal(), call, handlers);
});

function server(name: string, state: string, tools: string[] = []): McpServerView {
  return { name, state, tools, origin: "user", transport: "stdio", target: "node s.js", reason: null } as unknown as McpServerView;
}

let panel: McpPanel;
let component: ReturnType<typeof mount> | null = null;
const opened = vi.fn();

beforeEach(() => {
  vi.useFakeTimers();
  call.mockReset();
  call.mockImplementation((command: string) => {
    if (command === "mcp_servers") return Promise.resolve(panel);
    return Promise.reject(new Error(`unexpected ${command}`));
  });
});

afterEach(() => {
  if (component) void unmount(component);
  component = null;
  document.body.innerHTML = "";
  vi.useRealTimers();
  setLanguage("system");
});

async function settle(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  flushSync();
}

function button(): HTMLButtonElement {
  const found = document.querySelector<HTMLButtonElement>("[data-testid=mcp-open]");
  if (!found) throw new Error("no MCP button");
  return found;
}

describe("the MCP glance", () => {
  it("spins while servers connect, follows them every second, then counts the tools", async () => {
    panel = { hub: { state: "running" }, servers: [server("a", "starting"), server("b", "connected", ["x"])], warnings: [], userConfigPath: "/home/u/.config/gantry/mcp.json", trust: null };
    component = mount(McpGlance, { target: document.body, props: { onopen: opened } });
    await settle();
    expect(button().dataset.glance).toBe("starting");
    expect(button().textContent.trim()).toBe("MCP: connecting 1 server…");
    expect(button().querySelector(".spinner")).not.toBeNull();

    panel = { hub: { state: "running" }, servers: [server("a", "connected", ["y", "z"]), server("b", "connected", ["x"])], warnings: [], userConfigPath: "/home/u/.config/gantry/mcp.json", trust: null };
    const asked = call.mock.calls.length;
    await settle(1000);
    expect(call.mock.calls.length).toBe(asked + 1);
    expect(button().dataset.glance).toBe("ready");
    expect(button().textContent.trim()).toBe("MCP · 3 tools");
    expect(button().querySelector(".spinner")).toBeNull();

    // Settled: it asks again only every few seconds.
    const settled = call.mock.calls.length;
    await settle(1000);
    expect(call.mock.calls.length).toBe(settled);

    button().click();
    expect(opened).toHaveBeenCalledTimes(1);
  });

  it("marks a failed server, in the UI's language", async () => {
    panel = { hub: { state: "running" }, servers: [server("a", "failed"), server("b", "connected", ["x"])], warnings: [], userConfigPath: "/home/u/.config/gantry/mcp.json", trust: null };
    setLanguage("zh-CN");
    component = mount(McpGlance, { target: document.body, props: { onopen: opened } });
    await settle();
    expect(button().dataset.glance).toBe("failed");
    expect(button().textContent.trim()).toBe("MCP：1 个服务器失败");
    expect(button().querySelector(".glance-dot")).not.toBeNull();
  });

  it("words the trust request as the panel does, in Chinese", async () => {
    panel = { hub: { state: "running" }, servers: [server("a", "untrusted")], warnings: [], userConfigPath: "/home/u/.config/gantry/mcp.json", trust: null };
    setLanguage("zh-CN");
    component = mount(McpGlance, { target: document.body, props: { onopen: opened } });
    await settle();
    expect(button().dataset.glance).toBe("untrusted");
    expect(button().textContent.trim()).toBe("MCP：等待你确认信任");
  });

  it("stops spinning when the backend can't be asked, says why in its title, and asks at the settled rate", async () => {
    call.mockImplementation(() => Promise.reject(new Error("the engine is not running")));
    component = mount(McpGlance, { target: document.body, props: { onopen: opened } });
    await settle();
    expect(button().dataset.glance).toBe("unavailable");
    expect(button().textContent.trim()).toBe("MCP");
    expect(button().querySelector(".spinner")).toBeNull();
    expect(button().title).toBe("The MCP servers can't be read: the engine is not running. Click to show them.");

    const asked = call.mock.calls.length;
    await settle(1000);
    expect(call.mock.calls.length).toBe(asked);
    await settle(4000);
    expect(call.mock.calls.length).toBe(asked + 1);

    // Once the backend answers again, the button follows it.
    panel = { hub: { state: "running" }, servers: [server("a", "connected", ["x"])], warnings: [], userConfigPath: "/home/u/.config/gantry/mcp.json", trust: null };
    call.mockImplementation(() => Promise.resolve(panel));
    await settle(5000);
    expect(button().dataset.glance).toBe("ready");
    expect(button().title).toBe("Show the MCP servers");
  });
});
