//! The webview's [`Approver`] and [`UserPrompter`]: questions the engine awaits, answered in a
//! dialog.
//!
//! When the engine asks (a SENSITIVE call, an enabled DANGEROUS one, an ask_user question), the
//! [`DialogRegistry`] files the request under its call ([`DialogKey`]: the session and the
//! model's call id), keeps a `oneshot` sender for it, and emits one [`DialogRequest`] event —
//! the only way a dialog reaches the webview; the engine's future waits on the receiver. The
//! webview queues the requests and shows one modal at a time; its answer comes back through the
//! command that carries the user's decision or answer, naming the same call, which completes the
//! sender. Several requests can be pending at
//! once (they are independent), and each one ends exactly once, in one of four ways:
//!
//! - answered by the user;
//! - not answered within the timeout (10 minutes unless configured): an approval is denied with
//!   a reason the model reads, a question fails with [`PromptError::TimedOut`];
//! - the window closed: everything pending is denied, and so is anything asked afterwards;
//! - the asking future was dropped (the turn was cancelled): the request is withdrawn.
//!
//! Every ending but the first is announced with a [`DialogClosed`] event, so the webview drops a
//! dialog nobody waits for any more; an answered one is announced too, which keeps a second view
//! (or a reloaded page) in step. Fail closed: whatever goes wrong, an approval that is not
//! explicitly given is a denial.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;
use gantry_tools::{
    ApprovalDecision, ApprovalRequest, Approver, PromptError, UserPrompter, UserQuestion,
};
use serde::Deserialize;
use tokio::sync::oneshot;

use crate::error::{CommandError, ErrorKind};
use crate::events::{DialogCloseReason, DialogClosed, DialogKey, DialogRequest, EventSink, emit};

/// How long a dialog waits for the user unless configured otherwise.
pub const DEFAULT_DIALOG_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// The longest free-text answer or denial reason accepted from the webview, in bytes.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// The user's answer to an ask_user question.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum QuestionAnswer {
    /// An answer: one of the options, or free text.
    Answer {
        /// The answer's text.
        text: String,
    },
    /// The user closed the dialog without answering.
    Dismiss,
}

/// The user's decision on an approval, naming the call it is for.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ResolveApprovalRequest {
    /// The call decided, as its dialog names it.
    #[serde(flatten)]
    #[ts(flatten)]
    pub call: DialogKey,
    /// The user's decision.
    pub decision: ApprovalDecision,
}

/// The user's answer to a question, naming the call it is for.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AnswerQuestionRequest {
    /// The ask_user call answered, as its dialog names it.
    #[serde(flatten)]
    #[ts(flatten)]
    pub call: DialogKey,
    /// The answer, or a dismissal.
    pub answer: QuestionAnswer,
}

/// What the sender half of a pending request delivers.
enum Reply {
    Approval(oneshot::Sender<ApprovalDecision>),
    Question(oneshot::Sender<Result<String, PromptError>>),
}

struct Pending {
    request: DialogRequest,
    reply: Reply,
}

#[derive(Default)]
struct Inner {
    /// Counts the requests filed, which orders them: oldest first.
    filed: u64,
    pending: BTreeMap<u64, Pending>,
    window_closed: bool,
}

impl Inner {
    /// Where the pending request for `key` of project `project_id` is filed.
    fn find(&self, project_id: u32, key: &DialogKey) -> Option<u64> {
        self.pending
            .iter()
            .find(|(_, pending)| {
                pending.request.project_id() == project_id && pending.request.key() == *key
            })
            .map(|(order, _)| *order)
    }
}

/// The requests waiting for the user, shared by the approver, the prompter and the commands.
pub struct DialogRegistry {
    inner: Mutex<Inner>,
    sink: Arc<dyn EventSink>,
    timeout: Duration,
}

