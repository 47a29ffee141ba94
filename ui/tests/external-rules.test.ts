// The Tools panel's rules from Claude Code settings: listed read-only with their file and
// state, copied into Gantry's rules, and the note when a rule allows commands while
// run_command is disabled. Backend mocked.

import { flushSync, mount, tick, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ExternalRulesView } from "../src/bindings/ExternalRulesView";
import type { ExternalRuleView } from "../src/bindings/ExternalRuleView";
import type { RuleView } from "../src/bindings/RuleView";
import type { SaveRuleRequest } from "../src/bindings/SaveRuleRequest";
import ExternalRules from "../src/components/ExternalRules.svelte";
import { deciderLabel, describeDecision } from "../src/lib/audit";
import { decidedBy } from "../src/lib/call-words";
import { allowsCommands, copyRequests, ruleState, showCommandNote, stateLabel } from "../src/lib/external-rules";
import { setLanguage } from "../src/lib/i18n.svelte";

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

const deny: ExternalRuleView = {
  rule: { source: ".claude/settings.json", action: "deny", text: "Bash(git push *)", form: { kind: "command", pattern: "git push *" }, waitsForTrust: false },
  copy: [{ tool: "run_command", pattern: "git push", action: "deny" }],
};
const waiting: ExternalRuleView = {
  rule: { source: ".claude/settings.json", action: "allow", text: "Bash(npm run test:*)", form: { kind: "command", pattern: "npm run test:*" }, waitsForTrust: true },
  copy: [{ tool: "run_command", pattern: "npm run test", action: "allow" }],
};
const odd: ExternalRuleView = {
  rule: { source: "~/.claude/settings.json", action: "allow", text: "Write(x/**)", form: { kind: "not_understood", reason: "Claude Code ignores path rules on this tool" }, waitsForTrust: false },
  copy: [],
  copyNote: "not understood: Claude Code ignores path rules on this tool",
};
const ask: ExternalRuleView = {
  rule: { source: ".claude/settings.local.json", action: "ask", text: "Edit", form: { kind: "tools", tools: ["write_file", "edit_file"] }, waitsForTrust: false },
  copy: [],
  copyNote: "Gantry's rules allow or deny",
};

describe("external rules logic", () => {
  beforeEach(() => {
    setLanguage("en");
  });

  it("tells applying, waiting and not understood rules apart", () => {
    expect([deny, waiting, odd, ask].map(ruleState)).toEqual(["applies", "waits", "not_understood", "applies"]);
    expect(stateLabel(odd)).toBe("not understood, never applies: Claude Code ignores path rules on this tool");
    expect(stateLabel(waiting)).toContain("trust");
  });

  it("copies one request per Gantry rule and none for an ask rule", () => {
    expect(copyRequests(deny)).toEqual([{ spec: { tool: "run_command", pattern: "git push", action: "deny" } }]);
    expect(copyRequests(ask)).toEqual([]);
  });

  it("names a Claude Code rule that decided a call, in the audit and on the tool card", () => {
    expect(deciderLabel("external_rule")).toBe("a Claude Code settings rule");
    const detail = "allow rule Bash(npm test) of .claude/settings.json";
    expect(describeDecision({ kind: "allowed_by_rule", by: "external_rule", detail, source: ".claude/settings.json" })).toContain(detail);
    expect(decidedBy({ kind: "allowed_by_rule", by: "external_rule", detail, source: ".claude/settings.json" }, "run_command", "dangerous")).toEqual({
      key: "decidedBy.rule",
      params: { rule: detail },
    });
  });

  it("notes a command allow rule only while run_command is disabled", () => {
    expect(allowsCommands(waiting)).toBe(true);
    expect(allowsCommands(deny)).toBe(false);
    expect(showCommandNote([deny, waiting], true, false)).toBe(true);
    expect(showCommandNote([deny, waiting], false, true)).toBe(false);
    expect(showCommandNote([deny], true, false)).toBe(false);
    expect(showCommandNote([deny, waiting], undefined, true)).toBe(true);
  });
});

describe("ExternalRules", () => {
  let component: ReturnType<typeof mount> | null = null;
  let saved: SaveRuleRequest[] = [];

  beforeEach(() => {
    setLanguage("en");
    handlers.clear();
    call.mockReset();
    saved = [];
    const view: ExternalRulesView = { rules: [deny, waiting, odd, ask], commandRuleWhileDisabled: true };
    call.mockImplementation((command: string, request?: SaveRuleRequest) => {
      switch (command) {
        case "external_tool_rules":
          return Promise.resolve(view);
        case "save_tool_rule": {
          if (!request) throw new Error("no request");
          saved.push(request);
          const rules: RuleView[] = saved.map((one, index) => ({ rule: { id: index + 1, ...one.spec }, label: "", uses: 0 }));
          return Promise.resolve(rules);
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

  it("lists every rule with its file and state, copies one, and offers to turn commands on", async () => {
    const copied: RuleView[][] = [];
    const enable = vi.fn();
    component = mount(ExternalRules, {
      target: document.body,
      props: { oncopied: (rules: RuleView[]) => copied.push(rules), commandsDisabled: true, onenablecommands: enable },
    });
    await settle();
    const rows = [...document.querySelectorAll<HTMLElement>("[data-testid=external-rule]")];
    expect(rows.map((row) => [row.dataset.source, row.dataset.action, row.dataset.state])).toEqual([
      [".claude/settings.json", "deny", "applies"],
      [".claude/settings.json", "allow", "waits"],
      ["~/.claude/settings.json", "allow", "not_understood"],
      [".claude/settings.local.json", "ask", "applies"],
    ]);
    expect(rows[2]?.querySelector("[data-testid=external-rule-copy]")).toBeNull();
    expect(rows[3]?.querySelector("[data-testid=external-rule-copy-note]")?.textContent).toContain("allow or deny");

    rows[0]?.querySelector<HTMLButtonElement>("[data-testid=external-rule-copy]")?.click();
    await settle();
    expect(call).toHaveBeenLastCalledWith("save_tool_rule", { spec: { tool: "run_command", pattern: "git push", action: "deny" } });
    expect(copied).toHaveLength(1);

    expect(document.querySelector("[data-testid=external-command-note]")?.textContent).toContain("does not turn it on");
    document.querySelector<HTMLButtonElement>("[data-testid=external-enable-commands]")?.click();
    expect(enable).toHaveBeenCalledOnce();
  });

  it("says nothing about commands once run_command is on", async () => {
    component = mount(ExternalRules, { target: document.body, props: { oncopied: () => undefined, commandsDisabled: false } });
    await settle();
    expect(document.querySelectorAll("[data-testid=external-rule]")).toHaveLength(4);
    expect(document.querySelector("[data-testid=external-command-note]")).toBeNull();
  });
});
