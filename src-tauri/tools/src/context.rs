//! What a running tool can reach: the project, the user, the session's file ledger and the
//! turn's cancellation.

use std::path::Path;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::changes::CallChanges;
use crate::confine::{ConfineError, ProjectRoot, ResolvedPath};
use crate::ledger::FileLedger;
use crate::prompt::UserPrompter;
use crate::sandboxing::{CommandSandbox, SessionTempSlot};
use crate::skills::SkillShelf;

/// Everything a tool function receives besides its arguments. Cheap to clone.
#[derive(Clone)]
pub struct ToolContext {
    call_id: String,
    session_id: Option<String>,
    project: Arc<ProjectRoot>,
    files: Arc<FileLedger>,
    cancel: CancellationToken,
    prompter: Option<Arc<dyn UserPrompter>>,
    observer: Arc<dyn crate::call::CallObserver>,
    sandbox: Arc<CommandSandbox>,
    temp: Arc<SessionTempSlot>,
    changes: Option<Arc<dyn CallChanges>>,
    skills: Arc<SkillShelf>,
}

impl ToolContext {
    /// A context for `project` with a fresh ledger, no user, a token nobody cancels, the
    /// system's sandbox with the project's default settings, and a temporary folder of its own.
    pub fn new(project: Arc<ProjectRoot>) -> Self {
        Self {
            call_id: String::new(),
            session_id: None,
            project,
            files: Arc::default(),
            cancel: CancellationToken::new(),
            prompter: None,
            observer: Arc::new(crate::call::NoObserver),
            sandbox: Arc::new(CommandSandbox::system()),
            temp: Arc::default(),
            changes: None,
            skills: Arc::default(),
        }
    }

    /// The same context with the project's command sandbox.
    #[must_use]
    pub fn with_sandbox(mut self, sandbox: Arc<CommandSandbox>) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// The same context with the session's temporary folder.
    #[must_use]
    pub fn with_session_temp(mut self, temp: Arc<SessionTempSlot>) -> Self {
        self.temp = temp;
        self
    }

    /// How the project's commands are sandboxed.
    pub fn sandbox(&self) -> &CommandSandbox {
        &self.sandbox
    }

    /// The session's private temporary folder (created on first use).
    pub fn session_temp(&self) -> &Arc<SessionTempSlot> {
        &self.temp
    }

    /// The same context reporting the call's progress to `observer`.
    #[must_use]
    pub fn with_observer(mut self, observer: Arc<dyn crate::call::CallObserver>) -> Self {
        self.observer = observer;
        self
    }

    /// Who hears about the call (its progress).
    pub fn observer(&self) -> Arc<dyn crate::call::CallObserver> {
        Arc::clone(&self.observer)
    }

    /// Reports how far the call is (shown on its card).
    pub fn report_progress(&self, progress: &crate::call::CallProgress) {
        self.observer.progress(&self.call_id, progress);
    }

    /// The same context for the call `call_id`.
    #[must_use]
    pub fn with_call_id(mut self, call_id: impl Into<String>) -> Self {
        self.call_id = call_id.into();
        self
    }

    /// The same context for a call of the stored session `session_id` (`None`: not stored).
    #[must_use]
    pub fn with_session_id(mut self, session_id: Option<String>) -> Self {
        self.session_id = session_id;
        self
    }

    /// The stored session the call belongs to, if any.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The call being run (the model's `tool_call_id`); empty outside a dispatch.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The same context with the session's file ledger.
    #[must_use]
    pub fn with_files(mut self, files: Arc<FileLedger>) -> Self {
        self.files = files;
        self
    }

    /// The same context with `cancel` as the call's cancellation token.
    #[must_use]
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// The same context with a user who can answer questions.
    #[must_use]
    pub fn with_prompter(mut self, prompter: Option<Arc<dyn UserPrompter>>) -> Self {
        self.prompter = prompter;
        self
    }

    /// The same context recording the files the call replaces in `changes` (checkpoints).
    #[must_use]
    pub fn with_changes(mut self, changes: Option<Arc<dyn CallChanges>>) -> Self {
        self.changes = changes;
        self
    }

    /// Where a tool that replaces files reports each one before writing it (see
    /// [`crate::CallChanges`]); `None` when nothing is recorded.
    pub fn changes(&self) -> Option<&Arc<dyn CallChanges>> {
        self.changes.as_ref()
    }

    /// The same context with the project's skills (the library and the skill folders opened).
    #[must_use]
    pub fn with_skills(mut self, skills: Arc<SkillShelf>) -> Self {
        self.skills = skills;
        self
    }

    /// The project's skills: where the skill tool loads them from, and the skill folders
    /// read_file may read (read-only) besides the project.
    pub fn skills(&self) -> &SkillShelf {
        &self.skills
    }

    /// The project, which confines every path a tool touches.
    pub fn project(&self) -> &ProjectRoot {
        &self.project
    }

    /// The project's root folder (canonical).
    pub fn root(&self) -> &Path {
        self.project.path()
    }

    /// Resolves a path from the model's arguments inside the project (see [`ProjectRoot::resolve`]).
    pub fn resolve(&self, user_path: &str) -> Result<ResolvedPath, ConfineError> {
        self.project.resolve(user_path)
    }

    /// What the model has read or written in this session.
    pub fn files(&self) -> &FileLedger {
        &self.files
    }

    /// Cancelled when the turn is cancelled; long-running tools should watch it.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Who answers questions, if anyone.
    pub fn prompter(&self) -> Option<&Arc<dyn UserPrompter>> {
        self.prompter.as_ref()
    }
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("root", &self.root())
            .field("cancelled", &self.cancel.is_cancelled())
            .field("prompter", &self.prompter.is_some())
            .field("changes", &self.changes.is_some())
            .finish_non_exhaustive()
    }
}
