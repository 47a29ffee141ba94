//! Rules from other agents' settings: Claude Code's `permissions.allow/ask/deny`.
//!
//! A project set up for Claude Code carries permission rules in `.claude/settings.json`,
//! `.claude/settings.local.json` and the user's `~/.claude/settings.json`. `gantry-config`
//! reads them into [`ExternalRule`]s (each knowing its file, its text as written and the form
//! Gantry understood); the [`crate::RuleBook`] holds them beside Gantry's own rules as a second,
//! read-only list, and the gate asks [`ExternalRules::evaluate`] about each call. As Claude
//! Code documents (`shared/reference/extensibility-specs.md` §6): **deny, then ask, then
//! allow; the first match wins**, and specificity does not matter.
//!
//! Which Gantry tools a rule is about:
//!
//! - `Bash(...)` → run_command ([`bash`] says how a pattern matches a command line);
//! - `Read(...)` → read_file, and (best effort, as Claude Code applies Read rules to Grep and
//!   Glob) glob_search and grep_search, matched against the folder they search; a Read
//!   **deny** rule also refuses write_file and edit_file on the paths it names;
//! - `Edit(...)` → write_file and edit_file ([`paths`] says how a pattern matches a path);
//! - `WebFetch(domain:x)` → a tool named `web_fetch`, by the host of its `url` argument
//!   (`domain:*.x` matches the subdomains of `x`);
//! - `mcp__server`, `mcp__server__*`, `mcp__server__tool` → the MCP tools of that name
//!   (server and tool names sanitised as Gantry names them);
//! - a bare tool name → the whole Gantry tool(s) it stands for.
//!
//! A rule Gantry does not understand is kept with its reason, shown, and never matches. An
//! allow rule from a project file applies only once the user trusted that file's content
//! ([`ExternalRule::waits_for_trust`]); deny and ask rules apply at once, as they only narrow.

pub mod bash;
pub mod paths;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::approval::ApprovalScope;
use crate::context::ToolContext;
use bash::{CommandPattern, name_matches, narrowing_parts, split};
use paths::{PathPattern, normalize};

/// What an external rule does to the calls it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ExternalAction {
    /// Refuse without asking.
    Deny,
    /// Ask every time; only "Allow once" runs the call.
    Ask,
    /// Run without asking (when the call would otherwise ask for an ordinary reason).
    Allow,
}

impl ExternalAction {
    /// The snake_case name (`deny`, `ask`, `allow`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Deny => "deny",
            Self::Ask => "ask",
            Self::Allow => "allow",
        }
    }
}

/// What Gantry understood of a rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RuleForm {
    /// Whole Gantry tools (`Bash`, `Bash(*)`, `Read`, `Edit`).
    Tools {
        /// Gantry's tool names.
        tools: Vec<String>,
    },
    /// `Bash(pattern)`: run_command lines.
    Command {
        /// The pattern as written inside the parentheses.
        pattern: String,
    },
    /// `Read(glob)` / `Edit(glob)`: files.
    Path {
        /// True for `Edit`, false for `Read`.
        edit: bool,
        /// The folder the pattern is anchored at (absolute).
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        base: PathBuf,
        /// The gitignore pattern below `base`.
        glob: String,
    },
    /// `WebFetch(domain:host)`.
    Domain {
        /// The host, or `*.host` for its subdomains.
        domain: String,
    },
    /// MCP tools: a `*` pattern over Gantry's tool names (`mcp__github__*`).
    Mcp {
        /// The name pattern.
        pattern: String,
    },
    /// A form Gantry does not understand; it never matches.
    NotUnderstood {
        /// Why, in words for the user.
        reason: String,
    },
}

/// One rule of another agent's settings file, as Gantry holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ExternalRule {
    /// The file it comes from, as shown (`.claude/settings.json`, `~/.claude/settings.json`).
    pub source: String,
    /// Deny, ask or allow.
    pub action: ExternalAction,
    /// The rule as written (`Bash(npm run test:*)`).
    pub text: String,
    /// What Gantry understood of it.
    pub form: RuleForm,
    /// True for an allow rule of a project file the user has not trusted (with this content):
    /// it is shown but does nothing yet.
    pub waits_for_trust: bool,
}

impl ExternalRule {
    /// True when the rule takes part in decisions: understood, and not waiting for trust.
    pub fn applies(&self) -> bool {
        !self.waits_for_trust && !matches!(self.form, RuleForm::NotUnderstood { .. })
    }

    /// How decisions name it: `deny rule Read(./.env) of .claude/settings.json`.
    pub fn describe(&self) -> String {
        format!(
            "{} rule {} of {}",
            self.action.as_str(),
            self.text,
            self.source
        )
    }
}

