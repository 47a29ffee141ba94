//! What the MCP servers panel shows: each configured server's transport, state, tools and last
//! stderr lines, whether it is switched off (in its file or for this project), and whether the
//! project's `.mcp.json` waits for the user's trust; and the requests of its editor and of the
//! Claude Desktop import.
//!
//! The engine's [`ServerStatus`] is mapped into view types here (the engine crate has no
//! TypeScript bindings): only names, commands and URLs cross to the webview — never an env or a
//! header value, which the engine's status does not hold either. The one exception is
//! [`McpServerEntry`], a user-file entry as written, which the user opens to edit it.

use gantry_mcp::{
    ClaudePreview, ConfigOrigin, McpPromptInfo, McpResourceInfo, McpResourceTemplateInfo,
    ServerState, ServerStatus, SignInState, TransportSummary,
};
use serde::{Deserialize, Serialize};

/// Where the project's MCP servers are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum McpHubState {
    /// The configuration is being read and the servers started.
    Starting,
    /// The servers below are what is configured.
    Running,
    /// The configuration could not be read; no server runs.
    Failed {
        /// The error, naming the file, line and key.
        message: String,
    },
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerView {
    /// Its name in the configuration.
    pub name: String,
    /// `user` (the user-wide file) or `project` (the project's `.mcp.json`).
    pub origin: String,
    /// The file it is configured in.
    pub config_path: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// The program and its arguments, or the URL (as configured, before `${VAR}` expansion).
    pub target: String,
    /// `starting`, `connected`, `failed`, `stopped`, `disabled` or `untrusted`.
    pub state: String,
    /// Why it failed, when it did.
    pub reason: Option<String>,
    /// The names of its tools as registered (`mcp__server__tool`).
    pub tools: Vec<String>,
    /// The last lines it wrote to stderr.
    pub stderr_tail: Vec<String>,
    /// Its process id, while a stdio server runs.
    pub pid: Option<u32>,
    /// How many times it was started again.
    pub restarts: u32,
    /// Whether Gantry may edit and remove it (it is in the user-wide file, not a project's).
    pub editable: bool,
    /// `"disabled": true` in its file: off in every project.
    pub disabled_in_file: bool,
    /// Switched off in this project (the panel's Disable).
    pub disabled_in_project: bool,
    /// Sign-in of a remote server that asked for it or holds tokens.
    pub sign_in: Option<McpSignInView>,
    /// Its resources.
    pub resources: Vec<McpResourceInfo>,
    /// Its resource templates.
    pub resource_templates: Vec<McpResourceTemplateInfo>,
    /// Its prompts.
    pub prompts: Vec<McpPromptInfo>,
}

/// Where a remote server's sign-in stands: "Signed in as …" with Sign out, or Sign in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpSignInView {
    /// Whether Gantry holds tokens the server accepted.
    pub signed_in: bool,
    /// Who is signed in, as far as the tokens tell (or the authorization server's host).
    pub account: Option<String>,
}

/// What trusting the project's `.mcp.json` covers, for the trust step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpTrustReview {
    /// Each server of the file.
    pub servers: Vec<McpTrustServer>,
}

/// One server of the project file as the trust step shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpTrustServer {
    /// Its name.
    pub name: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// The command line or URL, as written.
    pub target: String,
    /// Its working folder, as written.
    pub cwd: Option<String>,
    /// The in-project files it runs (their content is part of the approval).
    pub files: Vec<McpTrustFile>,
    /// Its environment: values shown (secrets masked), risky names flagged.
    pub env: Vec<McpTrustEnv>,
    /// The names of the headers it sends.
    pub headers: Vec<String>,
    /// The `${VAR}`s it reads from the user's environment.
    pub variables: Vec<String>,
    /// Whether the file switches it off.
    pub disabled: bool,
}

/// An in-project file a server runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpTrustFile {
    /// Relative to the project root.
    pub path: String,
    /// There is no such file now (if one appears, Gantry asks again).
    pub missing: bool,
}