impl std::fmt::Debug for DialogRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DialogRegistry")
            .field("pending", &self.lock().pending.len())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl DialogRegistry {
    /// A registry that announces requests through `sink` and gives up on each after `timeout`.
    pub fn new(sink: Arc<dyn EventSink>, timeout: Duration) -> Self {
        Self {
            inner: Mutex::default(),
            sink,
            timeout,
        }
    }

    /// How long a request waits for an answer.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding this lock can only come from a bug in this module; the map is
        // still consistent (every operation is a single insert or remove), so keep going.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Asks the user whether a call of project `project_id` may run, and waits.
    pub async fn request_approval(
        &self,
        project_id: u32,
        request: ApprovalRequest,
    ) -> ApprovalDecision {
        let (tx, rx) = oneshot::channel();
        let request = DialogRequest::Approval {
            project_id,
            request: Box::new(request),
        };
        self.wait(
            request,
            Reply::Approval(tx),
            rx,
            Ending {
                window_closed: || deny("the Gantry window is closed"),
                closed_unanswered: || deny("the Gantry window was closed before the user answered"),
                timed_out: |after: &str| deny(&format!("the user did not answer within {after}")),
            },
        )
        .await
    }

    /// Asks the user a question for project `project_id`, and waits.
    pub async fn ask(
        &self,
        project_id: u32,
        question: UserQuestion,
    ) -> Result<String, PromptError> {
        let (tx, rx) = oneshot::channel();
        let request = DialogRequest::Question {
            project_id,
            question,
        };
        self.wait(
            request,
            Reply::Question(tx),
            rx,
            Ending {
                window_closed: || Err(PromptError::Unavailable),
                closed_unanswered: || Err(PromptError::Unavailable),
                timed_out: |_: &str| Err(PromptError::TimedOut),
            },
        )
        .await
    }

    /// Files `request`, waits for its answer on `rx` (at most the timeout), and ends it exactly
    /// once: answered, timed out, or withdrawn when this future is dropped. `ending` gives the
    /// answer for each way it can end without one.
    async fn wait<T>(
        &self,
        request: DialogRequest,
        reply: Reply,
        rx: oneshot::Receiver<T>,
        ending: Ending<impl FnOnce() -> T, impl FnOnce() -> T, impl FnOnce(&str) -> T>,
    ) -> T {
        let Some(order) = self.register(request, reply) else {
            return (ending.window_closed)();
        };
        let guard = Withdraw {
            registry: self,
            order,
        };
        let answer = match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_closed)) => (ending.closed_unanswered)(),
            Err(_elapsed) => {
                self.end(order, DialogCloseReason::TimedOut);
                (ending.timed_out)(&describe(self.timeout))
            }
        };
        std::mem::forget(guard);
        answer
    }

    /// Files a request and announces it; `None` once the window has closed. A request for a
    /// call that is already pending replaces it (its asker is answered as withdrawn).
    fn register(&self, request: DialogRequest, reply: Reply) -> Option<u64> {
        let (order, replaced) = {
            let mut inner = self.lock();
            if inner.window_closed {
                return None;
            }
            let replaced = inner
                .find(request.project_id(), &request.key())
                .and_then(|order| inner.pending.remove(&order));
            inner.filed += 1;
            let order = inner.filed;
            inner.pending.insert(
                order,
                Pending {
                    request: request.clone(),
                    reply,
                },
            );
            (order, replaced)
        };
        drop(replaced);
        emit(self.sink.as_ref(), request);
        Some(order)
    }

    /// Removes a request that ended without an answer and announces why. The dropped sender
    /// makes nobody wait: its receiver is already gone or about to be.
    fn end(&self, order: u64, reason: DialogCloseReason) {
        let removed = self.lock().pending.remove(&order);
        if let Some(pending) = removed {
            self.announce_closed(&pending.request, reason);
        }
    }

    /// Tells the webview that `request` ended (it drops the dialog).
    fn announce_closed(&self, request: &DialogRequest, reason: DialogCloseReason) {
        let key = request.key();
        emit(
            self.sink.as_ref(),
            DialogClosed {
                project_id: request.project_id(),
                session_id: key.session_id,
                call_id: key.call_id,
                reason,
            },
        );
    }

    /// Project `project_id`'s requests still waiting, oldest first (what a freshly loaded page
    /// shows).
    pub fn pending(&self, project_id: u32) -> Vec<DialogRequest> {
        self.lock()
            .pending
            .values()
            .filter(|pending| pending.request.project_id() == project_id)
            .map(|pending| pending.request.clone())
            .collect()
    }

    /// Delivers the user's decision on the approval of call `key` of project `project_id`.
    ///
    /// Errors: [`ErrorKind::UnknownDialog`] when no approval for that call is pending for that
    /// project (answered, timed out, cancelled, never asked, or another project's);
    /// [`ErrorKind::InvalidInput`] for an over-long reason.
    pub fn decide(
        &self,
        project_id: u32,
        key: &DialogKey,
        decision: ApprovalDecision,
    ) -> Result<(), CommandError> {
        if let ApprovalDecision::Deny {
            reason: Some(reason),
        } = &decision
        {
            check_length("the reason", reason)?;
        }
        let pending = self.take(project_id, key, |reply| matches!(reply, Reply::Approval(_)))?;
        if let Reply::Approval(tx) = pending.reply {
            // The receiver is gone only if the asking turn was cancelled this very moment; its
            // guard then announces the withdrawal, so there is nothing more to do.
            let _ = tx.send(decision);
        }
        self.announce_closed(&pending.request, DialogCloseReason::Answered);
        Ok(())
    }

    /// Delivers the user's answer to the question of call `key` of project `project_id`.
    ///
    /// Errors: [`ErrorKind::UnknownDialog`] when no question for that call is pending for that
    /// project; [`ErrorKind::InvalidInput`] for an empty or over-long answer.
    pub fn answer(
        &self,
        project_id: u32,
        key: &DialogKey,
        answer: QuestionAnswer,
    ) -> Result<(), CommandError> {
        let answer = match answer {
            QuestionAnswer::Answer { text } => {
                if text.trim().is_empty() {
                    return Err(CommandError::invalid("the answer is empty"));
                }
                check_length("the answer", &text)?;
                Ok(text)
            }
            QuestionAnswer::Dismiss => Err(PromptError::Dismissed),
        };
        let pending = self.take(project_id, key, |reply| matches!(reply, Reply::Question(_)))?;
        if let Reply::Question(tx) = pending.reply {
            let _ = tx.send(answer);
        }
        self.announce_closed(&pending.request, DialogCloseReason::Answered);
        Ok(())
    }

    /// Removes the pending request for call `key` if it is project `project_id`'s and of the
    /// expected kind.
    fn take(
        &self,
        project_id: u32,
        key: &DialogKey,
        is_kind: impl Fn(&Reply) -> bool,
    ) -> Result<Pending, CommandError> {
        let mut inner = self.lock();
        inner
            .find(project_id, key)
            .filter(|order| {
                inner
                    .pending
                    .get(order)
                    .is_some_and(|pending| is_kind(&pending.reply))
            })
            .and_then(|order| inner.pending.remove(&order))
            .ok_or_else(|| {
                CommandError::new(
                    ErrorKind::UnknownDialog,
                    format!(
                        "no dialog for call `{}` is waiting for an answer",
                        key.call_id
                    ),
                )
            })
    }

    /// The app's last window is closing: denies everything pending, and everything asked from
    /// now on.
    pub fn window_closed(&self) {
        let pending = {
            let mut inner = self.lock();
            inner.window_closed = true;
            std::mem::take(&mut inner.pending)
        };
        for pending in pending.into_values() {
            match pending.reply {
                Reply::Approval(tx) => {
                    let _ = tx.send(deny(
                        "the Gantry window was closed before the user answered",
                    ));
                }
                Reply::Question(tx) => {
                    let _ = tx.send(Err(PromptError::Unavailable));
                }
            }
            self.announce_closed(&pending.request, DialogCloseReason::WindowClosed);
        }
    }
}

