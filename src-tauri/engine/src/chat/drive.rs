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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use gantry_agent::{
    EventSink, Message, Session, TokenUsage, TurnEndReason, TurnEvent, TurnOutcome,
};
use gantry_store::Store;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio_util::sync::CancellationToken;

use crate::chat::hooks::{self as hook_events, MAX_STOP_BLOCKS};
use crate::chat::session_hooks::{
    CompactTrigger, NotificationType, after_compact, notification, pre_compact,
};
use crate::checkpoints::Checkpoints;
use crate::config::hooks::{HookNotices, ProjectHooks};
use crate::providers::remember_what_it_learned;
use gantry_config::hooks::HookEvent;

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
/// recorded, where what the provider taught is remembered, and the user's hooks.
#[derive(Clone, Copy)]
pub struct TurnSetting<'a> {
    /// Gantry's database.
    pub store: &'a Store,
    /// The project's checkpoints.
    pub checkpoints: &'a Checkpoints,
    /// The project's hooks (SessionStart and UserPromptSubmit before the turn, Stop after it,
    /// PreCompact, Notification); `None`: none.
    pub hooks: Option<&'a ProjectHooks>,
}

/// Runs one turn of `session` with `message`, its events delivered to `deliver` in order, and
/// returns how it ended once every event was delivered. With hooks, the UserPromptSubmit hooks
/// run first (a block ends the turn before anything is sent, with the reason for the user), and
/// the Stop hooks after a completed turn: while one blocks (at most [`MAX_STOP_BLOCKS`] times),
/// the turn goes on with its reason as the next instruction, and the front end sees one turn
/// (one `turn_started`, one `turn_finished`). Around it: PreCompact (`auto`) when the turn is
/// about to compact (a block turns this turn's compaction off, with a warning), SessionStart
/// (`compact`) after a compaction, Notification (`permission_prompt` as an approval opens,
/// `idle_prompt` once the turn finished); what hooks say for the user shows as warnings.
pub async fn drive_turn(
    session: &mut Session,
    message: Message,
    cancel: &CancellationToken,
    setting: TurnSetting<'_>,
    deliver: impl FnMut(TurnEvent) + Send + 'static,
) -> TurnOutcome {
    let Some(hooks) = setting.hooks else {
        return drive_once(session, message, cancel, setting, deliver).await;
    };
    let deliver = Arc::new(Mutex::new(deliver));
    let send = {
        let deliver = Arc::clone(&deliver);
        move |event: TurnEvent| (deliver.lock().unwrap_or_else(PoisonError::into_inner))(event)
    };
    if let Err(reason) = hook_events::before_prompt(hooks, session, &message).await {
        return refuse_prompt(session.id(), reason, send);
    }
    let compact_at = session.options().compact_at_percent;
    // Measuring costs a look at the instruction files: only when a PreCompact hook listens.
    if hooks.wants(HookEvent::PreCompact).await
        && session.would_compact(&message.content).await
        && let Err(reason) = pre_compact(hooks, session, CompactTrigger::Auto).await
    {
        hooks.notices().push(format!(
            "{reason}; the conversation goes on without a summary (old messages are shortened \
             or left out to fit)"
        ));
        session.set_compact_at_percent(0);
    }
    let (asking, mut asked) = unbounded_channel();
    let session_id = session.id().to_owned();
    let notify = async {
        while asked.recv().await.is_some() {
            notification(hooks, &session_id, NotificationType::PermissionPrompt).await;
        }
    };
    let turn = async {
        let outcome = hooked_turn(session, message, cancel, setting, hooks, send, asking).await;
        session.set_compact_at_percent(compact_at);
        outcome
    };
    let (outcome, ()) = tokio::join!(turn, notify);
    notification(hooks, &session_id, NotificationType::IdlePrompt).await;
    outcome
}

/// The turn and the continuations its Stop hooks ask for, as one turn for the front end; what
/// the hooks said for the user is shown as the turn goes (non-fatal `error` events), a hook's
/// `continue: false` stops it, an approval asked is sent to `asking` (for the Notification
/// hooks), and a compaction fires SessionStart (`compact`).
async fn hooked_turn(
    session: &mut Session,
    mut message: Message,
    cancel: &CancellationToken,
    setting: TurnSetting<'_>,
    hooks: &ProjectHooks,
    send: impl Fn(TurnEvent) + Clone + Send + 'static,
    asking: UnboundedSender<()>,
) -> TurnOutcome {
    let notices = hooks.notices().clone();
    let mut blocks = 0;
    loop {
        let held: Arc<Mutex<Option<TurnEvent>>> = Arc::default();
        let compacted = Arc::new(AtomicBool::new(false));
        let relay = {
            let (held, send, first) = (Arc::clone(&held), send.clone(), blocks == 0);
            let (notices, cancel, asking) = (notices.clone(), cancel.clone(), asking.clone());
            let compacted = Arc::clone(&compacted);
            move |event: TurnEvent| {
                match &event {
                    TurnEvent::ApprovalRequested { .. } => drop(asking.send(())),
                    TurnEvent::Compacted { .. } => compacted.store(true, Ordering::Relaxed),
                    _ => {}
                }
                match event {
                    TurnEvent::TurnFinished { .. } => {
                        *held.lock().unwrap_or_else(PoisonError::into_inner) = Some(event);
                        return;
                    }
                    TurnEvent::TurnStarted { .. } if !first => {}
                    event => send(event),
                }
                if show_notices(&notices, &send) {
                    cancel.cancel();
                }
            }
        };
        let outcome = drive_once(session, message, cancel, setting, relay).await;
        if compacted.load(Ordering::Relaxed) {
            after_compact(hooks, session).await;
        }
        let go_on = if outcome.reason == TurnEndReason::Completed
            && blocks < MAX_STOP_BLOCKS
            && !cancel.is_cancelled()
        {
            hook_events::after_turn(hooks, session, blocks > 0).await
        } else {
            None
        };
        match go_on {
            Some(instruction) => {
                blocks += 1;
                message = Message::user(instruction);
            }
            None => {
                show_notices(&notices, &send);
                let finished = held.lock().unwrap_or_else(PoisonError::into_inner).take();
                if let Some(finished) = finished {
                    send(finished);
                }
                return outcome;
            }
        }
    }
}

/// Sends what the hooks said for the user as non-fatal `error` events, and a hook's
/// `continue: false` with its reason; true when one asked to stop.
fn show_notices(notices: &HookNotices, send: &impl Fn(TurnEvent)) -> bool {
    for message in notices.take_messages() {
        send(TurnEvent::Error {
            message: format!("hook: {message}"),
            fatal: false,
        });
    }
    let Some(reason) = notices.take_stop() else {
        return false;
    };
    send(TurnEvent::Error {
        message: format!("A hook stopped the turn: {reason}"),
        fatal: false,
    });
    true
}

/// A turn a UserPromptSubmit hook refused: started, the reason as a fatal error, finished.
fn refuse_prompt(session: &str, reason: String, mut send: impl FnMut(TurnEvent)) -> TurnOutcome {
    send(TurnEvent::TurnStarted {
        session_id: session.to_owned(),
    });
    send(TurnEvent::Error {
        message: reason.clone(),
        fatal: true,
    });
    send(TurnEvent::TurnFinished {
        reason: TurnEndReason::Error,
        steps: 0,
        message: Some(reason.clone()),
    });
    TurnOutcome {
        reason: TurnEndReason::Error,
        steps: 0,
        usage: TokenUsage::default(),
        message: Some(reason),
    }
}

/// One turn of the loop, its events forwarded, what the provider taught remembered.
async fn drive_once(
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
