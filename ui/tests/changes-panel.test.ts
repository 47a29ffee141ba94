// The Changes panel: files with their hunks, a revert stopped by a conflict and the user's
// choice, the undo of what was just restored, the turns, and a tool card marked "reverted".
// Backend mocked.

import { flushSync, mount, tick, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ChangesView } from "../src/bindings/ChangesView";
import ChangesPanel from "../src/components/ChangesPanel.svelte";
import ToolCard from "../src/components/ToolCard.svelte";
import { changes } from "../src/lib/changes-state.svelte";
import { setLanguage } from "../src/lib/i18n.svelte";

const { call, on } = vi.hoisted(() => ({ call: vi.fn(), on: vi.fn() }));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/lib/ipc")>();
  return { ...actual, call, on };
});

const twoHunks = [
  "--- a/a.txt",
  "+++ b/a.txt",
  "@@ -1,2 +1,2 @@",
  "-one",
  "+1",
  " two",
  "@@ -30,2 +30,2 @@",
  " thirty",
  "-end",
  "+END",
  "",
].join("\n");

function view(reverted: string[] = []): ChangesView {
  return {
    sessionId: "4",
    files: [
      { path: "a.txt", kind: "modified", diff: twoHunks, note: null, additions: 2, deletions: 2, editedSince: true, tools: ["edit_file"] },
      { path: "logo.png", kind: "created", diff: null, note: "binary", additions: 0, deletions: 0, editedSince: false, tools: ["run_command"] },
    ],
    turns: [{ number: 1, ordinal: 0, title: "fix it", reverted: false, files: [] }],
    restores: [],
    revertedCalls: reverted,
  };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 6; i += 1) await tick();
  flushSync();
}

function all(selector: string): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>(selector)];
}

function q(selector: string): HTMLElement {
  const element = document.querySelector<HTMLElement>(selector);
  if (!element) throw new Error(`no ${selector}`);
  return element;
}

let component: ReturnType<typeof mount> | null = null;

beforeEach(() => {
  call.mockReset();
  on.mockReset();
  on.mockResolvedValue(() => undefined);
  changes.clear();
});

afterEach(() => {
  if (component) void unmount(component);
  component = null;
  document.body.innerHTML = "";
  setLanguage("system");
});

describe("the Changes panel", () => {
  it("lists the files with their hunks, asks on a conflict and offers to undo", async () => {
    const reverts: unknown[] = [];
    call.mockImplementation((command: string, request?: { target: unknown; onConflict: string }) => {
      switch (command) {
        case "changes_view":
          return Promise.resolve(view());
        case "chat_branches":
          return Promise.resolve([]);
        case "revert_changes": {
          reverts.push(request);
          if (request?.onConflict === "refuse") {
            return Promise.resolve({
              report: { applied: false, restored: [], conflicts: [{ path: "a.txt", reason: "edited_since" }], unrestorable: [], failed: [], restoreId: null },
              changes: view(),
            });
          }
          return Promise.resolve({
            report: { applied: true, restored: ["a.txt"], conflicts: [{ path: "a.txt", reason: "edited_since" }], unrestorable: [], failed: [], restoreId: "9" },
            changes: view(["call_1"]),
          });
        }
        default:
          return Promise.reject(new Error(`unexpected ${command}`));
      }
    });
    component = mount(ChangesPanel, { target: document.body, props: { onclose: () => undefined } });
    await settle();

    expect(q("[data-testid=changes-count]").dataset.count).toBe("2");
    const files = all("[data-testid=change-file]");
    expect(files.map((file) => file.dataset.path)).toEqual(["a.txt", "logo.png"]);
    expect(files[0]?.dataset.edited).toBe("true");
    expect(files[0]?.querySelectorAll("[data-testid=change-hunk]")).toHaveLength(2);
    expect(q("[data-testid=change-note]").dataset.note).toBe("binary");

    const hunkButtons = files[0]?.querySelectorAll<HTMLButtonElement>("[data-testid=revert-hunk]");
    hunkButtons?.[1]?.click();
    await settle();
    expect(reverts[0]).toEqual({ target: { scope: "hunk", path: "a.txt", hunk: 1 }, onConflict: "refuse" });
    expect(q("[data-testid=conflict-file]").dataset.reason).toBe("edited_since");

    q("[data-testid=conflict-overwrite]").click();
    await settle();
    expect(reverts[1]).toEqual({ target: { scope: "hunk", path: "a.txt", hunk: 1 }, onConflict: "overwrite" });
    expect(document.querySelector("[data-testid=conflict-notice]")).toBeNull();
    expect(q("[data-testid=changes-done]").textContent).toContain("Restored 1 file.");

    q("[data-testid=changes-undo]").click();
    await settle();
    expect(reverts[2]).toEqual({ target: { scope: "undo", restoreId: "9" }, onConflict: "refuse" });

    q("[data-testid=changes-tab-turns]").click();
    await settle();
    const turn = q("[data-testid=change-turn]");
    expect(turn.dataset.number).toBe("1");
    turn.querySelector<HTMLButtonElement>("[data-testid=revert-turn]")?.click();
    await settle();
    expect(reverts[3]).toEqual({ target: { scope: "turn", number: 1 }, onConflict: "refuse" });
  });

  it("marks a tool card whose change was undone", async () => {
    changes.show(view(["call_1"]));
    const tool = {
      id: "call_1",
      name: "edit_file",
      arguments: "{}",
      status: "ok" as const,
      result: "[ok]",
      durationMs: 3,
      truncated: false,
      diff: null,
      reason: null,
      progress: null,
      decision: null,
    };
    component = mount(ToolCard, { target: document.body, props: { tool, level: "sensitive" } });
    await settle();
    expect(document.querySelector("[data-testid=tool-reverted]")).not.toBeNull();
    changes.show(view());
    await settle();
    expect(document.querySelector("[data-testid=tool-reverted]")).toBeNull();
  });
});
