//! Text and reasoning deltas (and tool-call progress) batched into at most one event per frame.
//!
//! Fast providers send hundreds of small deltas a second; a webview that re-renders per event
//! cannot keep up, and each event is an IPC message of its own. A batched [`crate::EventSink`]
//! keeps consecutive deltas of one kind (text or reasoning) in a [`DeltaBatch`] and sends them
//! as one event once the oldest has waited [`BATCH_INTERVAL`], when a delta of the other kind
//! arrives, or just before any other event (a tool call, a retry, the end of the turn), so the
//! text that arrives is exactly the text the provider sent, in order, and no event overtakes
//! it. A ticker ([`crate::EventSink::spawn_ticker`]) sends what waits when the provider pauses.
//! Tool-call progress is batched the same way, except that the latest count replaces the
//! earlier ones.

use std::time::{Duration, Instant};

use crate::events::TurnEvent;

/// How long a delta may wait to be sent with the ones after it: one frame at 60 Hz.
pub const BATCH_INTERVAL: Duration = Duration::from_millis(16);

/// Which stream a delta belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DeltaKind {
    Text,
    Reasoning,
    /// A tool call's arguments, by index.
    Progress(u32),
}

/// Deltas waiting to be sent as one event.
#[derive(Debug)]
pub(crate) struct DeltaBatch {
    interval: Duration,
    kind: DeltaKind,
    text: String,
    /// The latest progress event (for [`DeltaKind::Progress`]).
    progress: Option<TurnEvent>,
    /// When the oldest waiting delta arrived; `None` when nothing waits.
    since: Option<Instant>,
}

impl DeltaBatch {
    /// An empty batch sending at most once per `interval`.
    pub(crate) fn new(interval: Duration) -> Self {
        Self {
            interval,
            kind: DeltaKind::Text,
            text: String::new(),
            progress: None,
            since: None,
        }
    }

    /// Takes `event` in: a delta is kept (and what it displaces, or what has waited long enough,
    /// comes out to be sent); any other event comes out after whatever waited. Returns the
    /// events to send now, in order.
    pub(crate) fn accept(&mut self, event: TurnEvent, now: Instant) -> Vec<TurnEvent> {
        let (kind, text) = match event {
            TurnEvent::TextDelta { text } => (DeltaKind::Text, text),
            TurnEvent::ReasoningDelta { text } => (DeltaKind::Reasoning, text),
            TurnEvent::ToolCallStreaming { index, .. } => {
                let mut out = Vec::new();
                if self.since.is_some() && self.kind != DeltaKind::Progress(index) {
                    out.extend(self.take());
                }
                if self.since.is_none() {
                    self.kind = DeltaKind::Progress(index);
                    self.since = Some(now);
                }
                self.progress = Some(event);
                out.extend(self.due(now));
                return out;
            }
            other => return self.take().into_iter().chain([other]).collect(),
        };
        let mut out = Vec::new();
        if self.since.is_some() && kind != self.kind {
            out.extend(self.take());
        }
        if self.since.is_none() {
            self.kind = kind;
            self.since = Some(now);
        }
        self.text.push_str(&text);
        out.extend(self.due(now));
        out
    }

    /// What has waited at least the interval at `now`.
    pub(crate) fn due(&mut self, now: Instant) -> Option<TurnEvent> {
        match self.since {
            Some(since) if now.duration_since(since) >= self.interval => self.take(),
            _ => None,
        }
    }

    /// Whatever waits, as one event.
    pub(crate) fn take(&mut self) -> Option<TurnEvent> {
        self.since.take()?;
        let text = std::mem::take(&mut self.text);
        match self.kind {
            DeltaKind::Text => Some(TurnEvent::TextDelta { text }),
            DeltaKind::Reasoning => Some(TurnEvent::ReasoningDelta { text }),
            DeltaKind::Progress(_) => self.progress.take(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> TurnEvent {
        TurnEvent::TextDelta { text: t.into() }
    }

    fn reasoning(t: &str) -> TurnEvent {
        TurnEvent::ReasoningDelta { text: t.into() }
    }

    #[test]
    fn deltas_wait_for_the_interval_and_keep_their_order_and_kind() {
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        let mut batch = DeltaBatch::new(Duration::from_millis(16));
        assert!(batch.accept(text("Hel"), at(0)).is_empty());
        assert!(batch.accept(text("lo"), at(5)).is_empty());
        // The oldest has waited 16 ms: all of it goes as one event.
        assert_eq!(batch.accept(text(", "), at(16)), [text("Hello, ")]);
        assert!(batch.accept(text("wor"), at(20)).is_empty());
        // Reasoning displaces the waiting text at once.
        assert_eq!(batch.accept(reasoning("hmm"), at(21)), [text("wor")]);
        assert_eq!(batch.due(at(30)), None);
        assert_eq!(batch.due(at(37)), Some(reasoning("hmm")));
        assert_eq!(batch.due(at(90)), None);
        // Any other event sends what waits first.
        batch.accept(text("ld"), at(91));
        let finished = TurnEvent::TurnFinished {
            reason: crate::TurnEndReason::Completed,
            steps: 1,
            message: None,
        };
        assert_eq!(
            batch.accept(finished.clone(), at(92)),
            [text("ld"), finished]
        );
        assert_eq!(batch.take(), None);
    }

    #[test]
    fn tool_call_progress_keeps_only_the_latest_count_per_frame() {
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        let progress = |index: u32, bytes: u64| TurnEvent::ToolCallStreaming {
            index,
            name: "write_file".into(),
            bytes,
        };
        let mut batch = DeltaBatch::new(Duration::from_millis(16));
        assert!(batch.accept(text("Writing."), at(0)).is_empty());
        // Progress displaces the text; counts within a frame collapse to the latest.
        assert_eq!(batch.accept(progress(0, 10), at(1)), [text("Writing.")]);
        assert!(batch.accept(progress(0, 500), at(5)).is_empty());
        assert_eq!(batch.accept(progress(0, 900), at(17)), [progress(0, 900)]);
        // Another call's progress sends the first's at once.
        batch.accept(progress(0, 950), at(18));
        assert_eq!(batch.accept(progress(1, 3), at(19)), [progress(0, 950)]);
        assert_eq!(batch.take(), Some(progress(1, 3)));
    }
}
