//! Which events call for a notification, and whether the user should get it: pure functions of
//! the events that pass and of what the user is looking at.
//!
//! [`read`] reads the events the engine sends to the webview (`chat:event`, `dialog:opened`)
//! and picks out what the user would want to hear about while looking elsewhere: a turn that
//! finished, failed or stopped at the step limit (a cancelled one was the user's doing), an
//! approval it waits for (`approval_requested`, which names the session and the tool) and a
//! question it asks (its dialog, `dialog:opened`, which names the project, the session and
//! the `ask_user` call; a question of no stored session is not notified, as no session could
//! be shown for it: in the app every turn's session is stored).
//!
//! [`should_notify`] then says whether to show it, given the [`Attention`]: never when the
//! setting is off or the project is no longer the one open; otherwise unless the window is
//! focused *and* shows that very session.
//!
//! A call's `approval_resolved` or `tool_result` says that what it waited for was answered
//! ([`Reading::Answered`]): a notification that still asks for it is withdrawn.

use gantry_agent::{TurnEndReason, TurnEvent};
use serde::Deserialize;
use serde_json::Value;

/// What happened in a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Happening {
    /// The turn ended with the model's answer.
    Finished,
    /// The turn stopped at the step limit.
    StepLimit,
    /// The turn failed.
    Failed {
        /// Why, as the engine told the user.
        reason: String,
    },
    /// A tool call waits for the user's approval.
    Approval {
        /// The tool's name.
        tool: String,
    },
    /// The model asks the user a question.
    Question,
}

/// Something that happened in a session of an open project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// The app's id of the project (changes with every opening).
    pub project_id: u32,
    /// The session.
    pub session_id: String,
    /// What happened.
    pub what: Happening,
    /// The tool call that waits for the user (an approval, a question), if any.
    pub waiting_call: Option<String>,
}

/// What an event means for the notifications.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// Something to tell the user about, unless they are looking.
    Notify(Occurrence),
    /// What the call waited for was answered (or the call ended): a notification asking for it
    /// is stale.
    Answered {
        /// The call's id.
        call_id: String,
    },
}

/// What the user is looking at, and whether they want notifications.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attention {
    /// The notifications setting.
    pub enabled: bool,
    /// Whether the project's window has the keyboard focus.
    pub focused: bool,
    /// The project open in the window, if any.
    pub project_id: Option<u32>,
    /// The session the window shows (`None`: a fresh chat).
    pub shown_session: Option<String>,
}

/// Whether `occurrence` should become a desktop notification.
pub fn should_notify(occurrence: &Occurrence, attention: &Attention) -> bool {
    if !attention.enabled {
        return false;
    }
    // A project since closed (or replaced): its late events are no news.
    if attention.project_id != Some(occurrence.project_id) {
        return false;
    }
    let looking = attention.focused
        && attention.shown_session.as_deref() == Some(occurrence.session_id.as_str());
    !looking
}

/// The fields of a `chat:event` the reader needs.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChatEventWire {
    project_id: u32,
    session_id: String,
}

