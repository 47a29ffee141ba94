//! The chat room's commands: the open project's sessions, the messages sent in them and what
//! the chat box puts in a message, the turns (stop, tabs, activity), the approvals and
//! questions a turn waits on, and the session's export.

use std::path::PathBuf;
use std::sync::Arc;

use gantry_agent::ContextUsage;

use crate::app::{App, Service, Window};
use crate::chat::attachments::{
    self, AttachmentRequest, MAX_IMAGES, MAX_MENTIONS, MentionPathRequest, MentionTarget,
    PrepareImageRequest,
};
use crate::chat::mentions::{MentionCompletions, MentionQuery};
use crate::chat::slash::{self, ExpandCommandRequest, SlashCommandView};
use crate::chat::{
    ChatView, EditSummaryRequest, EventsSince, EventsSinceRequest, MessagePage, MessageTextRequest,
    MessagesBeforeRequest, RenameSessionRequest, SendMessageRequest, SessionActivity,
    SessionRequest, SessionSummary,
};
use crate::dialogs::{AnswerQuestionRequest, ResolveApprovalRequest};
use crate::error::CommandError;
use crate::events::DialogRequest;
use crate::project::OpenProject;
use crate::providers::model_choice;
use crate::sessions::export::{ExportSessionRequest, SessionExport};
use crate::sessions::search::{SearchHitView, SearchSessionsRequest};
use crate::sessions::tabs::{self, SessionTabs};

/// The chat room: the app and the project a window shows.
pub struct ChatService {
    app: Arc<App>,
    project: Arc<OpenProject>,
}

impl Service for ChatService {
    fn of(window: &Arc<Window>) -> Result<Self, CommandError> {
        Ok(Self {
            app: Arc::clone(window.app()),
            project: window.current()?,
        })
    }
}

impl ChatService {
    /// The open project's sessions, the most recently updated first.
    pub async fn list_sessions(&self) -> Result<Vec<SessionSummary>, CommandError> {
        self.project.chat().sessions().await
    }

    /// The current session and its messages (what the chat panel shows on load).
    pub async fn chat_state(&self) -> Result<ChatView, CommandError> {
        self.project.chat().view().await
    }

    /// Shows another session (a turn running in the one left goes on; each session keeps its
    /// own approvals while the app runs).
    pub async fn open_session(&self, request: SessionRequest) -> Result<ChatView, CommandError> {
        self.project.chat().switch(Some(request.id)).await
    }

    /// Starts a fresh chat; its first message creates the session.
    pub async fn new_session(&self) -> Result<ChatView, CommandError> {
        self.project.chat().switch(None).await
    }

    /// Renames a session.
    pub async fn rename_session(
        &self,
        request: RenameSessionRequest,
    ) -> Result<SessionSummary, CommandError> {
        self.project
            .chat()
            .rename(&request.id, &request.title)
            .await
    }

    /// Deletes a session and its messages; returns what the chat shows afterwards.
    pub async fn delete_session(&self, request: SessionRequest) -> Result<ChatView, CommandError> {
        self.project.chat().delete(&request.id).await
    }

