// The Project configuration view: each file with its state, the trust step sending exactly what
// was shown, and the note when a rule allows commands while run_command is off. Backend mocked.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { ConfigReport } from "../src/bindings/ConfigReport";
import ConfigView from "../src/components/ConfigView.svelte";

const { call } = vi.hoisted(() => ({ call: vi.fn() }));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/lib/ipc")>();
  return { ...actual, call };
});

const waiting: ConfigReport = {
  files: [
    {
      source: { path: "/p/.claude/settings.json", shown: ".claude/settings.json", scope: "project" },
      kind: "settings",
      read: ["deny rule Read(./.env)"],
      notUnderstood: ["Write(.decision/**): Claude Code ignores path rules on Write"],
      waitsForTrust: ["allow rule Bash(npm test)", "hook PreToolUse Bash: ./block.sh"],
      sha256: "abc",
      trusted: false,
    },
  ],
};
const trusted: ConfigReport = {
  files: waiting.files.map((file) => ({
    ...file,
    read: [...file.read, ...file.waitsForTrust],
    waitsForTrust: [],
    trusted: true,
  })),
};

let component: ReturnType<typeof mount> | null = null;

afterEach(() => {
  if (component) void unmount(component);
  component = null;
  call.mockReset();
});

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  flushSync();
}

function render(policy: string) {
  call.mockImplementation((command: string) => {
    if (command === "project_config") return Promise.resolve(waiting);
    if (command === "list_tools") return Promise.resolve([{ name: "run_command", policy }]);
    if (command === "trust_project_config") return Promise.resolve(trusted);
    return Promise.reject(new Error(`unexpected ${command}`));
  });
  const handlers = { onclose: vi.fn(), ontrusted: vi.fn(), onopentools: vi.fn() };
  component = mount(ConfigView, { target: document.body, props: handlers });
  flushSync();
  return handlers;
}

describe("the Project configuration view", () => {
  it("lists each file and trusts exactly what it showed", async () => {
    const handlers = render("ask");
    await settle();
    const file = document.querySelector<HTMLElement>("[data-testid=config-file]");
    expect(file?.dataset.state).toBe("waits");
    expect(file?.textContent).toContain("Write(.decision/**)");
    const step = document.querySelector("[data-testid=config-trust-step]")?.textContent ?? "";
    expect(step).toContain("allow rule Bash(npm test)");
    expect(step).toContain("hook PreToolUse Bash: ./block.sh");
    expect(document.querySelector("[data-testid=config-commands-off]")).toBeNull();

    document.querySelector<HTMLButtonElement>("[data-testid=config-trust]")?.click();
    await settle();
    expect(call).toHaveBeenCalledWith("trust_project_config", {
      files: [{ path: "/p/.claude/settings.json", sha256: "abc" }],
    });
    expect(handlers.ontrusted).toHaveBeenCalled();
    expect(document.querySelector("[data-testid=config-trusted]")).not.toBeNull();
    expect(document.querySelector("[data-testid=config-trust-step]")).toBeNull();
    expect(document.querySelector<HTMLElement>("[data-testid=config-file]")?.dataset.state).toBe("applies");
  });

  it("says a rule allowing commands does not turn run_command on, and offers the switch", async () => {
    const handlers = render("disabled");
    await settle();
    expect(document.querySelector("[data-testid=config-commands-off]")?.textContent).toContain("run_command is off");
    document.querySelector<HTMLButtonElement>("[data-testid=config-open-tools]")?.click();
    expect(handlers.onopentools).toHaveBeenCalled();
  });
});