/// The answer a dialog gets for each way it can end without one from the user.
struct Ending<W, C, T> {
    /// The window had closed before the question could be asked.
    window_closed: W,
    /// The window closed while the question was open.
    closed_unanswered: C,
    /// Nobody answered within the timeout (given in words).
    timed_out: T,
}

/// Withdraws a request when the future that asked is dropped before it ended (the turn was
/// cancelled). Forgotten on every normal ending.
struct Withdraw<'a> {
    registry: &'a DialogRegistry,
    order: u64,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        self.registry.end(self.order, DialogCloseReason::Cancelled);
    }
}

fn deny(reason: &str) -> ApprovalDecision {
    ApprovalDecision::Deny {
        reason: Some(reason.to_owned()),
    }
}

fn check_length(what: &str, text: &str) -> Result<(), CommandError> {
    if text.len() > MAX_ANSWER_BYTES {
        return Err(CommandError::invalid(format!(
            "{what} is longer than {MAX_ANSWER_BYTES} bytes"
        )));
    }
    Ok(())
}

/// "10 minutes", "90 seconds": a timeout as the model reads it.
fn describe(duration: Duration) -> String {
    let secs = duration.as_secs();
    if secs >= 60 && secs.is_multiple_of(60) {
        let minutes = secs / 60;
        format!("{minutes} minute{}", if minutes == 1 { "" } else { "s" })
    } else if secs >= 1 {
        format!("{secs} second{}", if secs == 1 { "" } else { "s" })
    } else {
        format!("{} ms", duration.as_millis())
    }
}

