//! Rules that last: what the user allowed or refused for a project, checked at every call.
//!
//! A session grant dies with the session, so a user who approves `cargo test` in every session
//! would approve it forever. A rule is the same approval saved for the project: "Always allow in
//! this project" in the approval dialog saves one allow rule per key of the call's scope (the
//! keys the dialog showed, `run_command: cargo test`, or the path glob of a write,
//! `write_file: notes/**`), and the Tools panel and the CLI add, edit and remove rules, deny
//! rules included. The engine keeps them in the database ([`RuleStore`]); the
//! [`crate::ToolManager`] holds the project's current list in a [`RuleBook`].
//!
//! How a rule matches a call (its [`ApprovalScope`]):
//!
//! - a rule without a pattern is about the whole tool: an allow rule covers every call of it
//!   except one that always asks, a deny rule refuses every call of it;
//! - for a command (`Keys`), an **allow** rule covers a key it names exactly, and a call runs
//!   without asking only when every one of its keys is covered (as with session grants): a rule
//!   for `cargo test` covers neither `cargo publish` nor `cargo test; cargo publish`. A **deny**
//!   rule refuses a call when its words appear, in order and whole, in any of the call's keys:
//!   `git push` refuses `git push`, `sudo git push` and `in ./sub: git push`; `rm -rf` refuses
//!   `rm -rf build`;
//! - for a file (`Path`), a rule's pattern is a glob ([`crate::path_scope`]) matched against the
//!   file's project-relative path;
//! - a call the parser cannot scope (`Never`) matches only whole-tool rules; a call that always
//!   asks (`Always`: an execution-sensitive file, a command with no sandbox) is never covered by
//!   an allow rule, but deny rules still refuse it (the gate matches them against the call's
//!   underlying scope).
//!
//! The gate checks rules after the session's grants: a deny rule refuses without asking and
//! the model reads which rule refused it; an allow rule settles a call that would have asked.
//! Audit records name the rule (`decided_by: rule:<id>`).

use std::sync::{Arc, PoisonError, RwLock};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::approval::ApprovalScope;
use crate::external_rules::{ExternalRule, ExternalRules};
use crate::path_scope::{PATH_SCOPED_TOOLS, glob_matches, glob_problem};

/// The longest pattern kept (a rule is something a person reads).
pub const MAX_PATTERN_CHARS: usize = 1000;

/// What a rule does to the calls it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum RuleAction {
    /// Run without asking.
    Allow,
    /// Refuse without asking.
    Deny,
}

impl RuleAction {
    /// The snake_case name used in the CLI and the database.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Deny => "deny",
        }
    }
}

impl std::fmt::Display for RuleAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl std::str::FromStr for RuleAction {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "allow" => Ok(Self::Allow),
            "deny" => Ok(Self::Deny),
            other => Err(format!("unknown rule action '{other}' (use allow or deny)")),
        }
    }
}

/// A rule before it is saved: which tool, what in it, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RuleSpec {
    /// The tool the rule is about.
    pub tool: String,
    /// A command key (`cargo test`) or a path glob (`notes/**`); `None` for the whole tool.
    pub pattern: Option<String>,
    /// Allow or deny.
    pub action: RuleAction,
}

impl RuleSpec {
    /// The spec with blanks trimmed (an empty pattern means the whole tool), or why it cannot
    /// be a rule.
    pub fn checked(self) -> Result<Self, String> {
        let tool = self.tool.trim().to_owned();
        if tool.is_empty() {
            return Err("a rule needs a tool".into());
        }
        let pattern = self
            .pattern
            .map(|pattern| pattern.trim().to_owned())
            .filter(|pattern| !pattern.is_empty());
        if let Some(pattern) = &pattern {
            if pattern.chars().count() > MAX_PATTERN_CHARS {
                return Err(format!(
                    "a rule's pattern has at most {MAX_PATTERN_CHARS} characters"
                ));
            }
            if pattern.chars().any(char::is_control) {
                return Err("a rule's pattern cannot hold control characters".into());
            }
            if PATH_SCOPED_TOOLS.contains(&tool.as_str())
                && let Some(problem) = glob_problem(pattern)
            {
                return Err(problem);
            }
        }
        Ok(Self {
            tool,
            pattern,
            action: self.action,
        })
    }
}