    /// Sends a message to the model in the current session, with the provider and model it
    /// was switched to, else the active provider (with none chosen: a local server found); the
    /// turn reports through `chat:event` events. Mentioned files and folders are read now
    /// (through the project's confinement), prepared images checked again. Returns the
    /// session's id.
    pub async fn send_message(&self, request: SendMessageRequest) -> Result<String, CommandError> {
        let project = &self.project;
        let mentions = request
            .attachments
            .iter()
            .filter(|a| matches!(a, AttachmentRequest::Mention { .. }))
            .count();
        if mentions > MAX_MENTIONS {
            return Err(CommandError::invalid(format!(
                "a message can mention at most {MAX_MENTIONS} files and folders"
            )));
        }
        if request.attachments.len() - mentions > MAX_IMAGES {
            return Err(CommandError::invalid(format!(
                "a message can carry at most {MAX_IMAGES} images"
            )));
        }
        let built = {
            let project = Arc::clone(project);
            let wanted = request.attachments;
            tokio::task::spawn_blocking(move || {
                wanted
                    .into_iter()
                    .map(|wanted| match wanted {
                        AttachmentRequest::Mention { path } => {
                            attachments::mention_attachment(project.root(), project.tree(), &path)
                        }
                        AttachmentRequest::Image { image } => attachments::check_prepared(&image)
                            .map(|()| image)
                            .map_err(CommandError::from),
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .await??
        };
        let provider = model_choice::session_provider(self.app.store(), project.chat()).await?;
        let message = gantry_agent::Message::user(request.text).with_attachments(built);
        project.chat().send_with(message, provider).await
    }

    /// The project's files and folders that best match what follows an `@` in the chat box.
    pub async fn complete_mentions(
        &self,
        request: MentionQuery,
    ) -> Result<MentionCompletions, CommandError> {
        Ok(self
            .project
            .mentions()
            .search(&request.query, request.limit))
    }

    /// Checks a path dropped on the chat box (from the tree, or the desktop: absolute, and
    /// refused when outside the project) and returns it relative to the project.
    pub async fn mention_path(
        &self,
        request: MentionPathRequest,
    ) -> Result<MentionTarget, CommandError> {
        let project = Arc::clone(&self.project);
        tokio::task::spawn_blocking(move || {
            attachments::mention_target(project.root(), &request.path)
        })
        .await?
    }

    /// Checks and downscales a pasted or dropped image, ready to send; refused at once when
    /// the current session's model does not accept images.
    pub async fn prepare_image(
        &self,
        request: PrepareImageRequest,
    ) -> Result<gantry_agent::Attachment, CommandError> {
        if let Ok(provider) =
            model_choice::session_provider(self.app.store(), self.project.chat()).await
            && !provider.flags().images
        {
            return Err(CommandError::invalid(format!(
                "{} ({}) does not accept images: choose a model that does (or turn on \
                 \"accepts images\" for this provider in the settings)",
                provider.config().model,
                provider.config().name
            )));
        }
        Ok(tokio::task::spawn_blocking(move || {
            attachments::image_from_base64(&request.name, &request.data)
        })
        .await??)
    }

    /// The slash commands from files and the skills (`.gantry/commands`, `.claude/commands`,
    /// `~/.claude/commands`, `~/.codex/prompts`, skills), each with its source.
    pub async fn slash_commands(&self) -> Result<Vec<SlashCommandView>, CommandError> {
        let project = Arc::clone(&self.project);
        Ok(tokio::task::spawn_blocking(move || slash::project_commands(project.root())).await?)
    }

    /// A command's or skill's prompt, with what followed it put in as its source documents it;
    /// its `` !`cmd` ``s run first in the shown session (a fresh chat's is created), through
    /// run_command with the approval of the model's calls ([`crate::chat::slash_shell`]).
    pub async fn expand_slash_command(
        &self,
        request: ExpandCommandRequest,
    ) -> Result<String, CommandError> {
        let chat = self.project.chat();
        let provider = model_choice::session_provider(self.app.store(), chat).await?;
        chat.expand_command(&request.name, &request.arguments, &provider)
            .await
    }

    /// Stops the running turn of the shown session (a fresh chat's first turn, before it has a
    /// session id).
    pub async fn cancel_turn(&self) -> Result<(), CommandError> {
        self.project.chat().cancel();
        Ok(())
    }

    /// Stops the turn of one session, running or queued (a tab's Stop, the Stop button, Esc).
    pub async fn cancel_session_turn(&self, request: SessionRequest) -> Result<(), CommandError> {
        self.project.chat().cancel_session(&request.id).await
    }

    /// The open project's sessions that are queued, running or waiting for the user.
    pub async fn running_sessions(&self) -> Result<Vec<SessionActivity>, CommandError> {
        Ok(self.project.chat().busy_sessions())
    }

    /// The sessions the window shows as tabs, as remembered (see [`crate::sessions::tabs`]).
    pub async fn session_tabs(&self) -> Result<SessionTabs, CommandError> {
        tabs::load(self.project.store(), self.project.store_project()).await
    }

    /// Remembers the window's tabs; returns those kept (sessions of the project, no repeats).
    pub async fn save_session_tabs(
        &self,
        request: SessionTabs,
    ) -> Result<SessionTabs, CommandError> {
        tabs::save(self.project.store(), self.project.store_project(), request).await
    }

    /// The events of a session after the one the webview applied last (it missed some).
    pub async fn chat_events_since(
        &self,
        request: EventsSinceRequest,
    ) -> Result<EventsSince, CommandError> {
        self.project
            .chat()
            .events_since(&request.session_id, request.after)
            .await
    }

    /// About `count` messages of a session before the first one the webview has (it scrolled
    /// up).
    pub async fn chat_messages_before(
        &self,
        request: MessagesBeforeRequest,
    ) -> Result<MessagePage, CommandError> {
        self.project
            .chat()
            .messages_before(&request.session_id, request.before, request.count)
            .await
    }

    /// The whole text of one message of a session (a tool result the view got shortened).
    pub async fn chat_message_text(
        &self,
        request: MessageTextRequest,
    ) -> Result<String, CommandError> {
        self.project
            .chat()
            .message_text(
                &request.session_id,
                request.ordinal,
                request.tool_call_id.as_deref(),
            )
            .await
    }

    /// The messages of the open project's sessions that contain the words searched.
    pub async fn search_sessions(
        &self,
        request: SearchSessionsRequest,
    ) -> Result<Vec<SearchHitView>, CommandError> {
        let project = &self.project;
        crate::sessions::search::find(project.store(), project.store_project(), &request.text).await
    }

    /// Writes session `request.id` to `path` (atomically), as Markdown or JSON: the export
    /// once the shell's save dialog said where.
    pub async fn write_export(
        &self,
        request: ExportSessionRequest,
        path: PathBuf,
    ) -> Result<SessionExport, CommandError> {
        let project = &self.project;
        let (text, messages) = crate::sessions::export::render(
            project.store(),
            project.store_project(),
            &request.id,
            request.format,
        )
        .await?;
        let written = path.clone();
        tokio::task::spawn_blocking(move || crate::sessions::export::write_export(&written, &text))
            .await??;
        Ok(SessionExport {
            path: path.display().to_string(),
            messages,
        })
    }

    /// Asks the model for a summary of the current session and continues from it (`/compact`).
    pub async fn compact_session(&self) -> Result<ChatView, CommandError> {
        let chat = self.project.chat();
        let provider = model_choice::session_provider(self.app.store(), chat).await?;
        chat.compact(provider).await
    }

    /// How full the current session's context window is (`None`: a fresh chat, or a turn
    /// runs).
    pub async fn context_usage(&self) -> Result<Option<ContextUsage>, CommandError> {
        let chat = self.project.chat();
        let provider = model_choice::session_provider(self.app.store(), chat).await?;
        chat.measure_context(provider).await
    }

    /// Replaces the text of a summary of the current session (the user corrected it).
    pub async fn edit_summary(
        &self,
        request: EditSummaryRequest,
    ) -> Result<ChatView, CommandError> {
        self.project.chat().replace_summary(&request).await
    }

    /// The approvals and questions of the window's project waiting for the user, oldest first.
    pub async fn pending_dialogs(&self) -> Result<Vec<DialogRequest>, CommandError> {
        Ok(self.app.dialogs().pending(self.project.info().id))
    }

    /// The user's decision on a pending approval of the window's project.
    pub async fn resolve_approval(
        &self,
        request: ResolveApprovalRequest,
    ) -> Result<(), CommandError> {
        self.app
            .dialogs()
            .decide(self.project.info().id, &request.call, request.decision)
    }

    /// The user's answer to a pending question of the window's project.
    pub async fn answer_question(
        &self,
        request: AnswerQuestionRequest,
    ) -> Result<(), CommandError> {
        self.app
            .dialogs()
            .answer(self.project.info().id, &request.call, request.answer)
    }

    /// The project the window shows.
    pub fn project(&self) -> &Arc<OpenProject> {
        &self.project
    }
}
