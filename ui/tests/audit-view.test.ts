// The audit view: rows from `audit_log`, filters sent to the backend, rows that open to their
// arguments and result, export, Esc. Backend mocked.

import { flushSync, mount, tick, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { AuditEntryView } from "../src/bindings/AuditEntryView";
import type { AuditRequest } from "../src/bindings/AuditRequest";
import AuditView from "../src/components/AuditView.svelte";
import { setLanguage } from "../src/lib/i18n.svelte";

const { call } = vi.hoisted(() => ({ call: vi.fn() }));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/lib/ipc")>();
  return { ...actual, call };
});

function entry(id: number, tool: string, kind: AuditEntryView["decision"]["kind"], outcome: AuditEntryView["outcome"]): AuditEntryView {
  return {
    id,
    sessionId: "3",
    sessionTitle: "Fix the build",
    tool,
    level: "sensitive",
    arguments: { path: `${tool}.txt` },
    decision: { kind, by: "user", detail: null },
    outcome,
    durationMs: 12,
    resultExcerpt: `[${outcome}] result of ${id}`,
    startedAt: 1_700_000_000_000 + id,
  };
}

const entries = [entry(3, "run_command", "disabled", "disabled"), entry(2, "write_file", "denied", "denied"), entry(1, "write_file", "allowed_once", "ok")];

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await tick();
  flushSync();
}

function rows(): string[][] {
  return [...document.querySelectorAll<HTMLElement>("[data-testid=audit-row]")].map((row) => [
    row.dataset.tool ?? "",
    row.dataset.decision ?? "",
    row.dataset.outcome ?? "",
  ]);
}

function select(testId: string, value: string): void {
  const element = document.querySelector<HTMLSelectElement>(`[data-testid=${testId}]`);
  if (!element) throw new Error(`no ${testId}`);
  element.value = value;
  element.dispatchEvent(new Event("change", { bubbles: true }));
  flushSync();
}

let component: ReturnType<typeof mount> | null = null;

beforeEach(() => {
  call.mockReset();
  call.mockImplementation((command: string, request?: AuditRequest) => {
    switch (command) {
      case "list_tools":
        return Promise.resolve([]);
      case "audit_log":
        return Promise.resolve(
          entries.filter(
            (candidate) =>
              (request?.decision === undefined || candidate.decision.kind === request.decision) &&
              (request?.tool === undefined || candidate.tool === request.tool) &&
              (request?.outcome === undefined || candidate.outcome === request.outcome),
          ),
        );
      case "export_audit":
        return Promise.resolve({ path: "/tmp/audit.jsonl", count: 3 });
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

describe("the audit view", () => {
  it("lists the calls and filters them through the backend", async () => {
    component = mount(AuditView, { target: document.body, props: { onclose: () => undefined } });
    await settle();
    expect(call).toHaveBeenCalledWith("audit_log", {});
    expect(rows()).toEqual([
      ["run_command", "disabled", "disabled"],
      ["write_file", "denied", "denied"],
      ["write_file", "allowed_once", "ok"],
    ]);
    expect(document.body.textContent).toContain("Fix the build");
    const options = [...document.querySelectorAll<HTMLOptionElement>("[data-testid=audit-filter-tool] option")].map((o) => o.value);
    expect(options).toEqual(["", "run_command", "write_file"]);

    select("audit-filter-decision", "denied");
    await settle();
    expect(call).toHaveBeenLastCalledWith("audit_log", { decision: "denied" });
    expect(rows()).toEqual([["write_file", "denied", "denied"]]);

    select("audit-filter-decision", "");
    select("audit-filter-tool", "write_file");
    select("audit-filter-outcome", "ok");
    await settle();
    expect(call).toHaveBeenLastCalledWith("audit_log", { tool: "write_file", outcome: "ok" });
    expect(rows()).toEqual([["write_file", "allowed_once", "ok"]]);
    expect(document.querySelector("[data-testid=audit-result]")?.textContent).toBe("[ok] result of 1");
  });

  it("exports what the filters select and closes on Esc", async () => {
    const onclose = vi.fn();
    component = mount(AuditView, { target: document.body, props: { onclose } });
    await settle();
    select("audit-filter-outcome", "denied");
    await settle();
    document.querySelector<HTMLButtonElement>("[data-testid=audit-export]")?.click();
    await settle();
    expect(call).toHaveBeenCalledWith("export_audit", { outcome: "denied" });
    expect(document.querySelector("[data-testid=audit-exported]")?.textContent).toContain("Exported 3 calls to /tmp/audit.jsonl");
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", cancelable: true }));
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it("reads in Chinese: the count, the filters' labels, each row's decision and outcome, the export", async () => {
    setLanguage("zh-CN");
    component = mount(AuditView, { target: document.body, props: { onclose: () => undefined } });
    await settle();
    expect(document.querySelector("#audit-title")?.textContent).toBe("审计日志");
    expect(document.querySelector("[data-testid=audit-count]")?.textContent).toBe("3 次调用");
    const decisions = [...document.querySelectorAll<HTMLOptionElement>("[data-testid=audit-filter-decision] option")];
    expect(decisions.map((option) => option.textContent)).toEqual(["全部", "自动", "允许一次", "在本次会话中允许", "按规则允许", "已拒绝", "已禁用", "未评估"]);
    const first = document.querySelector<HTMLElement>("[data-testid=audit-row][data-id='2']");
    expect(first?.querySelector(".decision")?.textContent).toBe("已拒绝（你）");
    expect(first?.querySelector(".chip")?.textContent).toBe("已拒绝");
    expect(first?.querySelector(".duration")?.textContent).toBe("12 毫秒");

    select("audit-filter-outcome", "denied");
    await settle();
    expect(document.querySelector("[data-testid=audit-count]")?.textContent).toBe("1 次调用（已筛选）");
    document.querySelector<HTMLButtonElement>("[data-testid=audit-export]")?.click();
    await settle();
    expect(document.querySelector("[data-testid=audit-exported]")?.textContent).toBe("已将 3 次调用导出到 /tmp/audit.jsonl");
    // The English singular, for comparison.
    setLanguage("en");
    flushSync();
    expect(document.querySelector("[data-testid=audit-count]")?.textContent).toBe("1 call (filtered)");
  });
});
