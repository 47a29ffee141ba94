//! The error every command returns to the webview: a kind the UI can branch on and a message it
//! can show as is.
//!
//! Engine errors (`TreeError`, `ConfineError`, the dialog registry's) are mapped here, once, so a
//! command body is a `?` away from a typed answer, and nothing a command receives can make the
//! backend panic: a bad path, an unknown dialog id, a project that is not open are all errors.

use std::path::Path;

use gantry_agent::{CompactError, ProviderError};
use gantry_mcp::{CatalogError, EditError, HubError, SignInError};
use gantry_store::{SecretError, StoreError};
use gantry_tools::{AtomicWriteError, ConfineError, ManagerError};
use gantry_watch::TreeError;
use serde::Serialize;

use crate::chat::attachments::ImageError;
use crate::checkpoints::CheckpointError;
use crate::project::open::{McpStartError, OpenError};
use crate::sessions::SessionError;

/// What kind of failure a command reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// No project is open, and the command needs one.
    NoProject,
    /// The named file or folder does not exist.
    NotFound,
    /// A folder was expected.
    NotADirectory,
    /// A regular file was expected.
    NotAFile,
    /// The path leads outside the project (by `..`, an absolute path, `~` or a symbolic link).
    OutsideProject,
    /// The project's ignore rules or the vendor-directory list hide the path.
    Ignored,
    /// The path goes through a symbolic link the tree does not follow.
    Symlink,
    /// An argument is malformed (empty, contains a NUL byte, too long, ...).
    InvalidInput,
    /// No pending approval or question has this id (answered, timed out or cancelled already).
    UnknownDialog,
    /// The file system refused (permissions, I/O error).
    Io,
    /// A turn is running and the command must wait for it (or stop it) first.
    Busy,
    /// The model provider is misconfigured or refused (a missing key, an unknown preset).
    Provider,
    /// The change needs the user's explicit confirmation first (enabling a DANGEROUS tool);
    /// the message says what is being confirmed.
    NeedsConfirmation,
    /// Something in Gantry itself failed (a background task died); not the caller's fault.
    Internal,
}

/// An everyday refusal the webview words itself, in the UI's language, from these values (the
/// `message` says the same in English, for logs and for a UI that does not know the reason).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum ErrorReason {
    /// The MCP servers are still starting; a change must wait.
    McpStarting,
    /// These server names are configured already in the user's MCP file.
    McpNamesTaken {
        /// The names.
        names: Vec<String>,
        /// The user's MCP file.
        file: String,
    },
    /// The server being edited changed in the file since the editor opened it.
    McpEditedElsewhere {
        /// The server.
        name: String,
        /// The user's MCP file.
        file: String,
    },
    /// The MCP file changed while Gantry was writing it.
    McpFileChanged {
        /// The file.
        file: String,
    },
    /// Nothing was chosen to import.
    McpNothingChosen,
}

/// A command's failure, as the webview receives it (`invoke` rejects with this object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    /// What kind of failure it is.
    pub kind: ErrorKind,
    /// A sentence for the user.
    pub message: String,
    /// For the refusals the UI words itself: which one, with its values.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reason: Option<ErrorReason>,
}

impl CommandError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            reason: None,
        }
    }

    /// The same error, marked as the everyday refusal `reason`.
    #[must_use]
    pub fn with_reason(mut self, reason: ErrorReason) -> Self {
        self.reason = Some(reason);
        self
    }

    /// The error for commands that need an open project.
    pub fn no_project() -> Self {
        Self::new(ErrorKind::NoProject, "no project is open")
    }

    /// A malformed argument.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }

    /// The named thing (a tool, a grant, a session) does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }

    /// A failure inside Gantry.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    /// Gantry's own file at `path` (an export) could not be written: [`ErrorKind::Io`], the
    /// sentence naming the file as the user chose it.
    pub fn cannot_write(path: &Path, error: &AtomicWriteError) -> Self {
        Self::new(ErrorKind::Io, error.describe(&path.display().to_string()))
    }
}

