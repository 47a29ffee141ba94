// The MCP servers panel: the buttons each server offers, the editor's two tabs and its errors,
// Remove's confirm step, the empty state and the Claude Desktop import. Backend mocked.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ClaudeImportPreview } from "../src/bindings/ClaudeImportPreview";
import type { McpPanel } from "../src/bindings/McpPanel";
import type { McpServerView } from "../src/bindings/McpServerView";
import McpServersDialog from "../src/components/McpServersDialog.svelte";

const { call } = vi.hoisted(() => ({ call: vi.fn() }));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/lib/ipc")>();
  return { ...actual, call };
});

function q(selector: string, root: ParentNode = document): HTMLElement | null {
  return root.querySelector<HTMLElement>(selector);
}

/** An input, text area or button, for its value or state. */
function field(selector: string): (HTMLInputElement & HTMLTextAreaElement & HTMLButtonElement) | null {
  return document.querySelector(selector);
}

function click(selector: string): void {
  const element = q(selector);
  if (!element) throw new Error(`no ${selector}`);
  element.click();
  flushSync();
}

function type(selector: string, value: string): void {
  const target = field(selector);
  if (!target) throw new Error(`no ${selector}`);
  target.value = value;
  target.dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
}

function server(name: string, extra: Partial<McpServerView> = {}): McpServerView {
  return {
    name,
    origin: "user",
    configPath: "/home/u/.config/gantry/mcp.json",
    transport: "stdio",
    target: "node server.js",
    state: "connected",
    reason: null,
    tools: [`mcp__${name}__echo`],
    stderrTail: [],
    pid: 42,
    restarts: 0,
    editable: true,
    disabledInFile: false,
    disabledInProject: false,
    ...extra,
  };
}

function panel(servers: McpServerView[]): McpPanel {
  return { hub: { state: "running" }, servers, warnings: [], userConfigPath: "/home/u/.config/gantry/mcp.json" };
}

/** Answers commands by name; an Error value rejects (its message is what the panel shows). */
function backend(answers: Record<string, unknown>): void {
  call.mockImplementation((command: string) => {
    const answer = answers[command];
    if (answer instanceof Error) return Promise.reject(answer);
    if (answer === undefined) return Promise.reject(new Error(`unexpected ${command}`));
    return Promise.resolve(answer);
  });
}

let component: ReturnType<typeof mount> | null = null;

function render(): void {
  component = mount(McpServersDialog, { target: document.body, props: { onclose: vi.fn() } });
  flushSync();
}

async function shows(selector: string): Promise<HTMLElement> {
  return vi.waitFor(() => {
    const element = q(selector);
    if (!element) throw new Error(`no ${selector} yet`);
    return element;
  });
}

beforeEach(() => {
  call.mockReset();
});

afterEach(() => {
  if (component) void unmount(component);
  component = null;
  document.body.innerHTML = "";
});