/// The engine's [`Approver`] for a project opened in the app: a dialog in the windows that
/// show the project.
#[derive(Debug, Clone)]
pub struct DialogApprover {
    /// Where the request waits.
    pub registry: Arc<DialogRegistry>,
    /// The app's id of the project whose calls this approver decides.
    pub project_id: u32,
}

#[async_trait]
impl Approver for DialogApprover {
    async fn decide(&self, request: ApprovalRequest) -> ApprovalDecision {
        self.registry
            .request_approval(self.project_id, request)
            .await
    }
}

/// The engine's [`UserPrompter`] for a project opened in the app: a dialog in the windows that
/// show the project.
#[derive(Debug, Clone)]
pub struct DialogPrompter {
    /// Where the question waits.
    pub registry: Arc<DialogRegistry>,
    /// The app's id of the project whose questions this prompter asks.
    pub project_id: u32,
}

#[async_trait]
impl UserPrompter for DialogPrompter {
    async fn ask(&self, question: UserQuestion) -> Result<String, PromptError> {
        self.registry.ask(self.project_id, question).await
    }
}

#[cfg(test)]
mod tests {
    use gantry_tools::{PermissionLevel, Preview};
    use serde_json::json;

    use super::*;

    /// The project every test asks for.
    const P: u32 = 1;
    use crate::events::RecordingSink;

    fn registry(timeout: Duration) -> (Arc<RecordingSink>, Arc<DialogRegistry>) {
        let sink = Arc::new(RecordingSink::default());
        let registry = Arc::new(DialogRegistry::new(sink.clone(), timeout));
        (sink, registry)
    }

    fn request(tool: &str) -> ApprovalRequest {
        ApprovalRequest {
            call_id: format!("call_{tool}"),
            session_id: Some("1".into()),
            tool: tool.into(),
            level: PermissionLevel::Sensitive,
            description: "Write a file.".into(),
            arguments: json!({"path": "a.txt"}),
            preview: Some(Preview::Diff {
                path: "a.txt".into(),
                unified: "--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1 @@\n+hi\n".into(),
            }),
            session_scope: vec![tool.into()],
            reason: gantry_tools::AskReason::Policy,
        }
    }

    /// Waits until `count` requests are pending (the asking task runs concurrently); their
    /// calls, oldest first.
    async fn pending_keys(registry: &DialogRegistry, count: usize) -> Vec<DialogKey> {
        for _ in 0..1000 {
            let pending = registry.pending(P);
            if pending.len() >= count {
                return pending.iter().map(DialogRequest::key).collect();
            }
            tokio::task::yield_now().await;
        }
        panic!("{count} requests never became pending");
    }

    #[tokio::test]
    async fn an_answer_completes_the_waiting_request_and_is_announced() {
        let (sink, registry) = registry(DEFAULT_DIALOG_TIMEOUT);
        let asking = tokio::spawn({
            let registry = registry.clone();
            async move { registry.request_approval(P, request("write_file")).await }
        });
        let keys = pending_keys(&registry, 1).await;
        let [id] = &keys[..] else {
            panic!("one request")
        };
        let opened = sink.named("dialog:opened");
        assert_eq!(opened.len(), 1);
        assert_eq!(opened[0]["kind"], "approval");
        assert_eq!(opened[0]["request"]["callId"], id.call_id.as_str());
        assert_eq!(opened[0]["request"]["sessionId"], "1");
        assert_eq!(opened[0]["request"]["tool"], "write_file");
        assert_eq!(opened[0]["request"]["preview"]["kind"], "diff");

        registry
            .decide(P, id, ApprovalDecision::AllowForSession)
            .unwrap();
        assert_eq!(asking.await.unwrap(), ApprovalDecision::AllowForSession);
        assert!(registry.pending(P).is_empty());
        assert_eq!(
            sink.named("dialog:closed"),
            [
                json!({"projectId": P, "sessionId": "1", "callId": "call_write_file", "reason": "answered"})
            ]
        );
    }

