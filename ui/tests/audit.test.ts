import { afterEach, describe, expect, it } from "vitest";

import {
  auditRequest,
  DECISIONS,
  decisionLabel,
  deciderLabel,
  describeDecision,
  EMPTY_FILTER,
  formatTime,
  isFiltered,
  OUTCOMES,
  outcomeLabel,
  parseDecision,
  parseOutcome,
  toolNames,
} from "../src/lib/audit";
import { setLanguage } from "../src/lib/i18n.svelte";

describe("the audit filter", () => {
  it("asks for everything when nothing is chosen", () => {
    expect(auditRequest(EMPTY_FILTER)).toEqual({});
    expect(isFiltered(EMPTY_FILTER)).toBe(false);
  });

  it("sends only the fields that narrow", () => {
    expect(auditRequest({ tool: " write_file ", decision: "denied", outcome: "" })).toEqual({
      tool: "write_file",
      decision: "denied",
    });
    expect(auditRequest({ tool: "", decision: "", outcome: "bad_arguments" }, 50)).toEqual({
      outcome: "bad_arguments",
      limit: 50,
    });
    expect(isFiltered({ tool: "  ", decision: "", outcome: "" })).toBe(false);
    expect(isFiltered({ tool: "", decision: "auto", outcome: "" })).toBe(true);
  });

  it("parses the selects' values, anything unknown meaning any", () => {
    expect(parseDecision("allowed_for_session")).toBe("allowed_for_session");
    expect(parseDecision("")).toBe("");
    expect(parseDecision("maybe")).toBe("");
    expect(parseOutcome("cancelled")).toBe("cancelled");
    expect(parseOutcome("nope")).toBe("");
  });
});

describe("audit labels", () => {
  it("read as words", () => {
    expect(DECISIONS.map(decisionLabel)).toEqual([
      "auto",
      "allowed once",
      "allowed for session",
      "allowed by rule",
      "denied",
      "disabled",
      "not evaluated",
    ]);
    expect(OUTCOMES.map(outcomeLabel)).toContain("bad arguments");
    expect(deciderLabel("session_grant")).toBe("session grant");
    expect(deciderLabel("hook")).toBe("a hook");
  });

  it("say who decided and why", () => {
    expect(describeDecision({ kind: "denied", by: "user", detail: "not today" })).toBe("denied by you: not today");
    expect(describeDecision({ kind: "auto", by: "policy", detail: null })).toBe("auto by project policy");
    expect(describeDecision({ kind: "allowed_for_session", by: "session_grant", detail: "write_file" })).toBe(
      "allowed for session by session grant: write_file",
    );
    expect(
      describeDecision({ kind: "allowed_by_rule", by: "rule", detail: "rule 3 (allow run_command: cargo test)", rule: 3 }),
    ).toBe("allowed by rule by rule 3: rule 3 (allow run_command: cargo test)");
  });

  it("list tool names once, sorted, and format times", () => {
    expect(toolNames([{ tool: "write_file" }, { tool: "read_file" }, { tool: "write_file" }])).toEqual([
      "read_file",
      "write_file",
    ]);
    const local = new Date(2026, 11, 3, 9, 5, 7).getTime();
    expect(formatTime(local)).toBe("2026-12-03 09:05:07");
  });
});

describe("audit labels in Chinese", () => {
  afterEach(() => {
    setLanguage("system");
  });

  it("name decisions, outcomes and deciders, the engine's detail kept as it came", () => {
    setLanguage("zh-CN");
    expect(DECISIONS.map(decisionLabel)).toEqual(["自动", "允许一次", "在本次会话中允许", "按规则允许", "已拒绝", "已禁用", "未评估"]);
    expect(OUTCOMES.map(outcomeLabel)).toEqual(["成功", "出错", "已拒绝", "已禁用", "参数无效", "已取消"]);
    expect(describeDecision({ kind: "denied", by: "user", detail: "not today" })).toBe("已拒绝（你）：not today");
    expect(describeDecision({ kind: "auto", by: "policy", detail: null })).toBe("自动（项目策略）");
    expect(describeDecision({ kind: "not_evaluated", by: "engine", detail: null })).toBe("未评估（Gantry）");
  });
});
