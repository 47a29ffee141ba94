//! Asking the user, and remembering what they allowed for the session.
//!
//! "Allow for this session" must not be broader than what the user saw. A tool therefore says
//! what an approval of a given call covers — its [`ApprovalScope`] — computed by Gantry from the
//! tool and the validated arguments, never taken from the model. Most tools are approved as a
//! whole; run_command is approved per program and subcommand, so allowing `cargo test` does not
//! allow `rm -rf`; file writes per path glob ([`crate::path_scope`]), so allowing `notes/**`
//! does not allow `src/main.rs`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::path_scope::glob_matches;
use crate::permission::PermissionLevel;
use crate::sandboxing::SandboxState;

/// What "allow for this session" covers for one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum ApprovalScope {
    /// Every call of the tool.
    WholeTool,
    /// Exactly these keys of the tool (e.g. `git status`, `cargo test`); a later call runs
    /// without asking only when all of its keys were granted.
    Keys(Vec<String>),
    /// A call on one project file (`path`, resolved and project-relative); approving it covers
    /// `glob` (`notes/**`), and a later call runs without asking when a granted glob matches
    /// its path.
    Path {
        /// The file the call writes.
        path: String,
        /// What approving it covers.
        glob: String,
    },
    /// This call can't be approved for the session (e.g. a command Gantry can't parse, an
    /// option that writes a file): it asks every time unless the user allowed the whole tool.
    /// The text says why, in words for the user (`` `--output` writes a file ``).
    Never(String),
    /// This call asks every time, whatever the policy (Auto included), grants and rules say (a
    /// write to a file that can make programs run). The text says why.
    Always(String),
}

impl ApprovalScope {
    /// The scope as the user reads it: `write_file`, `run_command: cargo test`.
    pub fn describe(&self, tool: &str) -> Vec<String> {
        match self {
            Self::WholeTool => vec![tool.to_owned()],
            Self::Keys(keys) => keys.iter().map(|key| format!("{tool}: {key}")).collect(),
            Self::Path { glob, .. } => vec![format!("{tool}: {glob}")],
            Self::Never(_) | Self::Always(_) => Vec::new(),
        }
    }

    /// What approving the call for the session or the project saves: `None` for the whole
    /// tool, else the keys or the glob; nothing at all for a call that can't be approved
    /// beyond itself.
    pub fn grantable(&self) -> Option<Vec<Option<String>>> {
        match self {
            Self::WholeTool => Some(vec![None]),
            Self::Keys(keys) if !keys.is_empty() => Some(keys.iter().cloned().map(Some).collect()),
            Self::Path { glob, .. } => Some(vec![Some(glob.clone())]),
            Self::Keys(_) | Self::Never(_) | Self::Always(_) => None,
        }
    }

    /// Why a call of this scope asks although the policy or a grant might not: the text of
    /// [`Self::Never`] and [`Self::Always`].
    pub fn ask_reason(&self) -> AskReason {
        match self {
            Self::WholeTool | Self::Keys(_) | Self::Path { .. } => AskReason::Policy,
            Self::Never(why) => AskReason::Unscoped { why: why.clone() },
            Self::Always(why) => AskReason::Always { why: why.clone() },
        }
    }
}

/// Why the user is asked about a call, for the approval dialog to say in its own words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum AskReason {
    /// The tool's policy in this project is Ask, and no grant covers the call.
    Policy,
    /// The call can't be covered by a grant or rule, for this reason (asks every time).
    Unscoped {
        /// Why, in words for the user.
        why: String,
    },
    /// The call asks every time, whatever the policy, grants and rules say.
    Always {
        /// Why, in words for the user.
        why: String,
    },
}

/// A grant held for the session: one whole tool or one key of a tool.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionGrant {
    /// The tool the grant is for.
    pub tool: String,
    /// The key within the tool, or `None` for the whole tool.
    pub key: Option<String>,
}

impl std::fmt::Display for SessionGrant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.key {
            Some(key) => write!(f, "{}: {key}", self.tool),
            None => f.write_str(&self.tool),
        }
    }
}

/// What the user allowed for one session (kept by [`crate::ToolSession`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionGrants {
    whole_tools: BTreeSet<String>,
    keys: BTreeMap<String, BTreeSet<String>>,
}

