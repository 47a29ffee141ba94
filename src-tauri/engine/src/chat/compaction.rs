//! The chat's window: how full it is, compaction on demand, and the summary's edits.
//!
//! A turn reports how full the window is as it sends each request (`context` events); between
//! turns the gauge asks [`ProjectChat::measure_context`]. [`ProjectChat::compact`] is what the
//! `/compact` command and the chat header's compaction run: it takes the session's turn slot
//! like a message (so nothing else runs in the session meanwhile), asks the model for a summary
//! ([`gantry_agent::Session::compact`]), and returns what the chat shows then. The threshold at
//! which turns compact by themselves is the app setting [`COMPACT_AT_PERCENT`].

use std::sync::Arc;

use gantry_agent::{ContextUsage, Provider, SessionOptions, TurnEvent};
use gantry_store::{SessionId, Store};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::activity::TurnPhase;
use super::runtime::{Hold, Runtime};
use super::{ChatEvent, ChatView, ProjectChat};
use crate::chat::drive::forward_events;
use crate::chat::session_hooks::{CompactTrigger, after_compact, pre_compact};
use crate::error::{CommandError, ErrorKind};
use crate::events::emit;
use crate::settings::COMPACT_AT_PERCENT;

/// The longest summary accepted from the webview, in bytes.
const MAX_SUMMARY_BYTES: usize = 256 * 1024;

/// A summary of the current session and the text the user corrected it to.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct EditSummaryRequest {
    /// The summary's position in the current session.
    pub ordinal: u32,
    /// Its new text.
    pub text: String,
}

/// The compaction setting, as Settings shows and saves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CompactSettings {
    /// Percent of the window at which a turn compacts the session first; 0: never by itself.
    pub compact_at_percent: u8,
}

/// The compaction setting.
pub async fn load_compact_setting(store: &Store) -> CompactSettings {
    CompactSettings {
        compact_at_percent: session_options(store).await.compact_at_percent,
    }
}

/// Saves the compaction setting (0, or 10 to 100); later turns of every session follow it.
pub async fn save_compact_setting(
    store: &Store,
    settings: CompactSettings,
) -> Result<CompactSettings, CommandError> {
    COMPACT_AT_PERCENT
        .save(store, settings.compact_at_percent)
        .await?;
    Ok(load_compact_setting(store).await)
}

/// The options new and loaded sessions run with: the defaults, and the compaction threshold
/// the settings hold (a value that is not one is ignored).
pub(super) async fn session_options(store: &Store) -> SessionOptions {
    SessionOptions {
        compact_at_percent: COMPACT_AT_PERCENT.load(store).await,
        ..SessionOptions::default()
    }
}

impl ProjectChat {
    /// How full the window of the current session's next request would be; `None` for a fresh
    /// chat, or while a turn runs (its `context` events say it then).
    pub async fn measure_context(
        &self,
        provider: Provider,
    ) -> Result<Option<ContextUsage>, CommandError> {
        let Some(runtime) = self.shown_runtime() else {
            return Ok(None);
        };
        if runtime.hold().is_some() {
            return Ok(None);
        }
        let Ok(mut slot) = Arc::clone(&runtime.engine).try_lock_owned() else {
            return Ok(None);
        };
        self.load_session(&runtime, &mut slot, &provider).await?;
        let Some(session) = slot.as_mut() else {
            return Ok(None);
        };
        session.set_provider(provider);
        Ok(Some(session.measure_context().await))
    }

    /// Asks the model for a summary of the current session and continues from it (the
    /// `/compact` command). Refused while a turn runs; returns what the chat shows after.
    pub async fn compact(&self, provider: Provider) -> Result<ChatView, CommandError> {
        let Some(runtime) = self.shown_runtime() else {
            return Err(CommandError::invalid("there is nothing to compact yet"));
        };
        runtime.wait_for_stop().await;
        let cancel = CancellationToken::new();
        runtime.claim(
            &self.activities,
            Hold::Turn(TurnPhase::Running),
            cancel.clone(),
        )?;
        let result = self.compact_now(&runtime, provider, &cancel).await;
        runtime.release(&self.activities);
        result?;
        self.view().await
    }

    async fn compact_now(
        &self,
        runtime: &Runtime,
        provider: Provider,
        cancel: &CancellationToken,
    ) -> Result<(), CommandError> {
        let mut session = self.session_for(runtime, provider).await?;
        if let Some(hooks) = &self.hooks {
            pre_compact(hooks, &session, CompactTrigger::Manual)
                .await
                .map_err(CommandError::invalid)?;
        }
        let sink = Arc::clone(&self.sink);
        let log = Arc::clone(&self.events);
        let project_id = self.project_id;
        let tagged = runtime.id().to_owned();
        let deliver = move |event| {
            let event = log.record(ChatEvent::new(project_id, tagged.clone(), event));
            emit(sink.as_ref(), event);
        };
        let hooks = self.hooks.as_deref();
        let outcome = forward_events(deliver, |events| async move {
            let outcome = session.compact(cancel, &events, false).await;
            if outcome.is_ok() {
                let usage = session.measure_context().await;
                events.emit(TurnEvent::Context { usage });
                if let Some(hooks) = hooks {
                    after_compact(hooks, &mut session).await;
                }
            }
            outcome
        })
        .await;
        outcome?;
        Ok(())
    }

    /// Replaces the text of the current session's summary at `ordinal` (the user corrected
    /// it); later requests send the new text.
    pub async fn replace_summary(
        &self,
        request: &EditSummaryRequest,
    ) -> Result<ChatView, CommandError> {
        if request.text.trim().is_empty() {
            return Err(CommandError::invalid("the summary is empty"));
        }
        if request.text.len() > MAX_SUMMARY_BYTES {
            return Err(CommandError::invalid("the summary is over 256 KiB"));
        }
        let Some(runtime) = self.shown_runtime() else {
            return Err(CommandError::invalid("no session is open"));
        };
        if runtime.hold().is_some() {
            return Err(CommandError::new(
                ErrorKind::Busy,
                "a turn is running in this session: wait for it or stop it",
            ));
        }
        let parsed: SessionId = self.own_session(runtime.id()).await?.id;
        self.store
            .sessions()
            .replace_summary(parsed, request.ordinal, request.text.trim())
            .await?;
        // The loaded session reloads its transcript, with the new text, for the next message.
        *runtime.engine.lock().await = None;
        self.view().await
    }
}
