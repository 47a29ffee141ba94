//! The chat: sessions, messages, turns.

use gantry_tools::ToolInfo;
use tauri::{AppHandle, WebviewWindow};

use gantry_engine::CommandError;
use gantry_engine::attachments::{
    Attachment, MentionPathRequest, MentionTarget, PrepareImageRequest,
};
use gantry_engine::chat::{
    ChatView, CompactSettings, ContextUsage, EditSummaryRequest, EventsSince, EventsSinceRequest,
    MessagePage, MessageTextRequest, MessagesBeforeRequest, RenameSessionRequest,
    SendMessageRequest, SessionActivity, SessionRequest, SessionSummary,
};
use gantry_engine::mentions::{MentionCompletions, MentionQuery};
use gantry_engine::model_choice::{ChooseModelRequest, ListModelsRequest, ModelChoices};
use gantry_engine::session_export::{ExportFormat, ExportSessionRequest, SessionExport};
use gantry_engine::session_search::{SearchHitView, SearchSessionsRequest};
use gantry_engine::session_tabs::SessionTabs;
use gantry_engine::slash_commands::{ExpandCommandRequest, SlashCommandView};

use super::WindowState;
use super::save_dialog::{SaveAs, ask_where};

/// The open project's sessions, the most recently updated first.
#[tauri::command]
pub async fn list_sessions(state: WindowState) -> Result<Vec<SessionSummary>, CommandError> {
    state.list_sessions().await
}

/// The current session and its messages (what the chat panel shows on load).
#[tauri::command]
pub async fn chat_state(state: WindowState) -> Result<ChatView, CommandError> {
    state.chat_view().await
}

/// Shows another session (a turn running in the one left goes on; each session keeps its own
/// approvals while the app runs).
#[tauri::command]
pub async fn open_session(
    state: WindowState,
    request: SessionRequest,
) -> Result<ChatView, CommandError> {
    state.switch_session(Some(request.id)).await
}

/// Starts a fresh chat; its first message creates the session.
#[tauri::command]
pub async fn new_session(state: WindowState) -> Result<ChatView, CommandError> {
    state.switch_session(None).await
}

/// Renames a session.
#[tauri::command]
pub async fn rename_session(
    state: WindowState,
    request: RenameSessionRequest,
) -> Result<SessionSummary, CommandError> {
    state.rename_session(&request.id, &request.title).await
}

/// Deletes a session and its messages; returns what the chat shows afterwards.
#[tauri::command]
pub async fn delete_session(
    state: WindowState,
    request: SessionRequest,
) -> Result<ChatView, CommandError> {
    state.delete_session(&request.id).await
}

/// Sends a message; the turn reports through `chat:event` events. Returns the session's id.
#[tauri::command]
pub async fn send_message(
    state: WindowState,
    request: SendMessageRequest,
) -> Result<String, CommandError> {
    state.send_message_with(&request).await
}

/// The project's files and folders that best match what follows an `@` in the chat box.
#[tauri::command]
pub fn complete_mentions(
    state: WindowState,
    request: MentionQuery,
) -> Result<MentionCompletions, CommandError> {
    state.complete_mentions(&request)
}

/// Checks a path dropped on the chat box (from the tree, or the desktop) and returns it
/// relative to the project; a path outside it is refused.
#[tauri::command]
pub async fn mention_path(
    state: WindowState,
    request: MentionPathRequest,
) -> Result<MentionTarget, CommandError> {
    state.mention_path(&request).await
}

/// Checks and downscales a pasted or dropped image, ready to send.
#[tauri::command]
pub async fn prepare_image(
    state: WindowState,
    request: PrepareImageRequest,
) -> Result<Attachment, CommandError> {
    state.prepare_image(request).await
}

/// The project's own slash commands (`.gantry/commands/*.md`).
#[tauri::command]
pub async fn slash_commands(state: WindowState) -> Result<Vec<SlashCommandView>, CommandError> {
    state.slash_commands().await
}

/// A project command's prompt, with what followed it in place of `$ARGUMENTS`.
#[tauri::command]
pub async fn expand_slash_command(
    state: WindowState,
    request: ExpandCommandRequest,
) -> Result<String, CommandError> {
    state.expand_slash_command(&request).await
}

/// The events of a session after the one the webview applied last (it missed some).
#[tauri::command]
pub async fn chat_events_since(
    state: WindowState,
    request: EventsSinceRequest,
) -> Result<EventsSince, CommandError> {
    state.chat_events_since(&request).await
}

/// About `count` messages of a session before the first one the webview has (it scrolled up).
#[tauri::command]
pub async fn chat_messages_before(
    state: WindowState,
    request: MessagesBeforeRequest,
) -> Result<MessagePage, CommandError> {
    state.chat_messages_before(&request).await
}