impl std::fmt::Display for ExternalRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

/// What the external rules say about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExternalOutcome {
    /// A deny rule matches: refuse.
    Deny(ExternalRule),
    /// An ask rule matches (and no deny rule): ask every time.
    Ask(ExternalRule),
    /// Allow rules cover the whole call (and no deny or ask rule matches).
    Allow(Vec<ExternalRule>),
    /// No rule has anything to say.
    Nothing,
}

/// One call as the rules see it.
#[derive(Debug, Clone, Copy)]
pub struct ExternalCall<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The validated arguments.
    pub arguments: &'a Value,
    /// What Gantry's own parse says the call covers (run_command's keys).
    pub scope: &'a ApprovalScope,
    /// The project (to resolve paths).
    pub context: &'a ToolContext,
}

/// The name standing for "a file in the folder searched" (see [`narrowing_paths`]).
const SEARCHED_FILE: &str = "gantry-searched-file";

/// The files the call is about, as absolute paths (as written and as resolved), and whether
/// they are folders; `None` for a tool without a path.
fn call_paths(call: &ExternalCall) -> Option<(Vec<PathBuf>, bool)> {
    let is_dir = match call.tool {
        "read_file" | "write_file" | "edit_file" => false,
        "glob_search" | "grep_search" => true,
        _ => return None,
    };
    let written = call
        .arguments
        .get("path")
        .and_then(Value::as_str)
        .unwrap_or(".");
    let mut paths = vec![normalize(&call.context.root().join(written))];
    if let Ok(resolved) = call.context.resolve(written) {
        let resolved = normalize(resolved.path());
        if !paths.contains(&resolved) {
            paths.push(resolved);
        }
    }
    Some((paths, is_dir))
}

/// The paths a deny or ask rule is matched against: for a folder searched, also a file right
/// inside it, so `Read(./secrets/**)` covers a search of `secrets`.
fn narrowing_paths(call: &ExternalCall) -> Option<(Vec<PathBuf>, bool)> {
    let (mut paths, is_dir) = call_paths(call)?;
    if is_dir {
        let inside: Vec<PathBuf> = paths.iter().map(|path| path.join(SEARCHED_FILE)).collect();
        paths.extend(inside);
    }
    Some((paths, is_dir))
}

