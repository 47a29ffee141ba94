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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gantry_tools::PermissionLevel;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The project-level file, at the project's root.
pub const PROJECT_FILE: &str = ".mcp.json";

/// The user-wide file: `{config dir}/gantry/mcp.json` (`~/.config/gantry/mcp.json` on Linux,
/// following `XDG_CONFIG_HOME`). `None` when the home folder is unknown.
pub fn user_config_path() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|dirs| dirs.config_dir().join("gantry").join("mcp.json"))
}

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

/// The largest config file Gantry reads (1 MiB); a real `mcpServers` file is a few KiB.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// Reads and parses a file; `Ok(None)` when it does not exist.
///
/// The file must be a regular file (a FIFO would block Gantry's start, a device never end) of
/// at most [`MAX_CONFIG_BYTES`]. The user-wide file may be a symlink to one (dotfile managers
/// do that). A project's `.mcp.json` is resolved like a tool path: a symlink is followed only
/// while it stays inside the project, so a cloned repository cannot point Gantry at a file
/// elsewhere on the machine.
pub fn read_config(origin: ConfigOrigin) -> Result<Option<ConfigFile>, ConfigError> {
    match read_text(&origin)? {
        Some(text) => parse_config(&text, origin).map(Some),
        None => Ok(None),
    }
}

/// The text of the file `origin` names, read with the checks of [`read_config`]; `Ok(None)` when
/// it does not exist.
pub(crate) fn read_text(origin: &ConfigOrigin) -> Result<Option<String>, ConfigError> {
    let path = origin.path().to_path_buf();
    let unreadable = |reason: String| ConfigError::Unreadable {
        file: path.clone(),
        reason,
    };
    let target = match origin {
        ConfigOrigin::User { .. } => path.clone(),
        ConfigOrigin::Project { root, .. } => {
            match std::fs::symlink_metadata(&path) {
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(error) => return Err(unreadable(error.to_string())),
                Ok(_) => {}
            }
            let project = gantry_tools::ProjectRoot::new(root)
                .map_err(|error| unreadable(error.to_string()))?;
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let resolved = project
                .resolve(&relative.to_string_lossy())
                .map_err(|error| {
                    unreadable(format!(
                        "a project's MCP config must stay inside the project ({error})"
                    ))
                })?;
            resolved.path().to_path_buf()
        }
    };
    // Checked before opening: opening a FIFO blocks until someone writes to it.
    let metadata = match std::fs::metadata(&target) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(unreadable(error.to_string())),
    };
    check_file(&metadata).map_err(unreadable)?;
    let file = std::fs::File::open(&target).map_err(|error| unreadable(error.to_string()))?;
    // Checked again on the open file, in case it was swapped in between.
    let opened = file
        .metadata()
        .map_err(|error| unreadable(error.to_string()))?;
    check_file(&opened).map_err(unreadable)?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_CONFIG_BYTES + 1),
        &mut bytes,
    )
    .map_err(|error| unreadable(error.to_string()))?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(unreadable(too_large()));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| unreadable("not UTF-8 text".into()))
}

/// A config file must be a regular file within the size limit.
fn check_file(metadata: &std::fs::Metadata) -> Result<(), String> {
    if !metadata.is_file() {
        let kind = if metadata.is_dir() {
            "a folder"
        } else {
            "a FIFO, socket or device"
        };
        return Err(format!("not a regular file ({kind})"));
    }
    if metadata.len() > MAX_CONFIG_BYTES {
        return Err(too_large());
    }
    Ok(())
}

fn too_large() -> String {
    format!("larger than {} KiB", MAX_CONFIG_BYTES / 1024)
}

const SERVER_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "type",
    "url",
    "headers",
    "disabled",
    "level",
    "tools",
    "timeout",
    "startupTimeout",
];

