//! The provider's shared state: the queue of turns and the record of what arrived.
//!
//! One mutex guards it; no lock is held across an `.await`. Every change bumps a `watch`
//! counter so waiters (`Handle::wait_until`) re-check their condition without polling.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::expect::message_text;
use crate::record::{Delivery, Failure, RecordedRequest};
use crate::script::{Reply, Script, Turn};

/// State shared by the server task, its response bodies and the [`crate::Handle`].
#[derive(Debug)]
pub(crate) struct Shared {
    state: Mutex<State>,
    version: watch::Sender<u64>,
    started: Instant,
    /// Cancelled when the provider shuts down; hanging and pausing bodies watch it.
    pub(crate) shutdown: CancellationToken,
}

#[derive(Debug)]
struct State {
    turns: VecDeque<Turn>,
    /// How many turns were consumed: the index of the turn at the front of `turns`.
    consumed: usize,
    models: Vec<String>,
    created: Option<u32>,
    routes: BTreeMap<String, Value>,
    requests: Vec<RecordedRequest>,
    failures: Vec<Failure>,
    subscribers: Vec<mpsc::UnboundedSender<RecordedRequest>>,
}

/// A request as it arrived, before the provider decided anything.
#[derive(Debug)]
pub(crate) struct Incoming {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) headers: BTreeMap<String, String>,
    pub(crate) raw_body: String,
    pub(crate) body: Option<Value>,
}

/// What to do with a chat-completion request.
#[derive(Debug)]
pub(crate) enum ChatDecision {
    /// Play this turn.
    Play {
        seq: usize,
        turn_index: usize,
        reply: Reply,
        created: u32,
    },
    /// Answer with the provider's own error.
    Refuse {
        status: u16,
        code: &'static str,
        message: String,
    },
}

