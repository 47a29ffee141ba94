//! Reading `mcpServers` files: the format Claude Desktop, Cursor and Claude Code share.
//!
//! Users already have these files, so Gantry reads them as they are: a stdio server is
//! `{"command", "args", "env", "cwd"}`, a remote one `{"url", "headers"}` with an optional
//! `"type": "http"` (or `"streamable-http"`). Gantry adds a few optional keys of its own
//! (`disabled`, `level`, `tools`, `timeout`, `startupTimeout`) that other clients ignore.
//!
//! Parsing is strict about shapes and lenient about extras: a key Gantry does not know is a
//! warning (another client may use it), a key with the wrong type is an error that names the
//! file, the line and the key, so the user can fix it without guessing. Values are kept as
//! written; `${VAR}` expansion happens when a server is started (see [`crate::expand`]), so
//! nothing secret is ever stored in a status or a log.
//!
//! The parts, one job each: `server` says what one configured server is, `read` reads a file
//! safely (a regular file of bounded size, a project's file inside the project), `parse` turns
//! its text into servers and warnings, and `locate` finds the line a key is written on, for
//! errors that point at it.

use std::path::PathBuf;

use sha2::{Digest, Sha256};

mod locate;
mod parse;
mod read;
mod server;

#[cfg(test)]
mod tests;

pub(crate) use locate::locate_key;
pub use parse::parse_config;
pub(crate) use parse::syntax_error;
pub(crate) use read::read_text;
pub use read::{MAX_CONFIG_BYTES, read_config};
pub use server::{ConfigOrigin, ServerConfig, TransportConfig, TransportSummary};

/// The project-level file, at the project's root.
pub const PROJECT_FILE: &str = ".mcp.json";

/// The user-wide file: `{config dir}/gantry/mcp.json` (`~/.config/gantry/mcp.json` on Linux,
/// following `XDG_CONFIG_HOME`). `None` when the home folder is unknown.
pub fn user_config_path() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|dirs| dirs.config_dir().join("gantry").join("mcp.json"))
}

/// A parsed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    /// Its servers, in file order.
    pub servers: Vec<ServerConfig>,
    /// What was ignored, one sentence each (with the file and line).
    pub warnings: Vec<String>,
    /// The SHA-256 of the file's bytes, hex: what a project-file approval is bound to.
    pub sha256: String,
}

/// A file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("cannot read MCP config {file}: {reason}")]
    Unreadable {
        /// The file.
        file: PathBuf,
        /// Why.
        reason: String,
    },
    /// The file is not JSON.
    #[error("MCP config {file}:{line}:{column}: not valid JSON: {message}")]
    Syntax {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde_json's explanation.
        message: String,
    },
    /// A key has the wrong shape.
    #[error("MCP config {file}:{line}: key '{key}': {message}")]
    Invalid {
        /// The file.
        file: PathBuf,
        /// 1-based line of the key (or of the file's start when it can't be found).
        line: usize,
        /// The key's path, e.g. `mcpServers.github.args`.
        key: String,
        /// What is wrong.
        message: String,
    },
}

/// The SHA-256 of `bytes` as lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}