    #[tokio::test]
    async fn several_requests_queue_and_are_answered_independently() {
        let (_sink, registry) = registry(DEFAULT_DIALOG_TIMEOUT);
        let mut tasks = Vec::new();
        for tool in ["write_file", "edit_file", "run_command"] {
            let asker = registry.clone();
            tasks.push(tokio::spawn(async move {
                asker.request_approval(P, request(tool)).await
            }));
            // File them in a known order.
            pending_keys(&registry, tasks.len()).await;
        }
        let ids = pending_keys(&registry, 3).await;
        let calls: Vec<_> = ids.iter().map(|key| key.call_id.as_str()).collect();
        assert_eq!(
            calls,
            ["call_write_file", "call_edit_file", "call_run_command"],
            "oldest first"
        );
        registry
            .decide(
                P,
                &ids[1],
                ApprovalDecision::Deny {
                    reason: Some("not that one".into()),
                },
            )
            .unwrap();
        registry
            .decide(P, &ids[2], ApprovalDecision::AllowOnce)
            .unwrap();
        registry
            .decide(P, &ids[0], ApprovalDecision::AllowOnce)
            .unwrap();
        let decisions: Vec<_> = futures_join(tasks).await;
        assert_eq!(
            decisions,
            [
                ApprovalDecision::AllowOnce,
                ApprovalDecision::Deny {
                    reason: Some("not that one".into())
                },
                ApprovalDecision::AllowOnce,
            ]
        );
    }