/// One environment variable of a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpTrustEnv {
    /// The variable.
    pub name: String,
    /// Its value, or `••••••` when it looks secret.
    pub value: String,
    /// Whether the value is masked.
    pub masked: bool,
    /// Why it changes what runs, when it does (English, from the engine).
    pub changes_what_runs: Option<String>,
}

impl From<&gantry_mcp::ServerReview> for McpTrustServer {
    fn from(review: &gantry_mcp::ServerReview) -> Self {
        let (transport, target) = describe_transport(&review.transport);
        Self {
            name: review.name.clone(),
            transport: transport.to_owned(),
            target,
            cwd: review.cwd.clone(),
            files: review
                .files
                .iter()
                .map(|file| McpTrustFile {
                    path: file.path.clone(),
                    missing: file.sha256.is_none(),
                })
                .collect(),
            env: review
                .env
                .iter()
                .map(|env| McpTrustEnv {
                    name: env.name.clone(),
                    value: env.value.clone(),
                    masked: env.masked,
                    changes_what_runs: env.changes_what_runs.clone(),
                })
                .collect(),
            headers: review.headers.clone(),
            variables: review.variables.clone(),
            disabled: review.disabled,
        }
    }
}

/// What the MCP panel shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpPanel {
    /// Whether the servers are starting, running, or could not be configured.
    pub hub: McpHubState,
    /// The configured servers, the user's first.
    pub servers: Vec<McpServerView>,
    /// Warnings about the configuration (unknown keys, ...).
    pub warnings: Vec<String>,
    /// The user-wide file (where added and imported servers go); `None` without a home folder.
    pub user_config_path: Option<String>,
    /// What trusting the project's `.mcp.json` would cover, while it waits for trust.
    pub trust: Option<McpTrustReview>,
}

/// One resource of an MCP server, to read or to be told when it changes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpResourceRequest {
    /// The server.
    pub server: String,
    /// The resource's URI.
    pub uri: String,
    /// When subscribing: `true` to be told when it changes, `false` to stop.
    #[serde(default)]
    pub subscribe: bool,
}

/// A resource as read, to attach to a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpResourceContent {
    /// The server.
    pub server: String,
    /// The URI asked for.
    pub uri: String,
    /// Its parts (most resources have one).
    pub parts: Vec<McpResourcePart>,
}

/// One part of a read resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum McpResourcePart {
    /// Text.
    Text {
        /// The part's URI.
        uri: String,
        /// Its MIME type.
        #[serde(rename = "mimeType")]
        mime_type: Option<String>,
        /// The text.
        text: String,
        /// Whether it was cut.
        truncated: bool,
    },
    /// An image, base64.
    Image {
        /// The part's URI.
        uri: String,
        /// Its MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// The base64 data.
        data: String,
    },
    /// Binary content that is not attached, only named.
    Binary {
        /// The part's URI.
        uri: String,
        /// Its MIME type.
        #[serde(rename = "mimeType")]
        mime_type: Option<String>,
        /// Its size in bytes.
        bytes: u32,
    },
}

impl From<gantry_mcp::ResourcePart> for McpResourcePart {
    fn from(part: gantry_mcp::ResourcePart) -> Self {
        match part {
            gantry_mcp::ResourcePart::Text {
                uri,
                mime_type,
                text,
                truncated,
            } => Self::Text {
                uri,
                mime_type,
                text,
                truncated,
            },
            gantry_mcp::ResourcePart::Image {
                uri,
                mime_type,
                data,
            } => Self::Image {
                uri,
                mime_type,
                data,
            },
            gantry_mcp::ResourcePart::Binary {
                uri,
                mime_type,
                bytes,
            } => Self::Binary {
                uri,
                mime_type,
                bytes: u32::try_from(bytes).unwrap_or(u32::MAX),
            },
        }
    }
}

