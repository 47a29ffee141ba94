// The rules of the Tools panel: the form that adds or edits one, and how a rule reads.

import type { RuleAction } from "../bindings/RuleAction";
import type { RuleView } from "../bindings/RuleView";
import type { SaveRuleRequest } from "../bindings/SaveRuleRequest";
import { t } from "./i18n.svelte";

/** The add/edit form: which rule (null: a new one), tool, pattern, action. */
export interface RuleForm {
  id: number | null;
  tool: string;
  pattern: string;
  action: RuleAction;
}

export const EMPTY_RULE: RuleForm = { id: null, tool: "run_command", pattern: "", action: "allow" };

/** The form filled with `view`'s rule, to edit it. */
export function formOf(view: RuleView): RuleForm {
  return { id: view.rule.id, tool: view.rule.tool, pattern: view.rule.pattern ?? "", action: view.rule.action };
}

/** The request the form sends: trimmed, an empty pattern meaning the whole tool. */
export function ruleRequest(form: RuleForm): SaveRuleRequest {
  const pattern = form.pattern.trim();
  const spec = { tool: form.tool.trim(), pattern: pattern === "" ? null : pattern, action: form.action };
  return form.id === null ? { spec } : { id: form.id, spec };
}

/** "allow", "deny" in the UI's language. */
export function actionLabel(action: RuleAction): string {
  return action === "allow" ? t("rules.allow") : t("rules.deny");
}

/** What the rule covers: its pattern, or "(whole tool)". */
export function patternLabel(view: RuleView): string {
  return view.rule.pattern ?? t("rules.wholeTool");
}
