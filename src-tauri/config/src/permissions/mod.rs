//! Claude Code's permission rules (`permissions.allow/ask/deny` of the settings files) as
//! Gantry's external rules.
//!
//! The three files' lists add up (user, project, local), and every entry becomes one
//! [`ExternalRule`] with its file, its text as written and the [`RuleForm`] Gantry understood
//! ([`form`] reads the syntax of `shared/reference/extensibility-specs.md` §6). A form Gantry
//! does not understand is kept with its reason and never matches, so it never widens anything.
//! Deny and ask rules apply at once (they only narrow); an allow rule of a project or local
//! file waits until the user trusted that file's content ([`TrustedFiles::covers`]).
//!
//! What each file gave goes to the [`ConfigReport`]: deny and ask rules and applying allow
//! rules under `read`, allow rules waiting for trust under `waits_for_trust`, forms not
//! understood under `not_understood` with why.

pub mod form;

use gantry_tools::{ExternalAction, ExternalRule, RuleForm};
use serde_json::Value;

use crate::settings::{SettingsFile, claude_settings};
use crate::{ConfigReport, Locations, TrustedFiles};

/// The permission rules of a project's Claude Code settings, and what each file gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaudePermissions {
    /// Every rule, in file order (user, project, local) and list order (deny, ask, allow).
    pub rules: Vec<ExternalRule>,
    /// One entry per settings file read.
    pub report: ConfigReport,
}

/// Reads the rules of `~/.claude/settings.json`, `.claude/settings.json` and
/// `.claude/settings.local.json` (the files that exist), with `trusted` deciding which allow
/// rules apply.
pub fn claude_permissions(at: &Locations, trusted: &TrustedFiles) -> ClaudePermissions {
    from_settings(at, &claude_settings(at), trusted)
}

/// The rules of settings files already read (the hooks reader parses the same files).
pub fn from_settings(
    at: &Locations,
    files: &[SettingsFile],
    trusted: &TrustedFiles,
) -> ClaudePermissions {
    let mut out = ClaudePermissions::default();
    for file in files {
        let covered = file.problem.is_none() && trusted.covers(&file.source, &file.sha256);
        let entry = out.report.file_mut(&file.source, "settings");
        entry.sha256.clone_from(&file.sha256);
        entry.trusted = covered;
        if let Some(problem) = &file.problem {
            entry.problem = Some(problem.clone());
            continue;
        }
        let Some(permissions) = file.json.get("permissions") else {
            continue;
        };
        let Some(permissions) = permissions.as_object() else {
            entry
                .not_understood
                .push("permissions: not an object, so no rule is read".into());
            continue;
        };
        for action in [
            ExternalAction::Deny,
            ExternalAction::Ask,
            ExternalAction::Allow,
        ] {
            let key = action.as_str();
            let Some(list) = permissions.get(key) else {
                continue;
            };
            let Some(list) = list.as_array() else {
                entry
                    .not_understood
                    .push(format!("permissions.{key}: not a list, so no rule is read"));
                continue;
            };
            for item in list {
                let Value::String(text) = item else {
                    entry
                        .not_understood
                        .push(format!("{key} rule {item}: not a string"));
                    continue;
                };
                let form = form::parse(text, action, &file.source, at);
                let waits_for_trust = action == ExternalAction::Allow
                    && !covered
                    && !matches!(form, RuleForm::NotUnderstood { .. });
                let line = format!("{key} rule {text}");
                match &form {
                    RuleForm::NotUnderstood { reason } => {
                        entry.not_understood.push(format!("{line}: {reason}"));
                    }
                    _ if waits_for_trust => entry.waits_for_trust.push(line),
                    _ => entry.read.push(line),
                }
                out.rules.push(ExternalRule {
                    source: file.source.shown.clone(),
                    action,
                    text: text.clone(),
                    form,
                    waits_for_trust,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
