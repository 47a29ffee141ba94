//! The one contract between the backend and the webview, generated as TypeScript.
//!
//! Every command's argument and result, every event's payload and the command error are Rust
//! types deriving `ts_rs::TS` (the engine's own types behind the engine crates' `ts` feature).
//! [`export`] writes their declarations, one file per type, plus `ipc.ts`: the table of
//! commands (name → request and result types) and of events (name → payload type) that the
//! webview's typed `invoke`/`listen` wrappers are written against. The files are committed in
//! `ui/src/bindings/`; the test below regenerates them into a temporary folder and fails when
//! they differ, so a changed Rust type can't leave the UI compiling against a stale one.
//!
//! To refresh them after changing a type: `GANTRY_BLESS_BINDINGS=1 cargo test -p gantry --lib
//! contract` (or `npm run bindings` in `ui/`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use gantry_tools::ToolInfo;
use gantry_watch::TreeEntry;
use ts_rs::{Config, ExportError, TS, TypeVisitor};

use crate::audit_view::{AuditEntryView, AuditExport, AuditRequest};
use crate::chat::{
    ChatEvent, ChatView, RenameSessionRequest, SendMessageRequest, SessionRequest, SessionSummary,
};
use crate::commands::dialogs::{AnswerQuestionRequest, ResolveApprovalRequest};
use crate::error::CommandError;
use crate::events::{DialogClosed, DialogRequest, Event, TreeChanged, TreeStatus};
use crate::mcp_panel::{
    ClaudeImportPreview, ImportClaudeDesktopRequest, McpPanel, McpServerEntry, McpServerRequest,
    SaveMcpServersRequest, SetMcpServerEnabledRequest,
};
use crate::preview::{FilePreview, PreviewRequest};
use crate::project::ProjectInfo;
use crate::provider_settings::{
    ProbeProviderRequest, ProviderNameRequest, ProviderProbe, ProviderSettings, SaveProviderRequest,
};
use crate::state::{LaunchState, ListDirRequest, OpenProjectRequest, RecentProject};
use crate::tool_panel::{GrantView, RevokeGrantRequest, SetToolPolicyRequest};

/// Where the bindings live, relative to the repository root.
pub const BINDINGS_DIR: &str = "ui/src/bindings";

/// Writes every binding into `dir` (which should be empty).
pub fn export(dir: &Path) -> Result<(), ExportError> {
    let mut contract = Contract::new(dir);
    contract.command::<(), LaunchState>("launch_state");
    contract.command::<(), Vec<RecentProject>>("recent_projects");
    contract.command::<OpenProjectRequest, ProjectInfo>("open_project");
    contract.command::<(), Option<ProjectInfo>>("pick_project_folder");
    contract.command::<(), ()>("close_project");
    contract.command::<ListDirRequest, Vec<TreeEntry>>("list_dir");
    contract.command::<(), TreeStatus>("tree_status");
    contract.command::<PreviewRequest, FilePreview>("read_preview");
    contract.command::<(), Vec<DialogRequest>>("pending_dialogs");
    contract.command::<ResolveApprovalRequest, ()>("resolve_approval");
    contract.command::<AnswerQuestionRequest, ()>("answer_question");
    contract.command::<(), Vec<SessionSummary>>("list_sessions");
    contract.command::<(), ChatView>("chat_state");
    contract.command::<SessionRequest, ChatView>("open_session");
    contract.command::<(), ChatView>("new_session");
    contract.command::<RenameSessionRequest, SessionSummary>("rename_session");
    contract.command::<SessionRequest, ChatView>("delete_session");
    contract.command::<SendMessageRequest, String>("send_message");
    contract.command::<(), ()>("cancel_turn");
    contract.command::<(), Vec<ToolInfo>>("list_tools");
    contract.command::<(), McpPanel>("mcp_servers");
    contract.command::<McpServerRequest, McpPanel>("restart_mcp_server");
    contract.command::<(), McpPanel>("trust_project_mcp");
    contract.command::<McpServerRequest, McpServerEntry>("mcp_server_entry");
    contract.command::<SaveMcpServersRequest, McpPanel>("save_mcp_servers");
    contract.command::<McpServerRequest, McpPanel>("remove_mcp_server");
    contract.command::<SetMcpServerEnabledRequest, McpPanel>("set_mcp_server_enabled");
    contract.command::<(), ClaudeImportPreview>("claude_desktop_import_preview");
    contract.command::<ImportClaudeDesktopRequest, McpPanel>("import_claude_desktop");
    contract.command::<(), ProviderSettings>("provider_settings");
    contract.command::<SaveProviderRequest, ProviderSettings>("save_provider");
    contract.command::<ProbeProviderRequest, ProviderProbe>("probe_provider");
    contract.command::<ProviderNameRequest, ProviderSettings>("delete_provider_key");
    contract.command::<SetToolPolicyRequest, Vec<ToolInfo>>("set_tool_policy");
    contract.command::<(), Vec<ToolInfo>>("reset_tool_policies");
    contract.command::<(), Vec<GrantView>>("session_grants");
    contract.command::<RevokeGrantRequest, Vec<GrantView>>("revoke_grant");
    contract.command::<AuditRequest, Vec<AuditEntryView>>("audit_log");
    contract.command::<AuditRequest, Option<AuditExport>>("export_audit");
    contract.event::<TreeChanged>();
    contract.event::<TreeStatus>();
    contract.event::<DialogRequest>();
    contract.event::<DialogClosed>();
    contract.event::<ChatEvent>();
    contract.finish()
}