/// The host of a URL (lower case, without user info or port).
fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = if host.starts_with('[') {
        host.split_inclusive(']').next().unwrap_or(host)
    } else {
        host.split(':').next().unwrap_or(host)
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Gantry's own keys of a command, without the `in ./dir: ` prefix.
fn scope_keys(scope: &ApprovalScope) -> Vec<&str> {
    match scope {
        ApprovalScope::Keys(keys) => keys
            .iter()
            .map(|key| match key.strip_prefix("in ") {
                Some(rest) => rest.split_once(": ").map_or(key.as_str(), |(_, key)| key),
                None => key.as_str(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

impl ExternalRule {
    /// True when this deny or ask rule matches the call (any part of it).
    fn narrows(&self, call: &ExternalCall) -> bool {
        match &self.form {
            RuleForm::Tools { tools } => tools.iter().any(|tool| tool == call.tool),
            RuleForm::Command { pattern } => {
                if call.tool != "run_command" {
                    return false;
                }
                let pattern = CommandPattern::new(pattern);
                if pattern.is_everything() {
                    return true;
                }
                let command = call
                    .arguments
                    .get("command")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                narrowing_parts(command)
                    .iter()
                    .map(String::as_str)
                    .chain(scope_keys(call.scope))
                    .any(|part| pattern.matches(part))
            }
            RuleForm::Path { edit, base, glob } => {
                let applies = match call.tool {
                    "write_file" | "edit_file" => *edit || self.action == ExternalAction::Deny,
                    "read_file" | "glob_search" | "grep_search" => !*edit,
                    _ => false,
                };
                let pattern = PathPattern {
                    base: base.clone(),
                    glob: glob.clone(),
                };
                applies
                    && narrowing_paths(call).is_some_and(|(paths, is_dir)| {
                        paths.iter().any(|path| pattern.matches(path, is_dir))
                    })
            }
            RuleForm::Domain { domain } => call.tool == "web_fetch" && domain_matches(domain, call),
            RuleForm::Mcp { pattern } => name_matches(pattern, call.tool),
            RuleForm::NotUnderstood { .. } => false,
        }
    }

    /// True when this allow rule covers the whole call (commands: see [`ExternalRules`]).
    fn covers_whole(&self, call: &ExternalCall) -> bool {
        match &self.form {
            RuleForm::Tools { tools } => tools.iter().any(|tool| tool == call.tool),
            RuleForm::Command { pattern } => {
                call.tool == "run_command" && CommandPattern::new(pattern).is_everything()
            }
            RuleForm::Path { edit, base, glob } => {
                let applies = match call.tool {
                    "write_file" | "edit_file" => *edit,
                    "read_file" | "glob_search" | "grep_search" => !*edit,
                    _ => false,
                };
                let pattern = PathPattern {
                    base: base.clone(),
                    glob: glob.clone(),
                };
                applies
                    && call_paths(call).is_some_and(|(paths, is_dir)| {
                        paths.iter().all(|path| pattern.matches(path, is_dir))
                    })
            }
            RuleForm::Domain { domain } => call.tool == "web_fetch" && domain_matches(domain, call),
            RuleForm::Mcp { pattern } => name_matches(pattern, call.tool),
            RuleForm::NotUnderstood { .. } => false,
        }
    }
}

/// True when the host of the call's `url` is `domain` (or below it, for `*.domain`).
fn domain_matches(domain: &str, call: &ExternalCall) -> bool {
    let Some(host) = call
        .arguments
        .get("url")
        .and_then(Value::as_str)
        .and_then(url_host)
    else {
        return false;
    };
    let domain = domain.to_ascii_lowercase();
    match domain.strip_prefix("*.") {
        Some(parent) => host.ends_with(&format!(".{parent}")),
        None => host == domain,
    }
}

/// The external rules of a project, in the order their files were read (user, project,
/// local).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExternalRules {
    rules: Vec<ExternalRule>,
}

impl ExternalRules {
    /// The rules as read.
    pub fn new(rules: Vec<ExternalRule>) -> Self {
        Self { rules }
    }

    /// Every rule, understood or not.
    pub fn list(&self) -> &[ExternalRule] {
        &self.rules
    }

    /// True when a deny rule names tool `name` as a whole (`Bash`, `mcp__github`,
    /// `mcp__github__*`): as in Claude Code, such a tool is not offered to the model at all
    /// (a call to it anyway is still refused by the rule).
    pub fn removes(&self, name: &str) -> bool {
        self.rules
            .iter()
            .filter(|rule| rule.applies() && rule.action == ExternalAction::Deny)
            .any(|rule| match &rule.form {
                RuleForm::Tools { tools } => tools.iter().any(|tool| tool == name),
                RuleForm::Mcp { pattern } => name_matches(pattern, name),
                _ => false,
            })
    }

    /// What the rules say about `call`: the first deny rule that matches any part of it, else
    /// the first ask rule, else the allow rules that together cover all of it.
    ///
    /// A command is covered when an allow rule covers run_command as a whole, or when the
    /// splitter read all of it (no substitution, subshell, group, here-document or
    /// redirection) and every subcommand, assignments included, matches an allow rule. A
    /// command Gantry's own parse could not scope for a session ([`ApprovalScope::Never`], an
    /// option it does not know) may still be covered, as Claude Code would; one that always
    /// asks ([`ApprovalScope::Always`]) never is.
    pub fn evaluate(&self, call: &ExternalCall) -> ExternalOutcome {
        let applying = || self.rules.iter().filter(|rule| rule.applies());
        let first = |action: ExternalAction| {
            applying()
                .find(|rule| rule.action == action && rule.narrows(call))
                .cloned()
        };
        if let Some(rule) = first(ExternalAction::Deny) {
            return ExternalOutcome::Deny(rule);
        }
        if let Some(rule) = first(ExternalAction::Ask) {
            return ExternalOutcome::Ask(rule);
        }
        let allows = || applying().filter(|rule| rule.action == ExternalAction::Allow);
        if let Some(rule) = allows().find(|rule| rule.covers_whole(call)) {
            return ExternalOutcome::Allow(vec![rule.clone()]);
        }
        if call.tool != "run_command" || matches!(call.scope, ApprovalScope::Always(_)) {
            return ExternalOutcome::Nothing;
        }
        let command = call
            .arguments
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let split = split(command);
        if split.opaque {
            return ExternalOutcome::Nothing;
        }
        let mut covering: Vec<ExternalRule> = Vec::new();
        for part in &split.strict_parts {
            let Some(rule) = allows().find(|rule| match &rule.form {
                RuleForm::Command { pattern } => CommandPattern::new(pattern).matches(part),
                _ => false,
            }) else {
                return ExternalOutcome::Nothing;
            };
            if !covering.contains(rule) {
                covering.push(rule.clone());
            }
        }
        ExternalOutcome::Allow(covering)
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod gate_tests;