impl std::fmt::Display for RuleSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.pattern {
            Some(pattern) => write!(f, "{} {}: {pattern}", self.action, self.tool),
            None => write!(f, "{} {}", self.action, self.tool),
        }
    }
}

/// A saved rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ToolRule {
    /// Its id in the store (what `rule:<id>` in the audit log names).
    pub id: i64,
    /// What it says.
    #[serde(flatten)]
    pub spec: RuleSpec,
}

impl std::fmt::Display for ToolRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rule {} ({})", self.id, self.spec)
    }
}

impl ToolRule {
    /// True when this allow rule covers `key` (`None`: the whole tool) of a call of `tool`.
    fn allows_key(&self, tool: &str, key: &str, path: bool) -> bool {
        self.spec.action == RuleAction::Allow
            && self.spec.tool == tool
            && match &self.spec.pattern {
                None => true,
                Some(pattern) if path => glob_matches(pattern, key),
                Some(pattern) => pattern == key,
            }
    }

    /// True when this deny rule refuses a call of `tool` with `scope`.
    fn denies(&self, tool: &str, scope: &ApprovalScope) -> bool {
        if self.spec.action != RuleAction::Deny || self.spec.tool != tool {
            return false;
        }
        let Some(pattern) = &self.spec.pattern else {
            return true;
        };
        match scope {
            ApprovalScope::Keys(keys) => keys.iter().any(|key| words_within(pattern, key)),
            ApprovalScope::Path { path, .. } => glob_matches(pattern, path),
            ApprovalScope::WholeTool | ApprovalScope::Never(_) | ApprovalScope::Always(_) => false,
        }
    }
}

/// True when the words of `needle` appear, in order and whole, in `key` (both split on white
/// space; `in ./sub:` prefixes are words like any other).
fn words_within(needle: &str, key: &str) -> bool {
    let needle: Vec<&str> = needle.split_whitespace().collect();
    let words: Vec<&str> = key.split_whitespace().collect();
    !needle.is_empty()
        && words
            .windows(needle.len())
            .any(|window| window == needle.as_slice())
}

/// Where rules are saved: the engine's database. The gate adds through it when the user picks
/// "Always allow in this project".
#[async_trait]
pub trait RuleStore: Send + Sync {
    /// Saves `spec` for the project and returns the rule with its id (an identical rule that
    /// exists already is returned as it is).
    async fn add(&self, spec: RuleSpec) -> Result<ToolRule, String>;
}

/// One project's rules, as the gate reads them.
#[derive(Default)]
pub struct RuleBook {
    rules: RwLock<Vec<ToolRule>>,
    /// Rules read from other agents' settings files (read-only here; see
    /// [`crate::external_rules`]).
    external: RwLock<ExternalRules>,
    store: RwLock<Option<Arc<dyn RuleStore>>>,
}

impl std::fmt::Debug for RuleBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuleBook")
            .field("rules", &self.list())
            .finish_non_exhaustive()
    }
}