describe("the MCP servers panel", () => {
  it("offers Edit and Remove for the user's servers only, and the switch that fits", async () => {
    backend({
      mcp_servers: panel([
        server("mine"),
        server("off-here", { state: "disabled", disabledInProject: true, tools: [], pid: null }),
        server("off-everywhere", { state: "disabled", disabledInFile: true, tools: [], pid: null }),
        server("theirs", { origin: "project", editable: false, configPath: "/p/.mcp.json" }),
      ]),
    });
    render();
    await shows("[data-testid=mcp-server][data-name=theirs]");
    const buttons = (name: string) =>
      [...document.querySelectorAll<HTMLElement>(`[data-testid=mcp-server][data-name=${name}] button`)].map(
        (button) => button.textContent.trim(),
      );
    expect(buttons("mine")).toEqual(["Restart", "Disable", "Edit", "Remove"]);
    expect(buttons("off-here")).toEqual(["Restart", "Enable", "Edit", "Remove"]);
    expect(buttons("off-everywhere")).toEqual(["Restart", "Edit", "Remove"]);
    expect(buttons("theirs")).toEqual(["Restart", "Disable"]);
    expect(q("[data-testid=mcp-server][data-name=theirs]")?.textContent).toContain("edit that file to change it");
    expect(q("[data-testid=mcp-server][data-name=off-here]")?.textContent).toContain("disabled in this project");
  });

  it("switches a server off for the project and shows the panel after the change", async () => {
    backend({ mcp_servers: panel([server("mine")]) });
    render();
    await shows("[data-testid=mcp-server][data-name=mine]");
    let finish: (value: McpPanel) => void = () => undefined;
    call.mockImplementationOnce(
      () =>
        new Promise<McpPanel>((resolve) => {
          finish = resolve;
        }),
    );
    click("[data-testid=mcp-toggle]");
    expect(call).toHaveBeenLastCalledWith("set_mcp_server_enabled", { name: "mine", enabled: false });
    expect(q("[data-testid=mcp-applying]")?.textContent).toContain("Applying…");
    finish(panel([server("mine", { state: "disabled", disabledInProject: true, tools: [] })]));
    await shows("[data-testid=mcp-server][data-state=disabled] [data-action=enable]");
    expect(q("[data-testid=mcp-applying]")).toBeNull();
  });

  it("removes only after the confirm step", async () => {
    backend({ mcp_servers: panel([server("mine")]), remove_mcp_server: panel([]) });
    render();
    await shows("[data-testid=mcp-remove]");
    click("[data-testid=mcp-remove]");
    expect(call).not.toHaveBeenCalledWith("remove_mcp_server", expect.anything());
    expect(q("[data-testid=mcp-remove-confirm]")?.textContent).toContain("/home/u/.config/gantry/mcp.json");
    click("[data-testid=mcp-remove-yes]");
    expect(call).toHaveBeenCalledWith("remove_mcp_server", { name: "mine" });
    await shows("[data-testid=mcp-empty]");
  });

  it("says what to do when there are no servers", async () => {
    backend({ mcp_servers: panel([]) });
    render();
    const empty = await shows("[data-testid=mcp-empty]");
    expect(empty.textContent).toContain("No MCP servers yet.");
    expect([...empty.querySelectorAll("button")].map((button) => button.textContent.trim())).toEqual([
      "Add server",
      "Import from Claude Desktop",
    ]);
  });
});

