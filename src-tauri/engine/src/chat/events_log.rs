//! The numbered events of each session's turns, and the recent ones kept for a webview that
//! missed some.
//!
//! Every [`ChatEvent`] gets the next `seq` of its session (from 1, increasing for the app's
//! lifetime, across turns). The last [`RING_EVENTS`] events of each of the last
//! [`RING_SESSIONS`] sessions that ran a turn stay here, with where the running turn began
//! (its first event and the ordinal of its user message), so that:
//! - a webview that re-subscribed mid-turn asks for the events after the last one it applied
//!   ([`EventLog::since`]) and applies them in order;
//! - a reloaded webview builds the running turn from the transcript before it plus the turn's
//!   events ([`TurnReplay`]);
//! - when what was asked for is no longer kept (`complete: false`), the webview reloads the
//!   transcript instead, as it did before events were numbered.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{ChatEvent, lock};

/// Events kept per session.
pub const RING_EVENTS: usize = 4096;
/// Sessions whose events are kept (the least recently active is forgotten first).
pub const RING_SESSIONS: usize = 16;

/// Where the running turn of a session began, for a webview that rebuilds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnReplay {
    /// The ordinal of the turn's user message: messages before it (and it) are the transcript's.
    pub first_ordinal: u32,
    /// The `seq` of the turn's first event.
    #[ts(type = "number")]
    pub start_seq: u64,
}

/// A session's events to read: those after the last one applied.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct EventsSinceRequest {
    /// The session.
    pub session_id: String,
    /// The `seq` of the last event applied (0: none).
    #[ts(type = "number")]
    pub after: u64,
}

/// A session's events after the one asked for.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct EventsSince {
    /// The events after the one asked for, in order.
    pub events: Vec<ChatEvent>,
    /// False when some of them are no longer kept (or the numbering restarted): the webview
    /// reloads the transcript instead.
    pub complete: bool,
    /// The session's last `seq` (0: none yet).
    #[ts(type = "number")]
    pub last_seq: u64,
}

#[derive(Debug, Default)]
struct SessionLog {
    last_seq: u64,
    events: VecDeque<ChatEvent>,
    turn: Option<TurnReplay>,
    /// When the session last had an event, in the log's own count (for forgetting).
    active: u64,
}

/// The numbered events of a project's sessions.
#[derive(Debug, Default)]
pub struct EventLog {
    inner: Mutex<Logs>,
}

#[derive(Debug, Default)]
struct Logs {
    sessions: HashMap<String, SessionLog>,
    clock: u64,
}

impl Logs {
    fn session(&mut self, id: &str) -> &mut SessionLog {
        self.clock += 1;
        if !self.sessions.contains_key(id) && self.sessions.len() >= RING_SESSIONS {
            let oldest = self
                .sessions
                .iter()
                .filter(|(_, log)| log.turn.is_none())
                .min_by_key(|(_, log)| log.active)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                self.sessions.remove(&oldest);
            }
        }
        let clock = self.clock;
        let log = self.sessions.entry(id.to_owned()).or_default();
        log.active = clock;
        log
    }
}

impl EventLog {
    /// A turn begins in `session` with its user message at `first_ordinal`: its first event is
    /// the next one recorded.
    pub fn begin_turn(&self, session: &str, first_ordinal: u32) {
        let mut logs = lock(&self.inner);
        let log = logs.session(session);
        log.turn = Some(TurnReplay {
            first_ordinal,
            start_seq: log.last_seq + 1,
        });
    }

    /// The running turn of `session` has ended.
    pub fn end_turn(&self, session: &str) {
        if let Some(log) = lock(&self.inner).sessions.get_mut(session) {
            log.turn = None;
        }
    }

    /// Numbers `event` with the next `seq` of its session and keeps it.
    pub fn record(&self, mut event: ChatEvent) -> ChatEvent {
        let mut logs = lock(&self.inner);
        let log = logs.session(&event.session_id);
        log.last_seq += 1;
        event.seq = log.last_seq;
        if log.events.len() >= RING_EVENTS {
            log.events.pop_front();
        }
        log.events.push_back(event.clone());
        event
    }

    /// The last `seq` of `session` (0 when it had no event) and where its running turn began.
    pub fn position(&self, session: &str) -> (u64, Option<TurnReplay>) {
        lock(&self.inner)
            .sessions
            .get(session)
            .map_or((0, None), |log| (log.last_seq, log.turn))
    }

    /// The events of `session` after `after`, if they are all still kept.
    pub fn since(&self, session: &str, after: u64) -> EventsSince {
        let logs = lock(&self.inner);
        let Some(log) = logs.sessions.get(session) else {
            return EventsSince {
                events: Vec::new(),
                complete: after == 0,
                last_seq: 0,
            };
        };
        let oldest = log
            .events
            .front()
            .map_or(log.last_seq + 1, |event| event.seq);
        let complete = after <= log.last_seq && after + 1 >= oldest;
        let events = if complete {
            log.events
                .iter()
                .filter(|event| event.seq > after)
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        EventsSince {
            events,
            complete,
            last_seq: log.last_seq,
        }
    }
}

#[cfg(test)]
mod tests {
    use gantry_agent::TurnEvent;

    use super::*;

    fn event(session: &str, text: &str) -> ChatEvent {
        ChatEvent::new(
            1,
            session.to_owned(),
            TurnEvent::TextDelta { text: text.into() },
        )
    }

    #[test]
    fn events_are_numbered_per_session_and_replayed_after_a_seq() {
        let log = EventLog::default();
        log.begin_turn("a", 0);
        assert_eq!(log.record(event("a", "1")).seq, 1);
        assert_eq!(log.record(event("b", "x")).seq, 1);
        assert_eq!(log.record(event("a", "2")).seq, 2);
        assert_eq!(log.record(event("a", "3")).seq, 3);
        assert_eq!(
            log.position("a"),
            (
                3,
                Some(TurnReplay {
                    first_ordinal: 0,
                    start_seq: 1
                })
            )
        );
        let since = log.since("a", 1);
        assert!(since.complete);
        let seqs: Vec<u64> = since.events.iter().map(|event| event.seq).collect();
        assert_eq!(seqs, [2, 3]);
        assert!(log.since("a", 3).events.is_empty());
        assert!(log.since("a", 3).complete);
        // A seq from before a restart (larger than any known) is a gap.
        assert!(!log.since("a", 9).complete);
        // A session without events: nothing missed from 0, a gap from anything else.
        assert!(log.since("c", 0).complete);
        assert!(!log.since("c", 4).complete);
        log.end_turn("a");
        assert_eq!(log.position("a"), (3, None));
    }

    #[test]
    fn a_gap_larger_than_the_ring_is_reported_incomplete() {
        let log = EventLog::default();
        for n in 0..RING_EVENTS + 10 {
            log.record(event("a", &n.to_string()));
        }
        let last = u64::try_from(RING_EVENTS + 10).unwrap();
        assert!(!log.since("a", 5).complete);
        assert!(log.since("a", 5).events.is_empty());
        let kept = log.since("a", 10);
        assert!(kept.complete);
        assert_eq!(kept.events.len(), RING_EVENTS);
        assert_eq!(kept.events.last().unwrap().seq, last);
    }

    #[test]
    fn only_so_many_sessions_are_kept() {
        let log = EventLog::default();
        for n in 0..=RING_SESSIONS {
            log.record(event(&n.to_string(), "x"));
        }
        assert_eq!(
            log.position("0").0,
            0,
            "the least recent session is forgotten"
        );
        assert_eq!(log.position(&RING_SESSIONS.to_string()).0, 1);
    }
}
