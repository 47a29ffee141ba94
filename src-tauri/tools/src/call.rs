//! What one call carries besides its name and arguments: which call it is, which session it
//! belongs to, who hears about it while it runs, and when to stop.
//!
//! The front end (the agent loop, the CLI's `tools call`, the MCP server mode) builds one
//! [`CallContext`] per call and passes it to [`crate::ToolManager::dispatch`]. Everything the
//! gate and the tool learn about the call comes from here — the call id that the approval
//! request, the question and the audit record carry; the session whose grants and file ledger
//! apply; the observer that reports the approval step — so nothing is read from task-locals or
//! from state swapped in per turn.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio_util::sync::CancellationToken;

use crate::approval::ApprovalRequest;
use crate::session::ToolSession;

/// Hears about the approval step of a call, and its progress, while it runs (the agent reports
/// them as turn events). Every method has a no-op default.
pub trait CallObserver: Send + Sync {
    /// The approver is about to be asked about the call `request.call_id`.
    fn approval_requested(&self, _request: &ApprovalRequest) {}
    /// The approver answered; `allowed` says whether the call runs.
    fn approval_resolved(&self, _call_id: &str, _allowed: bool) {}
    /// The running call `call_id` reported progress (an MCP server's `notifications/progress`).
    fn progress(&self, _call_id: &str, _progress: &CallProgress) {}
}

/// How far a running call is, as its tool reported it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallProgress {
    /// Work done so far (grows with each report; its unit is the tool's).
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// What the tool says it is doing.
    pub message: Option<String>,
}

/// An observer that hears nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;

impl CallObserver for NoObserver {}

/// One call's context. Cheap to clone.
#[derive(Clone)]
pub struct CallContext {
    call_id: String,
    session: Arc<ToolSession>,
    observer: Arc<dyn CallObserver>,
    cancel: CancellationToken,
}

impl std::fmt::Debug for CallContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallContext")
            .field("call_id", &self.call_id)
            .field("session", &self.session.id())
            .field("cancelled", &self.cancel.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl CallContext {
    /// The call `call_id` (the model's `tool_call_id`) of `session`, observed by nobody and
    /// never cancelled.
    pub fn new(call_id: impl Into<String>, session: Arc<ToolSession>) -> Self {
        Self {
            call_id: call_id.into(),
            session,
            observer: Arc::new(NoObserver),
            cancel: CancellationToken::new(),
        }
    }

    /// A call of its own detached session with a fresh id (`call_1`, `call_2`, ...): a one-off
    /// call from a script or a test, whose grants last for this call only.
    pub fn detached() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let number = NEXT.fetch_add(1, Ordering::Relaxed);
        Self::new(format!("call_{number}"), Arc::new(ToolSession::detached()))
    }

    /// The same context reporting to `observer`.
    #[must_use]
    pub fn with_observer(mut self, observer: Arc<dyn CallObserver>) -> Self {
        self.observer = observer;
        self
    }

    /// The same context stopped by `cancel`.
    #[must_use]
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// The call's id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The session the call belongs to.
    pub fn session(&self) -> &Arc<ToolSession> {
        &self.session
    }

    /// Who hears about the approval step.
    pub fn observer(&self) -> &dyn CallObserver {
        self.observer.as_ref()
    }

    /// Who hears about the call, shared (a tool reports progress to it).
    pub fn shared_observer(&self) -> Arc<dyn CallObserver> {
        Arc::clone(&self.observer)
    }

    /// Cancelled when the call must stop (the turn was cancelled).
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }
}

/// A call of this test thread's own session: the calls of one test share their grants and file
/// ledger, as the calls of one session do; every test (thread) has a session of its own.
#[cfg(test)]
pub(crate) fn test_call() -> CallContext {
    thread_local! {
        static SESSION: Arc<ToolSession> = Arc::new(ToolSession::new("test"));
    }
    CallContext::new("test_call", SESSION.with(Arc::clone))
}