impl From<TreeError> for CommandError {
    fn from(error: TreeError) -> Self {
        let kind = match &error {
            TreeError::Root { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                ErrorKind::NotFound
            }
            TreeError::Root { .. } | TreeError::Io { .. } | TreeError::Watch { .. } => {
                ErrorKind::Io
            }
            TreeError::RootNotADirectory { .. } | TreeError::NotADirectory { .. } => {
                ErrorKind::NotADirectory
            }
            TreeError::OutsideProject { .. } => ErrorKind::OutsideProject,
            TreeError::Symlink { .. } => ErrorKind::Symlink,
            TreeError::NotFound { .. } => ErrorKind::NotFound,
            TreeError::Ignored { .. } => ErrorKind::Ignored,
            TreeError::InvalidDebounce | TreeError::Thread(_) => ErrorKind::Internal,
        };
        Self::new(kind, error.to_string())
    }
}

impl From<ConfineError> for CommandError {
    fn from(error: ConfineError) -> Self {
        let kind = match &error {
            ConfineError::Outside { .. } => ErrorKind::OutsideProject,
            ConfineError::Empty | ConfineError::NulByte { .. } => ErrorKind::InvalidInput,
            ConfineError::SymlinkLoop { .. } => ErrorKind::Io,
            ConfineError::Io { source, .. } | ConfineError::RootUnavailable { source, .. }
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                ErrorKind::NotFound
            }
            ConfineError::Io { .. } | ConfineError::RootUnavailable { .. } => ErrorKind::Io,
            ConfineError::RootNotDirectory { .. } => ErrorKind::NotADirectory,
        };
        Self::new(kind, error.to_string())
    }
}

/// A change the user's MCP file refused; the everyday refusals carry their reason, which the UI
/// words in its language.
impl From<EditError> for CommandError {
    fn from(error: EditError) -> Self {
        let shown = |file: &std::path::Path| file.display().to_string();
        let (kind, reason) = match &error {
            EditError::UnknownServer { .. } => (ErrorKind::NotFound, None),
            EditError::Write { .. } => (ErrorKind::Io, None),
            EditError::Changed { file } => (
                ErrorKind::Busy,
                Some(ErrorReason::McpFileChanged { file: shown(file) }),
            ),
            EditError::EditedElsewhere { name, file } => (
                ErrorKind::Busy,
                Some(ErrorReason::McpEditedElsewhere {
                    name: name.clone(),
                    file: shown(file),
                }),
            ),
            EditError::Taken { names, file } => (
                ErrorKind::InvalidInput,
                Some(ErrorReason::McpNamesTaken {
                    names: names.clone(),
                    file: shown(file),
                }),
            ),
            EditError::NothingChosen => {
                (ErrorKind::InvalidInput, Some(ErrorReason::McpNothingChosen))
            }
            EditError::Invalid(_)
            | EditError::Broken(_)
            | EditError::Source(_)
            | EditError::NoServers
            | EditError::NotOne { .. }
            | EditError::NotImportable { .. } => (ErrorKind::InvalidInput, None),
        };
        Self {
            reason,
            ..Self::new(kind, error.to_string())
        }
    }
}

impl From<ManagerError> for CommandError {
    /// A tool name that is not registered, or one that can't be (taken, malformed), or a project
    /// folder the manager can't use.
    fn from(error: ManagerError) -> Self {
        let kind = match &error {
            ManagerError::UnknownTool(_) => ErrorKind::NotFound,
            ManagerError::DuplicateTool(_)
            | ManagerError::InvalidName(_)
            | ManagerError::BadRoot { .. } => ErrorKind::InvalidInput,
        };
        Self::new(kind, error.to_string())
    }
}

impl From<HubError> for CommandError {
    /// A server name that is not configured, or a project file to approve that is not there.
    fn from(error: HubError) -> Self {
        let kind = match &error {
            HubError::UnknownServer(_) => ErrorKind::NotFound,
            HubError::NoProjectFile => ErrorKind::InvalidInput,
        };
        Self::new(kind, error.to_string())
    }
}

impl From<SignInError> for CommandError {
    /// A sign-in failure: the sentence, with the kind the UI needs.
    fn from(error: SignInError) -> Self {
        let kind = match &error {
            SignInError::NotRemote(_) | SignInError::Config(_) => ErrorKind::InvalidInput,
            SignInError::Vault(_) => ErrorKind::Io,
            SignInError::Failed { .. }
            | SignInError::Browser { .. }
            | SignInError::TimedOut(..)
            | SignInError::Refused { .. }
            | SignInError::Cancelled => ErrorKind::Provider,
        };
        Self::new(kind, error.to_string())
    }
}

