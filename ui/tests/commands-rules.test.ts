// What issue 16 and 17 add to the webview: the approval dialog's "Always allow in this
// project" and the sandbox state of a command, the Tools panel's command settings (the sandbox
// said plainly when there is none, the network switch, writable folders, variables passed) and
// its rules (listed with their uses, added, edited, removed). Backend mocked.

import { flushSync, mount, tick, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ChatEvent } from "../src/bindings/ChatEvent";
import type { CommandSettingsView } from "../src/bindings/CommandSettingsView";
import type { DialogRequest } from "../src/bindings/DialogRequest";
import type { RuleView } from "../src/bindings/RuleView";
import type { SaveRuleRequest } from "../src/bindings/SaveRuleRequest";
import CommandSettings from "../src/components/CommandSettings.svelte";
import DialogHost from "../src/components/DialogHost.svelte";
import RulesList from "../src/components/RulesList.svelte";
import ToolCard from "../src/components/ToolCard.svelte";
import { applyEvent, emptyChat } from "../src/lib/chat";
import { setLanguage } from "../src/lib/i18n.svelte";
import { shownSession } from "../src/lib/shown-session.svelte";
import { ruleRequest } from "../src/lib/rules";

const { call, handlers } = vi.hoisted(() => ({
  call: vi.fn(),
  handlers: new Map<string, (payload: unknown) => void>(),
}));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const { mockedIpc } = await import("./support/ipc-mock");
  return mockedIpc(await importOriginal(), call, handlers);
});

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await tick();
  flushSync();
}

function q(selector: string): HTMLElement {
  const element = document.querySelector<HTMLElement>(selector);
  if (!element) throw new Error(`no ${selector}`);
  return element;
}

function input(selector: string): HTMLInputElement {
  const element = document.querySelector<HTMLInputElement>(selector);
  if (!element) throw new Error(`no ${selector}`);
  return element;
}

function button(selector: string): HTMLButtonElement {
  const element = document.querySelector<HTMLButtonElement>(selector);
  if (!element) throw new Error(`no ${selector}`);
  return element;
}

/** Submits the form of the field `selector`. */
function submit(selector: string): void {
  const form = input(selector).form;
  if (!form) throw new Error(`${selector} has no form`);
  form.requestSubmit();
}

function type(input: HTMLInputElement, value: string): void {
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
}

let component: ReturnType<typeof mount> | null = null;

beforeEach(() => {
  handlers.clear();
  call.mockReset();
});

afterEach(() => {
  if (component) void unmount(component);
  component = null;
  document.body.innerHTML = "";
  setLanguage("system");
});

function commandApproval(id: number, sandbox: "sandboxed" | "network" | "none", scope: string[]): DialogRequest {
  return {
    kind: "approval",
    projectId: 1,
    request: {
      callId: `call_${id}`,
      sessionId: "1",
      tool: "run_command",
      level: "dangerous",
      description: "Run a command.",
      arguments: { command: "cargo test" },
      preview: {
        kind: "command",
        command: "cargo test",
        workdir: "",
        sandbox:
          sandbox === "none"
            ? { kind: "unsandboxed", why: "Commands are not sandboxed on this system: bubblewrap is not installed." }
            : { kind: "sandboxed", network: sandbox === "network" },
      },
      sessionScope: scope,
      reason:
        sandbox === "none"
          ? { kind: "always", why: "Commands are not sandboxed on this system: bubblewrap is not installed." }
          : { kind: "policy" },
    },
  };
}