/// Parses the text of a file that came from `origin`.
pub fn parse_config(text: &str, origin: ConfigOrigin) -> Result<ConfigFile, ConfigError> {
    let file = origin.path().to_path_buf();
    let value: Value = serde_json::from_str(text).map_err(|error| syntax_error(&file, &error))?;
    let reader = Reader { text, file: &file };
    let Value::Object(top) = value else {
        return Err(reader.invalid(&[], "the file must hold a JSON object with \"mcpServers\""));
    };
    let mut warnings = Vec::new();
    for key in top.keys().filter(|key| *key != "mcpServers") {
        warnings.push(reader.warning(&[key], format!("unknown key '{key}' ignored")));
    }
    let mut servers = Vec::new();
    match top.get("mcpServers") {
        None | Some(Value::Null) => {}
        Some(Value::Object(entries)) => {
            for (name, entry) in entries {
                servers.push(reader.server(name, entry, &origin, &mut warnings)?);
            }
        }
        Some(_) => {
            return Err(reader.invalid(&["mcpServers"], "expected an object of servers by name"));
        }
    }
    Ok(ConfigFile {
        servers,
        warnings,
        sha256: sha256_hex(text.as_bytes()),
    })
}

/// The error for text of `file` that serde_json could not read as JSON.
pub(crate) fn syntax_error(file: &Path, error: &serde_json::Error) -> ConfigError {
    ConfigError::Syntax {
        file: file.to_owned(),
        line: error.line(),
        column: error.column(),
        message: strip_position(&error.to_string()),
    }
}

/// serde_json appends " at line L column C"; the error already carries them.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(index) => message[..index].to_owned(),
        None => message.to_owned(),
    }
}

struct Reader<'a> {
    text: &'a str,
    file: &'a Path,
}

