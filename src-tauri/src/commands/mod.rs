//! The Tauri commands, each declared once in `table.rs`.
//!
//! A command of the table's `served` part is one method of an engine service (a room of
//! `gantry-engine`): its wrapper is generated here — it finds the state of the window the
//! command came from ([`WindowState`]), builds the service for it
//! ([`gantry_engine::Service::of`]) and calls the method. The few commands that need the window
//! itself (a folder picker, a save dialog, the window's title) are the `by_hand` part, written
//! in [`window`].
//!
//! Every command takes at most one argument, `request` (a generated TypeScript type), and returns
//! `Result<_, CommandError>`, so a bad argument is an error the webview can read, never a panic.
//! From the same table come the handler list ([`handler`]), the command table of the TypeScript
//! contract ([`declare`]) and [`COMMAND_NAMES`]; the build script includes it to generate the
//! `allow-<name>` permission that the capability in `src-tauri/capabilities/` must grant (a test
//! checks it does) before the webview can call the command.

mod save_dialog;
pub mod window;

use std::sync::Arc;

use gantry_agent::Attachment;
use gantry_engine::chat::attachments::{MentionPathRequest, MentionTarget, PrepareImageRequest};
use gantry_engine::chat::mentions::{MentionCompletions, MentionQuery};
use gantry_engine::chat::slash::{ExpandCommandRequest, SlashCommandView};
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
use gantry_engine::config::ConfigReport;
use gantry_engine::config::hooks::HookListing;
use gantry_engine::config::rules::ExternalRulesView;
use gantry_engine::config::trust::TrustConfigRequest;
use gantry_engine::dialogs::{AnswerQuestionRequest, ResolveApprovalRequest};
use gantry_engine::events::{DialogRequest, TreeStatus};
use gantry_engine::mcp::panel::{
    ClaudeImportPreview, ImportClaudeDesktopRequest, McpCatalog, McpPanel, McpRenderedPrompt,
    McpResourceContent, McpResourceRequest, McpServerEntry, McpServerRequest,
    RenderMcpPromptRequest, SaveMcpServersRequest, SetMcpServerEnabledRequest,
};
use gantry_engine::notifications::{NotificationSettings, UiLanguageRequest};
use gantry_engine::project::ProjectInfo;
use gantry_engine::project::preview::{FilePreview, PreviewRequest};
use gantry_engine::project::service::{
    LaunchState, ListDirRequest, OpenProjectRequest, OpenProjectWindowRequest, RecentProject,
};
use gantry_engine::providers::model_choice::{ChooseModelRequest, ListModelsRequest, ModelChoices};
use gantry_engine::providers::service::LocalServers;
use gantry_engine::providers::settings::{
    ProbeProviderRequest, ProviderNameRequest, ProviderProbe, ProviderSettings, SaveProviderRequest,
};
use gantry_engine::sessions::export::{ExportSessionRequest, SessionExport};
use gantry_engine::sessions::search::{SearchHitView, SearchSessionsRequest};
use gantry_engine::sessions::tabs::SessionTabs;
use gantry_engine::settings::turn_limit::{SaveTurnLimitRequest, TurnLimitSettings};
use gantry_engine::settings::ui::{SaveLanguageRequest, TreeLayout, UiPreferences};
use gantry_engine::tools::audit::{AuditEntryView, AuditExport, AuditRequest};
use gantry_engine::tools::panel::{GrantView, RevokeGrantRequest, SetToolPolicyRequest};
use gantry_engine::tools::rules::{
    CommandSettingsView, RemoveRuleRequest, RuleView, SaveCommandSettingsRequest, SaveRuleRequest,
};
use gantry_engine::{
    ChangesService, ChatService, CommandError, ConfigService, McpService, NotificationsService,
    ProjectService, ProvidersService, Service, SettingsService, ToolsService, Window,
};
use gantry_tools::ToolInfo;
use gantry_watch::TreeEntry;

use crate::contract::Contract;

/// The state of the window a command came from (each window shows its own project), taken by
/// every command.
pub struct WindowState(Arc<Window>);

impl std::ops::Deref for WindowState {
    type Target = Arc<Window>;

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
            .window(webview.window().label())
            .map(Self)
            .map_err(tauri::ipc::InvokeError::from)
    }
}

/// Expands the command table into the served commands' wrappers, [`COMMAND_NAMES`], [`handler`]
/// and [`declare`].
macro_rules! commands {
    (
        served { $($service:ident :: $name:ident ( $request:tt ) -> $response:ty ;)* }
        by_hand { $($area:ident :: $hand:ident ( $hand_request:ty ) -> $hand_response:ty ;)* }
    ) => {
        /// The names of all commands, in the table's order.
        pub const COMMAND_NAMES: &[&str] = &[$(stringify!($name),)* $(stringify!($hand)),*];

        /// The wrappers of the commands that an engine service serves.
        mod served {
            use super::*;
            $(served_command!($service $name $request $response);)*
        }

        /// The invoke handler of every command in the table.
        pub fn handler() -> impl Fn(tauri::ipc::Invoke<tauri::Wry>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$(served::$name,)* $($area::$hand),*]
        }

        /// Declares every command, with its request and response types, in the contract.
        pub(crate) fn declare(contract: &mut Contract) {
            $(contract.command::<$request, $response>(stringify!($name));)*
            $(contract.command::<$hand_request, $hand_response>(stringify!($hand));)*
        }
    };
}

/// The wrapper of one served command: the window's service, then its method (with the request,
/// unless the table says `()`).
macro_rules! served_command {
    ($service:ident $name:ident () $response:ty) => {
        #[doc = concat!("Served by [`", stringify!($service), "::", stringify!($name), "`].")]
        #[tauri::command]
        pub async fn $name(window: WindowState) -> Result<$response, CommandError> {
            <$service as Service>::of(&window)?.$name().await
        }
    };
    ($service:ident $name:ident $request:ident $response:ty) => {
        #[doc = concat!("Served by [`", stringify!($service), "::", stringify!($name), "`].")]
        #[tauri::command]
        pub async fn $name(
            window: WindowState,
            request: $request,
        ) -> Result<$response, CommandError> {
            <$service as Service>::of(&window)?.$name(request).await
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
