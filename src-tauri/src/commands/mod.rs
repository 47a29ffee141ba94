//! The Tauri commands: one file per area, each a thin wrapper that unwraps Tauri's arguments and
//! calls into the window's [`gantry_engine::AppState`].
//!
//! Every command takes at most one argument, `request` (a generated TypeScript type), and returns
//! `Result<_, CommandError>`, so a bad argument is an error the webview can read, never a panic.
//! A command that acts on a project takes [`WindowState`]: the state of the window it came
//! from, which shows its own project.
//!
//! Each command is declared once, in `table.rs`: its area, name, request and response. From that
//! table come the handler list ([`handler`]), the command table of the TypeScript contract
//! ([`declare`]) and [`COMMAND_NAMES`]; the build script includes the same table to generate the
//! `allow-<name>` permission that the capability in `src-tauri/capabilities/` must grant (a test
//! checks it does) before the webview can call the command.

pub mod audit;
pub mod changes;
pub mod chat;
pub mod dialogs;
pub mod mcp;
pub mod notifications;
pub mod preview;
pub mod project;
pub mod rules;
mod save_dialog;
pub mod settings;
pub mod tools;
pub mod tree;
pub mod turns;

use gantry_engine::attachments::{
    Attachment, MentionPathRequest, MentionTarget, PrepareImageRequest,
};
use gantry_engine::audit_view::{AuditEntryView, AuditExport, AuditRequest};
use gantry_engine::chat::{
    AcceptChangesRequest, BranchView, ChatView, CompactSettings, ContextUsage, EditSummaryRequest,
    EventsSince, EventsSinceRequest, MessagePage, MessageTextRequest, MessagesBeforeRequest,
    RenameSessionRequest, ResendOutcome, ResendRequest, RetryRequest, RevertOutcome,
    SendMessageRequest, SessionActivity, SessionRequest, SessionSummary, SwitchBranchOutcome,
    SwitchBranchRequest,
};
use gantry_engine::checkpoints::{
    ChangesView, CheckpointSettings, RevertRequest, SaveCheckpointSettingsRequest,
};
use gantry_engine::events::{DialogRequest, TreeStatus};
use gantry_engine::mcp_panel::{
    ClaudeImportPreview, ImportClaudeDesktopRequest, McpCatalog, McpPanel, McpRenderedPrompt,
    McpResourceContent, McpResourceRequest, McpServerEntry, McpServerRequest,
    RenderMcpPromptRequest, SaveMcpServersRequest, SetMcpServerEnabledRequest,
};
use gantry_engine::mentions::{MentionCompletions, MentionQuery};
use gantry_engine::model_choice::{ChooseModelRequest, ListModelsRequest, ModelChoices};
use gantry_engine::preview::{FilePreview, PreviewRequest};
use gantry_engine::project::ProjectInfo;
use gantry_engine::project_commands::{
    CommandSettingsView, RemoveRuleRequest, RuleView, SaveCommandSettingsRequest, SaveRuleRequest,
};
use gantry_engine::provider_settings::{
    ProbeProviderRequest, ProviderNameRequest, ProviderProbe, ProviderSettings, SaveProviderRequest,
};
use gantry_engine::session_export::{ExportSessionRequest, SessionExport};
use gantry_engine::session_search::{SearchHitView, SearchSessionsRequest};
use gantry_engine::session_tabs::SessionTabs;
use gantry_engine::slash_commands::{ExpandCommandRequest, SlashCommandView};
use gantry_engine::state::{
    LaunchState, ListDirRequest, LocalServers, OpenProjectRequest, OpenProjectWindowRequest,
    RecentProject,
};
use gantry_engine::tool_panel::{GrantView, RevokeGrantRequest, SetToolPolicyRequest};
use gantry_engine::turn_limit::{SaveTurnLimitRequest, TurnLimitSettings};
use gantry_tools::ToolInfo;
use gantry_watch::TreeEntry;

use self::dialogs::{AnswerQuestionRequest, ResolveApprovalRequest};
use crate::contract::Contract;
use crate::notifications::{NotificationSettings, UiLanguageRequest};

/// The state of the window a command came from (each window shows its own project), taken by
/// every command that acts on a project.
pub struct WindowState(std::sync::Arc<gantry_engine::AppState>);

impl std::ops::Deref for WindowState {
    type Target = gantry_engine::AppState;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<'de, R: tauri::Runtime> tauri::ipc::CommandArg<'de, R> for WindowState {
    fn from_command(
        command: tauri::ipc::CommandItem<'de, R>,
    ) -> Result<Self, tauri::ipc::InvokeError> {
        use tauri::Manager;
        let webview = command.message.webview();
        let windows = webview
            .try_state::<gantry_engine::Windows>()
            .ok_or_else(|| tauri::ipc::InvokeError::from("the app is not set up yet"))?;
        // A window that closed (or never opened) has no state; a command it sent as it went
        // is refused rather than given a fresh one.
        windows
            .state(webview.window().label())
            .map(Self)
            .map_err(tauri::ipc::InvokeError::from)
    }
}

/// Expands the command table into [`COMMAND_NAMES`], [`handler`] and [`declare`].
macro_rules! commands {
    ($($area:ident :: $name:ident ( $request:ty ) -> $response:ty ;)*) => {
        /// The names of all commands, in the table's order.
        pub const COMMAND_NAMES: &[&str] = &[$(stringify!($name)),*];

        /// The invoke handler of every command in the table.
        pub fn handler() -> impl Fn(tauri::ipc::Invoke<tauri::Wry>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($area::$name),*]
        }

        /// Declares every command, with its request and response types, in the contract.
        pub(crate) fn declare(contract: &mut Contract) {
            $(contract.command::<$request, $response>(stringify!($name));)*
        }
    };
}

include!("table.rs");

#[cfg(test)]
mod tests {
    use super::COMMAND_NAMES;

    #[test]
    fn the_capability_grants_every_command_and_nothing_else() {
        let capability: serde_json::Value =
            serde_json::from_str(include_str!("../../capabilities/main.json")).unwrap();
        let granted: Vec<&str> = capability["permissions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|permission| permission.as_str())
            .collect();
        for name in COMMAND_NAMES {
            let permission = format!("allow-{}", name.replace('_', "-"));
            assert!(
                granted.contains(&permission.as_str()),
                "{permission} is not granted"
            );
        }
        // The capability grants nothing but Gantry's commands and listening to its events.
        for permission in granted {
            assert!(
                permission.starts_with("allow-")
                    || ["core:event:allow-listen", "core:event:allow-unlisten"]
                        .contains(&permission),
                "unexpected permission {permission}"
            );
        }
    }
}