/// A prompt of an MCP server to render, with its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RenderMcpPromptRequest {
    /// The server.
    pub server: String,
    /// The prompt's name.
    pub name: String,
    /// Its arguments by name.
    #[serde(default)]
    pub arguments: std::collections::BTreeMap<String, String>,
}

/// A rendered prompt: the messages to insert into the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpRenderedPrompt {
    /// The server's description of the result.
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<McpPromptMessage>,
}

/// One message of a rendered prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpPromptMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// Its text.
    pub text: String,
}

impl From<gantry_mcp::RenderedPrompt> for McpRenderedPrompt {
    fn from(prompt: gantry_mcp::RenderedPrompt) -> Self {
        Self {
            description: prompt.description,
            messages: prompt
                .messages
                .into_iter()
                .map(|message| McpPromptMessage {
                    role: message.role,
                    text: message.text,
                })
                .collect(),
        }
    }
}

/// Every connected server's resources and prompts, for the chat's `@` and `/` completion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpCatalog {
    /// One entry per server that offers any.
    pub servers: Vec<McpServerCatalog>,
}

/// One server's resources and prompts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerCatalog {
    /// The server.
    pub server: String,
    /// Its resources.
    pub resources: Vec<McpResourceInfo>,
    /// Its resource templates.
    pub resource_templates: Vec<McpResourceTemplateInfo>,
    /// Its prompts.
    pub prompts: Vec<McpPromptInfo>,
}

impl McpServerCatalog {
    /// The catalog of a server with this status.
    pub fn new(status: &ServerStatus) -> Self {
        let view = McpServerView::new(status, false, false);
        Self {
            server: view.name,
            resources: view.resources,
            resource_templates: view.resource_templates,
            prompts: view.prompts,
        }
    }
}

/// One MCP server, by name (to restart, remove, sign in or out of, or edit).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerRequest {
    /// The server's name.
    pub name: String,
}

/// One user-file server as written, for the editor: `{"mcpServers": {"name": {...}}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerEntry {
    /// The server's name.
    pub name: String,
    /// Its entry as pretty-printed JSON.
    pub text: String,
}

/// The MCP servers to save: what the editor's form or JSON tab holds.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SaveMcpServersRequest {
    /// `{"mcpServers": {...}}` or `{"name": {...}}`: one server or several.
    pub text: String,
    /// The server being edited (its one replacement may have a new name); `None` adds.
    pub replacing: Option<String>,
    /// The edited server's entry as the editor received it ([`McpServerEntry`]): the save is
    /// refused when the file's entry is no longer that. `None` skips the check.
    #[serde(default)]
    pub original: Option<String>,
}

/// An MCP server to switch on or off in this project.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SetMcpServerEnabledRequest {
    /// The server's name.
    pub name: String,
    /// `false` switches it off in this project, `true` on again.
    pub enabled: bool,
}

/// The servers of Claude Desktop's configuration to copy into the user's file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportClaudeDesktopRequest {
    /// The servers to copy (a name the user's file has is replaced).
    pub names: Vec<String>,
}

/// One server of Claude Desktop's file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeServerView {
    /// Its name.
    pub name: String,
    /// `stdio`, `http` or `sse` (empty when Gantry can't read the entry).
    pub transport: String,
    /// The program and its arguments, or the URL (empty when Gantry can't read the entry).
    pub target: String,
    /// Whether Gantry's user file has a server of this name (importing it replaces that one).
    pub in_gantry: bool,
    /// Why Gantry can't import it (the key and what is wrong), when it can't.
    pub problem: Option<String>,
}

/// What importing from Claude Desktop would bring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeImportPreview {
    /// The file looked at.
    pub path: String,
    /// Whether it exists.
    pub found: bool,
    /// Its servers, in file order.
    pub servers: Vec<ClaudeServerView>,
}

