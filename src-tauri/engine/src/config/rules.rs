//! Claude Code's permission rules (`.claude/settings*.json`) in the project's gate.
//!
//! The rules are read when the project opens ([`crate::project::open::open_tools`]) and again
//! at the start of every turn of the app's chat (three small files and one trust query: cheaper
//! and simpler than a watcher, and a rule edited between turns applies on the next one). The
//! lead's trust step calls [`reload_external_rules`] right after the user trusts the project's
//! configuration, so its allow rules apply at once. The Tools panel lists them with
//! [`external_rules_view`].

use gantry_config::ConfigReport;
use gantry_config::permissions::claude_permissions;
use gantry_store::{ProjectId, Store};
use gantry_tools::{
    ExternalAction, ExternalRule, Policy, RuleAction, RuleForm, RuleSpec, ToolManager,
};
use serde::Serialize;

use super::{locations, trusted_files};

/// Reads the rules of the three settings files with the project's trusted files into the
/// manager's rule book, and returns what each file gave.
pub async fn reload_external_rules(
    store: &Store,
    project: ProjectId,
    tools: &ToolManager,
) -> ConfigReport {
    let at = locations(tools.root());
    let trusted = trusted_files(store, project).await;
    let read = tokio::task::spawn_blocking(move || claude_permissions(&at, &trusted)).await;
    match read {
        Ok(read) => {
            tools.rules().replace_external(read.rules);
            read.report
        }
        Err(error) => {
            // Keep what the book holds: dropping deny rules would widen.
            tracing::warn!(%error, "reading the Claude Code rules failed");
            ConfigReport::default()
        }
    }
}

/// One external rule as the Tools panel lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ExternalRuleView {
    /// The rule: its file, action, text, form, and whether it waits for trust.
    pub rule: ExternalRule,
    /// The rules of Gantry's own that "Copy to Gantry's rules" saves (empty: see `copyNote`).
    pub copy: Vec<RuleSpec>,
    /// Why it cannot be copied, when `copy` is empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub copy_note: Option<String>,
}

/// The external rules of a project, for the Tools panel and `gantry-cli tools rules list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ExternalRulesView {
    /// Every rule, understood or not, in file order.
    pub rules: Vec<ExternalRuleView>,
    /// True when an allow rule about commands exists while run_command is disabled: the rule
    /// does not enable the tool (the panel says so and offers the switch).
    pub command_rule_while_disabled: bool,
}

/// The rules the manager holds now, with what copying each would save.
pub fn external_rules_view(tools: &ToolManager) -> ExternalRulesView {
    let rules = tools.rules().external().list().to_vec();
    let command_rule_while_disabled = tools.policy("run_command").ok() == Some(Policy::Disabled)
        && rules.iter().any(|rule| {
            rule.action == ExternalAction::Allow
                && match &rule.form {
                    RuleForm::Command { .. } => true,
                    RuleForm::Tools { tools } => tools.iter().any(|tool| tool == "run_command"),
                    _ => false,
                }
        });
    ExternalRulesView {
        rules: rules
            .into_iter()
            .map(|rule| {
                let (copy, copy_note) = match copy_of(&rule, tools) {
                    Ok(copy) => (copy, None),
                    Err(note) => (Vec::new(), Some(note)),
                };
                ExternalRuleView {
                    rule,
                    copy,
                    copy_note,
                }
            })
            .collect(),
        command_rule_while_disabled,
    }
}

/// What "Copy to Gantry's rules" saves for `rule`, or why nothing can be.
///
/// Gantry's own rules are allow or deny, keyed by command key (run_command) or by a
/// project-relative glob (write_file, edit_file), or about a whole tool. An ask rule has no
/// counterpart (a tool's Ask policy asks already; the rule keeps asking every time while its
/// file has it). A command pattern copies when it is a plain command, optionally with a
/// trailing ` *` or `:*` (`Bash(git push *)` → `git push`): a deny rule of Gantry's refuses
/// those words anywhere in a command, an allow rule covers exactly that command key.
pub fn copy_of(rule: &ExternalRule, tools: &ToolManager) -> Result<Vec<RuleSpec>, String> {
    let action = match rule.action {
        ExternalAction::Allow => RuleAction::Allow,
        ExternalAction::Deny => RuleAction::Deny,
        ExternalAction::Ask => {
            return Err(
                "Gantry's rules allow or deny; an ask rule keeps asking every time \
                        from its file, and a tool's Ask policy asks already"
                    .into(),
            );
        }
    };
    let spec = |tool: &str, pattern: Option<String>| RuleSpec {
        tool: tool.to_owned(),
        pattern,
        action,
    };
    match &rule.form {
        RuleForm::Tools { tools } => Ok(tools.iter().map(|tool| spec(tool, None)).collect()),
        RuleForm::Command { pattern } => {
            let plain = pattern
                .strip_suffix(":*")
                .or_else(|| pattern.strip_suffix(" *"))
                .unwrap_or(pattern)
                .trim();
            if plain.is_empty() || plain.contains('*') {
                return Err("Gantry's command rules name a command without wildcards".into());
            }
            Ok(vec![spec("run_command", Some(plain.to_owned()))])
        }
        RuleForm::Path { edit, base, glob } => {
            if !*edit {
                return Err("Gantry's own rules do not scope reading by path".into());
            }
            if base != tools.root() {
                return Err("Gantry's own path rules are inside the project".into());
            }
            let relative = match glob.strip_prefix('/') {
                Some(anchored) => anchored.to_owned(),
                None if glob.starts_with("**/") => glob.clone(),
                None if !glob.contains('/') => format!("**/{glob}"),
                None => glob.clone(),
            };
            Ok(["write_file", "edit_file"]
                .iter()
                .map(|tool| spec(tool, Some(relative.clone())))
                .collect())
        }
        RuleForm::Mcp { pattern } if !pattern.contains('*') => Ok(vec![spec(pattern, None)]),
        RuleForm::Mcp { .. } => Err("Gantry's own rules name one MCP tool at a time".into()),
        RuleForm::Domain { .. } => Err("Gantry has no web_fetch tool rules yet".into()),
        RuleForm::NotUnderstood { reason } => Err(format!("not understood: {reason}")),
    }
}

#[cfg(test)]
mod tests;