impl Shared {
    pub(crate) fn new(script: Script) -> Self {
        let (version, _) = watch::channel(0);
        Self {
            state: Mutex::new(State {
                turns: script.turns.into(),
                consumed: 0,
                models: script.models,
                created: script.created,
                routes: script.routes,
                requests: Vec::new(),
                failures: Vec::new(),
                subscribers: Vec::new(),
            }),
            version,
            started: Instant::now(),
            shutdown: CancellationToken::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the queue half-updated in a way that
        // matters for tests; keep serving rather than poisoning every later request.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn changed(&self) {
        self.version
            .send_modify(|version| *version = version.wrapping_add(1));
    }

    /// A receiver that sees every later change.
    pub(crate) fn watch(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }

    /// Decides how to answer a chat-completion request, consuming a turn if it is played, and
    /// records the request.
    pub(crate) fn decide_chat(&self, incoming: Incoming) -> ChatDecision {
        let mut state = self.lock();
        let seq = state.requests.len();
        let decision = match &incoming.body {
            Some(body) if body.is_object() => match state.turns.pop_front() {
                None => ChatDecision::Refuse {
                    status: 500,
                    code: "script_exhausted",
                    message: format!(
                        "scripted provider: script exhausted: request {seq} arrived after all \
                         {} turns were played ({})",
                        state.consumed,
                        describe_last_message(body)
                    ),
                },
                Some(turn) => {
                    let problems = turn.expect.check(body);
                    let turn_index = state.consumed;
                    if problems.is_empty() {
                        state.consumed += 1;
                        ChatDecision::Play {
                            seq,
                            turn_index,
                            reply: turn.reply,
                            created: state.created.unwrap_or_else(now_secs),
                        }
                    } else {
                        // The turn stays for a request that matches it (a client's retry of
                        // the same request fails the same way).
                        state.turns.push_front(turn);
                        ChatDecision::Refuse {
                            status: 500,
                            code: "expectation_failed",
                            message: format!(
                                "scripted provider: request {seq} does not match turn \
                                 {turn_index}: {}",
                                problems.join("; ")
                            ),
                        }
                    }
                }
            },
            _ => ChatDecision::Refuse {
                status: 400,
                code: "invalid_json",
                message: format!(
                    "scripted provider: request {seq} body is not a JSON object: {:?}",
                    incoming.raw_body.chars().take(200).collect::<String>()
                ),
            },
        };
        let (turn, status, failure, delivery) = match &decision {
            ChatDecision::Play {
                turn_index, reply, ..
            } => match reply {
                Reply::Completion(_) => (Some(*turn_index), 200, None, Delivery::Pending),
                Reply::Error(error) => (Some(*turn_index), error.status, None, Delivery::Complete),
            },
            ChatDecision::Refuse {
                status, message, ..
            } => (None, *status, Some(message.clone()), Delivery::Complete),
        };
        self.push_record(&mut state, incoming, turn, status, failure, delivery);
        drop(state);
        self.changed();
        decision
    }

    /// Records a request that is not a chat completion, with its answer.
    pub(crate) fn record_other(
        &self,
        incoming: Incoming,
        status: u16,
        failure: Option<String>,
    ) -> usize {
        let mut state = self.lock();
        let seq = self.push_record(
            &mut state,
            incoming,
            None,
            status,
            failure,
            Delivery::Complete,
        );
        drop(state);
        self.changed();
        seq
    }

    fn push_record(
        &self,
        state: &mut State,
        incoming: Incoming,
        turn: Option<usize>,
        status: u16,
        failure: Option<String>,
        delivery: Delivery,
    ) -> usize {
        let seq = state.requests.len();
        if let Some(message) = &failure {
            tracing::warn!("{message}");
            state.failures.push(Failure {
                seq,
                message: message.clone(),
            });
        }
        let record = RecordedRequest {
            seq,
            received_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            method: incoming.method,
            path: incoming.path,
            headers: incoming.headers,
            body: incoming.body,
            raw_body: incoming.raw_body,
            turn,
            status,
            failure,
            settled_at_unix_ms: None,
            delivery,
        };
        state
            .subscribers
            .retain(|subscriber| subscriber.send(record.clone()).is_ok());
        state.requests.push(record);
        seq
    }

    /// Sets how far request `seq`'s response got, unless it was already settled.
    pub(crate) fn settle(&self, seq: usize, delivery: Delivery) {
        let mut state = self.lock();
        if let Some(record) = state.requests.get_mut(seq)
            && record.delivery == Delivery::Pending
        {
            record.delivery = delivery;
            record.settled_at_unix_ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .ok()
                .and_then(|since| u64::try_from(since.as_millis()).ok());
            drop(state);
            self.changed();
        }
    }

    pub(crate) fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    pub(crate) fn failures(&self) -> Vec<Failure> {
        self.lock().failures.clone()
    }

    pub(crate) fn remaining_turns(&self) -> usize {
        self.lock().turns.len()
    }

    pub(crate) fn consumed_turns(&self) -> usize {
        self.lock().consumed
    }

    pub(crate) fn push_turns(&self, turns: Vec<Turn>) {
        self.lock().turns.extend(turns);
        self.changed();
    }

    pub(crate) fn models(&self) -> (Vec<String>, u32) {
        let state = self.lock();
        (state.models.clone(), state.created.unwrap_or_else(now_secs))
    }

    /// The scripted answer of `"METHOD /path"`, if any.
    pub(crate) fn route(&self, method_and_path: &str) -> Option<Value> {
        self.lock().routes.get(method_and_path).cloned()
    }

    pub(crate) fn set_models(&self, models: Vec<String>) {
        self.lock().models = models;
        self.changed();
    }

    pub(crate) fn subscribe(&self) -> mpsc::UnboundedReceiver<RecordedRequest> {
        let (sender, receiver) = mpsc::unbounded_channel();
        self.lock().subscribers.push(sender);
        receiver
    }
}

fn describe_last_message(body: &Value) -> String {
    let last = body
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|messages| messages.last());
    match last {
        None => "no messages".to_owned(),
        Some(message) => {
            let role = message.get("role").and_then(Value::as_str).unwrap_or("?");
            let text: String = message_text(message).chars().take(120).collect();
            format!("last message: {role} {text:?}")
        }
    }
}

fn now_secs() -> u32 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|elapsed| u32::try_from(elapsed.as_secs()).ok())
        .unwrap_or(0)
}
