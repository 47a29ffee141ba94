//! Starting or resuming an agent session of an open project, saved in Gantry's database: the
//! same assembly for the app's chat and `gantry-cli chat`.

pub mod export;
pub mod search;
pub mod tabs;
pub mod transcripts;

use std::sync::Arc;

use gantry_agent::{AgentError, PersistError, Provider, Session, SessionOptions, SessionParts};
use gantry_store::Store;
use gantry_tools::{ToolManager, ToolSession};

use crate::config::instructions::SessionInstructions;
use crate::sessions::transcripts::StoreTranscripts;

/// Why a session could not be started or resumed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The session to resume does not exist or belongs to another project: the caller named a
    /// wrong id.
    #[error(transparent)]
    Unknown(PersistError),
    /// The database failed.
    #[error(transparent)]
    Failed(AgentError),
}

impl From<AgentError> for SessionError {
    fn from(error: AgentError) -> Self {
        match error {
            AgentError::Persist(
                error @ (PersistError::NotFound(_) | PersistError::OtherProject { .. }),
            ) => Self::Unknown(error),
            other => Self::Failed(other),
        }
    }
}

/// A session of the project whose tools are `tools`, talking to `provider`, saved in `store`:
/// the saved session `resume` (its id, grants and file ledger) with its messages, or a new one.
/// Its system prompt carries the user's and the project's instruction files
/// ([`SessionInstructions`]).
pub async fn start_session(
    tools: &Arc<ToolManager>,
    store: &Store,
    provider: Provider,
    options: SessionOptions,
    resume: Option<Arc<ToolSession>>,
) -> Result<Session, SessionError> {
    let parts = SessionParts::new(
        Arc::clone(tools),
        provider,
        Arc::new(StoreTranscripts::new(store.clone())),
    )
    .with_options(options)
    .with_instructions(Arc::new(SessionInstructions::new(tools.root())));
    Ok(match resume {
        Some(session) => Session::resume_in(parts, session).await?,
        None => Session::create(parts).await?,
    })
}
