//! Which events call for a notification, and whether the user should get it: pure functions of
//! the events that pass and of what the user is looking at.
//!
//! [`read`] reads the engine's events as they are sent ([`EngineEvent`]: typed, never parsed
//! back from JSON) and picks out what the user would want to hear about while looking
//! elsewhere: a turn that finished, failed or stopped at the step limit (a cancelled one was
//! the user's doing), and an approval or a question it waits for (its dialog, which names the
//! project, the session, the call and the tool; a dialog of no stored session is not notified,
//! as no session could be shown for it: in the app every turn's session is stored).
//!
//! [`should_notify`] then says whether to show it, given the [`Attention`]: never when the
//! setting is off or the project is no longer the one open; otherwise unless the window is
//! focused *and* shows that very session.
//!
//! A call's `approval_resolved` or `tool_result` says that what it waited for was answered
//! ([`Reading::Answered`]): a notification that still asks for it is withdrawn.

use gantry_agent::{TurnEndReason, TurnEvent};

use crate::chat::ChatEvent;
use crate::events::{DialogRequest, EngineEvent};

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

/// What `event` means for the notifications, if anything.
pub fn read(event: &EngineEvent) -> Option<Reading> {
    match event {
        EngineEvent::Chat(chat) => read_turn(chat),
        EngineEvent::DialogOpened(dialog) => read_dialog(dialog).map(Reading::Notify),
        _ => None,
    }
}

fn read_turn(chat: &ChatEvent) -> Option<Reading> {
    let what = match &chat.event {
        TurnEvent::ApprovalResolved { tool_call_id, .. } => {
            return Some(Reading::Answered {
                call_id: tool_call_id.clone(),
            });
        }
        TurnEvent::ToolResult { id, .. } => {
            return Some(Reading::Answered {
                call_id: id.clone(),
            });
        }
        TurnEvent::TurnFinished {
            reason, message, ..
        } => match reason {
            TurnEndReason::Completed => Happening::Finished,
            TurnEndReason::StepLimit => Happening::StepLimit,
            TurnEndReason::Error => Happening::Failed {
                reason: message.clone().unwrap_or_default(),
            },
            TurnEndReason::Cancelled => return None,
        },
        _ => return None,
    };
    Some(Reading::Notify(Occurrence {
        project_id: chat.project_id,
        session_id: chat.session_id.clone(),
        what,
        waiting_call: None,
    }))
}

fn read_dialog(dialog: &DialogRequest) -> Option<Occurrence> {
    let what = match dialog {
        DialogRequest::Approval { request, .. } => Happening::Approval {
            tool: request.tool.clone(),
        },
        DialogRequest::Question { .. } => Happening::Question,
    };
    let key = dialog.key();
    Some(Occurrence {
        project_id: dialog.project_id(),
        session_id: key.session_id?,
        what,
        waiting_call: Some(key.call_id),
    })
}

#[cfg(test)]
mod tests {
    use gantry_tools::{ApprovalRequest, AskReason, PermissionLevel, UserQuestion};
    use serde_json::json;

    use super::*;
    use crate::events::TreeChanged;

    /// The chat event the engine sends for `event` in session `session` of project 7.
    fn chat(session: &str, event: TurnEvent) -> EngineEvent {
        ChatEvent::new(7, session.to_owned(), event).into()
    }

    fn finished(reason: TurnEndReason, message: Option<&str>) -> TurnEvent {
        TurnEvent::TurnFinished {
            reason,
            steps: 1,
            message: message.map(str::to_owned),
        }
    }

    /// The approval dialog the engine opens for `tool` in `session` of project 7.
    fn approval_opened(session: &str, tool: &str) -> EngineEvent {
        DialogRequest::Approval {
            project_id: 7,
            request: Box::new(ApprovalRequest {
                call_id: "call_1".into(),
                session_id: Some(session.to_owned()),
                tool: tool.into(),
                level: PermissionLevel::Sensitive,
                description: "Writes a file".into(),
                arguments: json!({"path": "a.txt"}),
                preview: None,
                session_scope: vec![],
                reason: AskReason::Policy,
            }),
        }
        .into()
    }

    fn ask_started(session: &str, call: &str) -> EngineEvent {
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
    fn question_opened(session: Option<&str>, call: &str) -> EngineEvent {
        DialogRequest::Question {
            project_id: 7,
            question: UserQuestion {
                call_id: call.into(),
                session_id: session.map(str::to_owned),
                question: "Which one?".into(),
                options: vec![],
            },
        }
        .into()
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
        assert_eq!(read(&done), occurrence("s1", Happening::Finished));
        let failed = chat("s1", finished(TurnEndReason::Error, Some("HTTP 500: down")));
        assert_eq!(
            read(&failed),
            occurrence(
                "s1",
                Happening::Failed {
                    reason: "HTTP 500: down".into()
                }
            )
        );
        let limit = chat("s2", finished(TurnEndReason::StepLimit, Some("limit")));
        assert_eq!(read(&limit), occurrence("s2", Happening::StepLimit));
        let cancelled = chat("s1", finished(TurnEndReason::Cancelled, None));
        assert_eq!(read(&cancelled), None);
    }

    #[test]
    fn an_approval_is_read_from_its_dialog_which_names_its_session_and_tool() {
        assert_eq!(
            read(&approval_opened("s3", "write_file")),
            waiting(
                "s3",
                Happening::Approval {
                    tool: "write_file".into()
                },
                Some("call_1")
            )
        );
        // The turn's marker on the call's card adds nothing (the dialog says it all).
        let marker = chat(
            "s3",
            TurnEvent::ApprovalRequested {
                tool_call_id: "call_1".into(),
            },
        );
        assert_eq!(read(&marker), None);
    }

    #[test]
    fn a_question_is_read_from_its_dialog_which_names_its_session() {
        assert_eq!(
            read(&question_opened(Some("s2"), "call_q1")),
            waiting("s2", Happening::Question, Some("call_q1"))
        );
        // The ask_user call's start adds nothing (its dialog says it all).
        assert_eq!(read(&ask_started("s2", "call_q1")), None);
        // A question of no stored session has no session to show.
        assert_eq!(read(&question_opened(None, "call_q2")), None);
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
        assert_eq!(read(&resolved), answered("call_1"));
        // A question's call ends with its result.
        let result = chat(
            "s1",
            TurnEvent::ToolResult {
                id: "call_q".into(),
                name: "ask_user".into(),
                observation: gantry_tools::Observation {
                    tool: "ask_user".into(),
                    text: "yes".into(),
                    kind: gantry_tools::ObservationKind::Ok,
                    decision: gantry_tools::Decision {
                        kind: gantry_tools::DecisionKind::Auto,
                        by: gantry_tools::Decider::Policy,
                        detail: None,
                        rule: None,
                        source: None,
                    },
                    duration: std::time::Duration::from_millis(3),
                    truncated: false,
                    diff: None,
                    sandbox: None,
                },
            },
        );
        assert_eq!(read(&result), answered("call_q"));
    }

    #[test]
    fn other_events_make_nothing() {
        let delta = chat("s1", TurnEvent::TextDelta { text: "hi".into() });
        assert_eq!(read(&delta), None);
        let other_tool = chat(
            "s1",
            TurnEvent::ToolCallStarted {
                id: "c".into(),
                name: "read_file".into(),
                arguments: "{}".into(),
            },
        );
        assert_eq!(read(&other_tool), None);
        let tree = TreeChanged {
            project_id: 7,
            changes: vec![],
        };
        assert_eq!(read(&tree.into()), None);
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
