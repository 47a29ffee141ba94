// The rules of the project's Claude Code settings (`.claude/settings*.json`,
// `~/.claude/settings.json`) as the Tools panel lists them: read-only, each with its file and
// whether it applies, waits for the user's trust of the project's configuration, or is not
// understood; "Copy to Gantry's rules" saves Gantry's own counterpart (allow and deny only).

import type { ExternalRuleView } from "../bindings/ExternalRuleView";
import type { SaveRuleRequest } from "../bindings/SaveRuleRequest";
import { t } from "./i18n.svelte";

/** Whether a rule takes part in decisions. */
export type ExternalRuleState = "applies" | "waits" | "not_understood";

/** The rule's state: not understood (never matches), waiting for trust, or applying. */
export function ruleState(view: ExternalRuleView): ExternalRuleState {
  if (view.rule.form.kind === "not_understood") return "not_understood";
  return view.rule.waitsForTrust ? "waits" : "applies";
}

/** The state in the UI's language, with the reason of a rule not understood. */
export function stateLabel(view: ExternalRuleView): string {
  const form = view.rule.form;
  if (form.kind === "not_understood") return t("externalRules.notUnderstood", { reason: form.reason });
  return view.rule.waitsForTrust ? t("externalRules.waits") : t("externalRules.applies");
}

/** "deny", "ask", "allow" in the UI's language. */
export function externalActionLabel(view: ExternalRuleView): string {
  switch (view.rule.action) {
    case "deny":
      return t("rules.deny");
    case "ask":
      return t("externalRules.ask");
    case "allow":
      return t("rules.allow");
  }
}

/** The requests "Copy to Gantry's rules" sends, one per Gantry rule (none: see `copyNote`). */
export function copyRequests(view: ExternalRuleView): SaveRuleRequest[] {
  return view.copy.map((spec) => ({ spec }));
}

/** True when a rule allows commands (`Bash`, `Bash(...)`). */
export function allowsCommands(view: ExternalRuleView): boolean {
  if (view.rule.action !== "allow") return false;
  const form = view.rule.form;
  return form.kind === "command" || (form.kind === "tools" && form.tools.includes("run_command"));
}

/**
 * Whether to say that a rule does not enable run_command: some rule allows commands while the
 * tool is disabled (`commandsDisabled` from the tool list; the backend's flag when unknown).
 */
export function showCommandNote(views: ExternalRuleView[], commandsDisabled: boolean | undefined, backendFlag: boolean): boolean {
  if (commandsDisabled === undefined) return backendFlag;
  return commandsDisabled && views.some(allowsCommands);
}
