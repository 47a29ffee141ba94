//! Permission levels and per-project policies.
//!
//! A tool's [`PermissionLevel`] says how much harm a call can do; it is fixed by the tool's
//! author, never by the model. A project's [`PolicySet`] says what Gantry does when the model
//! calls that tool: refuse it, ask the user, or run it. Until the user chooses, the policy follows
//! the level: SAFE runs, SENSITIVE asks, DANGEROUS is disabled.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How much harm a call to a tool can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum PermissionLevel {
    /// Reads or asks; runs without asking by default (reading files, searching).
    Safe,
    /// Changes the project; asks each call by default (writing and editing files).
    Sensitive,
    /// Can do anything the user can; disabled until the user enables it (shell commands).
    Dangerous,
}

impl PermissionLevel {
    /// The policy a tool of this level has until the user picks one.
    pub const fn default_policy(self) -> Policy {
        match self {
            Self::Safe => Policy::Auto,
            Self::Sensitive => Policy::Ask,
            Self::Dangerous => Policy::Disabled,
        }
    }

    /// The lower-case name used in observations, the CLI and the database.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Safe => "safe",
            Self::Sensitive => "sensitive",
            Self::Dangerous => "dangerous",
        }
    }
}

impl fmt::Display for PermissionLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for PermissionLevel {
    type Err = ParseNameError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "safe" => Ok(Self::Safe),
            "sensitive" => Ok(Self::Sensitive),
            "dangerous" => Ok(Self::Dangerous),
            _ => Err(ParseNameError::new(
                "permission level",
                s,
                "safe, sensitive, dangerous",
            )),
        }
    }
}

/// What Gantry does when the model calls a tool in a given project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// The call is refused and the model is told the tool is disabled.
    Disabled,
    /// The user is asked each time (unless they allowed it for the session).
    Ask,
    /// The call runs without asking.
    Auto,
}

impl Policy {
    /// The lower-case name used in the CLI and the database.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::Ask => "ask",
            Self::Auto => "auto",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Policy {
    type Err = ParseNameError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "disabled" => Ok(Self::Disabled),
            "ask" => Ok(Self::Ask),
            "auto" => Ok(Self::Auto),
            _ => Err(ParseNameError::new("policy", s, "disabled, ask, auto")),
        }
    }
}

/// A name that is not one of an enum's spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} '{given}' (expected one of: {expected})")]
pub struct ParseNameError {
    what: &'static str,
    given: String,
    expected: &'static str,
}

impl ParseNameError {
    fn new(what: &'static str, given: &str, expected: &'static str) -> Self {
        Self {
            what,
            given: given.to_owned(),
            expected,
        }
    }
}

/// The policies a project has chosen, by tool name.
///
/// Only the user's explicit choices are stored; a tool without an entry follows its level's
/// default, so a tool added later (a new MCP server, a new Gantry version) starts at its default
/// instead of inheriting a stale choice. This is the form the store persists per project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PolicySet {
    chosen: BTreeMap<String, Policy>,
}

impl PolicySet {
    /// An empty set: every tool follows its level's default.
    pub fn new() -> Self {
        Self::default()
    }

    /// The policy in force for a tool of the given level.
    pub fn effective(&self, tool: &str, level: PermissionLevel) -> Policy {
        self.chosen
            .get(tool)
            .copied()
            .unwrap_or(level.default_policy())
    }

    /// Records the user's choice for a tool.
    pub fn set(&mut self, tool: impl Into<String>, policy: Policy) {
        self.chosen.insert(tool.into(), policy);
    }

    /// Forgets the user's choice for a tool, returning it to its level's default.
    pub fn clear(&mut self, tool: &str) -> Option<Policy> {
        self.chosen.remove(tool)
    }

    /// The explicit choices, by tool name.
    pub fn chosen(&self) -> &BTreeMap<String, Policy> {
        &self.chosen
    }

    /// True when no choice has been made.
    pub fn is_empty(&self) -> bool {
        self.chosen.is_empty()
    }
}

impl FromIterator<(String, Policy)> for PolicySet {
    fn from_iter<I: IntoIterator<Item = (String, Policy)>>(iter: I) -> Self {
        Self {
            chosen: iter.into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_level() {
        let set = PolicySet::new();
        assert_eq!(
            set.effective("read_file", PermissionLevel::Safe),
            Policy::Auto
        );
        assert_eq!(
            set.effective("write_file", PermissionLevel::Sensitive),
            Policy::Ask
        );
        assert_eq!(
            set.effective("run_command", PermissionLevel::Dangerous),
            Policy::Disabled
        );
    }

    #[test]
    fn a_choice_overrides_the_default_until_cleared() {
        let mut set = PolicySet::new();
        set.set("run_command", Policy::Auto);
        assert_eq!(
            set.effective("run_command", PermissionLevel::Dangerous),
            Policy::Auto
        );
        assert_eq!(set.clear("run_command"), Some(Policy::Auto));
        assert_eq!(
            set.effective("run_command", PermissionLevel::Dangerous),
            Policy::Disabled
        );
    }

    #[test]
    fn names_round_trip_and_bad_names_are_explained() {
        for level in [
            PermissionLevel::Safe,
            PermissionLevel::Sensitive,
            PermissionLevel::Dangerous,
        ] {
            assert_eq!(level.as_str().parse::<PermissionLevel>(), Ok(level));
        }
        for policy in [Policy::Disabled, Policy::Ask, Policy::Auto] {
            assert_eq!(policy.to_string().parse::<Policy>(), Ok(policy));
        }
        let err = "sometimes".parse::<Policy>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown policy 'sometimes' (expected one of: disabled, ask, auto)"
        );
    }

    #[test]
    fn names_honour_width_so_tables_line_up() {
        assert_eq!(format!("{:<8}|", Policy::Ask), "ask     |");
        assert_eq!(format!("{:<10}|", PermissionLevel::Safe), "safe      |");
    }

    #[test]
    fn serialises_as_a_plain_map() {
        let mut set = PolicySet::new();
        set.set("write_file", Policy::Auto);
        let json = serde_json::to_string(&set).unwrap();
        assert_eq!(json, r#"{"write_file":"auto"}"#);
        assert_eq!(serde_json::from_str::<PolicySet>(&json).unwrap(), set);
    }
}