impl From<CatalogError> for CommandError {
    /// A resource or prompt that could not be had.
    fn from(error: CatalogError) -> Self {
        let kind = match &error {
            CatalogError::UnknownServer(_) => ErrorKind::NotFound,
            CatalogError::NotRunning { .. } | CatalogError::Unsupported { .. } => {
                ErrorKind::InvalidInput
            }
            CatalogError::Failed { .. } => ErrorKind::Provider,
        };
        Self::new(kind, error.to_string())
    }
}

impl From<StoreError> for CommandError {
    /// A value the user gave that the store refuses is theirs to fix; a row the call names that
    /// is not there (a session deleted in another window, a rule removed meanwhile) is
    /// [`ErrorKind::NotFound`]; anything else is the database failing.
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Invalid { .. } | StoreError::BadRoot { .. } => {
                Self::invalid(error.to_string())
            }
            StoreError::NotFound { .. } => Self::not_found(error.to_string()),
            StoreError::NoDataDir
            | StoreError::DataDir { .. }
            | StoreError::Open { .. }
            | StoreError::Migrate(_)
            | StoreError::Database(_)
            | StoreError::Corrupt { .. } => Self::internal(format!("the database failed: {error}")),
        }
    }
}

impl From<OpenError> for CommandError {
    /// A folder that can't be a project is the user's to fix, and the message says why.
    fn from(error: OpenError) -> Self {
        match error {
            OpenError::Root(ManagerError::BadRoot { path, reason }) => Self::new(
                ErrorKind::InvalidInput,
                format!("{} can't be opened as a project: {reason}", path.display()),
            ),
            OpenError::Root(other) => other.into(),
            OpenError::Store(error) => error.into(),
            OpenError::Register(error) => Self::internal(error.to_string()),
        }
    }
}

impl From<ProviderError> for CommandError {
    /// The model provider is misconfigured or refused.
    fn from(error: ProviderError) -> Self {
        Self::new(ErrorKind::Provider, error.to_string())
    }
}

impl From<SecretError> for CommandError {
    /// The keychain refused a provider's key: the provider is not usable as configured (the
    /// message names the variable to set when there is no keychain).
    fn from(error: SecretError) -> Self {
        match error {
            SecretError::Unavailable { .. }
            | SecretError::Keychain { .. }
            | SecretError::InvalidProvider(_) => Self::new(ErrorKind::Provider, error.to_string()),
        }
    }
}

impl From<CompactError> for CommandError {
    /// Nothing to compact is the caller's to know; a summary that could not be saved is the
    /// database's failure; the rest is the model's (or the user stopping it).
    fn from(error: CompactError) -> Self {
        let kind = match &error {
            CompactError::Nothing => ErrorKind::InvalidInput,
            CompactError::Save(_) => ErrorKind::Internal,
            CompactError::Cancelled | CompactError::Empty | CompactError::Failed(_) => {
                ErrorKind::Provider
            }
        };
        Self::new(kind, error.to_string())
    }
}

impl From<ImageError> for CommandError {
    /// An image the user attached that can't be sent: theirs to change.
    fn from(error: ImageError) -> Self {
        Self::invalid(error.to_string())
    }
}

impl From<SessionError> for CommandError {
    fn from(error: SessionError) -> Self {
        match error {
            SessionError::Unknown(error) => Self::not_found(error.to_string()),
            SessionError::Failed(error) => Self::internal(error.to_string()),
        }
    }
}

impl From<McpStartError> for CommandError {
    fn from(error: McpStartError) -> Self {
        match error {
            McpStartError::Config(error) => Self::invalid(error.to_string()),
            McpStartError::Switches(error) => Self::internal(error.to_string()),
        }
    }
}

impl From<CheckpointError> for CommandError {
    fn from(error: CheckpointError) -> Self {
        match error {
            CheckpointError::Store(error) => error.into(),
            CheckpointError::Io(error) => Self::new(ErrorKind::Io, error.to_string()),
            CheckpointError::NotFound(message) => Self::not_found(message),
            CheckpointError::Invalid(message) => Self::invalid(message),
            CheckpointError::Task(error) => error.into(),
        }
    }
}

