//! Where a session's transcript is kept.
//!
//! The loop saves every message the moment it is complete — the user's message when the turn
//! starts, the assistant's message (with its tool calls) when its stream ends, each tool result
//! as it arrives (in call order) — so a crash mid-turn loses at most the reply being streamed.
//! Reopening a session loads the messages back; calls left without a result are answered with a
//! synthesised `[cancelled]` message, which is saved too.
//!
//! [`TranscriptStore`] is the narrow interface the loop needs. The engine keeps sessions in
//! Gantry's database (`gantry_engine::StoreTranscripts`, the app and the CLI);
//! [`MemoryTranscripts`] keeps them in memory (tests, throwaway runs).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;

use crate::error::PersistError;
use crate::transcript::Message;

/// Persistence of sessions and their messages.
#[async_trait]
pub trait TranscriptStore: Send + Sync {
    /// Creates a session for the project at `project_root` (talking to `model`) and returns
    /// its id.
    async fn create_session(
        &self,
        project_root: &Path,
        model: Option<&str>,
    ) -> Result<String, PersistError>;

    /// The messages of a session of the project at `project_root`, in ordinal order. A session
    /// of another project is refused ([`PersistError::OtherProject`]).
    async fn load_messages(
        &self,
        session_id: &str,
        project_root: &Path,
    ) -> Result<Vec<Message>, PersistError>;

    /// Saves one complete message at `ordinal` (0-based, one more than the last saved).
    async fn append_message(
        &self,
        session_id: &str,
        ordinal: usize,
        message: &Message,
    ) -> Result<(), PersistError>;
}

#[derive(Debug, Default)]
struct StoredSession {
    project_root: PathBuf,
    messages: Vec<Message>,
}

/// Sessions kept in memory (tests, one-shot CLI runs).
#[derive(Debug, Default)]
pub struct MemoryTranscripts {
    sessions: Mutex<BTreeMap<String, StoredSession>>,
}

impl MemoryTranscripts {
    /// No sessions.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of a session's messages (empty when unknown).
    pub fn messages(&self, session_id: &str) -> Vec<Message> {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(session_id)
            .map(|session| session.messages.clone())
            .unwrap_or_default()
    }

    /// The project a session belongs to.
    pub fn project_root(&self, session_id: &str) -> Option<PathBuf> {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(session_id)
            .map(|session| session.project_root.clone())
    }
}

#[async_trait]
impl TranscriptStore for MemoryTranscripts {
    async fn create_session(
        &self,
        project_root: &Path,
        _model: Option<&str>,
    ) -> Result<String, PersistError> {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let id = format!("session-{}", sessions.len() + 1);
        sessions.insert(
            id.clone(),
            StoredSession {
                project_root: project_root.to_owned(),
                messages: Vec::new(),
            },
        );
        Ok(id)
    }

    async fn load_messages(
        &self,
        session_id: &str,
        project_root: &Path,
    ) -> Result<Vec<Message>, PersistError> {
        let sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let session = sessions
            .get(session_id)
            .ok_or_else(|| PersistError::NotFound(session_id.to_owned()))?;
        if session.project_root != project_root {
            return Err(PersistError::OtherProject {
                session: session_id.to_owned(),
                root: session.project_root.clone(),
            });
        }
        Ok(session.messages.clone())
    }

    async fn append_message(
        &self,
        session_id: &str,
        ordinal: usize,
        message: &Message,
    ) -> Result<(), PersistError> {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let session = sessions
            .get_mut(session_id)
            .ok_or_else(|| PersistError::NotFound(session_id.to_owned()))?;
        if ordinal != session.messages.len() {
            return Err(PersistError::Backend(format!(
                "message {ordinal} saved out of order (session has {})",
                session.messages.len()
            )));
        }
        session.messages.push(message.clone());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn messages_are_kept_in_order_per_session() {
        let store = MemoryTranscripts::new();
        let id = store.create_session(Path::new("/p"), None).await.unwrap();
        store
            .append_message(&id, 0, &Message::user("a"))
            .await
            .unwrap();
        assert!(matches!(
            store.append_message(&id, 5, &Message::user("b")).await,
            Err(PersistError::Backend(_))
        ));
        assert_eq!(
            store.load_messages(&id, Path::new("/p")).await.unwrap(),
            vec![Message::user("a")]
        );
        assert!(matches!(
            store.load_messages(&id, Path::new("/q")).await,
            Err(PersistError::OtherProject { .. })
        ));
        assert_eq!(store.project_root(&id).as_deref(), Some(Path::new("/p")));
        assert!(matches!(
            store.load_messages("nope", Path::new("/p")).await,
            Err(PersistError::NotFound(_))
        ));
    }
}
