//! What one configured server is: where it came from, how to reach it, and Gantry's overrides.
//!
//! A [`ServerConfig`] keeps its values as written, `${VAR}` references included: they are
//! expanded only when the server starts. What lists and the UI show of a transport is its
//! [`TransportSummary`], which leaves out environment and header values (usually secrets).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gantry_tools::PermissionLevel;
use serde::{Deserialize, Serialize};

/// Where a server's configuration came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ConfigOrigin {
    /// The user-wide file.
    User {
        /// The file.
        path: PathBuf,
    },
    /// A project's `.mcp.json`.
    Project {
        /// The file.
        path: PathBuf,
        /// The project's root folder.
        root: PathBuf,
    },
}

impl ConfigOrigin {
    /// The file the configuration was read from.
    pub fn path(&self) -> &Path {
        match self {
            Self::User { path } | Self::Project { path, .. } => path,
        }
    }

    /// The folder relative commands and working directories are resolved against: the project
    /// root for a project file, the file's folder for the user file.
    pub fn base_dir(&self) -> PathBuf {
        match self {
            Self::Project { root, .. } => root.clone(),
            Self::User { path } => path
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        }
    }
}

/// How Gantry talks to a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportConfig {
    /// A program Gantry starts, speaking JSON-RPC on its stdin/stdout.
    Stdio {
        /// The program (looked up on `PATH` unless it contains a `/`).
        command: String,
        /// Its arguments (`${VAR}` expanded at start).
        args: Vec<String>,
        /// Extra environment variables (`${VAR}` expanded at start), on top of Gantry's own.
        env: BTreeMap<String, String>,
        /// The working directory (relative to [`ConfigOrigin::base_dir`]).
        cwd: Option<String>,
    },
    /// A remote server over streamable HTTP.
    Http {
        /// The endpoint, e.g. `http://127.0.0.1:3001/mcp`.
        url: String,
        /// Extra request headers (`${VAR}` expanded at start), e.g. `Authorization: Bearer ...`.
        headers: BTreeMap<String, String>,
    },
    /// The legacy HTTP+SSE transport, which Gantry cannot speak; kept to say so by name.
    Sse {
        /// The endpoint as configured.
        url: String,
    },
}

/// The transport as lists and the UI show it: commands and URLs, never env or header values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum TransportSummary {
    /// A local program.
    Stdio {
        /// The program as configured.
        command: String,
        /// Its arguments as configured (before `${VAR}` expansion).
        args: Vec<String>,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint as configured.
        url: String,
    },
    /// Legacy SSE (unsupported).
    Sse {
        /// The endpoint as configured.
        url: String,
    },
}

impl TransportConfig {
    /// The summary for lists: what runs or where it connects, without secrets.
    pub fn summary(&self) -> TransportSummary {
        match self {
            Self::Stdio { command, args, .. } => TransportSummary::Stdio {
                command: command.clone(),
                args: args.clone(),
            },
            Self::Http { url, .. } => TransportSummary::Http { url: url.clone() },
            Self::Sse { url } => TransportSummary::Sse { url: url.clone() },
        }
    }

    /// `stdio`, `http` or `sse`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Http { .. } => "http",
            Self::Sse { .. } => "sse",
        }
    }
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The server's name (the key under `mcpServers`).
    pub name: String,
    /// The file it came from.
    pub origin: ConfigOrigin,
    /// How to reach it.
    pub transport: TransportConfig,
    /// `"disabled": true`: listed, never started.
    pub disabled: bool,
    /// `"level"`: the level of every tool of this server, overriding annotations.
    pub level: Option<PermissionLevel>,
    /// `"tools": {"name": {"level": ...}}`: per-tool levels (by the server's tool name), which win
    /// over `level` and annotations.
    pub tool_levels: BTreeMap<String, PermissionLevel>,
    /// `"timeout"` (seconds): how long one call may take.
    pub call_timeout: Option<Duration>,
    /// `"startupTimeout"` (seconds): how long start-up and the handshake may take.
    pub startup_timeout: Option<Duration>,
}

impl ServerConfig {
    /// Every variable this server's configuration refers to with `${VAR}` (in `command`,
    /// `args`, `env` and header values, `cwd`, `url`), each once, sorted: what starting it
    /// would hand to the server from the user's environment.
    pub fn referenced_variables(&self) -> Vec<String> {
        let mut texts: Vec<&str> = Vec::new();
        match &self.transport {
            TransportConfig::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                texts.push(command);
                texts.extend(args.iter().map(String::as_str));
                texts.extend(env.values().map(String::as_str));
                texts.extend(cwd.as_deref());
            }
            TransportConfig::Http { url, headers } => {
                texts.push(url);
                texts.extend(headers.values().map(String::as_str));
            }
            TransportConfig::Sse { url } => texts.push(url),
        }
        let names: std::collections::BTreeSet<String> = texts
            .into_iter()
            .flat_map(crate::expand::referenced_variables)
            .collect();
        names.into_iter().collect()
    }

    /// The names (never the values) of the environment variables a stdio server is given, or
    /// of the headers an HTTP server is sent.
    pub fn env_and_header_names(&self) -> (Vec<String>, Vec<String>) {
        match &self.transport {
            TransportConfig::Stdio { env, .. } => (env.keys().cloned().collect(), Vec::new()),
            TransportConfig::Http { headers, .. } => {
                (Vec::new(), headers.keys().cloned().collect())
            }
            TransportConfig::Sse { .. } => (Vec::new(), Vec::new()),
        }
    }
}