impl SessionGrants {
    /// True when a call of `tool` with `scope` may run without asking.
    /// A call that always asks is never covered, not even by a grant of the whole tool.
    pub fn covers(&self, tool: &str, scope: &ApprovalScope) -> bool {
        if matches!(scope, ApprovalScope::Always(_)) {
            return false;
        }
        if self.whole_tools.contains(tool) {
            return true;
        }
        match scope {
            ApprovalScope::WholeTool | ApprovalScope::Never(_) | ApprovalScope::Always(_) => false,
            ApprovalScope::Keys(keys) => {
                !keys.is_empty()
                    && self
                        .keys
                        .get(tool)
                        .is_some_and(|granted| keys.iter().all(|key| granted.contains(key)))
            }
            ApprovalScope::Path { path, .. } => self
                .keys
                .get(tool)
                .is_some_and(|globs| globs.iter().any(|glob| glob_matches(glob, path))),
        }
    }

    /// Grants what `scope` covers. `Never` and `Always` grant nothing.
    pub fn grant(&mut self, tool: &str, scope: &ApprovalScope) {
        for key in scope.grantable().unwrap_or_default() {
            match key {
                None => {
                    self.whole_tools.insert(tool.to_owned());
                }
                Some(key) => {
                    self.keys.entry(tool.to_owned()).or_default().insert(key);
                }
            }
        }
    }

    /// Revokes one grant; true when it existed.
    pub fn revoke(&mut self, grant: &SessionGrant) -> bool {
        match &grant.key {
            None => self.whole_tools.remove(&grant.tool),
            Some(key) => self
                .keys
                .get_mut(&grant.tool)
                .is_some_and(|keys| keys.remove(key)),
        }
    }

    /// Every grant, whole tools first, in name order.
    pub fn list(&self) -> Vec<SessionGrant> {
        let whole = self.whole_tools.iter().map(|tool| SessionGrant {
            tool: tool.clone(),
            key: None,
        });
        let keyed = self.keys.iter().flat_map(|(tool, keys)| {
            keys.iter().map(move |key| SessionGrant {
                tool: tool.clone(),
                key: Some(key.clone()),
            })
        });
        whole.chain(keyed).collect()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.whole_tools.clear();
        self.keys.clear();
    }
}

/// What the approver is shown besides the arguments: what the call would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Preview {
    /// A unified diff of a file change, computed before anything is written.
    Diff {
        /// Project-relative path of the file.
        path: String,
        /// The unified diff (`--- a/path`, `+++ b/path`, hunks).
        unified: String,
    },
    /// A shell command and where it would run.
    Command {
        /// The command line as it will be passed to `sh -c`.
        command: String,
        /// Project-relative working directory.
        workdir: String,
        /// Whether it would run in the OS sandbox, and with the network or not (always set by
        /// run_command).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        sandbox: Option<SandboxState>,
    },
    /// Anything else, as text.
    Text {
        /// The text to show.
        text: String,
    },
}

/// One question to the approver about one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    /// The call being decided (the model's `tool_call_id`): the key that links the dialog to
    /// the call's card.
    pub call_id: String,
    /// The session the call belongs to, when it is stored.
    pub session_id: Option<String>,
    /// The tool's name.
    pub tool: String,
    /// Its permission level.
    pub level: PermissionLevel,
    /// Its description.
    pub description: String,
    /// The validated (coerced) arguments that the tool will receive.
    pub arguments: Value,
    /// What the call would do, where the tool can tell in advance.
    pub preview: Option<Preview>,
    /// What "allow for this session" would grant, as the user reads it; empty when the call
    /// can't be approved for the session.
    pub session_scope: Vec<String>,
    /// Why the user is asked.
    pub reason: AskReason,
}

/// The approver's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "decision")]
pub enum ApprovalDecision {
    /// Run this call.
    AllowOnce,
    /// Run this call and, for the rest of the session, every call within its scope.
    AllowForSession,
    /// Run this call and save allow rules for its scope in the project: every later call
    /// within it runs without asking, in every session, after restarts.
    AllowInProject,
    /// Don't run it; the reason (if any) is passed to the model.
    Deny {
        /// Why, in the user's words.
        reason: Option<String>,
    },
}