impl Reader<'_> {
    fn line_of(&self, path: &[&str]) -> usize {
        locate_key(self.text, path).unwrap_or(1)
    }

    fn invalid(&self, path: &[&str], message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.to_owned(),
            line: self.line_of(path),
            key: path.join("."),
            message: message.into(),
        }
    }

    fn warning(&self, path: &[&str], message: String) -> String {
        format!("{}:{}: {message}", self.file.display(), self.line_of(path))
    }

    fn server(
        &self,
        name: &str,
        entry: &Value,
        origin: &ConfigOrigin,
        warnings: &mut Vec<String>,
    ) -> Result<ServerConfig, ConfigError> {
        let at = |key: &'static str| ["mcpServers", name, key];
        let Value::Object(fields) = entry else {
            return Err(self.invalid(&["mcpServers", name], "expected an object"));
        };
        if name.is_empty() {
            return Err(self.invalid(&["mcpServers", name], "a server needs a non-empty name"));
        }
        for key in fields.keys() {
            if !SERVER_KEYS.contains(&key.as_str()) {
                warnings.push(self.warning(
                    &["mcpServers", name, key],
                    format!("server '{name}': unknown key '{key}' ignored"),
                ));
            }
        }
        let kind = self.opt_string(fields, &at("type"))?;
        let url = self.opt_string(fields, &at("url"))?;
        let command = self.opt_string(fields, &at("command"))?;
        let transport = match (kind.as_deref(), url, command) {
            (Some("sse"), url, _) => TransportConfig::Sse {
                url: url.unwrap_or_default(),
            },
            (Some("http" | "streamable-http" | "streamableHttp") | None, Some(url), None) => {
                TransportConfig::Http {
                    url,
                    headers: self.string_map(fields, &at("headers"))?,
                }
            }
            (Some("stdio") | None, None, Some(command)) => TransportConfig::Stdio {
                command,
                args: self.string_list(fields, &at("args"))?,
                env: self.string_map(fields, &at("env"))?,
                cwd: self.opt_string(fields, &at("cwd"))?,
            },
            (Some(other), _, _)
                if !matches!(
                    other,
                    "stdio" | "http" | "streamable-http" | "streamableHttp"
                ) =>
            {
                return Err(self.invalid(
                    &at("type"),
                    format!("unknown transport '{other}' (expected stdio, http or sse)"),
                ));
            }
            (_, Some(_), Some(_)) => {
                return Err(self.invalid(
                    &["mcpServers", name],
                    "give either \"command\" (a local program) or \"url\" (a remote server), not both",
                ));
            }
            (Some("stdio"), _, None) => {
                return Err(self.invalid(&at("command"), "a stdio server needs \"command\""));
            }
            (_, None, _) => {
                return Err(self.invalid(
                    &["mcpServers", name],
                    "a server needs \"command\" (a local program) or \"url\" (a remote server)",
                ));
            }
            (_, Some(_), None) => {
                return Err(self.invalid(&at("url"), "a stdio server can't have a \"url\""));
            }
        };
        if let TransportConfig::Stdio { command, .. } = &transport
            && command.trim().is_empty()
        {
            return Err(self.invalid(&at("command"), "must not be empty"));
        }
        let disabled = match fields.get("disabled") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(flag)) => *flag,
            Some(_) => return Err(self.invalid(&at("disabled"), "expected true or false")),
        };
        let level = self.opt_level(fields.get("level"), &at("level"))?;
        let mut tool_levels = BTreeMap::new();
        match fields.get("tools") {
            None | Some(Value::Null) => {}
            Some(Value::Object(tools)) => {
                for (tool, settings) in tools {
                    let path = ["mcpServers", name, "tools", tool.as_str()];
                    let Value::Object(settings) = settings else {
                        return Err(
                            self.invalid(&path, "expected an object like {\"level\": \"safe\"}")
                        );
                    };
                    let level_path = ["mcpServers", name, "tools", tool.as_str(), "level"];
                    if let Some(level) = self.opt_level(settings.get("level"), &level_path)? {
                        tool_levels.insert(tool.clone(), level);
                    }
                    for key in settings.keys().filter(|key| *key != "level") {
                        warnings.push(self.warning(
                            &["mcpServers", name, "tools", tool.as_str(), key],
                            format!("server '{name}', tool '{tool}': unknown key '{key}' ignored"),
                        ));
                    }
                }
            }
            Some(_) => {
                return Err(self.invalid(
                    &at("tools"),
                    "expected an object of tools by name, like {\"delete\": {\"level\": \"dangerous\"}}",
                ));
            }
        }
        Ok(ServerConfig {
            name: name.to_owned(),
            origin: origin.clone(),
            transport,
            disabled,
            level,
            tool_levels,
            call_timeout: self.opt_seconds(fields, &at("timeout"))?,
            startup_timeout: self.opt_seconds(fields, &at("startupTimeout"))?,
        })
    }

    fn opt_string(
        &self,
        fields: &Map<String, Value>,
        path: &[&str; 3],
    ) -> Result<Option<String>, ConfigError> {
        match fields.get(path[2]) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(self.invalid(path, "expected a string")),
        }
    }

    fn string_list(
        &self,
        fields: &Map<String, Value>,
        path: &[&str; 3],
    ) -> Result<Vec<String>, ConfigError> {
        match fields.get(path[2]) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text.clone()),
                    _ => Err(self.invalid(path, "expected an array of strings")),
                })
                .collect(),
            Some(_) => Err(self.invalid(path, "expected an array of strings")),
        }
    }

    fn string_map(
        &self,
        fields: &Map<String, Value>,
        path: &[&str; 3],
    ) -> Result<BTreeMap<String, String>, ConfigError> {
        match fields.get(path[2]) {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(key, value)| match value {
                    Value::String(text) => Ok((key.clone(), text.clone())),
                    // Numbers and booleans are common in hand-written env blocks.
                    Value::Number(number) => Ok((key.clone(), number.to_string())),
                    Value::Bool(flag) => Ok((key.clone(), flag.to_string())),
                    _ => Err(self.invalid(
                        &[path[0], path[1], path[2], key.as_str()],
                        "expected a string",
                    )),
                })
                .collect(),
            Some(_) => Err(self.invalid(path, "expected an object of strings")),
        }
    }

    fn opt_level(
        &self,
        value: Option<&Value>,
        path: &[&str],
    ) -> Result<Option<PermissionLevel>, ConfigError> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => {
                text.parse()
                    .map(Some)
                    .map_err(|error: gantry_tools::ParseNameError| {
                        self.invalid(path, error.to_string())
                    })
            }
            Some(_) => Err(self.invalid(path, "expected \"safe\", \"sensitive\" or \"dangerous\"")),
        }
    }

    fn opt_seconds(
        &self,
        fields: &Map<String, Value>,
        path: &[&str; 3],
    ) -> Result<Option<Duration>, ConfigError> {
        match fields.get(path[2]) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(number)) => match number.as_f64() {
                Some(seconds) if seconds > 0.0 && seconds <= 86_400.0 => {
                    Ok(Some(Duration::from_secs_f64(seconds)))
                }
                _ => Err(self.invalid(path, "expected a number of seconds between 0 and 86400")),
            },
            Some(_) => Err(self.invalid(path, "expected a number of seconds")),
        }
    }
}