/// The whole text of one message (a tool result the view got shortened).
#[tauri::command]
pub async fn chat_message_text(
    state: WindowState,
    request: MessageTextRequest,
) -> Result<String, CommandError> {
    state.chat_message_text(&request).await
}

/// The messages of the open project's sessions that contain the words searched.
#[tauri::command]
pub async fn search_sessions(
    state: WindowState,
    request: SearchSessionsRequest,
) -> Result<Vec<SearchHitView>, CommandError> {
    state.search_sessions(&request.text).await
}

/// The environment variable naming a file that the export writes to instead of asking with the
/// native save dialog (end-to-end tests, which cannot drive the desktop's dialog).
const EXPORT_PATH_ENV: &str = "GANTRY_E2E_SAVE_PATH";

/// Asks where to save (the native save dialog) and writes the session there as Markdown or
/// JSON; `null` when the user cancelled.
#[tauri::command]
pub async fn export_session(
    app: AppHandle,
    window: WebviewWindow,
    state: WindowState,
    request: ExportSessionRequest,
) -> Result<Option<SessionExport>, CommandError> {
    let project = state.current()?;
    let path = match std::env::var_os(EXPORT_PATH_ENV).filter(|_| cfg!(debug_assertions)) {
        Some(path) => std::path::PathBuf::from(path),
        None => {
            let filter = match request.format {
                ExportFormat::Markdown => ("Markdown", "md"),
                ExportFormat::Json => ("JSON", "json"),
            };
            let save_as = SaveAs {
                title: "Export the session",
                folder: project.root().path(),
                file_name: format!("session-{}.{}", request.id, filter.1),
                filter,
            };
            let Some(path) = ask_where(&app, &window, save_as).await? else {
                return Ok(None);
            };
            path
        }
    };
    state.export_session(&request, path).await.map(Some)
}

/// Asks the model for a summary of the current session and continues from it (`/compact`).
#[tauri::command]
pub async fn compact_session(state: WindowState) -> Result<ChatView, CommandError> {
    state.compact_session().await
}

/// How full the current session's context window is (`None`: a fresh chat, or a turn runs).
#[tauri::command]
pub async fn context_usage(state: WindowState) -> Result<Option<ContextUsage>, CommandError> {
    state.context_usage().await
}

/// Replaces the text of a summary of the current session (the user corrected it).
#[tauri::command]
pub async fn edit_summary(
    state: WindowState,
    request: EditSummaryRequest,
) -> Result<ChatView, CommandError> {
    state.edit_summary(&request).await
}

/// The compaction threshold (Settings).
#[tauri::command]
pub async fn compact_settings(state: WindowState) -> Result<CompactSettings, CommandError> {
    Ok(state.compact_settings().await)
}

/// Saves the compaction threshold (0: off, or 10 to 100 percent of the window).
#[tauri::command]
pub async fn save_compact_settings(
    state: WindowState,
    request: CompactSettings,
) -> Result<CompactSettings, CommandError> {
    state.save_compact_settings(request).await
}

/// Stops the running turn of the shown session (Stop button, Esc).
#[tauri::command]
pub fn cancel_turn(state: WindowState) -> Result<(), CommandError> {
    state.cancel_turn()
}

/// Stops the turn of one session, running or queued (a tab's Stop).
#[tauri::command]
pub async fn cancel_session_turn(
    state: WindowState,
    request: SessionRequest,
) -> Result<(), CommandError> {
    state.cancel_session_turn(&request.id).await
}

/// The sessions the window shows as tabs, as remembered.
#[tauri::command]
pub async fn session_tabs(state: WindowState) -> Result<SessionTabs, CommandError> {
    state.session_tabs().await
}

/// Remembers the window's tabs; returns those kept (sessions of the project, no repeats).
#[tauri::command]
pub async fn save_session_tabs(
    state: WindowState,
    request: SessionTabs,
) -> Result<SessionTabs, CommandError> {
    state.save_session_tabs(request).await
}

/// The open project's sessions that are queued, running or waiting for the user.
#[tauri::command]
pub fn running_sessions(state: WindowState) -> Result<Vec<SessionActivity>, CommandError> {
    state.running_sessions()
}

/// The open project's tools (built-in and MCP) with their levels and policies.
#[tauri::command]
pub fn list_tools(state: WindowState) -> Result<Vec<ToolInfo>, CommandError> {
    state.list_tools()
}

/// The models the session's provider (or another one) lists, the context window and the
/// providers to switch to: the chat header's model picker.
#[tauri::command]
pub async fn list_models(
    state: WindowState,
    request: ListModelsRequest,
) -> Result<ModelChoices, CommandError> {
    state.list_models(&request).await
}

/// Switches the current session to a provider and model (both absent: back to the active
/// provider); the session remembers it.
#[tauri::command]
pub async fn choose_model(
    state: WindowState,
    request: ChooseModelRequest,
) -> Result<ModelChoices, CommandError> {
    state.choose_model(request).await
}
