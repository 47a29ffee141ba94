// The MCP servers panel: the buttons each server offers, the editor's two tabs and its errors,
// Remove's confirm step, the empty state and the Claude Desktop import. Backend mocked.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ClaudeImportPreview } from "../src/bindings/ClaudeImportPreview";
import type { McpPanel } from "../src/bindings/McpPanel";
import type { McpServerView } from "../src/bindings/McpServerView";
import McpServersDialog from "../src/components/McpServersDialog.svelte";
import { setLanguage } from "../src/lib/i18n.svelte";

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
    signIn: null,
    resources: [],
    resourceTemplates: [],
    prompts: [],
    ...extra,
  };
}

function panel(servers: McpServerView[]): McpPanel {
  return { hub: { state: "running" }, servers, warnings: [], userConfigPath: "/home/u/.config/gantry/mcp.json", trust: null };
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
  setLanguage("system");
});

/** The text of the element matching `selector`, spaces at its ends trimmed. */
function text(selector: string, root: ParentNode = document): string | undefined {
  return q(selector, root)?.textContent.trim();
}

/** The texts of the buttons under `selector`. */
function buttonTexts(selector: string): string[] {
  return [...document.querySelectorAll<HTMLElement>(`${selector} button`)].map((button) => button.textContent.trim());
}

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

  it("shows repeated warnings and tool names without failing", async () => {
    backend({
      mcp_servers: {
        ...panel([server("mine", { tools: ["mcp__mine__echo", "mcp__mine__echo"] })]),
        warnings: ["unknown key `colour`", "unknown key `colour`"],
      },
    });
    render();
    await shows("[data-testid=mcp-server][data-name=mine]");
    expect([...document.querySelectorAll(".note")].map((note) => note.textContent)).toEqual([
      "unknown key `colour`",
      "unknown key `colour`",
    ]);
    expect(document.querySelectorAll("[data-testid=mcp-server] .tools li")).toHaveLength(2);
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

describe("the MCP panel's errors", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  async function tick(ms = 0): Promise<void> {
    await vi.advanceTimersByTimeAsync(ms);
    flushSync();
  }

  it("keeps a failed change's error through the refreshes until the user dismisses it", async () => {
    vi.useFakeTimers();
    backend({ mcp_servers: panel([server("mine")]), remove_mcp_server: new Error("mcp.json is read-only") });
    render();
    await tick();
    click("[data-testid=mcp-remove]");
    click("[data-testid=mcp-remove-yes]");
    await tick();
    expect(q("[data-testid=mcp-error]")?.textContent).toContain("mcp.json is read-only");
    // The panel follows the servers every second; the error stays.
    const asked = call.mock.calls.length;
    await tick(3000);
    expect(call.mock.calls.length).toBeGreaterThan(asked);
    expect(q("[data-testid=mcp-error]")?.textContent).toContain("mcp.json is read-only");
    click("[data-testid=mcp-error-dismiss]");
    expect(q("[data-testid=mcp-error]")).toBeNull();
  });

  it("clears a failed change's error when the user does something else", async () => {
    vi.useFakeTimers();
    backend({
      mcp_servers: panel([server("mine")]),
      set_mcp_server_enabled: new Error("no project is open"),
      restart_mcp_server: panel([server("mine")]),
    });
    render();
    await tick();
    click("[data-testid=mcp-toggle]");
    await tick(2000);
    expect(q("[data-testid=mcp-error]")?.textContent).toContain("no project is open");
    click("[data-testid=mcp-restart]");
    expect(q("[data-testid=mcp-error]")).toBeNull();
    await tick();
    expect(q("[data-testid=mcp-error]")).toBeNull();
  });

  it("shows a failed refresh until a refresh succeeds, apart from a change's error", async () => {
    vi.useFakeTimers();
    backend({ mcp_servers: panel([server("mine")]), restart_mcp_server: new Error("restart failed") });
    render();
    await tick();
    click("[data-testid=mcp-restart]");
    await tick();
    backend({ mcp_servers: new Error("the engine is busy"), restart_mcp_server: new Error("restart failed") });
    await tick(1000);
    expect(text("[data-testid=mcp-load-error]")).toBe("the engine is busy");
    expect(q("[data-testid=mcp-error]")?.textContent).toContain("restart failed");
    backend({ mcp_servers: panel([server("mine")]) });
    await tick(1000);
    expect(q("[data-testid=mcp-load-error]")).toBeNull();
    expect(q("[data-testid=mcp-error]")?.textContent).toContain("restart failed");
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

  it("saves an entry edited through the form as it was written when nothing was changed", async () => {
    const written = {
      type: "streamable-http",
      url: "https://example.com/mcp",
      headers: { "X-Key": " spaced ", "X-Count": 5 },
      timeout: 30,
      tools: { x: { level: "safe" } },
    };
    backend({
      mcp_servers: panel([server("remote", { transport: "http", target: "https://example.com/mcp" })]),
      mcp_server_entry: { name: "remote", text: JSON.stringify({ mcpServers: { remote: written } }, null, 2) },
      save_mcp_servers: panel([server("remote")]),
    });
    render();
    await shows("[data-testid=mcp-edit]");
    click("[data-testid=mcp-edit]");
    await shows("[data-testid=mcp-editor][data-tab=form]");
    click("[data-testid=mcp-save]");
    const [command, request] = call.mock.lastCall as [string, { text: string; replacing: string | null }];
    expect(command).toBe("save_mcp_servers");
    expect(JSON.stringify((JSON.parse(request.text) as { mcpServers: Record<string, unknown> }).mcpServers.remote)).toBe(
      JSON.stringify(written),
    );
  });

  it("opens an entry with a line break in an argument in the JSON tab, saying why", async () => {
    const entry = '{\n  "mcpServers": {\n    "mine": {"command": "node", "args": ["-e", "a()\\nb()"]}\n  }\n}\n';
    backend({ mcp_servers: panel([server("mine")]), mcp_server_entry: { name: "mine", text: entry } });
    render();
    await shows("[data-testid=mcp-edit]");
    click("[data-testid=mcp-edit]");
    await shows("[data-testid=mcp-editor][data-tab=json]");
    expect(field("[data-testid=mcp-json]")?.value).toBe(entry);
    expect(text("[data-testid=mcp-editor-error]")).toBe('"args" holds a line break, which the form can\'t show. Keep editing it as JSON.');
  });

  it("says a save from the form was refused, without the line of JSON the user never saw", async () => {
    backend({
      mcp_servers: panel([]),
      save_mcp_servers: new Error("MCP config pasted JSON:3: key 'mcpServers.files.level': unknown permission level"),
    });
    render();
    await shows("[data-testid=mcp-add]");
    click("[data-testid=mcp-add]");
    type("[data-testid=mcp-form-name]", "files");
    type("[data-testid=mcp-form-command]", "npx");
    click("[data-testid=mcp-save]");
    await vi.waitFor(() => {
      expect(text("[data-testid=mcp-editor-error]")).toBe(
        "The server's settings were refused: MCP config: key 'mcpServers.files.level': unknown permission level",
      );
    });
    expect(q("[data-testid=mcp-editor]")?.dataset.tab).toBe("form");
    setLanguage("zh-CN");
    flushSync();
    expect(text("[data-testid=mcp-editor-error]")).toBe(
      "服务器的设置被拒绝：MCP config: key 'mcpServers.files.level': unknown permission level",
    );
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
    // With the entry as it was opened, so a change made elsewhere meanwhile is refused.
    expect(call).toHaveBeenLastCalledWith("save_mcp_servers", { text: broken, replacing: "mine", original: entry });
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

describe("leaving the editor or the import", () => {
  function escape(init: KeyboardEventInit = {}): void {
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true, ...init }));
    flushSync();
  }

  async function openEditor(): Promise<ReturnType<typeof vi.fn>> {
    const onclose = vi.fn();
    component = mount(McpServersDialog, { target: document.body, props: { onclose } });
    flushSync();
    await shows("[data-testid=mcp-add]:not([disabled])");
    click("[data-testid=mcp-add]");
    return onclose;
  }

  it("asks before Esc throws away a changed form, and Esc again keeps editing", async () => {
    backend({ mcp_servers: panel([]) });
    const onclose = await openEditor();
    type("[data-testid=mcp-form-name]", "files");
    escape();
    expect(q("[data-testid=mcp-editor]")).not.toBeNull();
    expect(text("[data-testid=mcp-discard-confirm] span")).toBe("Discard your changes?");
    expect(buttonTexts("[data-testid=mcp-discard-confirm]")).toEqual(["Discard", "Keep editing"]);
    expect(document.activeElement).toBe(q("[data-testid=mcp-discard-keep]"));
    escape();
    expect(q("[data-testid=mcp-discard-confirm]")).toBeNull();
    expect(field("[data-testid=mcp-form-name]")?.value).toBe("files");
    escape();
    click("[data-testid=mcp-discard-keep]");
    expect(q("[data-testid=mcp-editor]")).not.toBeNull();
    escape();
    click("[data-testid=mcp-discard-yes]");
    expect(q("[data-testid=mcp-editor]")).toBeNull();
    expect(onclose).not.toHaveBeenCalled();
  });

  it("asks before ✕ closes the panel over a changed JSON text", async () => {
    backend({ mcp_servers: panel([]) });
    const onclose = await openEditor();
    click("[data-testid=mcp-tab-json]");
    type("[data-testid=mcp-json]", '{"a": {"command": "x"}}');
    click("[data-testid=mcp-close]");
    expect(onclose).not.toHaveBeenCalled();
    expect(q("[data-testid=mcp-discard-confirm]")).not.toBeNull();
    click("[data-testid=mcp-discard-yes]");
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it("leaves at once when nothing was changed, tabs switched or not, and on Cancel", async () => {
    const entry = '{\n  "mcpServers": {\n    "mine": {"command": "node", "args": ["s.js", ""]}\n  }\n}\n';
    backend({ mcp_servers: panel([server("mine")]), mcp_server_entry: { name: "mine", text: entry } });
    render();
    await shows("[data-testid=mcp-edit]");
    click("[data-testid=mcp-edit]");
    await shows("[data-testid=mcp-editor][data-tab=form]");
    click("[data-testid=mcp-tab-json]");
    click("[data-testid=mcp-tab-form]");
    escape();
    expect(q("[data-testid=mcp-discard-confirm]")).toBeNull();
    expect(q("[data-testid=mcp-editor]")).toBeNull();

    // Cancel is the user's own choice: no question.
    click("[data-testid=mcp-edit]");
    await shows("[data-testid=mcp-editor][data-tab=form]");
    type("[data-testid=mcp-form-command]", "deno");
    click("[data-testid=mcp-cancel]");
    expect(q("[data-testid=mcp-discard-confirm]")).toBeNull();
    expect(q("[data-testid=mcp-editor]")).toBeNull();
  });

  it("stays while a save is applied, whatever is pressed", async () => {
    backend({ mcp_servers: panel([]) });
    const onclose = await openEditor();
    type("[data-testid=mcp-form-name]", "files");
    type("[data-testid=mcp-form-command]", "npx");
    let finish: (value: McpPanel) => void = () => undefined;
    call.mockImplementationOnce(
      () =>
        new Promise<McpPanel>((resolve) => {
          finish = resolve;
        }),
    );
    click("[data-testid=mcp-save]");
    expect(q("[data-testid=mcp-applying]")).not.toBeNull();
    escape();
    expect(q("[data-testid=mcp-editor]")).not.toBeNull();
    expect(q("[data-testid=mcp-discard-confirm]")).toBeNull();
    expect(field("[data-testid=mcp-close]")?.disabled).toBe(true);
    click("[data-testid=mcp-close]");
    expect(field("[data-testid=mcp-cancel]")?.disabled).toBe(true);
    click("[data-testid=mcp-cancel]");
    expect(q("[data-testid=mcp-editor]")).not.toBeNull();
    expect(onclose).not.toHaveBeenCalled();
    finish(panel([server("files")]));
    await shows("[data-testid=mcp-server][data-name=files]");
    expect(field("[data-testid=mcp-close]")?.disabled).toBe(false);
  });

  it("leaves Esc to an input method composing text", async () => {
    backend({ mcp_servers: panel([]) });
    await openEditor();
    escape({ isComposing: true });
    expect(q("[data-testid=mcp-editor]")).not.toBeNull();
    expect(q("[data-testid=mcp-discard-confirm]")).toBeNull();
  });

  it("asks before Esc drops a changed import choice, and not while importing", async () => {
    backend({
      mcp_servers: panel([]),
      claude_desktop_import_preview: {
        path: "/c.json",
        found: true,
        servers: [{ name: "files", transport: "stdio", target: "npx -y fs", inGantry: false, problem: null }],
      },
    });
    render();
    await shows("[data-testid=mcp-import-open]:not([disabled])");
    click("[data-testid=mcp-import-open]");
    await shows("[data-testid=mcp-import-server][data-name=files] input:checked");
    field("[data-testid=mcp-import-server][data-name=files] input")?.click();
    flushSync();
    escape();
    expect(q("[data-testid=mcp-import]")).not.toBeNull();
    expect(q("[data-testid=mcp-discard-confirm]")).not.toBeNull();
    click("[data-testid=mcp-discard-keep]");
    field("[data-testid=mcp-import-server][data-name=files] input")?.click();
    flushSync();
    call.mockImplementationOnce(() => new Promise<McpPanel>(() => undefined));
    click("[data-testid=mcp-import-submit]");
    escape();
    expect(q("[data-testid=mcp-import]")).not.toBeNull();
    expect(q("[data-testid=mcp-discard-confirm]")).toBeNull();
  });

  it("shows why a Claude server can't be imported, and keeps it unchosen", async () => {
    backend({
      mcp_servers: panel([]),
      claude_desktop_import_preview: {
        path: "/c.json",
        found: true,
        servers: [
          { name: "files", transport: "stdio", target: "npx -y fs", inGantry: false, problem: null },
          { name: "odd", transport: "", target: "", inGantry: false, problem: "mcpServers.odd.args: expected a list of strings" },
        ],
      },
    });
    render();
    await shows("[data-testid=mcp-import-open]:not([disabled])");
    click("[data-testid=mcp-import-open]");
    await shows("[data-testid=mcp-import-server][data-name=files] input:checked");
    const odd = field("[data-testid=mcp-import-server][data-name=odd] input");
    expect(odd?.checked).toBe(false);
    expect(odd?.disabled).toBe(true);
    expect(text("[data-testid=mcp-import-server][data-name=odd] [data-testid=mcp-import-problem]")).toBe(
      "Gantry can't import this one: mcpServers.odd.args: expected a list of strings",
    );
  });

  it("asks in Chinese", async () => {
    setLanguage("zh-CN");
    backend({ mcp_servers: panel([]) });
    await openEditor();
    type("[data-testid=mcp-form-name]", "files");
    escape();
    expect(q("[data-testid=mcp-discard-confirm]")?.getAttribute("aria-label")).toBe("确认放弃更改");
    expect(text("[data-testid=mcp-discard-confirm] span")).toBe("放弃你的更改吗？");
    expect(buttonTexts("[data-testid=mcp-discard-confirm]")).toEqual(["放弃", "继续编辑"]);
  });
});

describe("the Claude Desktop import", () => {
  const preview: ClaudeImportPreview = {
    path: "/home/u/.config/Claude/claude_desktop_config.json",
    found: true,
    servers: [
      { name: "files", transport: "stdio", target: "npx -y fs", inGantry: false, problem: null },
      { name: "mine", transport: "stdio", target: "node other.js", inGantry: true, problem: null },
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

describe("in Chinese", () => {
  const USER_FILE = "/home/u/.config/gantry/mcp.json";

  it("shows the panel's list, states, buttons and trust step in Chinese, the backend's words as they come", async () => {
    setLanguage("zh-CN");
    backend({
      mcp_servers: {
        ...panel([
          server("mine"),
          server("off-here", { state: "disabled", disabledInProject: true, tools: [], pid: null }),
          server("off-everywhere", { state: "disabled", disabledInFile: true, tools: [], pid: null }),
          server("broken", {
            origin: "project",
            editable: false,
            configPath: "/p/.mcp.json",
            state: "failed",
            reason: "exited with status 1",
            tools: [],
            stderrTail: ["Error: BROKEN_TOKEN is not set"],
          }),
          server("files", { origin: "project", editable: false, configPath: "/p/.mcp.json", state: "untrusted", tools: [] }),
        ]),
        warnings: ["unknown key `colour` in /home/u/.config/gantry/mcp.json"],
      },
    });
    render();
    await shows("[data-testid=mcp-server][data-name=files]");
    const row = (name: string) => `[data-testid=mcp-server][data-name=${name}]`;

    expect(text("#mcp-title")).toBe("MCP 服务器");
    expect(buttonTexts("header .mcp-actions")).toEqual(["添加服务器", "从 Claude Desktop 导入"]);
    expect(q("header .close")?.getAttribute("aria-label")).toBe("关闭");

    // The trust step: the file and what it would run.
    const trust = q("[data-testid=mcp-trust-request]");
    expect(text("p", trust ?? document)).toBe("此项目的 .mcp.json 要启动这个程序。仅当你信任此项目时才应允许它启动。");
    expect(text("[data-testid=mcp-trust]")).toBe("信任并启动");

    // Each server: its origin, state and buttons in Chinese; names, commands and reasons as they are.
    expect(text(`${row("mine")} .badge`)).toBe("用户");
    expect(text(`${row("mine")} .state`)).toBe("已连接 · 1 个工具");
    expect(buttonTexts(row("mine"))).toEqual(["重启", "禁用", "编辑", "移除"]);
    expect(q(`${row("mine")} [data-action=disable]`)?.title).toBe("停止它，并且不在此项目中启动（其他项目仍会启动它）");
    expect(text(`${row("mine")} summary`)).toBe("1 个工具");
    expect(text(`${row("mine")} .target`)).toBe("stdio node server.js");

    expect(text(`${row("off-here")} .state`)).toBe("已在此项目中禁用");
    expect(buttonTexts(row("off-here"))).toEqual(["重启", "启用", "编辑", "移除"]);
    expect(text(`${row("off-here")} p.small`)).toBe("不在此项目中启动；其他项目仍会启动它。");

    expect(text(`${row("off-everywhere")} .state`)).toBe("已在所有项目中禁用");
    expect(text(`${row("off-everywhere")} p.small`)).toBe(
      '其配置文件中写有 "disabled": true：在所有项目中都不启动。编辑它即可重新启用。',
    );

    expect(text(`${row("broken")} .badge`)).toBe("项目");
    expect(text(`${row("broken")} .state`)).toBe("失败：exited with status 1");
    expect(text(`${row("broken")} p.small`)).toBe("来自此项目的 .mcp.json：如需更改，请编辑该文件。");
    expect(text(`${row("broken")} summary`)).toBe("stderr 的最后几行");
    expect(text(`${row("broken")} [data-testid=mcp-stderr]`)).toBe("Error: BROKEN_TOKEN is not set");
    expect(text(`${row("files")} .state`)).toBe("等待你确认信任");

    expect(text(".note")).toBe("unknown key `colour` in /home/u/.config/gantry/mcp.json");
    const footer = [...document.querySelectorAll<HTMLElement>("[data-testid=mcp-panel] > p.small")].at(-1);
    expect(footer?.textContent.trim()).toBe(`你添加或导入的服务器保存在 ${USER_FILE} 中，对所有项目生效。`);

    // No English is left but the backend's words (names, commands, paths, reasons, stderr,
    // warnings) and names that read the same in every language.
    const words = q("[data-testid=mcp-panel]")?.cloneNode(true) as HTMLElement;
    words.querySelectorAll(`code, pre, strong, .note, .target, ${row("broken")} .state`).forEach((element) => {
      element.remove();
    });
    expect(words.textContent.replace(/\b(MCP|Claude Desktop|stderr)\b/g, "").match(/[A-Za-z]{2,}/g)).toBeNull();

    // Remove asks first, in Chinese.
    click(`${row("mine")} [data-testid=mcp-remove]`);
    const confirm = q("[data-testid=mcp-remove-confirm]");
    expect(confirm?.getAttribute("aria-label")).toBe("确认移除");
    expect(text("span", confirm ?? document)).toBe(`从 ${USER_FILE} 中移除“mine”吗？所有项目都将不再使用它。`);
    expect(buttonTexts("[data-testid=mcp-remove-confirm]")).toEqual(["移除", "保留"]);

    // Switched while open: what is on screen follows at once.
    setLanguage("en");
    flushSync();
    expect(text("#mcp-title")).toBe("MCP servers");
    expect(text(`${row("off-here")} .state`)).toBe("disabled in this project");
    expect(text("span", q("[data-testid=mcp-remove-confirm]") ?? document)).toBe(
      `Remove “mine” from ${USER_FILE}? Every project loses it.`,
    );
  });

  it("says what to do with no servers in Chinese", async () => {
    setLanguage("zh-CN");
    backend({ mcp_servers: panel([]) });
    render();
    const empty = await shows("[data-testid=mcp-empty]");
    const paragraphs = [...empty.querySelectorAll("p")].map((paragraph) => paragraph.textContent.trim());
    expect(paragraphs).toEqual([
      "还没有 MCP 服务器。",
      "MCP 服务器为模型提供更多工具：文件、GitHub、数据库、浏览器等。你可以添加一个，也可以导入你为 Claude Desktop 配置的服务器。",
      "项目也可以在其根目录的 .mcp.json 中自带服务器（采用 Claude Desktop 的 mcpServers 格式）。",
    ]);
    expect([...empty.querySelectorAll("code")].map((code) => code.textContent)).toEqual([".mcp.json", "mcpServers"]);
    expect(buttonTexts("[data-testid=mcp-empty]")).toEqual(["添加服务器", "从 Claude Desktop 导入"]);
  });

  it("shows a change being applied in Chinese", async () => {
    setLanguage("zh-CN");
    backend({ mcp_servers: panel([server("mine")]) });
    render();
    await shows("[data-testid=mcp-restart]");
    call.mockImplementationOnce(() => new Promise<McpPanel>(() => undefined));
    click("[data-testid=mcp-restart]");
    expect(call).toHaveBeenLastCalledWith("restart_mcp_server", { name: "mine" });
    expect(text("[data-testid=mcp-applying]")).toBe("正在应用…");
  });

  it("shows the server editor in Chinese, and its errors follow a change of language", async () => {
    setLanguage("zh-CN");
    backend({ mcp_servers: panel([]) });
    render();
    await shows("[data-testid=mcp-add]");
    click("[data-testid=mcp-add]");
    const editor = q("[data-testid=mcp-editor]");
    expect(text("h3", editor ?? document)).toBe("添加服务器");
    expect(q("[role=tablist]")?.getAttribute("aria-label")).toBe("编辑方式");
    expect(buttonTexts("[role=tablist]")).toEqual(["表单", "JSON"]);
    // Each label's own words (a select's options aside).
    const labels = [...document.querySelectorAll<HTMLLabelElement>("[data-testid=mcp-editor] label")].map((label) => {
      const words = label.cloneNode(true) as HTMLLabelElement;
      words.querySelectorAll("select").forEach((select) => { select.remove(); });
      return words.textContent.trim();
    });
    expect(labels).toEqual([
      "名称",
      "传输方式",
      "命令",
      "参数，每行一个",
      "环境变量，每行一个 KEY=VALUE（${VAR} 读取你的环境变量）",
      "工作目录（可选）",
      "其工具的权限级别",
      "调用超时（秒）",
      "在所有项目中禁用（仍列出，但从不启动）",
    ]);
    const options = (selector: string) => [...document.querySelectorAll(`${selector} option`)].map((option) => option.textContent);
    expect(options("[data-testid=mcp-form-transport]")).toEqual(["本地程序（stdio）", "远程服务器（HTTP）"]);
    expect(options("[data-testid=mcp-form-level]")).toEqual([
      "默认（依据服务器的提示）",
      "安全（无需询问即运行）",
      "敏感（先询问）",
      "危险（启用前保持禁用）",
    ]);
    // The examples in the fields are what is typed there, the same in every language.
    expect(field("[data-testid=mcp-form-command]")?.placeholder).toBe("npx");
    expect(field("[data-testid=mcp-form-env]")?.placeholder).toBe("GITHUB_TOKEN=${GITHUB_TOKEN}");
    expect(buttonTexts("[data-testid=mcp-editor] footer")).toEqual(["保存", "取消"]);
    expect(text("[data-testid=mcp-editor] footer .small")).toBe(`保存在 ${USER_FILE} 中，对所有项目生效。`);

    // The remote server's fields.
    const transport = document.querySelector<HTMLSelectElement>("[data-testid=mcp-form-transport]");
    if (transport) transport.value = "http";
    transport?.dispatchEvent(new Event("change", { bubbles: true }));
    flushSync();
    expect(text("[data-testid=mcp-editor] label:has([data-testid=mcp-form-headers])")).toBe("请求头，每行一个“Name: value”");
    type("[data-testid=mcp-form-name]", "remote");
    type("[data-testid=mcp-form-headers]", "X-Key value");
    click("[data-testid=mcp-save]");
    expect(text("[data-testid=mcp-editor-error]")).toBe("请填写服务器的 URL。");
    type("[data-testid=mcp-form-url]", "http://h/mcp");
    click("[data-testid=mcp-save]");
    expect(text("[data-testid=mcp-editor-error]")).toBe("请求头第 1 行：应为 Name: value 格式");
    // An error on screen follows a change of language.
    setLanguage("en");
    flushSync();
    expect(text("[data-testid=mcp-editor-error]")).toBe("Headers, line 1: expected Name: value");
    setLanguage("zh-CN");
    flushSync();
    expect(call).not.toHaveBeenCalledWith("save_mcp_servers", expect.anything());

    // The JSON tab: its intro, an empty text, and JSON the form can't read.
    type("[data-testid=mcp-form-headers]", "");
    click("[data-testid=mcp-tab-json]");
    expect(text("[data-testid=mcp-editor] label span")).toBe('粘贴或输入 {"mcpServers": {…}} 或 {"name": {…}}：一个或多个服务器均可。');
    type("[data-testid=mcp-json]", "");
    click("[data-testid=mcp-save]");
    expect(text("[data-testid=mcp-editor-error]")).toBe(
      '请粘贴或输入服务器，例如 {"mcpServers": {"name": {"command": "npx", "args": ["-y", "package"]}}}。',
    );
    type("[data-testid=mcp-json]", '{"a": {"command": "x"}, "b": {"command": "y"}}');
    click("[data-testid=mcp-tab-form]");
    expect(text("[data-testid=mcp-editor-error]")).toBe("表单一次只能编辑一个服务器，而这段 JSON 包含 2 个。请继续以 JSON 编辑。");
    type("[data-testid=mcp-json]", '{"a": {');
    click("[data-testid=mcp-tab-form]");
    expect(text("[data-testid=mcp-editor-error]")).toMatch(/^无法读取 JSON：\S/);
  });

  it("opens a server the form can't show in the JSON tab, with the reason in Chinese and the backend's error as it comes", async () => {
    setLanguage("zh-CN");
    const entry = '{\n  "mcpServers": {\n    "stream": {"type": "sse", "url": "http://h/sse"}\n  }\n}\n';
    backend({
      mcp_servers: panel([server("stream", { transport: "sse", target: "http://h/sse" })]),
      mcp_server_entry: { name: "stream", text: entry },
      save_mcp_servers: new Error("MCP config pasted JSON:3:5: unknown transport"),
    });
    render();
    await shows("[data-testid=mcp-edit]");
    click("[data-testid=mcp-edit]");
    await shows("[data-testid=mcp-editor][data-tab=json]");
    expect(text("[data-testid=mcp-editor] h3")).toBe("编辑“stream”");
    expect(text("[data-testid=mcp-editor] label span")).toBe('以 JSON 表示的服务器：{"mcpServers": {…}} 或 {"name": {…}}。');
    expect(text("[data-testid=mcp-editor-error]")).toBe("表单无法编辑 SSE 服务器。请继续以 JSON 编辑。");
    click("[data-testid=mcp-save]");
    await vi.waitFor(() => {
      expect(text("[data-testid=mcp-editor-error]")).toBe("MCP config pasted JSON:3:5: unknown transport");
    });
  });

  describe("the Claude Desktop import", () => {
    const CLAUDE_FILE = "/home/u/.config/Claude/claude_desktop_config.json";

    async function openImport(preview: ClaudeImportPreview): Promise<void> {
      setLanguage("zh-CN");
      backend({ mcp_servers: panel([server("mine")]), claude_desktop_import_preview: preview });
      render();
      await shows("[data-testid=mcp-import-open]");
      click("[data-testid=mcp-import-open]");
      await shows("[data-testid=mcp-import] footer [data-testid=mcp-import-cancel]:not([disabled])");
      await vi.waitFor(() => {
        if (q("[data-testid=mcp-import] .spinner")) throw new Error("still reading");
      });
    }

    it("lists Claude's servers, warns about replacing and counts the choice in Chinese", async () => {
      await openImport({
        path: CLAUDE_FILE,
        found: true,
        servers: [
          { name: "files", transport: "stdio", target: "npx -y fs", inGantry: false, problem: null },
          { name: "mine", transport: "stdio", target: "node other.js", inGantry: true, problem: null },
        ],
      });
      const section = q("[data-testid=mcp-import]");
      expect(text("h3", section ?? document)).toBe("从 Claude Desktop 导入");
      const intro = [...(section?.querySelectorAll(":scope > p.muted") ?? [])].map((paragraph) => paragraph.textContent.trim());
      expect(intro).toEqual([`来自 ${CLAUDE_FILE}。`, `勾选的服务器将复制到 ${USER_FILE} 中，对所有项目生效。`]);
      expect(text("[data-testid=mcp-import-server][data-name=mine] .note")).toBe(
        "Gantry 已有名为“mine”的服务器：导入会替换 Gantry 中的这一项。",
      );
      expect(text("[data-testid=mcp-import-server][data-name=files] .import-server")).toContain("npx -y fs");
      expect(text("[data-testid=mcp-import-submit]")).toBe("导入 1 个服务器");
      field("[data-testid=mcp-import-server][data-name=mine] input")?.click();
      flushSync();
      expect(text("[data-testid=mcp-import-submit]")).toBe("导入 2 个服务器");
      expect(text("[data-testid=mcp-import-cancel]")).toBe("取消");
      setLanguage("en");
      flushSync();
      expect(text("[data-testid=mcp-import-submit]")).toBe("Import 2 servers");
    });

    it("says where it looked, or that Claude has no servers, in Chinese", async () => {
      await openImport({ path: CLAUDE_FILE, found: false, servers: [] });
      expect(text("[data-testid=mcp-import-missing]")).toBe(`在 ${CLAUDE_FILE} 未找到 Claude Desktop 的配置。`);
      expect(text("[data-testid=mcp-import-cancel]")).toBe("返回");
      click("[data-testid=mcp-import-cancel]");
      backend({ mcp_servers: panel([server("mine")]), claude_desktop_import_preview: { path: CLAUDE_FILE, found: true, servers: [] } });
      click("[data-testid=mcp-import-open]");
      expect(text("[data-testid=mcp-import] p.muted")).toBe("正在读取 Claude Desktop 的配置…");
      const empty = await shows("[data-testid=mcp-import-empty]");
      expect(empty.textContent.trim()).toBe(`Claude Desktop 的配置（${CLAUDE_FILE}）中没有 MCP 服务器。`);
    });
  });
});