/// The 1-based line where the key at `path` is written (each element a key inside the previous
/// one's object), found by scanning the text; `None` when it is not there.
pub(crate) fn locate_key(text: &str, path: &[&str]) -> Option<usize> {
    if path.is_empty() {
        return Some(1);
    }
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut line = 1usize;
    let mut matched = 0usize;
    // The depth of the object the next path element must be found in.
    let mut index = 0usize;
    while index < bytes.len() {
        match bytes[index] {
            b'\n' => line += 1,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth == matched && matched > 0 {
                    // Left the object where the next key had to be.
                    return None;
                }
                depth = depth.saturating_sub(1);
            }
            b'"' => {
                let start = index + 1;
                let mut end = start;
                let mut newlines = 0;
                while end < bytes.len() && bytes[end] != b'"' {
                    if bytes[end] == b'\\' {
                        end += 1;
                    } else if bytes[end] == b'\n' {
                        newlines += 1;
                    }
                    end += 1;
                }
                let key_line = line;
                line += newlines;
                let mut after = end + 1;
                while after < bytes.len() && bytes[after].is_ascii_whitespace() {
                    if bytes[after] == b'\n' {
                        line += 1;
                    }
                    after += 1;
                }
                let is_key = after < bytes.len() && bytes[after] == b':';
                if is_key && depth == matched + 1 {
                    let raw = &text[start..end.min(text.len())];
                    let key: String = serde_json::from_str(&format!("\"{raw}\""))
                        .unwrap_or_else(|_| raw.to_owned());
                    if key == path[matched] {
                        matched += 1;
                        if matched == path.len() {
                            return Some(key_line);
                        }
                    }
                }
                index = after;
                continue;
            }
            _ => {}
        }
        index += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user() -> ConfigOrigin {
        ConfigOrigin::User {
            path: PathBuf::from("/home/u/.config/gantry/mcp.json"),
        }
    }

    const SMALL: &str = r#"{"mcpServers": {"a": {"command": "x"}}}"#;

    fn project(root: &std::path::Path) -> ConfigOrigin {
        ConfigOrigin::Project {
            path: root.join(PROJECT_FILE),
            root: root.to_path_buf(),
        }
    }

    fn mkfifo(path: &std::path::Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn unreadable_reason(result: Result<Option<ConfigFile>, ConfigError>) -> String {
        match result {
            Err(ConfigError::Unreadable { reason, .. }) => reason,
            other => panic!("expected Unreadable, got {other:?}"),
        }
    }

    #[test]
    fn config_files_must_be_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        // A FIFO would block the read forever: refused without opening it.
        let fifo = dir.path().join("fifo.json");
        mkfifo(&fifo);
        let reason = unreadable_reason(read_config(ConfigOrigin::User { path: fifo }));
        assert!(reason.contains("not a regular file"), "{reason}");
        let reason = unreadable_reason(read_config(ConfigOrigin::User {
            path: dir.path().to_path_buf(),
        }));
        assert!(reason.contains("folder"), "{reason}");
        let device = dir.path().join("device.json");
        std::os::unix::fs::symlink("/dev/zero", &device).unwrap();
        let reason = unreadable_reason(read_config(ConfigOrigin::User { path: device }));
        assert!(reason.contains("device"), "{reason}");

        let project_dir = tempfile::tempdir().unwrap();
        mkfifo(&project_dir.path().join(PROJECT_FILE));
        let reason = unreadable_reason(read_config(project(project_dir.path())));
        assert!(reason.contains("not a regular file"), "{reason}");
    }

    #[test]
    fn config_files_are_size_capped() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("mcp.json");
        let padding = " ".repeat(usize::try_from(MAX_CONFIG_BYTES).unwrap());
        std::fs::write(&big, format!("{SMALL}{padding}")).unwrap();
        let reason = unreadable_reason(read_config(ConfigOrigin::User { path: big.clone() }));
        assert_eq!(reason, "larger than 1024 KiB");
        let error = read_config(ConfigOrigin::User { path: big }).unwrap_err();
        assert!(
            error.to_string().contains("mcp.json: larger than 1024 KiB"),
            "{error}"
        );
        // Exactly at the limit is fine.
        let fits = dir.path().join("fits.json");
        let padding = " ".repeat(usize::try_from(MAX_CONFIG_BYTES).unwrap() - SMALL.len());
        std::fs::write(&fits, format!("{SMALL}{padding}")).unwrap();
        assert!(
            read_config(ConfigOrigin::User { path: fits })
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn the_user_file_may_be_a_symlink_to_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles-mcp.json");
        std::fs::write(&real, SMALL).unwrap();
        let link = dir.path().join("mcp.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let file = read_config(ConfigOrigin::User { path: link })
            .unwrap()
            .unwrap();
        assert_eq!(file.servers.len(), 1);
        let missing = dir.path().join("none.json");
        assert!(
            read_config(ConfigOrigin::User { path: missing })
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_project_file_must_stay_inside_the_project() {
        let outside = tempfile::tempdir().unwrap();
        let elsewhere = outside.path().join("secret.json");
        std::fs::write(&elsewhere, SMALL).unwrap();
        let root = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.path().join(PROJECT_FILE)).unwrap();
        let reason = unreadable_reason(read_config(project(root.path())));
        assert!(reason.contains("must stay inside the project"), "{reason}");

        // A symlink to a file inside the project is followed.
        let inside = tempfile::tempdir().unwrap();
        std::fs::create_dir(inside.path().join("config")).unwrap();
        std::fs::write(inside.path().join("config/mcp.json"), SMALL).unwrap();
        std::os::unix::fs::symlink("config/mcp.json", inside.path().join(PROJECT_FILE)).unwrap();
        let file = read_config(project(inside.path())).unwrap().unwrap();
        assert_eq!(file.servers.len(), 1);

        let empty = tempfile::tempdir().unwrap();
        assert!(read_config(project(empty.path())).unwrap().is_none());
    }

    #[test]
    fn the_user_file_is_gantry_mcp_json_in_the_xdg_config_folder() {
        let expected_dir = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|dir| dir.is_absolute())
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
            .unwrap();
        assert_eq!(
            user_config_path().unwrap(),
            expected_dir.join("gantry/mcp.json")
        );
    }

    #[test]
    fn reads_the_ecosystem_format_with_gantry_overrides() {
        let text = r#"{
  "mcpServers": {
    "files": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/src"],
      "env": {"TOKEN": "${GITHUB_TOKEN}", "DEBUG": 1},
      "cwd": "tools",
      "level": "safe",
      "tools": {"write_file": {"level": "dangerous"}},
      "timeout": 90,
      "startupTimeout": 5.5,
      "autoApprove": ["x"]
    },
    "remote": {"type": "http", "url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer ${API_KEY}"}},
    "plain-url": {"url": "http://127.0.0.1:3001/mcp"},
    "old": {"type": "sse", "url": "http://127.0.0.1:3001/sse"},
    "off": {"command": "x", "disabled": true}
  }
}"#;
        let file = parse_config(text, user()).unwrap();
        let names: Vec<&str> = file.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["files", "remote", "plain-url", "old", "off"]);
        let files = &file.servers[0];
        assert_eq!(
            files.transport,
            TransportConfig::Stdio {
                command: "npx".into(),
                args: vec![
                    "-y".into(),
                    "@modelcontextprotocol/server-filesystem".into(),
                    "${HOME}/src".into()
                ],
                env: [
                    ("DEBUG".to_owned(), "1".to_owned()),
                    ("TOKEN".to_owned(), "${GITHUB_TOKEN}".to_owned())
                ]
                .into(),
                cwd: Some("tools".into()),
            }
        );
        assert_eq!(files.level, Some(PermissionLevel::Safe));
        assert_eq!(
            files.tool_levels.get("write_file"),
            Some(&PermissionLevel::Dangerous)
        );
        assert_eq!(files.call_timeout, Some(Duration::from_secs(90)));
        assert_eq!(files.startup_timeout, Some(Duration::from_millis(5500)));
        assert!(matches!(
            &file.servers[1].transport,
            TransportConfig::Http { headers, .. } if headers["Authorization"] == "Bearer ${API_KEY}"
        ));
        assert_eq!(file.servers[2].transport.kind(), "http");
        assert_eq!(file.servers[3].transport.kind(), "sse");
        assert!(file.servers[4].disabled);
        assert_eq!(file.warnings.len(), 1);
        assert_eq!(
            file.warnings[0],
            "/home/u/.config/gantry/mcp.json:12: server 'files': unknown key 'autoApprove' ignored"
        );
        assert_eq!(file.sha256, sha256_hex(text.as_bytes()));
    }

    #[test]
    fn a_wrong_type_names_the_file_the_line_and_the_key() {
        let text = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n    \"b\": {\n      \"command\": \"y\",\n      \"args\": \"--flag\"\n    }\n  }\n}\n";
        let error = parse_config(text, user()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "MCP config /home/u/.config/gantry/mcp.json:6: key 'mcpServers.b.args': expected an array of strings"
        );
    }

    #[test]
    fn bad_levels_transports_and_json_are_explained() {
        let cases = [
            (
                r#"{"mcpServers": {"a": {"command": "x", "level": "harmless"}}}"#,
                "key 'mcpServers.a.level': unknown permission level 'harmless' (expected one of: safe, sensitive, dangerous)",
            ),
            (
                r#"{"mcpServers": {"a": {"type": "websocket", "url": "ws://x"}}}"#,
                "key 'mcpServers.a.type': unknown transport 'websocket'",
            ),
            (
                r#"{"mcpServers": {"a": {"args": []}}}"#,
                "key 'mcpServers.a': a server needs \"command\"",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "timeout": -1}}}"#,
                "key 'mcpServers.a.timeout': expected a number of seconds",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "env": {"K": ["v"]}}}}"#,
                "key 'mcpServers.a.env.K': expected a string",
            ),
            (
                r#"{"mcpServers": []}"#,
                "key 'mcpServers': expected an object",
            ),
        ];
        for (text, expected) in cases {
            let error = parse_config(text, user()).unwrap_err().to_string();
            assert!(error.contains(expected), "{text}\n{error}");
        }
        let error = parse_config("{\n  \"mcpServers\": {,\n}", user()).unwrap_err();
        assert!(
            matches!(&error, ConfigError::Syntax { line: 2, .. }),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .starts_with("MCP config /home/u/.config/gantry/mcp.json:2:"),
            "{error}"
        );
    }

    #[test]
    fn unknown_top_level_keys_are_warnings_and_missing_servers_are_fine() {
        let file = parse_config(r#"{"globalShortcut": "x"}"#, user()).unwrap();
        assert!(file.servers.is_empty());
        assert_eq!(file.warnings.len(), 1);
        assert!(file.warnings[0].contains("unknown key 'globalShortcut' ignored"));
    }

    #[test]
    fn keys_are_located_by_path_not_by_first_occurrence() {
        let text =
            "{\n\"x\": {\"args\": 1},\n\"mcpServers\": {\n \"s\": {\n  \"args\": 2\n }\n}\n}";
        assert_eq!(locate_key(text, &["mcpServers", "s", "args"]), Some(5));
        assert_eq!(locate_key(text, &["x", "args"]), Some(2));
        assert_eq!(locate_key(text, &["mcpServers", "nope"]), None);
    }

    #[test]
    fn missing_files_are_not_errors() {
        let origin = ConfigOrigin::User {
            path: PathBuf::from("/definitely/not/here/mcp.json"),
        };
        assert_eq!(read_config(origin), Ok(None));
    }
}