describe("the approval dialog", () => {
  beforeEach(async () => {
    // The approvals are session "1"'s: shown while that session is.
    shownSession.id = "1";
    call.mockImplementation((command: string) => Promise.resolve(command === "pending_dialogs" ? [] : null));
    component = mount(DialogHost, { target: document.body });
    await vi.waitFor(() => {
      expect(call).toHaveBeenCalledWith("pending_dialogs");
    });
  });

  function open(request: DialogRequest): void {
    const handler = handlers.get("dialog:opened");
    if (!handler) throw new Error("nobody listens");
    handler(request);
    flushSync();
  }

  it("shows the sandbox state and saves a rule for the project with its button", () => {
    open(commandApproval(1, "sandboxed", ["run_command: cargo test"]));
    const badge = q("[data-testid=approval-dialog] [data-testid=sandbox-badge]");
    expect(badge.dataset.sandbox).toBe("sandboxed");
    expect(badge.textContent).toBe("sandboxed");
    const project = button("[data-testid=allow-project]");
    expect(project.disabled).toBe(false);
    expect(project.title).toContain("run_command: cargo test");
    project.click();
    flushSync();
    expect(call).toHaveBeenCalledWith("resolve_approval", { sessionId: "1", callId: "call_1", decision: { decision: "allow_in_project" } });
  });

  it("says a command is not sandboxed, why it asks, and offers only Allow once", () => {
    open(commandApproval(2, "none", []));
    expect(q("[data-testid=sandbox-badge]").dataset.sandbox).toBe("unsandboxed");
    expect(q("[data-testid=sandbox-badge]").title).toContain("bubblewrap is not installed");
    expect(q("[data-testid=approval-why]").dataset.reason).toBe("always");
    expect(q("[data-testid=approval-why]").textContent).toContain("Commands are not sandboxed");
    expect(button("[data-testid=allow-project]").disabled).toBe(true);
    expect(button("[data-testid=allow-session]").disabled).toBe(true);
  });

  it("reads in Chinese", () => {
    setLanguage("zh-CN");
    open(commandApproval(3, "network", ["run_command: cargo test"]));
    expect(q("[data-testid=sandbox-badge]").textContent).toBe("沙箱中运行 · 已联网");
    expect(q("[data-testid=allow-project]").textContent.trim()).toBe("在此项目中始终允许");
  });
});

describe("a tool card", () => {
  it("shows how the command ran and the rule that let it run", () => {
    const started: ChatEvent = {
      projectId: 1,
      seq: 1,
      sessionId: "s",
      event: { type: "tool_call_started", id: "c1", name: "run_command", arguments: "{}" },
    };
    const finished: ChatEvent = {
      projectId: 1,
      seq: 2,
      sessionId: "s",
      event: {
        type: "tool_result",
        id: "c1",
        name: "run_command",
        observation: {
          tool: "run_command",
          text: "[exit 0 in 0.1s]",
          kind: "ok",
          decision: { kind: "allowed_by_rule", by: "rule", detail: "rule 4 (allow run_command: cargo test)", rule: 4 },
          duration: 5,
          truncated: false,
          diff: null,
          sandbox: { kind: "sandboxed", network: false },
        },
      },
    };
    const chat = applyEvent(applyEvent({ ...emptyChat, sessionId: "s" }, started, 1), finished, 1);
    const item = chat.items.find((entry) => entry.kind === "assistant");
    if (item?.kind !== "assistant") throw new Error("no assistant item");
    const card = item.tools[0];
    if (card === undefined) throw new Error("no card");
    expect(card.sandbox).toEqual({ kind: "sandboxed", network: false });
    component = mount(ToolCard, { target: document.body, props: { tool: card, level: "dangerous" } });
    flushSync();
    expect(q("[data-testid=sandbox-badge]").dataset.sandbox).toBe("sandboxed");
    const decider = q("[data-testid=tool-decider]");
    expect(decider.dataset.by).toBe("rule");
    expect(decider.textContent.trim()).toBe("Allowed by rule 4 (allow run_command: cargo test)");
  });
});

describe("the command settings", () => {
  let view: CommandSettingsView;

  beforeEach(() => {
    view = { unsandboxed: null, limits: [], network: false, writable: [], envPass: [] };
    call.mockImplementation((command: string, request?: CommandSettingsView) => {
      if (command === "command_settings") return Promise.resolve(view);
      if (command === "save_command_settings" && request) {
        if (request.envPass.includes("GANTRY_X")) {
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          return Promise.reject({ kind: "invalid_input", message: "GANTRY_X cannot be passed" });
        }
        view = { ...view, ...request };
        return Promise.resolve(view);
      }
      return Promise.reject(new Error(`unexpected ${command}`));
    });
  });

  it("switches the network, adds folders and variables, and removes them", async () => {
    component = mount(CommandSettings, { target: document.body });
    await settle();
    expect(q("[data-testid=commands-sandboxed]").textContent).toContain("OS sandbox");
    input("[data-testid=commands-network]").click();
    await settle();
    expect(call).toHaveBeenLastCalledWith("save_command_settings", { network: true, writable: [], envPass: [] });
    type(input("[data-testid=commands-env-input]"), " DATABASE_URL ");
    submit("[data-testid=commands-env-input]");
    await settle();
    expect(call).toHaveBeenLastCalledWith("save_command_settings", { network: true, writable: [], envPass: ["DATABASE_URL"] });
    expect(q("[data-testid=commands-env]").dataset.name).toBe("DATABASE_URL");
    type(input("[data-testid=commands-writable-input]"), "/srv/cache");
    submit("[data-testid=commands-writable-input]");
    await settle();
    expect(q("[data-testid=commands-writable]").dataset.path).toBe("/srv/cache");
    // A refusal is shown and nothing changes.
    type(input("[data-testid=commands-env-input]"), "GANTRY_X");
    submit("[data-testid=commands-env-input]");
    await settle();
    expect(q("[data-testid=commands-error]").textContent).toContain("GANTRY_X cannot be passed");
    expect(document.querySelectorAll("[data-testid=commands-env]").length).toBe(1);
    button("[data-testid=commands-env] button").click();
    await settle();
    expect(document.querySelectorAll("[data-testid=commands-env]").length).toBe(0);
  });

  it("says plainly when commands are not sandboxed", async () => {
    view = { ...view, unsandboxed: "Commands are not sandboxed on this system: bubblewrap is not installed." };
    component = mount(CommandSettings, { target: document.body });
    await settle();
    expect(q("[data-testid=commands-unsandboxed]").textContent).toBe(
      "Commands are not sandboxed on this system: bubblewrap is not installed.",
    );
    expect(document.querySelector("[data-testid=commands-sandboxed]")).toBeNull();
  });
});