impl RuleBook {
    /// Every rule, in id order.
    pub fn list(&self) -> Vec<ToolRule> {
        self.rules
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the rules (loaded from the store, or after an edit there).
    pub fn replace(&self, mut rules: Vec<ToolRule>) {
        rules.sort_by_key(|rule| rule.id);
        *self.rules.write().unwrap_or_else(PoisonError::into_inner) = rules;
    }

    /// Replaces the external rules (read from `.claude/settings*.json` when the project opens,
    /// when one of those files changes, or after the user trusted the project's configuration).
    pub fn replace_external(&self, rules: Vec<ExternalRule>) {
        *self
            .external
            .write()
            .unwrap_or_else(PoisonError::into_inner) = ExternalRules::new(rules);
    }

    /// The external rules, understood or not, in the order their files were read.
    pub fn external(&self) -> ExternalRules {
        self.external
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Sets where rules the user adds from a dialog are saved; without one, "Always allow in
    /// this project" allows the call and grants its scope for the session only.
    pub fn set_store(&self, store: Arc<dyn RuleStore>) {
        *self.store.write().unwrap_or_else(PoisonError::into_inner) = Some(store);
    }

    /// The first deny rule that refuses a call of `tool` with `scope`.
    pub fn denying(&self, tool: &str, scope: &ApprovalScope) -> Option<ToolRule> {
        self.rules
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|rule| rule.denies(tool, scope))
            .cloned()
    }

    /// The allow rules that together cover a call of `tool` with `scope`, or `None` when some
    /// part of it is not covered (or it always asks).
    pub fn allowing(&self, tool: &str, scope: &ApprovalScope) -> Option<Vec<ToolRule>> {
        let rules = self.rules.read().unwrap_or_else(PoisonError::into_inner);
        let whole = || {
            rules
                .iter()
                .find(|rule| {
                    rule.spec.action == RuleAction::Allow
                        && rule.spec.tool == tool
                        && rule.spec.pattern.is_none()
                })
                .cloned()
                .map(|rule| vec![rule])
        };
        match scope {
            ApprovalScope::Always(_) => None,
            ApprovalScope::WholeTool | ApprovalScope::Never(_) => whole(),
            ApprovalScope::Keys(keys) => {
                if keys.is_empty() {
                    return None;
                }
                whole().or_else(|| {
                    let mut covering: Vec<ToolRule> = Vec::new();
                    for key in keys {
                        let rule = rules
                            .iter()
                            .find(|rule| rule.allows_key(tool, key, false))?;
                        if !covering.contains(rule) {
                            covering.push(rule.clone());
                        }
                    }
                    Some(covering)
                })
            }
            ApprovalScope::Path { path, .. } => rules
                .iter()
                .find(|rule| rule.allows_key(tool, path, true))
                .cloned()
                .map(|rule| vec![rule]),
        }
    }

    /// Saves allow rules for `scope` of `tool` (the user chose "Always allow in this project")
    /// and adds them to the book. `Ok(empty)` when the scope can't be approved beyond the call;
    /// an error when there is no store or it failed (nothing is added then).
    pub async fn promote(
        &self,
        tool: &str,
        scope: &ApprovalScope,
    ) -> Result<Vec<ToolRule>, String> {
        let Some(patterns) = scope.grantable() else {
            return Ok(Vec::new());
        };
        let store = self
            .store
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(|| "this project has nowhere to save rules".to_owned())?;
        let mut saved = Vec::new();
        for pattern in patterns {
            let spec = RuleSpec {
                tool: tool.to_owned(),
                pattern,
                action: RuleAction::Allow,
            }
            .checked()?;
            saved.push(store.add(spec).await?);
        }
        let mut rules = self.rules.write().unwrap_or_else(PoisonError::into_inner);
        for rule in &saved {
            if !rules.contains(rule) {
                rules.push(rule.clone());
            }
        }
        rules.sort_by_key(|rule| rule.id);
        Ok(saved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(id: i64, tool: &str, pattern: Option<&str>, action: RuleAction) -> ToolRule {
        ToolRule {
            id,
            spec: RuleSpec {
                tool: tool.into(),
                pattern: pattern.map(str::to_owned),
                action,
            },
        }
    }

    fn keys(list: &[&str]) -> ApprovalScope {
        ApprovalScope::Keys(list.iter().map(|key| (*key).to_owned()).collect())
    }

    fn path(path: &str) -> ApprovalScope {
        ApprovalScope::Path {
            path: path.into(),
            glob: crate::path_scope::path_glob(path),
        }
    }

    #[test]
    fn allow_rules_cover_exact_keys_and_globs_only() {
        let book = RuleBook::default();
        book.replace(vec![
            rule(2, "run_command", Some("git status"), RuleAction::Allow),
            rule(1, "run_command", Some("cargo test"), RuleAction::Allow),
            rule(3, "write_file", Some("notes/**"), RuleAction::Allow),
            rule(4, "mcp__x__y", None, RuleAction::Allow),
        ]);
        assert_eq!(book.list()[0].id, 1, "kept in id order");
        let covered = book
            .allowing("run_command", &keys(&["cargo test"]))
            .unwrap();
        assert_eq!(covered[0].id, 1);
        let both = book
            .allowing("run_command", &keys(&["cargo test", "git status"]))
            .unwrap();
        assert_eq!(both.len(), 2);
        for uncovered in [
            keys(&["cargo publish"]),
            keys(&["cargo test", "cargo publish"]),
            keys(&["cargo test --release"]),
            keys(&[]),
            ApprovalScope::Never("x".into()),
            ApprovalScope::Always("x".into()),
            ApprovalScope::WholeTool,
        ] {
            assert_eq!(
                book.allowing("run_command", &uncovered),
                None,
                "{uncovered:?}"
            );
        }
        assert!(book.allowing("write_file", &path("notes/a/b.md")).is_some());
        assert!(book.allowing("write_file", &path("src/main.rs")).is_none());
        assert!(book.allowing("edit_file", &path("notes/a.md")).is_none());
        assert!(
            book.allowing("mcp__x__y", &ApprovalScope::WholeTool)
                .is_some()
        );
        assert!(
            book.allowing("mcp__x__y", &ApprovalScope::Always("x".into()))
                .is_none()
        );
    }

    #[test]
    fn deny_rules_match_whole_words_anywhere_in_a_key() {
        let book = RuleBook::default();
        book.replace(vec![
            rule(1, "run_command", Some("git push"), RuleAction::Deny),
            rule(2, "run_command", Some("rm -rf"), RuleAction::Deny),
            rule(3, "write_file", Some("secrets/**"), RuleAction::Deny),
        ]);
        for denied in [
            "git push",
            "sudo git push",
            "in ./sub: git push",
            "rm -rf build",
        ] {
            assert!(
                book.denying("run_command", &keys(&["ls", denied]))
                    .is_some(),
                "{denied}"
            );
        }
        for allowed in ["git pushy", "git status", "rm -r build", "echo git-push"] {
            assert!(
                book.denying("run_command", &keys(&[allowed])).is_none(),
                "{allowed}"
            );
        }
        assert_eq!(
            book.denying("write_file", &path("secrets/a")).unwrap().id,
            3
        );
        assert!(book.denying("write_file", &path("notes/a")).is_none());
        assert!(
            book.denying("run_command", &ApprovalScope::Never("x".into()))
                .is_none()
        );
    }

    #[test]
    fn specs_are_checked_and_trimmed() {
        let spec = |tool: &str, pattern: Option<&str>| RuleSpec {
            tool: tool.into(),
            pattern: pattern.map(str::to_owned),
            action: RuleAction::Allow,
        };
        assert_eq!(
            spec(" run_command ", Some(" cargo test "))
                .checked()
                .unwrap(),
            spec("run_command", Some("cargo test"))
        );
        assert_eq!(spec("x", Some("  ")).checked().unwrap().pattern, None);
        assert!(spec("", None).checked().is_err());
        assert!(spec("write_file", Some("[")).checked().is_err());
        assert!(spec("run_command", Some("a\nb")).checked().is_err());
        assert_eq!("Deny".parse::<RuleAction>(), Ok(RuleAction::Deny));
        assert!("maybe".parse::<RuleAction>().is_err());
        assert_eq!(
            rule(7, "run_command", Some("cargo test"), RuleAction::Allow).to_string(),
            "rule 7 (allow run_command: cargo test)"
        );
    }
}