struct Contract {
    cfg: Config,
    /// Imported type name → file (without `.ts`), relative to the bindings folder.
    imports: BTreeMap<String, PathBuf>,
    commands: Vec<(&'static str, Option<String>, String)>,
    events: Vec<(&'static str, String)>,
    error: Option<ExportError>,
}

impl Contract {
    fn new(dir: &Path) -> Self {
        Self {
            // Sizes are u64 but never near 2^53: plain numbers, as serde_json sends them.
            cfg: Config::new().with_out_dir(dir).with_large_int("number"),
            imports: BTreeMap::new(),
            commands: Vec::new(),
            events: Vec::new(),
            error: None,
        }
    }

    /// Exports `T` (or, for `Vec<T>`, `Option<T>`, ..., the types inside) and returns its
    /// TypeScript name.
    fn ty<T: TS + 'static + ?Sized>(&mut self) -> String {
        self.visit::<T>();
        T::name(&self.cfg)
    }

    fn command<Request: TS + 'static, Response: TS + 'static>(&mut self, name: &'static str) {
        let request = (std::any::TypeId::of::<Request>() != std::any::TypeId::of::<()>())
            .then(|| self.ty::<Request>());
        let response = self.ty::<Response>();
        self.commands.push((name, request, response));
    }

    fn event<E: Event>(&mut self) {
        let payload = self.ty::<E>();
        self.events.push((E::NAME, payload));
    }

    fn finish(mut self) -> Result<(), ExportError> {
        let error = self.ty::<CommandError>();
        if let Some(failure) = self.error.take() {
            return Err(failure);
        }
        let mut ipc = String::from(
            "// Generated by gantry_app::contract from the Rust types. Do not edit: change the Rust\n\
             // type and run `npm run bindings`.\n\n",
        );
        for (name, file) in &self.imports {
            let file = file.to_string_lossy().replace('\\', "/");
            let _ = writeln!(ipc, "import type {{ {name} }} from \"./{file}\";");
        }
        ipc.push_str(
            "\n/** Every command: its one argument (sent as `{ request }`) and its result. */\n",
        );
        ipc.push_str("export type Commands = {\n");
        for (name, request, response) in &self.commands {
            let request = request.as_deref().unwrap_or("null");
            let _ = writeln!(
                ipc,
                "  {name}: {{ request: {request}; response: {response} }};"
            );
        }
        ipc.push_str("};\n\n/** Every event the backend sends, by name: its payload. */\n");
        ipc.push_str("export type Events = {\n");
        for (name, payload) in &self.events {
            let _ = writeln!(ipc, "  \"{name}\": {payload};");
        }
        ipc.push_str("};\n\n/** What a failed command rejects with. */\n");
        let _ = writeln!(ipc, "export type CommandFailure = {error};");
        ipc.push_str("\n/** The names of all commands. */\nexport const COMMAND_NAMES = [\n");
        for (name, _, _) in &self.commands {
            let _ = writeln!(ipc, "  \"{name}\",");
        }
        ipc.push_str(
            "] as const;\n\n/** The names of all events. */\nexport const EVENT_NAMES = [\n",
        );
        for (name, _) in &self.events {
            let _ = writeln!(ipc, "  \"{name}\",");
        }
        ipc.push_str("] as const;\n");
        std::fs::write(self.cfg.out_dir().join("ipc.ts"), ipc)?;
        Ok(())
    }
}

impl TypeVisitor for Contract {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        match T::output_path() {
            Some(path) => {
                self.imports
                    .insert(T::ident(&self.cfg), path.with_extension(""));
                if self.error.is_none()
                    && let Err(error) = T::export_all(&self.cfg)
                {
                    self.error = Some(error);
                }
            }
            // A wrapper (Vec, Option, ...) or a primitive: what matters is inside.
            None => T::visit_generics(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use super::*;

    /// Every file under `dir`, by relative path.
    fn read_tree(dir: &Path) -> BTreeMap<String, String> {
        let mut files = BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(current) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&current) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let relative = path
                        .strip_prefix(dir)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    files.insert(relative, std::fs::read_to_string(&path).unwrap());
                }
            }
        }
        files
    }

    #[test]
    fn the_committed_bindings_match_the_rust_types() {
        let generated = tempfile::tempdir().unwrap();
        export(generated.path()).unwrap();
        let fresh = read_tree(generated.path());
        let committed_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(BINDINGS_DIR);
        if std::env::var_os("GANTRY_BLESS_BINDINGS").is_some() {
            let _ = std::fs::remove_dir_all(&committed_dir);
            for (file, text) in &fresh {
                let path = committed_dir.join(file);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
            return;
        }
        let committed = read_tree(&committed_dir);
        let stale: Vec<_> = committed
            .keys()
            .filter(|f| !fresh.contains_key(*f))
            .collect();
        let missing: Vec<_> = fresh
            .keys()
            .filter(|f| !committed.contains_key(*f))
            .collect();
        let changed: Vec<_> = fresh
            .iter()
            .filter(|(file, text)| committed.get(*file).is_some_and(|old| old != *text))
            .map(|(file, _)| file)
            .collect();
        assert!(
            stale.is_empty() && missing.is_empty() && changed.is_empty(),
            "{BINDINGS_DIR} is out of date with the Rust types (stale: {stale:?}, missing: \
             {missing:?}, changed: {changed:?}); run `npm run bindings` in ui/ \
             (GANTRY_BLESS_BINDINGS=1 cargo test -p gantry --lib contract) and commit the result"
        );
    }

    #[test]
    fn the_contract_names_every_registered_command_and_imports_existing_files() {
        let generated = tempfile::tempdir().unwrap();
        export(generated.path()).unwrap();
        let ipc = std::fs::read_to_string(generated.path().join("ipc.ts")).unwrap();
        for name in crate::commands::COMMAND_NAMES {
            assert!(
                ipc.contains(&format!("  {name}: {{ request")),
                "{name} missing from ipc.ts"
            );
        }
        for line in ipc.lines().filter(|line| line.starts_with("import type")) {
            let file = line.split('"').nth(1).unwrap().trim_start_matches("./");
            assert!(
                generated.path().join(format!("{file}.ts")).is_file(),
                "{line} imports a file that was not generated"
            );
        }
    }
}
