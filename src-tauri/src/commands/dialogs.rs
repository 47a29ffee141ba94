//! Answers to the approval and ask_user dialogs.

use gantry_tools::ApprovalDecision;
use serde::Deserialize;

use gantry_engine::CommandError;

use super::WindowState;
use gantry_engine::dialogs::QuestionAnswer;
use gantry_engine::events::DialogRequest;

/// The argument of `resolve_approval`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ResolveApprovalRequest {
    /// The approval's id, from its `dialog:opened` event.
    pub id: u32,
    /// The user's decision.
    pub decision: ApprovalDecision,
}

/// The argument of `answer_question`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AnswerQuestionRequest {
    /// The question's id, from its `dialog:opened` event.
    pub id: u32,
    /// The answer, or a dismissal.
    pub answer: QuestionAnswer,
}

/// The approvals and questions of the window's project waiting for the user, oldest first.
#[tauri::command]
pub fn pending_dialogs(state: WindowState) -> Result<Vec<DialogRequest>, CommandError> {
    Ok(state.pending_dialogs())
}

/// The user's decision on a pending approval.
#[tauri::command]
pub fn resolve_approval(
    state: WindowState,
    request: ResolveApprovalRequest,
) -> Result<(), CommandError> {
    state.resolve_approval(request.id, request.decision)
}

/// The user's answer to a pending question.
#[tauri::command]
pub fn answer_question(
    state: WindowState,
    request: AnswerQuestionRequest,
) -> Result<(), CommandError> {
    state.answer_question(request.id, request.answer)
}
