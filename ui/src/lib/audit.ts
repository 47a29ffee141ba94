// The audit view's logic: the filter form → the `audit_log` request, and the labels of
// decisions, deciders and outcomes.

import type { AuditRequest } from "../bindings/AuditRequest";
import type { Decider } from "../bindings/Decider";
import type { Decision } from "../bindings/Decision";
import type { DecisionKind } from "../bindings/DecisionKind";
import type { ObservationKind } from "../bindings/ObservationKind";
import { t } from "./i18n.svelte";
import type { MessageKey } from "./locales/en";

/** The filter selects; `""` means any. */
export interface AuditFilterForm {
  tool: string;
  decision: DecisionKind | "";
  outcome: ObservationKind | "";
}

export const EMPTY_FILTER: AuditFilterForm = { tool: "", decision: "", outcome: "" };

/** Every decision, in the order the filter lists them. */
export const DECISIONS: readonly DecisionKind[] = [
  "auto",
  "allowed_once",
  "allowed_for_session",
  "allowed_by_rule",
  "denied",
  "disabled",
  "not_evaluated",
];

/** Every outcome, in the order the filter lists them. */
export const OUTCOMES: readonly ObservationKind[] = ["ok", "error", "denied", "disabled", "bad_arguments", "cancelled"];

/** The request for `form`: only the fields that narrow (an empty form asks for everything). */
export function auditRequest(form: AuditFilterForm, limit?: number): AuditRequest {
  const request: AuditRequest = {};
  const tool = form.tool.trim();
  if (tool !== "") request.tool = tool;
  if (form.decision !== "") request.decision = form.decision;
  if (form.outcome !== "") request.outcome = form.outcome;
  if (limit !== undefined) request.limit = limit;
  return request;
}

/** True when the form narrows anything. */
export function isFiltered(form: AuditFilterForm): boolean {
  return form.tool.trim() !== "" || form.decision !== "" || form.outcome !== "";
}

/** Parses a select's value into a decision kind ("" for any or anything unknown). */
export function parseDecision(value: string): DecisionKind | "" {
  return (DECISIONS as readonly string[]).includes(value) ? (value as DecisionKind) : "";
}

/** Parses a select's value into an outcome ("" for any or anything unknown). */
export function parseOutcome(value: string): ObservationKind | "" {
  return (OUTCOMES as readonly string[]).includes(value) ? (value as ObservationKind) : "";
}

const DECISION_LABELS: Readonly<Record<DecisionKind, MessageKey>> = {
  auto: "decision.auto",
  allowed_once: "decision.allowedOnce",
  allowed_for_session: "decision.allowedForSession",
  allowed_by_rule: "decision.allowedByRule",
  denied: "decision.denied",
  disabled: "decision.disabled",
  not_evaluated: "decision.notEvaluated",
};

const OUTCOME_LABELS: Readonly<Record<ObservationKind, MessageKey>> = {
  ok: "outcome.ok",
  error: "outcome.error",
  denied: "outcome.denied",
  disabled: "outcome.disabled",
  bad_arguments: "outcome.badArguments",
  cancelled: "outcome.cancelled",
};

/** "auto", "allowed once", "allowed for session", "denied", "disabled", "not evaluated". */
export function decisionLabel(kind: DecisionKind): string {
  return t(DECISION_LABELS[kind]);
}

/** "ok", "error", "bad arguments", ... (a tool card's ended states read the same). */
export function outcomeLabel(kind: ObservationKind): string {
  return t(OUTCOME_LABELS[kind]);
}

/** Who decided, as a sentence fragment (`rule` is the id of the rule that decided, if any). */
export function deciderLabel(by: Decider, rule?: number): string {
  switch (by) {
    case "rule":
      return t("decider.rule", { id: rule ?? "?" });
    case "external_rule":
      return t("decider.externalRule");
    case "policy":
      return t("decider.policy");
    case "session_grant":
      return t("decider.sessionGrant");
    case "user":
      return t("decider.user");
    case "no_approver":
      return t("decider.noApprover");
    case "hook":
      return t("decider.hook");
    case "engine":
      // A name: the same in every language.
      return "Gantry";
  }
}

/** "denied by you: not today", "auto by project policy" (the detail is the engine's words). */
export function describeDecision(decision: Decision): string {
  const params = { decision: decisionLabel(decision.kind), decider: deciderLabel(decision.by, decision.rule) };
  return decision.detail
    ? t("audit.decidedByWithDetail", { ...params, detail: decision.detail })
    : t("audit.decidedBy", params);
}

/** The unique tool names of `entries`, sorted (for the tool filter). */
export function toolNames(entries: readonly { tool: string }[]): string[] {
  return [...new Set(entries.map((entry) => entry.tool))].sort((a, b) => a.localeCompare(b));
}

/** "2026-12-03 12:47:40" in local time. */
export function formatTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number): string => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