impl From<tokio::task::JoinError> for CommandError {
    fn from(error: tokio::task::JoinError) -> Self {
        Self::internal(format!("a background task failed: {error}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_serialise_as_kind_and_message() {
        let error = CommandError::from(TreeError::OutsideProject {
            path: "../x".into(),
        });
        assert_eq!(
            serde_json::to_value(&error).unwrap(),
            serde_json::json!({"kind": "outside_project", "message": "\"../x\" leads outside the project"})
        );
    }

    #[test]
    fn confinement_errors_keep_their_meaning() {
        let outside = CommandError::from(ConfineError::Outside {
            path: "/etc/passwd".into(),
        });
        assert_eq!(outside.kind, ErrorKind::OutsideProject);
        assert_eq!(
            CommandError::from(ConfineError::Empty).kind,
            ErrorKind::InvalidInput
        );
        let missing = CommandError::from(ConfineError::Io {
            path: "x".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        });
        assert_eq!(missing.kind, ErrorKind::NotFound);
    }

    #[test]
    fn a_folder_that_cannot_be_a_project_is_the_users_to_fix_and_says_why() {
        let error = CommandError::from(OpenError::Root(ManagerError::BadRoot {
            path: "/srv/file.txt".into(),
            reason: "not a directory".into(),
        }));
        assert_eq!(error.kind, ErrorKind::InvalidInput);
        assert_eq!(
            error.message,
            "/srv/file.txt can't be opened as a project: not a directory"
        );
        let session = CommandError::from(SessionError::Unknown(
            gantry_agent::PersistError::NotFound("9".into()),
        ));
        assert_eq!(session.kind, ErrorKind::NotFound);
        let provider = CommandError::from(ProviderError::Config("no key".into()));
        assert_eq!(provider.kind, ErrorKind::Provider);
    }

    /// Each store error, as the webview receives it: the caller's value and a row that is not
    /// there are theirs (invalid input, not found, with the store's sentence); the rest is the
    /// database failing.
    #[test]
    fn each_store_error_has_one_kind_and_message() {
        let io = || std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let cases = [
            (
                StoreError::Invalid {
                    what: "provider name",
                    reason: "empty".into(),
                },
                ErrorKind::InvalidInput,
                "invalid provider name: empty",
            ),
            (
                StoreError::BadRoot {
                    path: "/srv/x".into(),
                    reason: "not a directory".into(),
                },
                ErrorKind::InvalidInput,
                "project folder /srv/x is not usable: not a directory",
            ),
            (
                StoreError::NotFound {
                    what: "rule",
                    id: "7".into(),
                },
                ErrorKind::NotFound,
                "no rule with id 7",
            ),
            (
                StoreError::NoDataDir,
                ErrorKind::Internal,
                "the database failed: cannot find a data folder for Gantry: set GANTRY_DATA_DIR",
            ),
            (
                StoreError::DataDir {
                    path: "/data".into(),
                    source: io(),
                },
                ErrorKind::Internal,
                "the database failed: cannot create the data folder /data: permission denied",
            ),
            (
                StoreError::Open {
                    path: "/data/gantry.db".into(),
                    source: sqlx::Error::PoolClosed,
                },
                ErrorKind::Internal,
                "the database failed: cannot open the database /data/gantry.db: \
                 attempted to acquire a connection on a closed pool",
            ),
            (
                StoreError::Migrate(sqlx::migrate::MigrateError::VersionMissing(3)),
                ErrorKind::Internal,
                "the database failed: cannot update the database schema: \
                 migration 3 was previously applied but is missing in the resolved migrations",
            ),
            (
                StoreError::Database(sqlx::Error::RowNotFound),
                ErrorKind::Internal,
                "the database failed: database error: \
                 no rows returned by a query that expected to return at least one row",
            ),
            (
                StoreError::Corrupt {
                    what: "policy",
                    reason: "unknown name".into(),
                },
                ErrorKind::Internal,
                "the database failed: the database holds an unreadable policy: unknown name",
            ),
        ];
        for (error, kind, message) in cases {
            let error = CommandError::from(error);
            assert_eq!((error.kind, error.message.as_str()), (kind, message));
            assert_eq!(error.reason, None);
        }
    }
}