describe("the server editor", () => {
  it("adds a server from the form", async () => {
    backend({ mcp_servers: panel([]), save_mcp_servers: panel([server("files")]) });
    render();
    await shows("[data-testid=mcp-empty]");
    click("[data-testid=mcp-add]");
    type("[data-testid=mcp-form-name]", "files");
    type("[data-testid=mcp-form-command]", "npx");
    type("[data-testid=mcp-form-args]", "-y\n@modelcontextprotocol/server-filesystem");
    click("[data-testid=mcp-save]");
    const [command, request] = call.mock.lastCall as [string, { text: string; replacing: string | null }];
    expect(command).toBe("save_mcp_servers");
    expect(request.replacing).toBeNull();
    expect(JSON.parse(request.text)).toEqual({
      mcpServers: { files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem"] } },
    });
    await shows("[data-testid=mcp-server][data-name=files]");
    expect(q("[data-testid=mcp-editor]")).toBeNull();
  });

  it("checks the form before sending it", async () => {
    backend({ mcp_servers: panel([]) });
    render();
    await shows("[data-testid=mcp-add]");
    click("[data-testid=mcp-add]");
    type("[data-testid=mcp-form-command]", "npx");
    click("[data-testid=mcp-save]");
    expect(q("[data-testid=mcp-editor-error]")?.textContent).toBe("Give the server a name.");
    expect(call).not.toHaveBeenCalledWith("save_mcp_servers", expect.anything());
  });

  it("edits as JSON, keeps the text on an error, and converts between the tabs", async () => {
    const entry = '{\n  "mcpServers": {\n    "mine": {\n      "command": "node",\n      "tools": {"x": {"level": "safe"}}\n    }\n  }\n}\n';
    backend({
      mcp_servers: panel([server("mine")]),
      mcp_server_entry: { name: "mine", text: entry },
      save_mcp_servers: new Error("MCP config pasted JSON:4:7: not valid JSON: expected `,` or `}`"),
    });
    render();
    await shows("[data-testid=mcp-edit]");
    click("[data-testid=mcp-edit]");
    await shows("[data-testid=mcp-editor][data-tab=form]");
    expect(field("[data-testid=mcp-form-name]")?.value).toBe("mine");
    expect(field("[data-testid=mcp-form-command]")?.value).toBe("node");
    // The key the form does not edit is named, and kept.
    expect(q("[data-testid=mcp-form-kept]")?.textContent).toContain("tools");

    click("[data-testid=mcp-tab-json]");
    const json = field("[data-testid=mcp-json]");
    expect(JSON.parse(json?.value ?? "")).toEqual({ mcpServers: { mine: { command: "node", tools: { x: { level: "safe" } } } } });

    const broken = '{\n  "mcpServers": {\n    "mine": {\n      "command" "node"\n    }\n  }\n}';
    type("[data-testid=mcp-json]", broken);
    // Unparsable JSON can't become the form: the error shows and the text stays.
    click("[data-testid=mcp-tab-form]");
    expect(q("[data-testid=mcp-editor]")?.dataset.tab).toBe("json");
    expect(q("[data-testid=mcp-editor-error]")?.textContent).toMatch(/^The JSON can't be read: /);
    expect(field("[data-testid=mcp-json]")?.value).toBe(broken);

    // Saving sends the text exactly as typed; the backend's error shows, the editor stays.
    click("[data-testid=mcp-save]");
    expect(call).toHaveBeenLastCalledWith("save_mcp_servers", { text: broken, replacing: "mine" });
    await shows("[data-testid=mcp-editor-error]");
    await vi.waitFor(() => {
      expect(q("[data-testid=mcp-editor-error]")?.textContent).toBe(
        "MCP config pasted JSON:4:7: not valid JSON: expected `,` or `}`",
      );
    });
    expect(field("[data-testid=mcp-json]")?.value).toBe(broken);
    expect(field("[data-testid=mcp-save]")?.disabled).toBe(false);
  });

  it("goes back to the list on Esc instead of closing the panel", async () => {
    backend({ mcp_servers: panel([]) });
    const onclose = vi.fn();
    component = mount(McpServersDialog, { target: document.body, props: { onclose } });
    flushSync();
    await shows("[data-testid=mcp-add]");
    click("[data-testid=mcp-add]");
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
    flushSync();
    expect(q("[data-testid=mcp-editor]")).toBeNull();
    expect(onclose).not.toHaveBeenCalled();
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
    expect(onclose).toHaveBeenCalled();
  });
});

describe("the Claude Desktop import", () => {
  const preview: ClaudeImportPreview = {
    path: "/home/u/.config/Claude/claude_desktop_config.json",
    found: true,
    servers: [
      { name: "files", transport: "stdio", target: "npx -y fs", inGantry: false },
      { name: "mine", transport: "stdio", target: "node other.js", inGantry: true },
    ],
  };

  it("selects the new servers, warns about replacing, and imports the choice", async () => {
    backend({
      mcp_servers: panel([server("mine")]),
      claude_desktop_import_preview: preview,
      import_claude_desktop: panel([server("mine"), server("files")]),
    });
    render();
    await shows("[data-testid=mcp-import-open]");
    click("[data-testid=mcp-import-open]");
    await shows("[data-testid=mcp-import-server][data-name=mine]");
    const box = (name: string) => field(`[data-testid=mcp-import-server][data-name=${name}] input`);
    expect(box("files")?.checked).toBe(true);
    expect(box("mine")?.checked).toBe(false);
    expect(q("[data-testid=mcp-import-server][data-name=mine]")?.textContent).toContain("importing it replaces Gantry's entry");
    expect(q("[data-testid=mcp-import-submit]")?.textContent.trim()).toBe("Import 1 server");
    box("mine")?.click();
    flushSync();
    expect(q("[data-testid=mcp-import-submit]")?.textContent.trim()).toBe("Import 2 servers");
    click("[data-testid=mcp-import-submit]");
    expect(call).toHaveBeenLastCalledWith("import_claude_desktop", { names: ["files", "mine"] });
    await shows("[data-testid=mcp-server][data-name=files]");
  });

  it("says where it looked when Claude Desktop has no configuration", async () => {
    backend({ mcp_servers: panel([]), claude_desktop_import_preview: { ...preview, found: false, servers: [] } });
    render();
    await shows("[data-testid=mcp-import-open]");
    click("[data-testid=mcp-import-open]");
    const missing = await shows("[data-testid=mcp-import-missing]");
    expect(missing.textContent).toContain("/home/u/.config/Claude/claude_desktop_config.json");
    expect(q("[data-testid=mcp-import-submit]")).toBeNull();
  });
});