/// Decides calls whose policy is Ask: a terminal prompt, a dialog in the app, a scripted answer.
#[async_trait]
pub trait Approver: Send + Sync {
    /// Answers one request. Dropping the future (the turn was cancelled) must be harmless.
    async fn decide(&self, request: ApprovalRequest) -> ApprovalDecision;
}

/// An approver that always gives the same answer (`--approve once|session|deny` in the CLI).
#[derive(Debug, Clone)]
pub struct FixedApprover(pub ApprovalDecision);

#[async_trait]
impl Approver for FixedApprover {
    async fn decide(&self, _request: ApprovalRequest) -> ApprovalDecision {
        self.0.clone()
    }
}

/// Answers from a queue (deny when it runs out) and remembers every request: scripted runs and
/// tests.
#[derive(Debug, Default)]
pub struct ScriptedApprover {
    answers: Mutex<VecDeque<ApprovalDecision>>,
    seen: Mutex<Vec<ApprovalRequest>>,
}

impl ScriptedApprover {
    /// An approver giving `answers` in order, then denying.
    pub fn new(answers: impl IntoIterator<Item = ApprovalDecision>) -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self {
            answers: Mutex::new(answers.into_iter().collect()),
            seen: Mutex::default(),
        })
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> Vec<ApprovalRequest> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many requests were made.
    pub fn asked(&self) -> usize {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[async_trait]
impl Approver for ScriptedApprover {
    async fn decide(&self, request: ApprovalRequest) -> ApprovalDecision {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(request);
        self.answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
            .unwrap_or(ApprovalDecision::Deny { reason: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(list: &[&str]) -> ApprovalScope {
        ApprovalScope::Keys(list.iter().map(|k| (*k).to_owned()).collect())
    }

    #[test]
    fn keyed_grants_cover_only_their_keys() {
        let mut grants = SessionGrants::default();
        grants.grant("run_command", &keys(&["git status"]));
        assert!(grants.covers("run_command", &keys(&["git status"])));
        assert!(!grants.covers("run_command", &keys(&["git push"])));
        assert!(!grants.covers("run_command", &keys(&["git status", "rm"])));
        assert!(!grants.covers("run_command", &ApprovalScope::Never("unparsed".into())));
        assert!(!grants.covers("run_command", &keys(&[])));
        assert!(!grants.covers("run_command", &ApprovalScope::WholeTool));
    }

    #[test]
    fn a_whole_tool_grant_covers_every_call_of_that_tool_only() {
        let mut grants = SessionGrants::default();
        grants.grant("write_file", &ApprovalScope::WholeTool);
        assert!(grants.covers("write_file", &ApprovalScope::WholeTool));
        assert!(grants.covers("write_file", &ApprovalScope::Never("unparsed".into())));
        assert!(!grants.covers("edit_file", &ApprovalScope::WholeTool));
    }

    #[test]
    fn never_grants_nothing_and_revoke_removes_one_grant() {
        let mut grants = SessionGrants::default();
        grants.grant("run_command", &ApprovalScope::Never("unparsed".into()));
        assert!(grants.list().is_empty());
        grants.grant("run_command", &keys(&["cargo test", "git status"]));
        grants.grant("write_file", &ApprovalScope::WholeTool);
        let listed: Vec<String> = grants.list().iter().map(ToString::to_string).collect();
        assert_eq!(
            listed,
            [
                "write_file",
                "run_command: cargo test",
                "run_command: git status"
            ]
        );
        assert!(grants.revoke(&SessionGrant {
            tool: "run_command".into(),
            key: Some("cargo test".into())
        }));
        assert!(!grants.covers("run_command", &keys(&["cargo test"])));
        assert!(grants.covers("run_command", &keys(&["git status"])));
        grants.clear();
        assert!(grants.list().is_empty());
    }

    #[test]
    fn scopes_read_as_the_user_sees_them() {
        assert_eq!(
            keys(&["cargo test"]).describe("run_command"),
            ["run_command: cargo test"]
        );
        assert_eq!(
            ApprovalScope::WholeTool.describe("write_file"),
            ["write_file"]
        );
        assert!(ApprovalScope::Never("why".into()).describe("x").is_empty());
    }
}