/// The fields of a `dialog:opened` the reader needs.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
enum DialogWire {
    Approval {},
    Question {
        #[serde(rename = "projectId")]
        project_id: u32,
        question: QuestionWire,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct QuestionWire {
    call_id: String,
    #[serde(default)]
    session_id: Option<String>,
}

/// The turn events the reader looks at (everything else is skipped before parsing).
const READ_TURN_EVENTS: [&str; 2] = ["turn_finished", "approval_requested"];
/// The turn events that end a wait, with the field naming their call.
const ANSWER_EVENTS: [(&str, &str); 2] =
    [("approval_resolved", "toolCallId"), ("tool_result", "id")];

/// What event `name` with `payload` means for the notifications, if anything.
pub fn read(name: &str, payload: &Value) -> Option<Reading> {
    match name {
        "chat:event" => read_chat(payload),
        "dialog:opened" => read_dialog(payload).map(Reading::Notify),
        _ => None,
    }
}

fn read_chat(payload: &Value) -> Option<Reading> {
    let event = payload.get("event")?;
    let kind = event.get("type")?.as_str()?;
    if let Some((_, field)) = ANSWER_EVENTS.iter().find(|(answer, _)| *answer == kind) {
        let call_id = event.get(field)?.as_str()?.to_owned();
        return Some(Reading::Answered { call_id });
    }
    if !READ_TURN_EVENTS.contains(&kind) {
        return None;
    }
    let wire = ChatEventWire::deserialize(payload).ok()?;
    let event = TurnEvent::deserialize(event).ok()?;
    let mut waiting_call = None;
    let what = match event {
        TurnEvent::TurnFinished {
            reason, message, ..
        } => match reason {
            TurnEndReason::Completed => Happening::Finished,
            TurnEndReason::StepLimit => Happening::StepLimit,
            TurnEndReason::Error => Happening::Failed {
                reason: message.unwrap_or_default(),
            },
            TurnEndReason::Cancelled => return None,
        },
        TurnEvent::ApprovalRequested { request } => {
            waiting_call = Some(request.call_id);
            Happening::Approval { tool: request.tool }
        }
        _ => return None,
    };
    Some(Reading::Notify(Occurrence {
        project_id: wire.project_id,
        session_id: wire.session_id,
        what,
        waiting_call,
    }))
}

fn read_dialog(payload: &Value) -> Option<Occurrence> {
    let DialogWire::Question {
        project_id,
        question,
    } = DialogWire::deserialize(payload).ok()?
    else {
        // Approvals are read from the turn's `approval_requested`, which names the tool.
        return None;
    };
    Some(Occurrence {
        project_id,
        session_id: question.session_id?,
        what: Happening::Question,
        waiting_call: Some(question.call_id),
    })
}

#[cfg(test)]
mod tests {
    use gantry_engine::chat::ChatEvent;
    use gantry_engine::events::{DialogRequest, Event};
    use gantry_tools::{ApprovalRequest, AskReason, PermissionLevel, UserQuestion};
    use serde_json::json;

    use super::*;

    /// The `chat:event` the engine sends for `event` in session `session` of project 7.
    fn chat(session: &str, event: TurnEvent) -> (&'static str, Value) {
        let event = ChatEvent::new(7, session.to_owned(), event);
        (ChatEvent::NAME, serde_json::to_value(event).unwrap())
    }

    fn finished(reason: TurnEndReason, message: Option<&str>) -> TurnEvent {
        TurnEvent::TurnFinished {
            reason,
            steps: 1,
            message: message.map(str::to_owned),
        }
    }

    fn approval(session: &str, tool: &str) -> (&'static str, Value) {
        chat(
            session,
            TurnEvent::ApprovalRequested {
                request: ApprovalRequest {
                    call_id: "call_1".into(),
                    session_id: Some(session.to_owned()),
                    tool: tool.into(),
                    level: PermissionLevel::Sensitive,
                    description: "Writes a file".into(),
                    arguments: json!({"path": "a.txt"}),
                    preview: None,
                    session_scope: vec![],
                    reason: AskReason::Policy,
                },
            },
        )
    }

    fn ask_started(session: &str, call: &str) -> (&'static str, Value) {
        chat(
            session,
            TurnEvent::ToolCallStarted {
                id: call.into(),
                name: "ask_user".into(),
                arguments: "{}".into(),
            },
        )
    }

    /// The question dialog the engine opens for call `call` of `session` in project 7.
    fn question_opened(session: Option<&str>, call: &str) -> (&'static str, Value) {
        let dialog = DialogRequest::Question {
            id: 3,
            project_id: 7,
            question: UserQuestion {
                call_id: call.into(),
                session_id: session.map(str::to_owned),
                question: "Which one?".into(),
                options: vec![],
            },
        };
        (DialogRequest::NAME, serde_json::to_value(dialog).unwrap())
    }

    fn read_one((name, payload): (&str, Value)) -> Option<Reading> {
        read(name, &payload)
    }

    fn occurrence(session: &str, what: Happening) -> Option<Reading> {
        waiting(session, what, None)
    }

    fn waiting(session: &str, what: Happening, call: Option<&str>) -> Option<Reading> {
        Some(Reading::Notify(Occurrence {
            project_id: 7,
            session_id: session.into(),
            what,
            waiting_call: call.map(str::to_owned),
        }))
    }

    #[test]
    fn a_turns_end_is_read_by_its_reason() {
        let done = chat("s1", finished(TurnEndReason::Completed, None));
        assert_eq!(read_one(done), occurrence("s1", Happening::Finished));
        let failed = chat("s1", finished(TurnEndReason::Error, Some("HTTP 500: down")));
        assert_eq!(
            read_one(failed),
            occurrence(
                "s1",
                Happening::Failed {
                    reason: "HTTP 500: down".into()
                }
            )
        );
        let limit = chat("s2", finished(TurnEndReason::StepLimit, Some("limit")));
        assert_eq!(read_one(limit), occurrence("s2", Happening::StepLimit));
        let cancelled = chat("s1", finished(TurnEndReason::Cancelled, None));
        assert_eq!(read_one(cancelled), None);
    }

    #[test]
    fn an_approval_names_its_session_and_tool() {
        assert_eq!(
            read_one(approval("s3", "write_file")),
            waiting(
                "s3",
                Happening::Approval {
                    tool: "write_file".into()
                },
                Some("call_1")
            )
        );
        // The approval dialog itself adds nothing (the turn's event already said it).
        let dialog = json!({"kind": "approval", "id": 1, "request": {"callId": "call_1"}});
        assert_eq!(read(DialogRequest::NAME, &dialog), None);
    }

    #[test]
    fn a_question_is_read_from_its_dialog_which_names_its_session() {
        assert_eq!(
            read_one(question_opened(Some("s2"), "call_q1")),
            waiting("s2", Happening::Question, Some("call_q1"))
        );
        // The ask_user call's start adds nothing (its dialog says it all).
        assert_eq!(read_one(ask_started("s2", "call_q1")), None);
        // A question of no stored session has no session to show.
        assert_eq!(read_one(question_opened(None, "call_q2")), None);
    }

    #[test]
    fn an_answer_or_the_calls_end_makes_its_notification_stale() {
        let resolved = chat(
            "s1",
            TurnEvent::ApprovalResolved {
                tool_call_id: "call_1".into(),
                allowed: true,
            },
        );
        let answered = |call: &str| {
            Some(Reading::Answered {
                call_id: call.into(),
            })
        };
        assert_eq!(read_one(resolved), answered("call_1"));
        // A question's call ends with its result.
        // (The observation is left out: only the call's id is read.)
        let result = json!({"projectId": 7, "sessionId": "s1", "seq": 9,
            "event": {"type": "tool_result", "id": "call_q", "name": "ask_user"}});
        assert_eq!(read(ChatEvent::NAME, &result), answered("call_q"));
    }

    #[test]
    fn other_events_make_nothing() {
        let delta = chat("s1", TurnEvent::TextDelta { text: "hi".into() });
        assert_eq!(read_one(delta), None);
        let other_tool = chat(
            "s1",
            TurnEvent::ToolCallStarted {
                id: "c".into(),
                name: "read_file".into(),
                arguments: "{}".into(),
            },
        );
        assert_eq!(read_one(other_tool), None);
        assert_eq!(read("tree:changed", &json!({})), None);
        assert_eq!(read("chat:event", &json!({"event": 3})), None);
        assert_eq!(read("dialog:opened", &json!({"kind": "question"})), None);
    }

    fn attention(enabled: bool, focused: bool, shown: Option<&str>) -> Attention {
        Attention {
            enabled,
            focused,
            project_id: Some(7),
            shown_session: shown.map(str::to_owned),
        }
    }

    #[test]
    fn only_what_the_user_is_not_looking_at_is_notified() {
        let kinds = [
            Happening::Finished,
            Happening::StepLimit,
            Happening::Failed { reason: "x".into() },
            Happening::Approval { tool: "t".into() },
            Happening::Question,
        ];
        for what in kinds {
            let event = Occurrence {
                project_id: 7,
                session_id: "s1".into(),
                what: what.clone(),
                waiting_call: None,
            };
            // Looking at it: focused, that session shown.
            assert!(
                !should_notify(&event, &attention(true, true, Some("s1"))),
                "{what:?}"
            );
            // The window is not focused.
            assert!(
                should_notify(&event, &attention(true, false, Some("s1"))),
                "{what:?}"
            );
            // Focused, another session (or a fresh chat) shown.
            assert!(
                should_notify(&event, &attention(true, true, Some("s2"))),
                "{what:?}"
            );
            assert!(
                should_notify(&event, &attention(true, true, None)),
                "{what:?}"
            );
            // The setting is off.
            assert!(
                !should_notify(&event, &attention(false, false, Some("s2"))),
                "{what:?}"
            );
            // The project is no longer open (closed, or another one opened).
            let closed = Attention {
                project_id: None,
                ..attention(true, false, None)
            };
            assert!(!should_notify(&event, &closed), "{what:?}");
            let other = Attention {
                project_id: Some(8),
                ..attention(true, false, None)
            };
            assert!(!should_notify(&event, &other), "{what:?}");
        }
    }
}