impl From<ClaudePreview> for ClaudeImportPreview {
    fn from(preview: ClaudePreview) -> Self {
        Self {
            path: preview.path.display().to_string(),
            found: preview.found,
            servers: preview
                .servers
                .into_iter()
                .map(|server| {
                    let (transport, target) = server
                        .transport
                        .as_ref()
                        .map_or(("", String::new()), describe_transport);
                    ClaudeServerView {
                        name: server.name,
                        transport: transport.to_owned(),
                        target,
                        in_gantry: server.in_gantry,
                        problem: server.problem,
                    }
                })
                .collect(),
        }
    }
}

/// `stdio` and the command line, or the transport and the URL.
fn describe_transport(transport: &TransportSummary) -> (&'static str, String) {
    match transport {
        TransportSummary::Stdio { command, args } => {
            let mut line = vec![command.clone()];
            line.extend(args.iter().cloned());
            ("stdio", line.join(" "))
        }
        TransportSummary::Http { url } => ("http", url.clone()),
        TransportSummary::Sse { url } => ("sse", url.clone()),
    }
}

impl McpServerView {
    /// The view of a server with this status; `disabled_in_file` and `disabled_in_project` say
    /// which switch keeps it off, if any.
    pub fn new(status: &ServerStatus, disabled_in_file: bool, disabled_in_project: bool) -> Self {
        let (origin, config_path) = match &status.source {
            ConfigOrigin::User { path } => ("user", path),
            ConfigOrigin::Project { path, .. } => ("project", path),
        };
        let (transport, target) = describe_transport(&status.transport);
        let reason = match &status.state {
            ServerState::Failed { reason } => Some(reason.clone()),
            _ => None,
        };
        Self {
            name: status.name.clone(),
            origin: origin.to_owned(),
            config_path: config_path.display().to_string(),
            transport: transport.to_owned(),
            target,
            state: status.state.as_str().to_owned(),
            reason,
            tools: status.tools.iter().map(|tool| tool.name.clone()).collect(),
            stderr_tail: status.stderr_tail.clone(),
            pid: status.pid,
            restarts: status.restarts,
            editable: matches!(status.source, ConfigOrigin::User { .. }),
            disabled_in_file,
            disabled_in_project,
            sign_in: status.sign_in.as_ref().map(|sign_in| match sign_in {
                SignInState::SignedIn { account } => McpSignInView {
                    signed_in: true,
                    account: account.clone(),
                },
                SignInState::Required => McpSignInView {
                    signed_in: false,
                    account: None,
                },
            }),
            resources: status.resources.clone(),
            resource_templates: status.resource_templates.clone(),
            prompts: status.prompts.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_status_maps_to_names_commands_and_state_only() {
        let status = ServerStatus {
            name: "files".into(),
            source: ConfigOrigin::Project {
                path: PathBuf::from("/p/.mcp.json"),
                root: PathBuf::from("/p"),
            },
            transport: TransportSummary::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "server".into()],
            },
            state: ServerState::Failed {
                reason: "exited with status 1".into(),
            },
            tools: Vec::new(),
            stderr_tail: vec!["boom".into()],
            pid: None,
            restarts: 2,
            listings: 0,
            call_timeout: Duration::from_secs(60),
            resources: Vec::new(),
            resource_templates: Vec::new(),
            prompts: Vec::new(),
            sign_in: None,
        };
        let view = McpServerView::new(&status, false, true);
        assert_eq!(view.origin, "project");
        assert_eq!(view.config_path, "/p/.mcp.json");
        assert_eq!(
            (view.transport.as_str(), view.target.as_str()),
            ("stdio", "npx -y server")
        );
        assert_eq!(view.state, "failed");
        assert_eq!(view.reason.as_deref(), Some("exited with status 1"));
        assert_eq!(view.stderr_tail, ["boom"]);
        assert_eq!(view.restarts, 2);
        assert!(
            !view.editable,
            "a project's server is edited in its .mcp.json"
        );
        assert!(!view.disabled_in_file && view.disabled_in_project);
    }
}
