//! The one place a turn is driven and its events forwarded, for the app's chat and
//! `gantry-cli chat` alike.
//!
//! The agent's loop ([`Session::run_turn_with`], [`Session::compact`]) reports through a channel
//! of [`TurnEvent`]s. [`forward_events`] runs such work with a fresh channel whose events reach
//! a front end's `deliver`, in order, and returns only once the work ended *and* every event was
//! delivered — so whatever a front end does after a turn (free its slot, print the session's id)
//! comes after the turn's last event. [`drive_turn`] adds what every turn needs around the loop:
//! its changes are recorded under the ordinal its user message will have (checkpoints), and what
//! the provider taught about itself is remembered afterwards.

use std::future::Future;

use gantry_agent::{EventSink, Message, Session, TurnEvent, TurnOutcome};
use gantry_store::Store;
use tokio::sync::mpsc::unbounded_channel;
use tokio_util::sync::CancellationToken;

use crate::checkpoints::Checkpoints;
use crate::providers::remember_what_it_learned;

/// Runs `work` with an event sink whose events go to `deliver` (on a task of their own, in
/// order); returns `work`'s result once every event was delivered.
pub async fn forward_events<T, F>(
    mut deliver: impl FnMut(TurnEvent) + Send + 'static,
    work: impl FnOnce(EventSink) -> F,
) -> T
where
    F: Future<Output = T>,
{
    let (sender, mut receiver) = unbounded_channel();
    let forwarding = tokio::spawn(async move {
        while let Some(event) = receiver.recv().await {
            deliver(event);
        }
    });
    let result = work(EventSink::from(sender)).await;
    // The sink was moved into `work` and dropped with it: the forwarder ends after the last
    // event.
    if let Err(error) = forwarding.await {
        tracing::error!(%error, "the turn's events could not all be delivered");
    }
    result
}

/// What every turn is driven with besides its session and message: where its changes are
/// recorded and where what the provider taught is remembered.
#[derive(Clone, Copy)]
pub struct TurnSetting<'a> {
    /// Gantry's database.
    pub store: &'a Store,
    /// The project's checkpoints.
    pub checkpoints: &'a Checkpoints,
}

/// Runs one turn of `session` with `message`, its events delivered to `deliver` in order, and
/// returns how it ended once every event was delivered.
pub async fn drive_turn(
    session: &mut Session,
    message: Message,
    cancel: &CancellationToken,
    setting: TurnSetting<'_>,
    deliver: impl FnMut(TurnEvent) + Send + 'static,
) -> TurnOutcome {
    // What the turn changes is recorded under the ordinal its user message will have.
    let ordinal = u32::try_from(session.transcript().len()).unwrap_or(u32::MAX);
    setting.checkpoints.begin_turn(session.id(), ordinal);
    let outcome = forward_events(deliver, |events| {
        session.run_turn_with(message, cancel, events)
    })
    .await;
    tracing::info!(reason = outcome.reason.as_str(), "turn ended");
    remember_what_it_learned(setting.store, session.provider()).await;
    outcome
}