    async fn futures_join<T: Send + 'static>(tasks: Vec<tokio::task::JoinHandle<T>>) -> Vec<T> {
        let mut out = Vec::new();
        for task in tasks {
            out.push(task.await.unwrap());
        }
        out
    }

    #[tokio::test]
    async fn unknown_ids_and_wrong_kinds_are_errors_not_panics() {
        let (_sink, registry) = registry(DEFAULT_DIALOG_TIMEOUT);
        let error = registry
            .decide(
                P,
                &DialogKey {
                    session_id: Some("1".into()),
                    call_id: "call_unknown".into(),
                },
                ApprovalDecision::AllowOnce,
            )
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::UnknownDialog);

        let asking = tokio::spawn({
            let registry = registry.clone();
            async move {
                registry
                    .ask(
                        P,
                        UserQuestion {
                            call_id: "call_q".into(),
                            session_id: Some("1".into()),
                            question: "Which?".into(),
                            options: vec!["a".into(), "b".into()],
                        },
                    )
                    .await
            }
        });
        let keys = pending_keys(&registry, 1).await;
        let [id] = &keys[..] else {
            panic!("one request")
        };
        // A question can't be resolved as an approval, and an empty answer is refused...
        let error = registry
            .decide(P, id, ApprovalDecision::AllowOnce)
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::UnknownDialog);
        let error = registry
            .answer(P, id, QuestionAnswer::Answer { text: "  ".into() })
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidInput);
        let error = registry
            .answer(
                P,
                id,
                QuestionAnswer::Answer {
                    text: "x".repeat(MAX_ANSWER_BYTES + 1),
                },
            )
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidInput);
        // ...and neither mistake consumed the request.
        registry
            .answer(P, id, QuestionAnswer::Answer { text: "b".into() })
            .unwrap();
        assert_eq!(asking.await.unwrap(), Ok("b".into()));
        // Answering twice is an error too.
        let error = registry
            .answer(P, id, QuestionAnswer::Answer { text: "b".into() })
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::UnknownDialog);
    }

    #[tokio::test]
    async fn a_request_is_seen_and_answered_only_through_its_own_project() {
        let (sink, registry) = registry(DEFAULT_DIALOG_TIMEOUT);
        let asking = tokio::spawn({
            let registry = registry.clone();
            async move { registry.request_approval(P, request("write_file")).await }
        });
        let keys = pending_keys(&registry, 1).await;
        let [id] = &keys[..] else {
            panic!("one request")
        };
        assert_eq!(sink.named("dialog:opened")[0]["projectId"], P);
        let other = P + 1;
        assert!(registry.pending(other).is_empty());
        let refused = registry
            .decide(other, id, ApprovalDecision::AllowOnce)
            .unwrap_err();
        assert_eq!(refused.kind, ErrorKind::UnknownDialog);
        assert_eq!(
            registry.pending(P).len(),
            1,
            "still waiting for its own project"
        );
        registry
            .decide(P, id, ApprovalDecision::Deny { reason: None })
            .unwrap();
        assert_eq!(
            asking.await.unwrap(),
            ApprovalDecision::Deny { reason: None }
        );
    }

    #[tokio::test]
    async fn a_dismissed_question_reports_dismissed() {
        let (_sink, registry) = registry(DEFAULT_DIALOG_TIMEOUT);
        let prompter = DialogPrompter {
            registry: registry.clone(),
            project_id: P,
        };
        let asking = tokio::spawn(async move {
            prompter
                .ask(UserQuestion {
                    call_id: "call_q".into(),
                    session_id: Some("1".into()),
                    question: "Go on?".into(),
                    options: vec![],
                })
                .await
        });
        let keys = pending_keys(&registry, 1).await;
        let [id] = &keys[..] else {
            panic!("one request")
        };
        registry.answer(P, id, QuestionAnswer::Dismiss).unwrap();
        assert_eq!(asking.await.unwrap(), Err(PromptError::Dismissed));
    }

    #[tokio::test(start_paused = true)]
    async fn an_unanswered_request_is_denied_after_the_timeout() {
        let (sink, registry) = registry(Duration::from_secs(600));
        let approver = DialogApprover {
            registry: registry.clone(),
            project_id: P,
        };
        let decision = approver.decide(request("write_file")).await;
        assert_eq!(
            decision,
            ApprovalDecision::Deny {
                reason: Some("the user did not answer within 10 minutes".into())
            }
        );
        assert!(registry.pending(P).is_empty());
        let closed = sink.named("dialog:closed");
        assert_eq!(closed.len(), 1);
        assert_eq!(closed[0]["reason"], "timed_out");

        let question = registry
            .ask(
                P,
                UserQuestion {
                    call_id: "call_q".into(),
                    session_id: Some("1".into()),
                    question: "?".into(),
                    options: vec![],
                },
            )
            .await;
        assert_eq!(question, Err(PromptError::TimedOut));
    }

    #[tokio::test]
    async fn closing_the_window_denies_what_is_pending_and_what_comes_later() {
        let (sink, registry) = registry(DEFAULT_DIALOG_TIMEOUT);
        let approval = tokio::spawn({
            let registry = registry.clone();
            async move { registry.request_approval(P, request("write_file")).await }
        });
        let question = tokio::spawn({
            let registry = registry.clone();
            async move {
                registry
                    .ask(
                        P,
                        UserQuestion {
                            call_id: "call_q".into(),
                            session_id: Some("1".into()),
                            question: "?".into(),
                            options: vec![],
                        },
                    )
                    .await
            }
        });
        pending_keys(&registry, 2).await;
        registry.window_closed();
        assert!(matches!(
            approval.await.unwrap(),
            ApprovalDecision::Deny { reason: Some(_) }
        ));
        assert_eq!(question.await.unwrap(), Err(PromptError::Unavailable));
        let reasons: Vec<_> = sink
            .named("dialog:closed")
            .iter()
            .map(|closed| closed["reason"].clone())
            .collect();
        assert_eq!(reasons, [json!("window_closed"), json!("window_closed")]);

        // After the window is gone nothing is asked at all.
        let late = registry.request_approval(P, request("write_file")).await;
        assert_eq!(late, deny("the Gantry window is closed"));
        assert_eq!(sink.named("dialog:opened").len(), 2);
    }

    #[tokio::test]
    async fn a_cancelled_turn_withdraws_its_request() {
        let (sink, registry) = registry(DEFAULT_DIALOG_TIMEOUT);
        let asking = tokio::spawn({
            let registry = registry.clone();
            async move { registry.request_approval(P, request("write_file")).await }
        });
        let keys = pending_keys(&registry, 1).await;
        let [id] = &keys[..] else {
            panic!("one request")
        };
        asking.abort();
        let _ = asking.await;
        assert!(registry.pending(P).is_empty());
        assert_eq!(
            sink.named("dialog:closed"),
            [
                json!({"projectId": P, "sessionId": "1", "callId": "call_write_file", "reason": "cancelled"})
            ]
        );
        let error = registry
            .decide(P, id, ApprovalDecision::AllowOnce)
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::UnknownDialog);
    }

    #[test]
    fn timeouts_read_naturally() {
        assert_eq!(describe(Duration::from_secs(600)), "10 minutes");
        assert_eq!(describe(Duration::from_secs(60)), "1 minute");
        assert_eq!(describe(Duration::from_secs(90)), "90 seconds");
        assert_eq!(describe(Duration::from_millis(300)), "300 ms");
    }
}