describe("the rules", () => {
  let rules: RuleView[];

  beforeEach(() => {
    rules = [
      { rule: { id: 1, tool: "run_command", pattern: "cargo test", action: "allow" }, label: "allow run_command: cargo test", uses: 3 },
      { rule: { id: 2, tool: "run_command", pattern: "git push", action: "deny" }, label: "deny run_command: git push", uses: 1 },
    ];
    call.mockImplementation((command: string, request?: SaveRuleRequest & { id?: number }) => {
      switch (command) {
        case "tool_rules":
          return Promise.resolve(rules);
        case "save_tool_rule": {
          if (!request) throw new Error("no request");
          const id = request.id ?? 3;
          const label = `${request.spec.action} ${request.spec.tool}: ${request.spec.pattern ?? ""}`;
          rules = [...rules.filter((view) => view.rule.id !== id), { rule: { id, ...request.spec }, label, uses: 0 }];
          return Promise.resolve(rules);
        }
        case "remove_tool_rule":
          rules = rules.filter((view) => view.rule.id !== request?.id);
          return Promise.resolve(rules);
        default:
          return Promise.reject(new Error(`unexpected ${command}`));
      }
    });
  });

  it("lists rules with their uses, adds, edits and removes one", async () => {
    component = mount(RulesList, { target: document.body });
    await settle();
    const listed = document.querySelectorAll<HTMLElement>("[data-testid=tool-rule]");
    expect([...listed].map((row) => row.dataset.pattern)).toEqual(["cargo test", "git push"]);
    expect(q("[data-testid=tool-rule][data-id='1'] [data-testid=rule-uses]").textContent).toBe("decided 3 calls");
    expect(q("[data-testid=tool-rule][data-id='2'] [data-testid=rule-uses]").textContent).toBe("decided 1 call");

    type(input("[data-testid=rule-pattern]"), "  notes/** ");
    type(input("[data-testid=rule-tool]"), "write_file");
    submit("[data-testid=rule-pattern]");
    await settle();
    expect(call).toHaveBeenLastCalledWith("save_tool_rule", { spec: { tool: "write_file", pattern: "notes/**", action: "allow" } });
    expect(document.querySelectorAll("[data-testid=tool-rule]").length).toBe(3);

    button("[data-testid=tool-rule][data-id='2'] [data-testid=rule-edit]").click();
    flushSync();
    expect(input("[data-testid=rule-pattern]").value).toBe("git push");
    type(input("[data-testid=rule-pattern]"), "git push --force");
    submit("[data-testid=rule-pattern]");
    await settle();
    expect(call).toHaveBeenLastCalledWith("save_tool_rule", {
      id: 2,
      spec: { tool: "run_command", pattern: "git push --force", action: "deny" },
    });

    button("[data-testid=tool-rule][data-id='1'] [data-testid=rule-remove]").click();
    await settle();
    expect(call).toHaveBeenLastCalledWith("remove_tool_rule", { id: 1 });
    expect(document.querySelector("[data-testid=tool-rule][data-id='1']")).toBeNull();
  });

  it("sends an empty pattern as the whole tool", () => {
    expect(ruleRequest({ id: null, tool: " mcp__gh__push ", pattern: "  ", action: "deny" })).toEqual({
      spec: { tool: "mcp__gh__push", pattern: null, action: "deny" },
    });
  });
});
