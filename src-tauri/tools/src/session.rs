//! What one session holds across its calls: its id, what the user allowed for it, what the
//! model has seen of each file, and the private temporary folder of its commands.
//!
//! Grants and the file ledger belong to the session, not to the project's [`crate::ToolManager`]:
//! several sessions of one project can run at once on one manager, each with its own grants, and
//! a new session starts with none. The front end keeps the session's [`ToolSession`] (shared by
//! the agent's session and the panels that list or revoke grants) and passes it with every call
//! in a [`crate::CallContext`].

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::approval::{ApprovalScope, SessionGrant, SessionGrants};
use crate::external_rules::{ExternalRule, ExternalRules};
use crate::ledger::FileLedger;
use crate::sandboxing::SessionTempSlot;

/// One session's grants, file ledger and temporary folder. The folder is created by the
/// session's first command and removed when the session is dropped.
#[derive(Debug, Default)]
pub struct ToolSession {
    id: Option<String>,
    grants: Mutex<SessionGrants>,
    files: Arc<FileLedger>,
    temp: Arc<SessionTempSlot>,
    /// The allow rules of the command that started the running turn (its `allowed-tools`).
    turn_rules: Mutex<ExternalRules>,
}

impl ToolSession {
    /// A session stored under `id`: audit records of its calls carry the id.
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: Some(id.into()),
            ..Self::default()
        }
    }

    /// A session that is not stored (a one-off `tools call`, a test): audit records carry no id.
    pub fn detached() -> Self {
        Self::default()
    }

    /// The session's id, when it is stored.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// What the model read or wrote in this session.
    pub fn files(&self) -> &Arc<FileLedger> {
        &self.files
    }

    /// The private temporary folder of the session's commands (`TMPDIR` inside the sandbox).
    pub fn temp(&self) -> &Arc<SessionTempSlot> {
        &self.temp
    }

    /// Allows what `rules` cover for the turn about to start (a command's or skill's
    /// `allowed-tools`, see `gantry_config::allowed_tools`); [`Self::end_turn_rules`] drops
    /// them. The gate uses them only to settle an ordinary ask.
    pub fn set_turn_rules(&self, rules: Vec<ExternalRule>) {
        *self
            .turn_rules
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = ExternalRules::new(rules);
    }

    /// Drops the turn's allow rules (the turn ended).
    pub fn end_turn_rules(&self) {
        self.set_turn_rules(Vec::new());
    }

    /// The running turn's allow rules.
    pub fn turn_rules(&self) -> ExternalRules {
        self.turn_rules
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn grants(&self) -> MutexGuard<'_, SessionGrants> {
        // Every operation on the grants is one insert, remove or lookup: a panic elsewhere
        // cannot leave them half-changed.
        self.grants.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The grants covering a call of `tool` with `scope`, as the user reads them, or `None`
    /// when the call is not covered.
    pub fn covering(&self, tool: &str, scope: &ApprovalScope) -> Option<Vec<String>> {
        self.grants()
            .covers(tool, scope)
            .then(|| scope.describe(tool))
    }

    /// Grants what `scope` covers for the rest of the session.
    pub fn grant(&self, tool: &str, scope: &ApprovalScope) {
        self.grants().grant(tool, scope);
    }

    /// Allows every call of `tool` for the rest of the session.
    pub fn approve_tool(&self, tool: &str) {
        self.grant(tool, &ApprovalScope::WholeTool);
    }

    /// What the session has allowed so far, whole tools first, in name order.
    pub fn granted(&self) -> Vec<SessionGrant> {
        self.grants().list()
    }

    /// Withdraws one grant; true when it existed.
    pub fn revoke(&self, grant: &SessionGrant) -> bool {
        self.grants().revoke(grant)
    }

    /// Withdraws every grant.
    pub fn revoke_all(&self) {
        self.grants().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sessions_keep_their_own_grants_and_files() {
        let first = ToolSession::new("1");
        let second = ToolSession::new("2");
        first.approve_tool("write_file");
        first.grant(
            "run_command",
            &ApprovalScope::Keys(vec!["cargo test".into()]),
        );
        assert_eq!(
            first.covering("write_file", &ApprovalScope::WholeTool),
            Some(vec!["write_file".to_owned()])
        );
        assert_eq!(
            second.covering("write_file", &ApprovalScope::WholeTool),
            None
        );
        assert_eq!(first.granted().len(), 2);
        assert!(second.granted().is_empty());

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a");
        std::fs::write(&path, "x").unwrap();
        first.files().record_current(&path);
        assert_eq!(first.files().freshness(&path), crate::Freshness::Fresh);
        assert_eq!(second.files().freshness(&path), crate::Freshness::Unseen);

        assert_eq!(first.id(), Some("1"));
        assert_eq!(ToolSession::detached().id(), None);
        first.revoke_all();
        assert!(first.granted().is_empty());
    }
}
